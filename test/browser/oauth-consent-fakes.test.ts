/**
 * The fake platforms' consent pages in a real Chromium, as the service's connect journeys use
 * them: a person opens the authorization address, ticks Pages, clicks "Allow" or "Cancel", and
 * lands on the callback with the platform's parameters; the connector then finishes the connect.
 *
 * Chromium is found at `CHROMIUM_PATH` (default `/usr/bin/chromium`). Without it these tests are
 * skipped, unless `REQUIRE_BROWSER=1` (CI), which makes them fail instead.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import type { AccountConnector } from "@postwire/core"
import { Effect } from "effect"
import type { BrowserContext } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aConnector, verifier } from "../platforms/connect/connectHarness.ts"
import * as FacebookOAuthFake from "../platforms/facebook/FacebookOAuthFake.ts"
import * as TikTokOAuthFake from "../platforms/tiktok/TikTokOAuthFake.ts"
import { hasChromium, launchChromium, type TestBrowser } from "../support/Chromium.ts"

describe.skipIf(!hasChromium)("the fake platforms' consent pages in Chromium", () => {
  let context: BrowserContext
  let browser: TestBrowser | undefined
  let callbackServer: Server
  let callbackOrigin: string
  let facebook: FacebookOAuthFake.FacebookOAuthFake
  let tiktok: TikTokOAuthFake.TikTokOAuthFake
  let connector: AccountConnector["Service"]

  beforeAll(async () => {
    callbackServer = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
      res.end("<!doctype html><title>Postwire callback</title><p>back at Postwire</p>")
    })
    await new Promise<void>((resolve) => callbackServer.listen(0, "127.0.0.1", resolve))
    callbackOrigin = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}`
    facebook = await FacebookOAuthFake.start()
    tiktok = await TikTokOAuthFake.start()
    connector = await Effect.runPromise(
      aConnector({
        pages: { appId: facebook.appId, appSecret: facebook.appSecret, authorizeUrl: `${facebook.url}/v23.0/dialog/oauth`, graphUrl: `${facebook.url}/v23.0` },
        shortvideo: { clientKey: tiktok.clientKey, clientSecret: tiktok.clientSecret, authorizeUrl: `${tiktok.url}/v2/auth/authorize/`, apiUrl: tiktok.url }
      })
    )
    browser = await launchChromium()
    context = browser.context
  })

  afterAll(async () => {
    await browser?.close()
    await facebook?.stop()
    await tiktok?.stop()
    await new Promise<void>((resolve) => (callbackServer ? callbackServer.close(() => resolve()) : resolve()))
  })

  it("Facebook: the person unticks one Page, allows, and the connector connects the other", async () => {
    const redirectUri = `${callbackOrigin}/connect/callback/pages`
    facebook.redirectUris.push(redirectUri)
    const url = await Effect.runPromise(
      connector.authorizationUrl({ platform: "pages", sandbox: false, state: "st_browser", redirectUri, codeVerifier: verifier })
    )
    const page = await context.newPage()
    await page.goto(url)
    expect(await page.getByRole("heading").textContent()).toBe("Postwire wants to access your Facebook account")
    await page.getByLabel("Kopi Budi").uncheck()
    await Promise.all([page.waitForURL(`${redirectUri}**`), page.getByRole("button", { name: "Allow" }).click()])
    const callback = new URL(page.url())
    expect(callback.searchParams.get("state")).toBe("st_browser")
    const identities = await Effect.runPromise(
      connector.exchange({ platform: "pages", sandbox: false, code: callback.searchParams.get("code")!, redirectUri, codeVerifier: verifier })
    )
    expect(identities.map((i) => i.handle)).toEqual(["Budi Bikes"])
    await page.close()
  })

  it("TikTok: the person cancels and lands on the callback with access_denied", async () => {
    const redirectUri = `${callbackOrigin}/connect/callback/shortvideo`
    tiktok.redirectUris.push(redirectUri)
    const url = await Effect.runPromise(
      connector.authorizationUrl({ platform: "shortvideo", sandbox: false, state: "st_cancel", redirectUri, codeVerifier: verifier })
    )
    const page = await context.newPage()
    await page.goto(url)
    await Promise.all([page.waitForURL(`${redirectUri}**`), page.getByRole("button", { name: "Cancel" }).click()])
    const callback = new URL(page.url())
    expect(callback.searchParams.get("error")).toBe("access_denied")
    expect(callback.searchParams.get("state")).toBe("st_cancel")
    expect(tiktok.count("token:authorization_code")).toBe(0)
    await page.close()
  })
})
