// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the text a person sees
/**
 * A platform whose connect starts with a form (a plugin's `connect.form`: a handle and an app
 * password), in a real Chromium: the person fills the hosted page's labelled fields, sees the
 * platform's refusal on the page with the password field empty again, types the right one, and
 * comes back to the workspace's `redirect_url` with the account connected.
 *
 * Chromium is found at `CHROMIUM_PATH` (default `/usr/bin/chromium`); without it this suite is
 * skipped, unless `REQUIRE_BROWSER=1` (CI). With `UPDATE_SCREENSHOTS=1` it also refreshes the
 * screenshot of `docs/accounts.md`.
 */
import { join } from "node:path"
import type { BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { guildPlugin, notesPlugin } from "../platforms/plugin/FormPlugins.ts"
import * as FormService from "../platforms/plugin/FormService.ts"
import { aKeyWithScopes } from "../support/Builders.ts"
import { aPageLandingAt, hasChromium, launchChromium, type TestBrowser } from "../support/Chromium.ts"
import { aConnectLink, aConnectServer } from "../support/Connect.ts"
import { call } from "../support/Http.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

const back = "https://app.example.com/accounts/connected"
const screenshots = process.env.UPDATE_SCREENSHOTS === "1"
const shot = (page: Page, name: string) =>
  screenshots ? page.screenshot({ path: join(import.meta.dirname, `../../docs/${name}.png`), fullPage: true }) : Promise.resolve()

describe.skipIf(!hasChromium)("a connect form in Chromium", () => {
  let server: TestServer
  let service: FormService.FormService
  let browser: TestBrowser | undefined
  let context: BrowserContext
  let liveKey: string

  beforeAll(async () => {
    service = await FormService.start()
    server = await aConnectServer((env, options) =>
      startServer("embedded", env, { ...options, plugins: [notesPlugin(service.url), guildPlugin()] })
    )
    liveKey = await aKeyWithScopes(server, ["posts:read", "accounts:write"], "live")
    browser = await launchChromium({ viewport: { width: 760, height: 900 } })
    context = browser.context
  })
  afterAll(async () => {
    await browser?.close()
    await server?.stop()
    await service?.stop()
  })

  const newPage = (): Promise<Page> => aPageLandingAt(context)

  it("asks for the handle and app password, shows the platform's refusal, then connects", async () => {
    const link = await aConnectLink(server, { platform: "notes", redirect_url: back }, liveKey)
    const page = await newPage()
    await page.goto(link.body.url)

    expect(await page.locator("h1").innerText()).toBe("Connect your Notes account")
    await page.getByLabel("Handle").fill("ana.example")
    await page.getByLabel("App password").fill("not-the-password")
    await page.getByRole("button", { name: "Continue to Notes" }).click()
    await page.waitForURL((url) => url.pathname.endsWith("/start"))

    expect(await page.getByRole("alert").innerText()).toContain("The platform did not complete the connection.")
    expect(await page.getByLabel("Handle").inputValue()).toBe("ana.example")
    expect(await page.getByLabel("App password").inputValue()).toBe("")
    expect(await page.content()).not.toContain("not-the-password")
    await shot(page, "connect-form")

    await page.getByLabel("App password").fill(FormService.person.password)
    await Promise.all([
      page.waitForURL((url) => url.href.startsWith(back)),
      page.getByRole("button", { name: "Continue to Notes" }).click()
    ])
    const query = new URL(page.url()).searchParams
    expect(query.get("status")).toBe("connected")
    const account = (await call(server.baseUrl, "GET", `/v1/accounts/${query.get("account_id")}`, { key: liveKey })).body
    expect(account).toMatchObject({ platform: "notes", handle: "ana.example", status: "connected" })
  })

  it("shows an address that is not http(s) as the field's problem, linked from the summary", async () => {
    const link = await aConnectLink(server, { platform: "guild", redirect_url: back }, liveKey)
    const page = await newPage()
    await page.goto(link.body.url)
    await page.getByLabel("Your server's address").fill("ftp://guild.example")
    await page.getByRole("button", { name: "Continue to Guild" }).click()
    await page.waitForURL((url) => url.pathname.endsWith("/start"))

    const field = page.getByLabel("Your server's address")
    expect(await field.getAttribute("aria-invalid")).toBe("true")
    expect(await page.getByRole("alert").getByRole("link").innerText()).toBe("Your server's address: it must use https")
    expect(await page.locator("#field-server-error").innerText()).toBe("it must use https")

    // Typing again starts from what was typed; the way on to the server's own page is in
    // test/platforms/plugin/ConnectForm.test.ts (the page's CSP lets a form lead only to https or
    // to Postwire itself, and the fake server here is plain http).
    expect(await field.inputValue()).toBe("ftp://guild.example")
  })
})
