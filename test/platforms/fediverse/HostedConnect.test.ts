/**
 * Connecting a Mastodon account through Postwire's hosted connect page over real HTTP, against
 * the fake Mastodon server: the page asks for the server's address, Postwire registers its app
 * there once, sends the person to the server's authorization page, finishes at the callback with
 * the kept memo; an address that is no server, or one inside the service's own network, is
 * refused at the field (the deployment's loopback switch lets the loopback fake through);
 * disconnecting revokes the token at the server.
 */
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aKeyWithScopes } from "../../support/Builders.ts"
import { absolute, aConnectLink, aConnectServer, postForm, returnedQuery, step } from "../../support/Connect.ts"
import { call } from "../../support/Http.ts"
import { backends, startServer, type TestServer } from "../../support/TestServer.ts"
import * as MastodonFake from "./MastodonFake.ts"

const back = "https://app.example.com/accounts/connected"

describe.each(backends())("connecting a Mastodon account through the hosted page on %s", (backend) => {
  let server: TestServer
  let fake: MastodonFake.MastodonFake
  let liveKey: string
  const scope = Effect.runSync(Scope.make())

  beforeAll(async () => {
    fake = await Effect.runPromise(Scope.provide(scope)(MastodonFake.make()))
    server = await aConnectServer((env, options) => startServer(backend, { ...env, POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS: "1" }, options))
    liveKey = await aKeyWithScopes(server, ["posts:read", "posts:write", "accounts:write"], "live")
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  const linkFor = async () => {
    const link = await aConnectLink(server, { platform: "fediverse", redirect_url: back }, liveKey)
    expect(link.status, JSON.stringify(link.body)).toBe(201)
    return link.body.url as string
  }
  const inputOf = (page: string, name: string) => new RegExp(`<input id="field-${name}"[^>]*>`).exec(page)?.[0] ?? ""

  /** The whole journey with the server's address typed; the connected account's id. */
  const connect = async (typed: string) => {
    const link = await linkFor()
    const started = await postForm(`${link}/start`, [
      ["lang", "en"],
      ["server", typed]
    ])
    expect(started.status, started.body).toBe(303)
    const authorize = new URL(started.location!)
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${fake.origin}/oauth/authorize`)
    const consented = await step(started.location!)
    expect(consented.status).toBe(302)
    const callback = await step(absolute(server, consented.location!))
    const query = returnedQuery(callback)
    expect(query.get("status")).toBe("connected")
    return query.get("account_id")!
  }

  it("asks for the server, registers the app once, and connects the account", async () => {
    const page = await step(await linkFor())
    expect(page.status).toBe(200)
    expect(page.body).toContain('<label for="field-server">Your Mastodon server</label>')
    expect(inputOf(page.body, "server")).toContain('placeholder="mastodon.social"')

    const accountId = await connect(`  ${fake.origin}/ `)
    const account = (await call(server.baseUrl, "GET", `/v1/accounts/${accountId}`, { key: liveKey })).body
    const host = new URL(fake.origin).host
    expect(account).toMatchObject({ platform: "fediverse", handle: `maya@${host}`, display_name: "Maya Bakes", status: "connected", sandbox: false })
    expect(fake.apps).toHaveLength(1)
    expect(fake.apps[0]!.redirect_uris).toEqual([`${server.baseUrl}/connect/callback/fediverse`])

    // Connecting again (the same person, the same server) reuses the app and renews the account.
    const again = await connect(fake.origin)
    expect(again).toBe(accountId)
    expect(fake.count("apps")).toBe(1)
  })

  it("refuses an address that is no Mastodon server at the field, and keeps the link open", async () => {
    const link = await linkFor()
    const closed = await postForm(`${link}/start`, [
      ["lang", "en"],
      ["server", "http://127.0.0.1:9"]
    ])
    expect(closed.status).toBe(400)
    expect(closed.body).toContain("the address could not be reached")
    expect(inputOf(closed.body, "server")).toContain('aria-invalid="true"')
    const path = await postForm(`${link}/start`, [
      ["lang", "en"],
      ["server", `${fake.origin}/@maya`]
    ])
    expect(path.status).toBe(400)
    expect(path.body).toContain("must be the address of a Mastodon server")
    // An address inside the service's own network is refused before anything is sent to it,
    // even with loopback allowed, in the page's language.
    const before = fake.requests.length
    const internal = await postForm(`${link}/start`, [
      ["lang", "en"],
      ["server", "10.0.0.5"]
    ])
    expect(internal.status).toBe(400)
    expect(internal.body).toContain("must be a Mastodon server on the public internet: a private address")
    expect(inputOf(internal.body, "server")).toContain('aria-invalid="true"')
    const metadata = await postForm(`${link}/start`, [
      ["lang", "id"],
      ["server", "http://169.254.169.254"]
    ])
    expect(metadata.status).toBe(400)
    expect(metadata.body).toContain("harus berupa server Mastodon di internet publik: alamat link-local")
    expect(fake.requests.length).toBe(before)
    // The link is still open: the right address connects.
    const started = await postForm(`${link}/start`, [
      ["lang", "en"],
      ["server", fake.origin]
    ])
    expect(started.status, started.body).toBe(303)
  })

  it("revokes the token at the server when the account is disconnected", async () => {
    const accountId = await connect(fake.origin)
    const live = [...fake.tokens.entries()].filter(([, grant]) => !grant.revoked && grant.clientId !== "preset")
    expect(live.length).toBeGreaterThan(0)
    const disconnected = await call(server.baseUrl, "DELETE", `/v1/accounts/${accountId}`, { key: liveKey })
    expect(disconnected.status, JSON.stringify(disconnected.body)).toBe(200)
    expect(disconnected.body.status).toBe("disconnected")
    expect(fake.count("revoke")).toBe(1)
    const token = fake.requests.find((r) => r.route === "revoke")!.params.token!
    expect(fake.tokens.get(token)?.revoked).toBe(true)
  })
})
