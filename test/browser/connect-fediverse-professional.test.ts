// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the text a person sees
/**
 * Connecting Mastodon and LinkedIn accounts in a real Chromium, through Postwire's hosted connect
 * page and the platforms' fake authorization pages:
 *
 * - Mastodon: the person types their server's address on Postwire's page, is refused for an
 *   address inside the service's network, types the fake server's, authorizes on the server's
 *   page and comes back connected. The fake server is plain `http://` on loopback (reached with
 *   the deployment's loopback switch, `POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS=1`); the connect
 *   page's CSP lets its form lead only to `https:` servers or to Postwire itself, which every real
 *   Mastodon server is, so this browser alone runs with CSP bypassed (Playwright's `bypassCSP`).
 * - LinkedIn: the person continues to LinkedIn's consent page, allows, and picks on Postwire's
 *   picker which of the member and the company pages they administer to connect.
 *
 * Chromium is found at `CHROMIUM_PATH` (default `/usr/bin/chromium`); without it this suite is
 * skipped, unless `REQUIRE_BROWSER=1` (CI).
 */
import { Effect, Exit, Scope } from "effect"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as MastodonFake from "../platforms/fediverse/MastodonFake.ts"
import * as LinkedInOAuthFake from "../platforms/linkedin/LinkedInOAuthFake.ts"
import { aKeyWithScopes } from "../support/Builders.ts"
import { aPageLandingAt, hasChromium, launchChromium, type TestBrowser } from "../support/Chromium.ts"
import { aConnectLink, aConnectServer } from "../support/Connect.ts"
import { call } from "../support/Http.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

const back = "https://app.example.com/accounts/connected"

