// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the text a person sees
/**
 * Connecting a Bluesky account through the hosted connect page in a real Chromium, against the
 * reference PDS (`@atproto/pds` with its own PLC directory, on loopback; see
 * test/platforms/atproto/RealPds.ts): the person types their handle and an app password they
 * made on the PDS; a wrong password comes back as the platform's refusal with the password field
 * empty; the right one connects the account, which then publishes a post that the PDS holds.
 * With the handle alone, the account connects through atproto OAuth (PAR, PKCE, DPoP) on the
 * PDS's own sign-in and consent pages, and publishes with the DPoP-bound tokens.
 *
 * Chromium is found at `CHROMIUM_PATH` (default `/usr/bin/chromium`); without it this suite is
 * skipped, unless `REQUIRE_BROWSER=1` (CI).
 */
import type { BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as RealPds from "../platforms/atproto/RealPds.ts"
import { aKeyWithScopes } from "../support/Builders.ts"
import { aPageLandingAt, hasChromium, launchChromium, type TestBrowser } from "../support/Chromium.ts"
import { aConnectLink, aConnectServer } from "../support/Connect.ts"
import { eventually } from "../support/Eventually.ts"
import { call } from "../support/Http.ts"
import { aPng } from "../support/Media.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

const back = "https://app.example.com/accounts/connected"

describe.skipIf(!hasChromium)("Bluesky connect in Chromium against the reference PDS", () => {
  let pds: RealPds.RealPds
  let maya: Awaited<ReturnType<RealPds.RealPds["account"]>>
  let server: TestServer
  let browser: TestBrowser | undefined
  let context: BrowserContext
  let liveKey: string

  beforeAll(async () => {
    pds = await RealPds.start()
    maya = await pds.account("maya")
    server = await aConnectServer((env, options) =>
      startServer("embedded", { ...env, POSTWIRE_ATPROTO_SERVICE_URL: pds.url, POSTWIRE_ATPROTO_PLC_URL: pds.plcUrl, POSTWIRE_PUBLISH_POLL_MS: "100" }, options)
    )
    liveKey = await aKeyWithScopes(server, ["posts:read", "posts:write", "accounts:write"], "live")
    browser = await launchChromium({ viewport: { width: 760, height: 900 } })
    context = browser.context
  })
  afterAll(async () => {
    await browser?.close()
    await server?.stop()
    await pds?.stop()
  })

  /**
   * A tab that lands at the app; with `callback`, the request to Postwire's callback goes on to the
   * address it gives instead (as an attacker's server would send the person back with its own answer).
   */
  const newPage = (callback?: (url: URL) => URL): Promise<Page> =>
    aPageLandingAt(context, callback === undefined ? {} : { divert: { pattern: `${server.baseUrl}/connect/callback/atproto*`, to: callback } })

  /** Publishes a post with one image to the account through Postwire's API; the text of the record the PDS then holds. */
  const publishedText = async (accountId: string, did: string, caption: string): Promise<string> => {
    const upload = await call(server.baseUrl, "POST", "/v1/media", { key: liveKey, body: { data: Buffer.from(aPng({ width: 60, height: 40 })).toString("base64") } })
    expect(upload.status).toBe(201)
    const created = await call(server.baseUrl, "POST", "/v1/posts", {
      key: liveKey,
      body: { profile_id: server.profileId, caption, media: [upload.body.id], approval: { mode: "none" }, targets: [{ account_id: accountId }] }
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const post = await eventually(
      () => call(server.baseUrl, "GET", `/v1/posts/${created.body.id}`, { key: liveKey }),
      (reply) => reply.body.status === "published" || reply.body.status === "failed",
      "the Bluesky post to publish",
      { intervalMs: 200 }
    )
    expect(post.body.status, JSON.stringify(post.body.targets[0])).toBe("published")
    const rkey = String(post.body.targets[0].permalink).split("/").at(-1)!
    const record = await pds.xrpc("com.atproto.repo.getRecord", { params: { repo: did, collection: "app.bsky.feed.post", rkey } })
    expect(record.status).toBe(200)
    return record.json.value.text
  }

  it("connects with a handle and an app password made on the PDS, after a wrong one is refused, and publishes with it", async () => {
    const link = await aConnectLink(server, { platform: "atproto", redirect_url: back }, liveKey)
    expect(link.status).toBe(201)
    const page = await newPage()
    await page.goto(link.body.url)

    expect(await page.locator("h1").innerText()).toBe("Connect your Bluesky account")
    await page.getByLabel("Handle or DID").fill(`@${maya.handle}`)
    await page.getByLabel("App password").fill("wron-gpas-swor-dxxx")
    await page.getByRole("button", { name: "Continue to Bluesky" }).click()
    await page.waitForURL((url) => url.pathname.endsWith("/start"))

    // The PDS refused the password: said on the page, the password not kept in it.
    expect(await page.getByRole("alert").innerText()).toContain("The platform did not complete the connection.")
    expect(await page.getByLabel("App password").inputValue()).toBe("")
    expect(await page.content()).not.toContain("wron-gpas-swor-dxxx")

    await page.getByLabel("App password").fill(maya.appPassword)
    await Promise.all([
      page.waitForURL((url) => url.href.startsWith(back)),
      page.getByRole("button", { name: "Continue to Bluesky" }).click()
    ])
    const query = new URL(page.url()).searchParams
    expect(query.get("status")).toBe("connected")
    const accountId = query.get("account_id")!
    const account = (await call(server.baseUrl, "GET", `/v1/accounts/${accountId}`, { key: liveKey })).body
    expect(account).toMatchObject({ platform: "atproto", handle: maya.handle, status: "connected" })

    // The sealed session works: a post published through Postwire is on the PDS.
    expect(await publishedText(accountId, maya.did, "Connected from the browser")).toBe("Connected from the browser")
  })

  it("connects through the PDS's own OAuth sign-in and consent pages (PAR, PKCE, DPoP) when no app password is given, and publishes with DPoP-bound tokens", async () => {
    const ana = await pds.account("ana")
    const link = await aConnectLink(server, { platform: "atproto", redirect_url: back }, liveKey)
    // The hosted page's form may lead only to https or to Postwire itself (its CSP), and this PDS
    // is plain http on loopback: the start is sent as JSON (as an app's own connect screen does),
    // and the cookie it sets, which binds the connection to the browser, is put in Chromium.
    const started = await fetch(`${link.body.url}/start`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ fields: { identifier: ana.handle } })
    })
    const answer = (await started.json()) as { status: string; url: string }
    const [cookie] = started.headers.getSetCookie()
    const [name, value] = cookie!.split(";")[0]!.split("=") as [string, string]
    await context.addCookies([{ name, value, url: new URL(link.body.url).origin }])
    const page = await newPage()
    expect(answer.status).toBe("redirect")
    const authorize = new URL(answer.url)
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${pds.url}/oauth/authorize`)
    expect(authorize.searchParams.get("request_uri")).toMatch(/^urn:ietf:params:oauth:request_uri:/)

    await page.goto(answer.url)
    // The PDS's own pages: the handle is filled in from the login hint; password, then consent.
    await page.locator("input[type=password]").fill(ana.password)
    await page.locator("button[type=submit]").click()
    await page.getByText("Authorize").first().waitFor()
    await Promise.all([page.waitForURL((url) => url.href.startsWith(back)), page.locator("button[type=submit]").click()])
    const query = new URL(page.url()).searchParams
    expect(query.get("status")).toBe("connected")
    const accountId = query.get("account_id")!
    const account = (await call(server.baseUrl, "GET", `/v1/accounts/${accountId}`, { key: liveKey })).body
    expect(account).toMatchObject({ platform: "atproto", handle: ana.handle, status: "connected" })

    expect(await publishedText(accountId, ana.did, "Signed in with OAuth")).toBe("Signed in with OAuth")
  })

  // RFC 9207 and the atproto OAuth profile: the callback names the server that answered (`iss`),
  // and the client compares it with the issuer it resolved for the handle (a mix-up attack
  // otherwise: another server's code sent back to this callback).
  it("refuses an OAuth answer whose iss is not the account's server: connect_failed, no account made", async () => {
    const ben = await pds.account("ben")
    const link = await aConnectLink(server, { platform: "atproto", redirect_url: back }, liveKey)
    const started = await fetch(`${link.body.url}/start`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ fields: { identifier: ben.handle } })
    })
    const answer = (await started.json()) as { status: string; url: string }
    const [cookie] = started.headers.getSetCookie()
    const [name, value] = cookie!.split(";")[0]!.split("=") as [string, string]
    await context.addCookies([{ name, value, url: new URL(link.body.url).origin }])
    const sentBack: Array<string | null> = []
    const page = await newPage((url) => {
      sentBack.push(url.searchParams.get("iss"))
      const forged = new URL(url)
      forged.searchParams.set("iss", "https://auth.elsewhere.example")
      return forged
    })
    const before = (await call(server.baseUrl, "GET", "/v1/accounts?platform=atproto&limit=100", { key: liveKey })).body.data.length
    await page.goto(answer.url)
    await page.locator("input[type=password]").fill(ben.password)
    await page.locator("button[type=submit]").click()
    await page.getByText("Authorize").first().waitFor()
    await Promise.all([page.waitForURL((url) => url.href.startsWith(back)), page.locator("button[type=submit]").click()])
    // The PDS did name itself (its issuer); the forged name is refused.
    const issuer = ((await (await fetch(`${pds.url}/.well-known/oauth-authorization-server`)).json()) as { issuer: string }).issuer
    expect(sentBack).toEqual([issuer])
    const query = new URL(page.url()).searchParams
    expect(query.get("status")).toBe("error")
    expect(query.get("error")).toBe("connect_failed")
    const after = (await call(server.baseUrl, "GET", "/v1/accounts?platform=atproto&limit=100", { key: liveKey })).body.data.length
    expect(after).toBe(before)
    await page.close()
  })
})
