// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the text a person sees
/**
 * The connect journey in a real Chromium, driven by playwright-core: a person opens Postwire's
 * connect link, continues to the platform (the fake authorization servers' consent pages, or the
 * sandbox's simulated one), answers it, and comes back to the workspace's `redirect_url`.
 *
 * Chromium is found at `CHROMIUM_PATH` (default `/usr/bin/chromium`). Without it these tests are
 * skipped, unless `REQUIRE_BROWSER=1` (CI). With `UPDATE_SCREENSHOTS=1` they also refresh the
 * screenshots of `docs/accounts.md`.
 */
import { join } from "node:path"
import type { BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aKeyWithScopes } from "../support/Builders.ts"
import { aPageLandingAt, hasChromium, launchChromium, type TestBrowser } from "../support/Chromium.ts"
import { aConnectLink, aConnectServer } from "../support/Connect.ts"
import { type PlatformFakes, platformFakes } from "../support/Fakes.ts"
import { call } from "../support/Http.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"


const back = "https://app.example.com/accounts/connected"
const screenshots = process.env.UPDATE_SCREENSHOTS === "1"
const shot = (page: Page, name: string) =>
  screenshots ? page.screenshot({ path: join(import.meta.dirname, `../../docs/${name}.png`), fullPage: true }) : Promise.resolve()

describe.skipIf(!hasChromium)("the connect journey in Chromium", () => {
  let server: TestServer
  let fakes: PlatformFakes
  let context: BrowserContext
  let browser: TestBrowser | undefined
  let liveKey: string

  beforeAll(async () => {
    fakes = await platformFakes()
    server = await aConnectServer((env, options) => startServer("embedded", env, options), fakes.env)
    fakes.register(server.baseUrl)
    liveKey = await aKeyWithScopes(server, ["posts:read", "posts:write", "accounts:write"], "live")
    browser = await launchChromium({ viewport: { width: 760, height: 900 } })
    context = browser.context
  })

  afterAll(async () => {
    await browser?.close()
    await server?.stop()
    await fakes?.stop()
  })

  const newPage = (acceptLanguage = "en-GB,en;q=0.9"): Promise<Page> => aPageLandingAt(context, { acceptLanguage })

  const linkFor = async (platform: string, key: string, extra: Record<string, unknown> = {}) => {
    const link = await aConnectLink(server, { platform, redirect_url: back, ...extra }, key)
    if (link.status !== 201) throw new Error(`link failed: ${link.status} ${JSON.stringify(link.body)}`)
    return link.body as { url: string }
  }
  const accountOf = async (id: string) => (await call(server.baseUrl, "GET", `/v1/accounts/${id}`, { key: liveKey })).body
  const returned = (page: Page) => new URL(page.url()).searchParams

  it.each([
    ["shortvideo", "TikTok", () => fakes.shortvideo.person.username],
    ["photo", "Instagram", () => fakes.photo.person.username],
    ["textpost", "Threads", () => fakes.textpost.person.username]
  ] as const)("connects a %s account: Postwire's page, the platform's consent, back to the app", async (platform, name, handle) => {
    const page = await newPage()
    await page.goto((await linkFor(platform, liveKey)).url)

    expect(await page.locator("h1").innerText()).toBe(`Connect your ${name} account`)
    // The workspace's and the profile's names are isolated (U+2068 … U+2069) inside the sentence.
    expect(await page.locator("[data-asks]").innerText()).toContain("\u2068default\u2069 asks you to connect")
    expect(await page.locator("[data-asks]").innerText()).toContain("\u2068Default profile\u2069")
    await page.getByRole("button", { name: `Continue to ${name}` }).click()
    await page.waitForURL((url) => url.origin === fakes[platform].url)
    await Promise.all([page.waitForURL((url) => url.href.startsWith(back)), page.getByRole("button", { name: "Allow" }).click()])

    expect(await page.locator("h1").innerText()).toBe("Back at Acme")
    expect(returned(page).get("status")).toBe("connected")
    const account = await accountOf(returned(page).get("account_id")!)
    expect(account).toMatchObject({ platform, status: "connected", sandbox: false, handle: handle() })
  })

  it("connects the two Facebook Pages the person ticks on Postwire's picker", async () => {
    const page = await newPage()
    await page.goto((await linkFor("pages", liveKey)).url)
    expect(await page.getByText("You will choose which of your Facebook Pages to connect.").count()).toBe(1)
    await page.getByRole("button", { name: "Continue to Facebook Pages" }).click()
    await page.waitForURL((url) => url.origin === fakes.pages.url)
    await page.getByRole("button", { name: "Allow" }).click()
    await page.waitForURL((url) => url.pathname === "/connect/callback/pages")

    expect(await page.locator("h1").innerText()).toBe("Choose the Pages to connect")
    await page.getByLabel("Kopi Budi").check()
    await page.getByLabel("Budi Bikes").check()
    await shot(page, "connect-pages-picker")
    await Promise.all([page.waitForURL((url) => url.href.startsWith(back)), page.getByRole("button", { name: "Connect the chosen Pages" }).click()])

    const ids = returned(page).get("account_id")!.split(",")
    expect(ids).toHaveLength(2)
    const names = (await Promise.all(ids.map(accountOf))).map((a) => a.display_name).sort()
    expect(names).toEqual(["Budi Bikes", "Kopi Budi"])
  })

  it("comes back with error=connect_refused when the person cancels on the platform", async () => {
    const page = await newPage()
    await page.goto((await linkFor("shortvideo", liveKey)).url)
    await page.getByRole("button", { name: "Continue to TikTok" }).click()
    await page.waitForURL((url) => url.origin === fakes.shortvideo.url)
    await Promise.all([page.waitForURL((url) => url.href.startsWith(back)), page.getByRole("button", { name: "Cancel" }).click()])

    expect(returned(page).get("status")).toBe("error")
    expect(returned(page).get("error")).toBe("connect_refused")
  })

  it("runs the whole sandbox journey with a test key and no platform app, in Indonesian too", async () => {
    const page = await newPage("id-ID,id;q=0.9")
    await page.goto((await linkFor("shortvideo", server.testKey)).url)
    expect(await page.locator("h1").innerText()).toBe("Hubungkan akun TikTok Anda")
    await page.getByRole("link", { name: "English" }).click()
    expect(await page.locator("h1").innerText()).toBe("Connect your TikTok account")
    expect(await page.locator("[data-sandbox]").innerText()).toContain("sandbox")
    await shot(page, "connect-page")

    await page.getByRole("button", { name: "Continue to TikTok" }).click()
    await page.waitForURL((url) => url.pathname === "/connect/sandbox/authorize")
    // The simulated platform speaks the browser's language, as the real ones do.
    expect(await page.locator("h1").innerText()).toBe("TikTok sandbox: izinkan akses?")
    await page.getByRole("link", { name: "English" }).click()
    expect(await page.locator("h1").innerText()).toBe("Sandbox TikTok: allow access?")
    await shot(page, "connect-sandbox-consent")
    await page.getByLabel("Account handle").fill("Not Valid!")
    await page.getByRole("button", { name: "Allow" }).click()
    expect(await page.getByRole("alert").innerText()).toContain("lowercase letters")
    await page.getByLabel("Account handle").fill("warung_kopi")
    await Promise.all([page.waitForURL((url) => url.href.startsWith(back)), page.getByRole("button", { name: "Allow" }).click()])

    const account = await (await call(server.baseUrl, "GET", `/v1/accounts/${returned(page).get("account_id")}`, { key: server.testKey })).body
    expect(account).toMatchObject({ handle: "warung_kopi", sandbox: true, status: "connected" })
  })
})
