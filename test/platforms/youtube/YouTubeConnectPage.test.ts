/**
 * Connecting a YouTube channel through the hosted connect page, over HTTP on both databases:
 * the link, Google's consent (the fake consents at once), the callback, the account's details,
 * and the revoke at Google on disconnect.
 */
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { absolute, aConnectLink, aConnectServer, hiddenFields, postForm, returnedQuery, step } from "../../support/Connect.ts"
import { aKeyWithScopes } from "../../support/Builders.ts"
import { call } from "../../support/Http.ts"
import { backends, startServer, type TestServer } from "../../support/TestServer.ts"
import * as YouTubeFake from "./YouTubeFake.ts"

const back = "https://app.example.com/connected"

describe.each(backends())("connecting a YouTube channel on %s", (backend) => {
  let scope: Scope.Closeable
  let fake: YouTubeFake.YouTubeFake
  let server: TestServer
  let key: string

  beforeAll(async () => {
    scope = Effect.runSync(Scope.make())
    fake = await Effect.runPromise(YouTubeFake.make().pipe(Scope.provide(scope)))
    server = await aConnectServer((env, options) => startServer(backend, env, options), YouTubeFake.connectEnv(fake))
    key = await aKeyWithScopes(server, ["posts:read", "posts:write", "accounts:write"], "live")
  })
  afterAll(async () => {
    await server?.stop()
    if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  it("connects the channel through Google's consent, shows it without its tokens, and revokes the grant on disconnect", async () => {
    const link = await aConnectLink(server, { platform: "video", redirect_url: back }, key)
    expect(link.status, JSON.stringify(link.body)).toBe(201)
    const page = await step(link.body.url)
    expect(page.status).toBe(200)
    const start = /href="([^"]+\/start[^"]*)"/.exec(page.body)![1]!.replaceAll("&amp;", "&")
    const started = await step(absolute(server, start))
    expect(started.status).toBe(303)
    const authorize = new URL(started.location!)
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${fake.url}/o/oauth2/v2/auth`)
    expect(authorize.searchParams.get("access_type")).toBe("offline")
    expect(authorize.searchParams.get("prompt")).toBe("consent")
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${server.baseUrl}/connect/callback/video`)
    const consented = await step(started.location!)
    expect(consented.status).toBe(302)
    const picker = await step(consented.location!)
    // The channels the consent gave are offered to choose from (capabilities.choosesAccounts).
    expect(picker.status).toBe(200)
    expect(picker.body).toContain("Maya Bakes")
    const result = await postForm(absolute(server, "/connect/callback/video"), [
      ...hiddenFields(picker.body),
      ["page", fake.channels[0]!.id]
    ])
    const query = returnedQuery(result)
    expect(query.get("status")).toBe("connected")
    const id = query.get("account_id")!
    const detail = await call(server.baseUrl, "GET", `/v1/accounts/${id}`, { key })
    expect(detail.body).toMatchObject({
      id,
      platform: "video",
      sandbox: false,
      status: "connected",
      handle: "mayabakes",
      display_name: "Maya Bakes",
      scopes: expect.arrayContaining([YouTubeFake.uploadScope, YouTubeFake.commentsScope])
    })
    expect(JSON.stringify(detail.body)).not.toMatch(/ya29|1\/\/0g/)
    expect(Date.parse(detail.body.token_expires_at) - Date.now()).toBeGreaterThan(3_000_000)

    const disconnected = await call(server.baseUrl, "DELETE", `/v1/accounts/${id}`, { key })
    expect(disconnected.body.status).toBe("disconnected")
    expect(fake.count("revoke")).toBe(1)
    expect(fake.refreshTokens.size).toBe(0)
  })
})
