/**
 * Connecting LinkedIn through the hosted connect page against the fake LinkedIn OAuth, on both
 * databases: the person chooses among the member and the company pages they may post for (the
 * Facebook Pages picker); the account's 60-day token; then, for an app without programmatic
 * refresh, `needs_reconnect` with one `account.needs_reconnect` event a week before the token
 * ends (the server's clock moved on); with refresh tokens, the token renewed instead.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aKeyWithScopes } from "../../support/Builders.ts"
import { absolute, aConnectLink, aConnectServer, hiddenFields, postForm, returnedQuery, step } from "../../support/Connect.ts"
import { eventually } from "../../support/Eventually.ts"
import { call } from "../../support/Http.ts"
import { aMovableClock, type MovableClock } from "../../support/MovableClock.ts"
import { backends, startServer, type TestServer } from "../../support/TestServer.ts"
import * as LinkedInOAuthFake from "./LinkedInOAuthFake.ts"

const back = "https://app.example.com/accounts/connected"
const day = 86_400_000

describe.each(backends())("connecting a LinkedIn member through the hosted page on %s", (backend) => {
  let server: TestServer
  let fake: LinkedInOAuthFake.LinkedInOAuthFake
  let clock: MovableClock
  let liveKey: string
  const send = (method: string, path: string, body?: unknown) => call(server.baseUrl, method, path, { key: liveKey, ...(body === undefined ? {} : { body }) })

  beforeAll(async () => {
    fake = await LinkedInOAuthFake.start()
    clock = aMovableClock()
    server = await aConnectServer((env, options) => startServer(backend, env, { ...options, clock: clock.clock }), {
      POSTWIRE_LINKEDIN_CLIENT_ID: fake.clientId,
      POSTWIRE_LINKEDIN_CLIENT_SECRET: fake.clientSecret,
      POSTWIRE_LINKEDIN_OAUTH_URL: `${fake.url}/oauth/v2`,
      POSTWIRE_LINKEDIN_API_URL: fake.url,
      POSTWIRE_LINKEDIN_PAGES: "true"
    })
    fake.redirectUris.push(`${new URL(server.baseUrl).origin.replace("localhost", "127.0.0.1")}/connect/callback/professional`)
    liveKey = await aKeyWithScopes(server, ["posts:read", "posts:write", "accounts:write", "webhooks:read"], "live")
  })
  afterAll(async () => {
    await server?.stop()
    await fake?.stop()
  })

  const journey = async () => {
    const link = await aConnectLink(server, { platform: "professional", redirect_url: back }, liveKey)
    expect(link.status, JSON.stringify(link.body)).toBe(201)
    const page = await step(link.body.url)
    const start = /href="([^"]+\/start[^"]*)"/.exec(page.body)![1]!.replaceAll("&amp;", "&")
    const started = await step(absolute(server, start))
    expect(started.status).toBe(303)
    expect(started.location!.startsWith(`${fake.url}/oauth/v2/authorization`)).toBe(true)
    const callback = await fake.approve(started.location!)
    return { authorizeUrl: started.location!, picker: await step(callback) }
  }

  /** Picks accounts by their platform ids on Postwire's picker; the redirect's query. */
  const choose = async (picker: string, ids: ReadonlyArray<string>) =>
    returnedQuery(await postForm(absolute(server, "/connect/callback/professional"), [...hiddenFields(picker), ...ids.map((id): [string, string] => ["page", id])]))

  it("lets the person choose among the member and the pages they may post for, and connects those chosen", async () => {
    const { authorizeUrl, picker } = await journey()
    expect(new URL(authorizeUrl).searchParams.get("scope")).toBe("openid profile w_member_social w_organization_social r_organization_social r_organization_admin")
    expect(picker.status).toBe(200)
    const offered = [...picker.body.matchAll(/name="page" value="([^"]+)"/g)].map((m) => m[1]!)
    expect(offered).toEqual(["urn:li:person:Xk4mR2pQ9a", "urn:li:organization:2414183", "urn:li:organization:5515715"])
    expect(picker.body).toContain("Roti Bakery")
    const query = await choose(picker.body, ["urn:li:organization:2414183"])
    expect(query.get("status")).toBe("connected")
    const page = await send("GET", `/v1/accounts/${query.get("account_id")}`)
    expect(page.body).toMatchObject({ platform: "professional", handle: "roti-bakery", display_name: "Roti Bakery", status: "connected" })
    const listed = await send("GET", "/v1/accounts?platform=professional&limit=100")
    expect(listed.body.data.filter((a: { sandbox: boolean }) => !a.sandbox).map((a: { handle: string }) => a.handle)).toEqual(["roti-bakery"])
  })

  it("connects the member, and asks for a reconnect once, a week before the 60 days end, when the app has no refresh", async () => {
    fake.refreshTokens = false
    const query = await choose((await journey()).picker.body, ["urn:li:person:Xk4mR2pQ9a"])
    expect(query.get("status")).toBe("connected")
    const id = query.get("account_id")!
    const connected = await send("GET", `/v1/accounts/${id}`)
    expect(connected.body).toMatchObject({ platform: "professional", status: "connected", handle: "Dewi Lestari", sandbox: false })
    const lifetime = Date.parse(connected.body.token_expires_at) - clock.now()
    expect(lifetime).toBeGreaterThan(60 * day - 60_000)
    expect(lifetime).toBeLessThanOrEqual(60 * day)

    clock.advance(53 * day + 60_000)
    const lapsed = await eventually(
      () => send("GET", `/v1/accounts/${id}`),
      (reply) => reply.body.status === "needs_reconnect",
      "the account to need a reconnect",
      { step: () => clock.advance(60_000), intervalMs: 100 }
    )
    expect(Date.parse(lapsed.body.token_expires_at)).toBeGreaterThan(clock.now())
    const events = await send("GET", `/v1/events?type=account.needs_reconnect&limit=100`)
    expect(events.body.data.filter((e: { data: { account_id: string } }) => e.data.account_id === id)).toHaveLength(1)
  })

  it("renews the token with the refresh token 53 days after the connect", async () => {
    fake.refreshTokens = true
    const query = await choose((await journey()).picker.body, ["urn:li:organization:5515715"])
    const id = query.get("account_id")!
    const before = await send("GET", `/v1/accounts/${id}`)
    clock.advance(53 * day + 60_000)
    const renewed = await eventually(
      () => send("GET", `/v1/accounts/${id}`),
      (reply) => reply.body.token_expires_at !== before.body.token_expires_at,
      "the token to be renewed",
      { step: () => clock.advance(60_000), intervalMs: 100 }
    )
    expect(renewed.body.status).toBe("connected")
    expect(fake.count("refresh")).toBeGreaterThanOrEqual(1)
  })
})
