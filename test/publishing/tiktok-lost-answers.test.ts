/**
 * Exactly once for TikTok when the answer to an init is lost, through the real server on both
 * databases, to the fake TikTok server: the init is never sent twice, and the target, saved as
 * possibly published before the init, ends `published` with TikTok's post id and permalink once
 * the creator's video list shows it. Meanwhile it waits `publishing`, never `failed`, through an
 * outage of the list and a worker stopped right after sending the init.
 */
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as TikTokFake from "../platforms/tiktok/TikTokFake.ts"
import { aVideo } from "../support/Builders.ts"
import { eventually } from "../support/Eventually.ts"
import { call } from "../support/Http.ts"
import { aDatabase, backends, startServer, type TestDatabase, type TestServer } from "../support/TestServer.ts"


describe.each(backends())("TikTok: lost init answers on %s", (backend) => {
  let scope: Scope.Closeable
  let fake: TikTokFake.TikTokFake
  let database: TestDatabase
  let server: TestServer
  let liveKey: string
  let accountId: string
  let video: string
  let made = 0

  const env = () => ({
    POSTWIRE_TIKTOK_BASE_URL: fake.url,
    POSTWIRE_TIKTOK_CLIENT_KEY: fake.clientKey,
    POSTWIRE_TIKTOK_CLIENT_SECRET: fake.clientSecret,
    POSTWIRE_PLATFORM_POLL_INTERVAL_MS: "1",
    POSTWIRE_PLATFORM_RETRY_DELAY_MS: "5",
    POSTWIRE_PLATFORM_TIMEOUT_MS: "5000",
    POSTWIRE_PUBLISH_POLL_MS: "20",
    POSTWIRE_RATE_LIMIT_PER_KEY: "100000"
  })

  beforeAll(async () => {
    scope = Effect.runSync(Scope.make())
    fake = await Effect.runPromise(TikTokFake.make().pipe(Scope.provide(scope)))
    database = await aDatabase(backend)
    server = await startServer(backend, env(), { database })
    const key = await server.admin<{ key: string }>(`/workspaces/${server.workspaceId}/keys`, {
      kind: "live",
      scopes: ["posts:read", "posts:write"]
    })
    liveKey = key.key
    const account = await server.admin(`/workspaces/${server.workspaceId}/accounts`, {
      profile_id: server.profileId,
      platform: "shortvideo",
      sandbox: false,
      handle: "maya.bakes",
      credentials: { access_token: fake.accessToken, refresh_token: fake.refreshToken },
      external_id: "open-id-1"
    })
    accountId = account.id
    video = await aVideo(server, 12, liveKey)
  })
  afterAll(async () => {
    await server?.stop()
    await database?.drop()
    if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  /** Creates a public direct post, with consent, to the live account. */
  const publishAPost = async () => {
    const caption = `Sourdough, batch ${++made} (${backend})`
    const created = await call(server.baseUrl, "POST", "/v1/posts", {
      key: liveKey,
      body: {
        profile_id: server.profileId,
        caption,
        media: [video],
        targets: [
          {
            account_id: accountId,
            shortvideo: { mode: "direct", consent: { privacy_level: "PUBLIC_TO_EVERYONE", music_usage_confirmed: true } }
          }
        ],
        approval: { mode: "none" }
      }
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    return { id: created.body.id as string, caption }
  }

  /** Every status a post's target was seen in, in order. */
  const seen = new Map<string, Array<string>>()

  /** Reads the post until `done` says so. */
  const waitFor = (id: string, done: (target: any) => boolean) =>
    eventually(
      async () => {
        const reply = await call(server.baseUrl, "GET", `/v1/posts/${id}`, { key: liveKey })
        const target = reply.body.targets?.[0]
        if (target !== undefined) seen.set(id, [...(seen.get(id) ?? []), target.status])
        return target
      },
      (target) => target !== undefined && done(target),
      `post ${id}'s target to move on`,
      { intervalMs: 20 }
    )

  /** Asserts the target published once, as TikTok has it, and was never reported failed. */
  const expectPublishedOnce = (id: string, target: any, caption: string) => {
    const publishes = fake.publishes.filter((p) => (p.body as any)?.post_info?.title === caption)
    expect(publishes).toHaveLength(1)
    expect(target).toMatchObject({
      status: "published",
      error: null,
      attempts: 1,
      permalink: `https://www.tiktok.com/@maya.bakes/video/${publishes[0]!.postId}`
    })
    expect(seen.get(id)).not.toContain("failed")
  }

  it("publishes once when the init answer is lost and the video list is down for longer than a step retries", async () => {
    fake.loseInitAnswers()
    fake.faults.inject("video_list", TikTokFake.tiktokError(500, "internal_error"), 12, { armedBy: "init" })
    const { caption, id } = await publishAPost()
    const target = await waitFor(id, (t) => t.status !== "publishing" && t.status !== "queued")
    expectPublishedOnce(id, target, caption)
    expect(seen.get(id)).toContain("publishing")
  })

  it("never sends the init again after the worker stops right after sending it: the next one looks the post up", async () => {
    // Moderation keeps the video out of the list while the first server runs.
    fake.postIdHeld = true
    fake.loseInitAnswers()
    const initsBefore = fake.count("init")
    const { caption, id } = await publishAPost()
    await eventually(() => fake.count("init") > initsBefore, "the init", { intervalMs: 20 })
    await server.stop()
    fake.postIdHeld = false
    server = await startServer(backend, env(), { database })
    const target = await waitFor(id, (t) => t.status !== "publishing" && t.status !== "queued")
    expectPublishedOnce(id, target, caption)
    expect(fake.count("init")).toBe(initsBefore + 1)
  })
})
