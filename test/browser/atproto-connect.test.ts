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
import { accountContext, ConnectStore, CredentialsCipher, Store, TokenRenewal } from "@postwire/core"
import { Ids } from "@postwire/domain"
import { Effect, Option } from "effect"
import type { JsonWebKey } from "node:crypto"
import type { BrowserContext, Page } from "playwright-core"
import * as OAuth from "../../packages/platforms/src/atproto/OAuth.ts"
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

/** An OAuth session as Postwire seals it (`Xrpc.AtprotoCredentials` with its `oauth` binding). */
interface OAuthSession {
  readonly access_jwt: string
  readonly refresh_jwt: string
  readonly oauth: { readonly token_endpoint: string; readonly revocation_endpoint: string | null; readonly client_id: string; readonly dpop_jwk: JsonWebKey }
}

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

  /**
   * Connects `person` through atproto OAuth: the start sent as JSON, then the PDS's own sign-in
   * and consent pages in Chromium; the connected account's id.
   */
  const connectWithOAuth = async (person: Awaited<ReturnType<RealPds.RealPds["account"]>>): Promise<string> => {
    const link = await aConnectLink(server, { platform: "atproto", redirect_url: back }, liveKey)
    // The hosted page's form may lead only to https or to Postwire itself (its CSP), and this PDS
    // is plain http on loopback: the start is sent as JSON (as an app's own connect screen does),
    // and the cookie it sets, which binds the connection to the browser, is put in Chromium.
    const started = await fetch(`${link.body.url}/start`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ fields: { identifier: person.handle } })
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
    await page.locator("input[type=password]").fill(person.password)
    await page.locator("button[type=submit]").click()
    await page.getByText("Authorize").first().waitFor()
    await Promise.all([page.waitForURL((url) => url.href.startsWith(back)), page.locator("button[type=submit]").click()])
    const query = new URL(page.url()).searchParams
    await page.close()
    expect(query.get("status")).toBe("connected")
    const accountId = query.get("account_id")!
    const account = (await call(server.baseUrl, "GET", `/v1/accounts/${accountId}`, { key: liveKey })).body
    expect(account).toMatchObject({ platform: "atproto", handle: person.handle, status: "connected" })
    return accountId
  }

  it("connects through the PDS's own OAuth sign-in and consent pages (PAR, PKCE, DPoP) when no app password is given, and publishes with DPoP-bound tokens", async () => {
    const ana = await pds.account("ana")
    const accountId = await connectWithOAuth(ana)
    expect(await publishedText(accountId, ana.did, "Signed in with OAuth")).toBe("Signed in with OAuth")
  })

  /** The OAuth session Postwire holds (sealed) for an account: its tokens and DPoP key. */
  const storedSession = (accountId: string) =>
    server.read(
      Effect.gen(function* () {
        const store = yield* Store
        const cipher = yield* CredentialsCipher
        const account = Option.getOrThrow(yield* store.getAccount(Ids.unchecked("workspace", server.workspaceId), Ids.unchecked("account", accountId)))
        const opened = cipher.open(account.credentials ?? "", accountContext(account.workspaceId, account.id))
        return JSON.parse(Option.getOrThrow(opened)) as OAuthSession
      }) as Effect.Effect<OAuthSession, never, Store>
    )

  /**
   * Runs the server's own token refresh for one account now, as its renewal loop does when the
   * refresh is due: the claim is made as of 40 minutes from now (past halfway through the PDS's
   * one-hour access token), while the DPoP proofs carry the real time, which the PDS checks.
   */
  const refreshNow = (accountId: string) =>
    server.read(
      Effect.gen(function* () {
        const connections = yield* ConnectStore
        const settings = TokenRenewal.defaults("atproto-refresh-test")
        const at = Date.now() + 40 * 60_000
        const claimed = yield* connections.claimDueRefreshes({ owner: settings.owner, at, leaseUntil: at + settings.leaseMs, limit: 100 })
        const mine = claimed.find((c) => c.accountId === accountId)
        if (mine === undefined) return "not due" as const
        return yield* TokenRenewal.refreshToken(settings, mine)
      }) as Effect.Effect<TokenRenewal.RefreshOutcome | "not due", never, ConnectStore>
    )

  /** A call to the PDS with an access token and a DPoP proof of the session's key (once more with the server's nonce). */
  const asSession = async (session: OAuthSession, nsid: string): Promise<{ status: number; error: string | undefined }> => {
    const url = `${pds.url}/xrpc/${nsid}`
    const attempt = (nonce: string | undefined) =>
      fetch(url, { headers: { authorization: `DPoP ${session.access_jwt}`, dpop: OAuth.proof(session.oauth.dpop_jwk, "GET", url, Date.now(), nonce, session.access_jwt) } })
    let response = await attempt(undefined)
    const nonce = response.headers.get("dpop-nonce")
    if (response.status === 401 && nonce !== null) response = await attempt(nonce)
    const body = (await response.json()) as { error?: string }
    return { status: response.status, error: body.error }
  }

  /** A refresh-token grant at the PDS's token endpoint, with a DPoP proof of the session's key; the error it answers, if any. */
  const refreshAtPds = async (session: OAuthSession, refreshToken: string): Promise<{ status: number; error: string | undefined }> => {
    const endpoint = session.oauth.token_endpoint
    const attempt = (nonce: string | undefined) =>
      fetch(endpoint, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", dpop: OAuth.proof(session.oauth.dpop_jwk, "POST", endpoint, Date.now(), nonce) },
        body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: session.oauth.client_id })
      })
    let response = await attempt(undefined)
    const nonce = response.headers.get("dpop-nonce")
    const first = (await response.json()) as { error?: string }
    if (first.error !== "use_dpop_nonce" || nonce === null) return { status: response.status, error: first.error }
    response = await attempt(nonce)
    const body = (await response.json()) as { error?: string }
    return { status: response.status, error: body.error }
  }

  // The PDS issues stateful DPoP-bound tokens (an access token of one hour, a refresh token that
  // rotates at each use): the refresh and the revocation are checked by the PDS itself.
  it("refreshes the DPoP-bound tokens at the PDS (the refresh token rotates), publishes with the new ones, and disconnecting revokes them there", async () => {
    const lea = await pds.account("lea")
    const accountId = await connectWithOAuth(lea)
    const before = await storedSession(accountId)
    expect(await asSession(before, "com.atproto.server.getSession")).toMatchObject({ status: 200 })

    expect(await refreshNow(accountId)).toBe("refreshed")
    const after = await storedSession(accountId)
    expect(after.refresh_jwt).not.toBe(before.refresh_jwt)
    expect(after.access_jwt).not.toBe(before.access_jwt)
    expect(after.oauth.dpop_jwk).toEqual(before.oauth.dpop_jwk)
    const connected = (await call(server.baseUrl, "GET", `/v1/accounts/${accountId}`, { key: liveKey })).body
    expect(connected.status).toBe("connected")
    expect(Date.parse(connected.token_expires_at)).toBeGreaterThan(Date.now() + 50 * 60_000)
    // The new access token is the one the PDS takes now; a post publishes with it.
    expect(await asSession(after, "com.atproto.server.getSession")).toMatchObject({ status: 200 })
    expect(await publishedText(accountId, lea.did, "Published after a refresh")).toBe("Published after a refresh")

    const disconnected = await call(server.baseUrl, "DELETE", `/v1/accounts/${accountId}`, { key: liveKey })
    expect(disconnected.status).toBe(200)
    expect(disconnected.body.status).toBe("disconnected")
    // Revoked at the PDS: neither the access token nor the refresh token is taken any more.
    expect(await asSession(after, "com.atproto.server.getSession")).toMatchObject({ status: 401 })
    expect(await refreshAtPds(after, after.refresh_jwt)).toMatchObject({ status: 400, error: "invalid_grant" })
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