describe.skipIf(!hasChromium)("connecting Mastodon and LinkedIn accounts in Chromium", () => {
  let server: TestServer
  let mastodon: MastodonFake.MastodonFake
  let linkedin: LinkedInOAuthFake.LinkedInOAuthFake
  let browser: TestBrowser
  let liveKey: string
  const scope = Effect.runSync(Scope.make())

  beforeAll(async () => {
    mastodon = await Effect.runPromise(Scope.provide(scope)(MastodonFake.make()))
    mastodon.consentPage = true
    linkedin = await LinkedInOAuthFake.start()
    server = await aConnectServer((env, options) => startServer("embedded", env, options), {
      POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS: "1",
      POSTWIRE_LINKEDIN_CLIENT_ID: linkedin.clientId,
      POSTWIRE_LINKEDIN_CLIENT_SECRET: linkedin.clientSecret,
      POSTWIRE_LINKEDIN_OAUTH_URL: `${linkedin.url}/oauth/v2`,
      POSTWIRE_LINKEDIN_API_URL: linkedin.url,
      POSTWIRE_LINKEDIN_PAGES: "true"
    })
    linkedin.redirectUris.push(`${new URL(server.baseUrl).origin.replace("localhost", "127.0.0.1")}/connect/callback/professional`)
    liveKey = await aKeyWithScopes(server, ["posts:read", "posts:write", "accounts:write"], "live")
    browser = await launchChromium({ viewport: { width: 760, height: 900 }, bypassCSP: true })
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await server?.stop()
    await linkedin?.stop()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  const newPage = (): Promise<Page> => aPageLandingAt(browser.context)

  const linkFor = async (platform: string) => {
    const link = await aConnectLink(server, { platform, redirect_url: back }, liveKey)
    if (link.status !== 201) throw new Error(`link failed: ${link.status} ${JSON.stringify(link.body)}`)
    return link.body.url as string
  }
  const accountOf = async (id: string) => (await call(server.baseUrl, "GET", `/v1/accounts/${id}`, { key: liveKey })).body
  const returned = (page: Page) => new URL(page.url()).searchParams

  it("connects a Mastodon account: the server typed on Postwire's page, authorized on the server's page", async () => {
    const page = await newPage()
    await page.goto(await linkFor("fediverse"))
    expect(await page.locator("h1").innerText()).toBe("Connect your Mastodon account")

    // An address inside the service's own network is refused at the field; nothing is sent to it.
    await page.getByLabel("Your Mastodon server").fill("192.168.1.20")
    await page.getByRole("button", { name: "Continue to Mastodon" }).click()
    await page.waitForURL((url) => url.pathname.endsWith("/start"))
    const field = page.getByLabel("Your Mastodon server")
    expect(await field.getAttribute("aria-invalid")).toBe("true")
    expect(await page.locator("#field-server-error").innerText()).toBe("must be a Mastodon server on the public internet: a private address")
    expect(await field.inputValue()).toBe("192.168.1.20")

    await field.fill(mastodon.origin)
    await page.getByRole("button", { name: "Continue to Mastodon" }).click()
    await page.waitForURL((url) => url.origin === mastodon.origin)
    expect(await page.locator("h1").innerText()).toBe("Authorization required")
    expect(await page.locator("body").innerText()).toContain("Postwire would like permission to access your account @maya")
    await Promise.all([page.waitForURL((url) => url.href.startsWith(back)), page.getByRole("button", { name: "Authorize" }).click()])

    expect(await page.locator("h1").innerText()).toBe("Back at Acme")
    expect(returned(page).get("status")).toBe("connected")
    const account = await accountOf(returned(page).get("account_id")!)
    expect(account).toMatchObject({
      platform: "fediverse",
      status: "connected",
      sandbox: false,
      handle: `maya@${new URL(mastodon.origin).host}`,
      display_name: "Maya Bakes"
    })
    expect(mastodon.count("apps")).toBe(1)
  })

  it("comes back with error=connect_refused when the person denies on the Mastodon server's page", async () => {
    const page = await newPage()
    await page.goto(await linkFor("fediverse"))
    await page.getByLabel("Your Mastodon server").fill(mastodon.origin)
    await page.getByRole("button", { name: "Continue to Mastodon" }).click()
    await page.waitForURL((url) => url.origin === mastodon.origin)
    await Promise.all([page.waitForURL((url) => url.href.startsWith(back)), page.getByRole("button", { name: "Deny" }).click()])
    expect(returned(page).get("status")).toBe("error")
    expect(returned(page).get("error")).toBe("connect_refused")
  })

  it("connects the company page and the member the person picks after LinkedIn's consent", async () => {
    const page = await newPage()
    await page.goto(await linkFor("professional"))
    expect(await page.locator("h1").innerText()).toBe("Connect your LinkedIn account")
    await page.getByRole("button", { name: "Continue to LinkedIn" }).click()
    await page.waitForURL((url) => url.origin === linkedin.url)
    expect(await page.locator("h1").innerText()).toBe("Postwire wants to access your LinkedIn account")
    await page.getByRole("button", { name: "Allow" }).click()
    await page.waitForURL((url) => url.pathname === "/connect/callback/professional")

    expect(await page.locator("h1").innerText()).toBe("Choose the LinkedIn accounts to connect")
    const offered = await page.locator("label").allInnerTexts()
    expect(offered.map((text) => text.split("\n")[0])).toEqual(["Dewi Lestari", "Roti Bakery", "Kopi Co"])
    // Nothing chosen: the picker asks again.
    await page.getByRole("button", { name: "Connect the chosen accounts" }).click()
    expect(await page.getByRole("alert").innerText()).toContain("Choose at least one account.")
    await page.getByLabel(/Roti Bakery/).check()
    await page.getByLabel(/Dewi Lestari/).check()
    await Promise.all([page.waitForURL((url) => url.href.startsWith(back)), page.getByRole("button", { name: "Connect the chosen accounts" }).click()])

    expect(returned(page).get("status")).toBe("connected")
    const ids = returned(page).get("account_id")!.split(",")
    expect(ids).toHaveLength(2)
    const accounts = await Promise.all(ids.map(accountOf))
    expect(accounts.map((a) => [a.handle, a.display_name, a.status]).sort()).toEqual([
      ["Dewi Lestari", "Dewi Lestari", "connected"],
      ["roti-bakery", "Roti Bakery", "connected"]
    ])
  })
})
