/**
 * Connecting real accounts, against fake authorization servers that speak each platform's wire
 * format: the person's answers on the platform's consent page are given by the fake's
 * `approve` (the browser suite clicks them in Chromium).
 */
import { MetaSignedRequest } from "@postwire/platforms"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { aKeyWithScopes, aVideo } from "../support/Builders.ts"
import { absolute, aConnectLink, aConnectServer, hiddenFields, postForm, returnedQuery, step } from "../support/Connect.ts"
import { platformFakes, type PlatformFakes } from "../support/Fakes.ts"
import { call, errorOf } from "../support/Http.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"
import type { ConsentAnswer } from "../platforms/fakes/OAuthFake.ts"

const back = "https://app.example.com/accounts/connected"
type Platform = "shortvideo" | "photo" | "pages" | "textpost"

describe.each(backends())("connecting platform accounts on %s", (backend) => {
  let server: TestServer
  let fakes: PlatformFakes
  let liveKey: string
  const logged: Array<string> = []
  const send = (method: string, path: string, body?: unknown, key = liveKey) =>
    call(server.baseUrl, method, path, { key, ...(body === undefined ? {} : { body }) })
  const replies: Array<string> = []
  const linkTokens: Array<string> = []
  const account = async (id: string) => {
    const reply = await send("GET", `/v1/accounts/${id}`)
    replies.push(JSON.stringify(reply.body))
    return reply.body
  }

  /** From the link to the platform's consent page and back to Postwire's callback answer. */
  const journey = async (platform: Platform, answer?: ConsentAnswer, body: Record<string, unknown> = {}) => {
    const link = await aConnectLink(server, { platform, redirect_url: back, ...body }, liveKey)
    expect(link.status).toBe(201)
    linkTokens.push(new URL(link.body.url).pathname.split("/").pop()!)
    const page = await step(link.body.url)
    const start = /href="([^"]+\/start[^"]*)"/.exec(page.body)![1]!.replaceAll("&amp;", "&")
    const started = await step(absolute(server, start))
    expect(started.status).toBe(303)
    expect(started.location!.startsWith(fakes[platform].url)).toBe(true)
    const callback = await fakes[platform].approve(started.location!, answer)
    return { link, authorizeUrl: started.location!, callbackUrl: callback, result: await step(callback) }
  }
  /** Picks Pages on Postwire's picker after Facebook's consent. */
  const pickPages = async (picker: string, pageIds: ReadonlyArray<string>) =>
    postForm(absolute(server, "/connect/callback/pages"), [
      ...hiddenFields(picker),
      ...pageIds.map((id): [string, string] => ["page", id])
    ])

  beforeAll(async () => {
    for (const method of ["log", "info", "warn", "error", "debug"] as const) {
      const original = console[method].bind(console)
      vi.spyOn(console, method).mockImplementation((...args: Array<unknown>) => {
        logged.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a) ?? String(a))).join(" "))
        original(...args)
      })
    }
    fakes = await platformFakes()
    server = await aConnectServer((env, options) => startServer(backend, env, options), {
      ...fakes.env,
      POSTWIRE_LOG_REQUESTS: "1"
    })
    fakes.register(new URL(server.baseUrl).origin.replace("localhost", "127.0.0.1"))
    liveKey = await aKeyWithScopes(server, ["posts:read", "posts:write", "accounts:write"], "live")
  })
  afterAll(async () => {
    vi.restoreAllMocks()
    await server?.stop()
    await fakes?.stop()
  })

  it("connects a TikTok creator with the identity and creator info, and never shows a token", async () => {
    const { authorizeUrl, result } = await journey("shortvideo")
    const sent = new URL(authorizeUrl).searchParams
    expect(sent.get("client_key")).toBe(fakes.shortvideo.clientKey)
    expect(sent.get("code_challenge_method")).toBe("S256")
    expect(sent.get("redirect_uri")).toBe(`${server.baseUrl}/connect/callback/shortvideo`)

    const query = returnedQuery(result)
    expect(query.get("status")).toBe("connected")
    const id = query.get("account_id")!
    const detail = await account(id)
    const now = Date.now()
    expect(detail).toMatchObject({
      id,
      platform: "shortvideo",
      sandbox: false,
      status: "connected",
      handle: fakes.shortvideo.person.username,
      display_name: fakes.shortvideo.person.display_name,
      avatar_url: fakes.shortvideo.person.avatar_url,
      scopes: expect.arrayContaining(["video.publish", "user.info.basic"]),
      privacy_level_options: fakes.shortvideo.creator.privacy_level_options,
      max_video_post_duration_sec: fakes.shortvideo.creator.max_video_post_duration_sec
    })
    const expiresIn = Date.parse(detail.token_expires_at) - now
    expect(expiresIn).toBeGreaterThan(fakes.shortvideo.accessLifetimeSec * 1000 - 60_000)
    expect(expiresIn).toBeLessThanOrEqual(fakes.shortvideo.accessLifetimeSec * 1000)
  })

  it.each([
    ["photo", () => fakes.photo.person.username],
    ["textpost", () => fakes.textpost.person.username]
  ] as const)("connects a %s account with its long-lived token", async (platform, handle) => {
    const { result } = await journey(platform)
    const id = returnedQuery(result).get("account_id")!
    const detail = await account(id)

    expect(detail).toMatchObject({ platform, status: "connected", sandbox: false, handle: handle() })
    const days = (Date.parse(detail.token_expires_at) - Date.now()) / 86_400_000
    expect(days).toBeGreaterThan(50)
    expect(detail).not.toHaveProperty("privacy_level_options")
  })

  it("connects the two Facebook Pages the person picks, one account each, and revokes the consent only with the last", async () => {
    const { result } = await journey("pages")
    expect(result.status).toBe(200)
    expect(result.body).toContain("Kopi Budi")
    expect(result.body).toContain("Budi Bikes")
    const picked = await pickPages(result.body, fakes.pages.pages.map((p) => p.id))
    const ids = returnedQuery(picked).get("account_id")!.split(",")
    expect(ids).toHaveLength(2)
    const details = await Promise.all(ids.map(account))
    expect(details.map((d) => d.display_name).sort()).toEqual(["Budi Bikes", "Kopi Budi"])
    expect(details.every((d) => d.status === "connected" && d.platform === "pages")).toBe(true)

    const revokes = fakes.pages.count("revoke")
    expect((await send("DELETE", `/v1/accounts/${ids[0]}`)).body.status).toBe("disconnected")
    expect(fakes.pages.count("revoke")).toBe(revokes)
    expect((await send("DELETE", `/v1/accounts/${ids[1]}`)).body.status).toBe("disconnected")
    expect(fakes.pages.count("revoke")).toBe(revokes + 1)
  })

  it("returns the person with error=connect_refused when they cancel on the platform", async () => {
    const { link, result } = await journey("textpost", { decision: "cancel" })

    const query = returnedQuery(result)
    expect(query.get("status")).toBe("error")
    expect(query.get("error")).toBe("connect_refused")
    expect((await step(link.body.url)).status).toBe(409)
  })

  it("refuses a replayed callback: the platform's code and the link work once", async () => {
    const { callbackUrl, result } = await journey("shortvideo")
    expect(returnedQuery(result).get("status")).toBe("connected")
    const replay = await step(callbackUrl)

    expect(replay.status).toBe(400)
    expect(replay.body).toContain("does not belong to a connect in progress")
  })

  it("disconnecting revokes the TikTok token at the platform and fails the queued targets", async () => {
    const { result } = await journey("shortvideo")
    const id = returnedQuery(result).get("account_id")!
    const media = await aVideo(server, 12, liveKey)
    const post = await send("POST", "/v1/posts", {
      profile_id: server.profileId,
      caption: "Scheduled before the disconnect",
      media: [media],
      targets: [{ account_id: id, shortvideo: { mode: "inbox" } }],
      scheduled_at: new Date(Date.now() + 86_400_000).toISOString(),
      approval: { mode: "none" }
    })
    expect(post.status).toBe(201)
    expect(post.body.targets[0].status).toBe("scheduled")
    const revokes = fakes.shortvideo.count("revoke")
    const byTestKey = await send("DELETE", `/v1/accounts/${id}`, undefined, server.testKey)
    expect(byTestKey.status).toBe(403)
    expect(errorOf(byTestKey)).toMatchObject({ code: "test_key_live_account" })
    expect(fakes.shortvideo.count("revoke")).toBe(revokes)

    const reply = await send("DELETE", `/v1/accounts/${id}`)
    expect(reply.status).toBe(200)
    expect(reply.body.status).toBe("disconnected")
    expect(fakes.shortvideo.count("revoke")).toBe(revokes + 1)
    const read = await send("GET", `/v1/posts/${post.body.id}`)
    expect(read.body.targets[0]).toMatchObject({
      status: "failed",
      error: { code: "token_expired", platform_code: "account_disconnected" }
    })
  })

  describe("POST /connect/deauthorize/{meta|platform}", () => {
    const deauthorize = (path: string, signedRequest: string) =>
      call(server.baseUrl, "POST", path, {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ signed_request: signedRequest }).toString()
      })

    it("disconnects every account of the person who removed the app", async () => {
      const { result } = await journey("pages")
      const ids = returnedQuery(await pickPages(result.body, fakes.pages.pages.map((p) => p.id))).get("account_id")!.split(",")
      const signed = MetaSignedRequest.sign(
        { algorithm: "HMAC-SHA256", user_id: fakes.pages.person.id, issued_at: Math.floor(Date.now() / 1000) },
        fakes.pages.appSecret
      )

      const reply = await deauthorize("/connect/deauthorize/meta", signed)
      expect(reply.status).toBe(200)
      expect(reply.body).toEqual({ received: true, disconnected: 2 })
      for (const id of ids) expect((await account(id)).status).toBe("disconnected")
    })

    it("refuses a forged signed request with 400 naming signed_request, and disconnects nothing", async () => {
      const { result } = await journey("textpost")
      const id = returnedQuery(result).get("account_id")!
      const forged = MetaSignedRequest.sign(
        { algorithm: "HMAC-SHA256", user_id: fakes.textpost.person.id, issued_at: Math.floor(Date.now() / 1000) },
        "not-the-app-secret"
      )

      for (const path of ["/connect/deauthorize/meta", "/connect/deauthorize/textpost"]) {
        const reply = await deauthorize(path, forged)
        expect(reply.status).toBe(400)
        expect(errorOf(reply)).toMatchObject({ code: "invalid_request", field: "signed_request", retryable: false })
      }
      const empty = await deauthorize("/connect/deauthorize/meta", "")
      expect(errorOf(empty)).toMatchObject({ code: "invalid_request", field: "signed_request" })
      expect((await account(id)).status).toBe("connected")
    })
  })

  it("never writes a platform token or code into a response or a log", async () => {
    const secrets = [
      ...Object.values(fakes).flatMap((fake) =>
        typeof fake === "object" && fake !== null && "tokens" in fake ? [...fake.tokens.keys(), ...fake.codes.keys()] : []
      ),
      fakes.shortvideo.clientSecret,
      fakes.pages.appSecret,
      ...linkTokens
    ]
    expect(secrets.length).toBeGreaterThan(10)
    const listed = await send("GET", "/v1/accounts?limit=100")
    const everything = [...replies, JSON.stringify(listed.body), ...logged].join("\n")
    expect(logged.length).toBeGreaterThan(0)
    for (const secret of secrets) expect(everything).not.toContain(secret)
  })
})
