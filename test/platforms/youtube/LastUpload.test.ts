/**
 * The day's last YouTube upload asked for by two posts at once, through the real server on both
 * databases, against the Google fake: the admission at create reads the project's count (it does
 * not reserve), so both creates are accepted; the count that decides is taken atomically in the
 * database just before the upload, so exactly one video reaches YouTube and the other target fails
 * `quota_exceeded` with nothing sent (docs/decisions.md, "YouTube's last upload of a day").
 */
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { anMp4 } from "../../../packages/core/test/fixtures/media.ts"
import { eventually } from "../../support/Eventually.ts"
import { call } from "../../support/Http.ts"
import { aMovableClock, type MovableClock } from "../../support/MovableClock.ts"
import { backends, startServer, type TestServer } from "../../support/TestServer.ts"
import * as YouTubeFake from "./YouTubeFake.ts"

describe.each(backends())("YouTube's last upload of a day asked for twice at once on %s", (backend) => {
  let scope: Scope.Closeable
  let fake: YouTubeFake.YouTubeFake
  let server: TestServer
  let liveKey: string
  let accountId: string
  let short: string
  let clock: MovableClock

  beforeAll(async () => {
    clock = aMovableClock()
    scope = Effect.runSync(Scope.make())
    fake = await Effect.runPromise(YouTubeFake.make().pipe(Scope.provide(scope)))
    server = await startServer(backend, {
      POSTWIRE_YOUTUBE_API_URL: `${fake.url}/youtube/v3`,
      POSTWIRE_YOUTUBE_UPLOAD_URL: `${fake.url}/upload/youtube/v3`,
      POSTWIRE_YOUTUBE_TOKEN_URL: `${fake.url}/token`,
      POSTWIRE_YOUTUBE_CLIENT_ID: fake.clientId,
      POSTWIRE_YOUTUBE_CLIENT_SECRET: fake.clientSecret,
      // One upload a day for the project: the two posts below ask for the last one.
      POSTWIRE_YOUTUBE_DAILY_UPLOADS: "1",
      POSTWIRE_PLATFORM_POLL_INTERVAL_MS: "1",
      POSTWIRE_PLATFORM_RETRY_DELAY_MS: "5",
      POSTWIRE_PUBLISH_POLL_MS: "20",
      POSTWIRE_RATE_LIMIT_PER_KEY: "100000"
    }, { clock: clock.clock })
    liveKey = (await server.admin<{ key: string }>(`/workspaces/${server.workspaceId}/keys`, { kind: "live", scopes: ["posts:read", "posts:write"] })).key
    const { access, refresh } = fake.grant()
    const channel = fake.channels[0]!
    accountId = (
      await server.admin(`/workspaces/${server.workspaceId}/accounts`, {
        profile_id: server.profileId,
        platform: "video",
        sandbox: false,
        handle: "mayabakes",
        credentials: { access_token: access, refresh_token: refresh, channel_id: channel.id, uploads_playlist_id: channel.uploads },
        external_id: channel.id
      })
    ).id
    const uploaded = await call(server.baseUrl, "POST", "/v1/media", {
      key: liveKey,
      body: { data: Buffer.from(anMp4({ durationSeconds: 50, width: 1080, height: 1920 })).toString("base64") }
    })
    expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201)
    short = uploaded.body.id as string
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
    if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  const aPost = (caption: string, scheduledAt?: string) => ({
    profile_id: server.profileId,
    caption,
    ...(scheduledAt === undefined ? {} : { scheduled_at: scheduledAt }),
    media: [short],
    targets: [{ account_id: accountId, video: { made_for_kids: false, privacy_status: "unlisted" } }],
    approval: { mode: "none" }
  })

  it("accepts both creates, uploads exactly one video, and fails the other target quota_exceeded with nothing sent", async () => {
    // Both scheduled ten minutes ahead, so both are admitted before either publishes.
    const at = new Date(clock.now() + 10 * 60_000).toISOString()
    const created = await Promise.all(
      ["Morning loaf", "Evening loaf"].map((caption) => call(server.baseUrl, "POST", "/v1/posts", { key: liveKey, body: aPost(caption, at) }))
    )
    // The admission at create reads the day's count: both see the last upload free.
    expect(created.map((reply) => reply.status)).toEqual([201, 201])
    clock.advance(10 * 60_000)
    const targets = await Promise.all(
      created.map(async (reply) => {
        const done = await eventually(
          () => call(server.baseUrl, "GET", `/v1/posts/${reply.body.id}`, { key: liveKey }),
          (post) => ["published", "failed"].includes(post.body.targets?.[0]?.status),
          `post ${reply.body.id} to settle`,
          { intervalMs: 20 }
        )
        return done.body.targets[0]
      })
    )
    const published = targets.filter((t) => t.status === "published")
    const failed = targets.filter((t) => t.status === "failed")
    expect(published).toHaveLength(1)
    expect(failed).toHaveLength(1)
    expect(failed[0].error).toMatchObject({ code: "quota_exceeded", platform_code: "project_daily_uploads" })
    // One upload session, one video: the loser sent nothing.
    expect(fake.count("init")).toBe(1)
    expect(fake.videos).toHaveLength(1)

    // The next create is refused up front: the day is spent.
    const third = await call(server.baseUrl, "POST", "/v1/posts", { key: liveKey, body: aPost("Night loaf") })
    expect(third.status).toBe(422)
    expect(third.body.error).toMatchObject({ code: "quota_exceeded", field: "targets[0].account_id" })
  })
})
