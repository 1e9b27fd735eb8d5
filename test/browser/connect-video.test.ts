// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the text a person sees
/**
 * Connecting a YouTube channel in a real Chromium, through Postwire's hosted connect page: the
 * person continues to Google's consent (the fake grants at once, as a signed-in person who
 * allows), picks on Postwire's picker which of the Google account's channels to connect
 * (`channels.list?mine=true`), and comes back connected.
 *
 * Chromium is found at `CHROMIUM_PATH` (default `/usr/bin/chromium`); without it this suite is
 * skipped, unless `REQUIRE_BROWSER=1` (CI).
 */
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as YouTubeFake from "../platforms/youtube/YouTubeFake.ts"
import { aKeyWithScopes } from "../support/Builders.ts"
import { aPageLandingAt, launchChromium, hasChromium, type TestBrowser } from "../support/Chromium.ts"
import { aConnectLink, aConnectServer } from "../support/Connect.ts"
import { call } from "../support/Http.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

const back = "https://app.example.com/accounts/connected"

describe.skipIf(!hasChromium)("connecting a YouTube channel in Chromium", () => {
  let server: TestServer
  let fake: YouTubeFake.YouTubeFake
  let browser: TestBrowser
  let liveKey: string
  const scope = Effect.runSync(Scope.make())

  beforeAll(async () => {
    fake = await Effect.runPromise(Scope.provide(scope)(YouTubeFake.make()))
    // The Google account owns a second channel (a brand account): the picker offers both.
    fake.channels.push({ id: "UCkopi0000000000000000bb", title: "Kopi Co", customUrl: "@kopico", uploads: "UUkopi0000000000000000bb" })
    server = await aConnectServer((env, options) => startServer("embedded", env, options), YouTubeFake.connectEnv(fake))
    liveKey = await aKeyWithScopes(server, ["posts:read", "posts:write", "accounts:write"], "live")
    browser = await launchChromium({ viewport: { width: 760, height: 900 } })
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await server?.stop()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  it("connects the channel the person picks after Google's consent", async () => {
    const link = await aConnectLink(server, { platform: "video", redirect_url: back }, liveKey)
    expect(link.status, JSON.stringify(link.body)).toBe(201)
    const page = await aPageLandingAt(browser.context)
    await page.goto(link.body.url as string)
    expect(await page.locator("h1").innerText()).toBe("Connect your YouTube account")
    // Google's consent grants at once and sends the browser back to Postwire's callback.
    await page.getByRole("button", { name: "Continue to YouTube" }).click()
    await page.waitForURL((url) => url.pathname === "/connect/callback/video")
    expect(fake.count("authorize")).toBe(1)

    expect(await page.locator("h1").innerText()).toBe("Choose the YouTube accounts to connect")
    const offered = await page.locator("label").allInnerTexts()
    expect(offered.map((text) => text.split("\n")[0])).toEqual(["Maya Bakes", "Kopi Co"])
    // Nothing chosen: the picker asks again.
    await page.getByRole("button", { name: "Connect the chosen accounts" }).click()
    expect(await page.getByRole("alert").innerText()).toContain("Choose at least one account.")
    await page.getByLabel(/Kopi Co/).check()
    await Promise.all([page.waitForURL((url) => url.href.startsWith(back)), page.getByRole("button", { name: "Connect the chosen accounts" }).click()])

    expect(await page.locator("h1").innerText()).toBe("Back at Acme")
    const returned = new URL(page.url()).searchParams
    expect(returned.get("status")).toBe("connected")
    const account = (await call(server.baseUrl, "GET", `/v1/accounts/${returned.get("account_id")}`, { key: liveKey })).body
    expect(account).toMatchObject({ platform: "video", status: "connected", sandbox: false, handle: "kopico", display_name: "Kopi Co" })
    expect(JSON.stringify(account)).not.toMatch(/ya29|1\/\/0g/)
  })
})
