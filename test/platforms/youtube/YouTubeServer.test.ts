/**
 * YouTube through the real server on both databases, against the Google fake: a Short published
 * exactly once from `POST /v1/posts` (a chunk lost on the way), its comments read and answered,
 * and the project's daily uploads refusing a post up front at validate and create, counted in the
 * database: shared by two servers on one PostgreSQL, kept across a restart on the embedded one.
 */
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { anMp4 } from "../../support/Media.ts"
import { eventually } from "../../support/Eventually.ts"
import { call } from "../../support/Http.ts"
import { aMovableClock, type MovableClock } from "../../support/MovableClock.ts"
import { aDatabase, backends, startServer, type TestDatabase, type TestServer } from "../../support/TestServer.ts"
import * as YouTubeFake from "./YouTubeFake.ts"

describe.each(backends())("YouTube (video) through the server on %s", (backend) => {
  let scope: Scope.Closeable
  let fake: YouTubeFake.YouTubeFake
  let database: TestDatabase
  let server: TestServer
  let liveKey: string
  let accountId: string
  let short: string
  let clock: MovableClock

  const environment = () =>
    ({
        POSTWIRE_YOUTUBE_API_URL: `${fake.url}/youtube/v3`,
        POSTWIRE_YOUTUBE_UPLOAD_URL: `${fake.url}/upload/youtube/v3`,
        POSTWIRE_YOUTUBE_TOKEN_URL: `${fake.url}/token`,
        POSTWIRE_YOUTUBE_CLIENT_ID: fake.clientId,
        POSTWIRE_YOUTUBE_CLIENT_SECRET: fake.clientSecret,
        // Two uploads a day for the project.
        POSTWIRE_YOUTUBE_DAILY_UPLOADS: "2",
        POSTWIRE_PLATFORM_POLL_INTERVAL_MS: "1",
        POSTWIRE_PLATFORM_RETRY_DELAY_MS: "5",
        POSTWIRE_PLATFORM_TIMEOUT_MS: "5000",
        POSTWIRE_PUBLISH_POLL_MS: "20",
        POSTWIRE_COMMENT_POLL_MS: "50",
        POSTWIRE_RATE_LIMIT_PER_KEY: "100000"
      }) as const

  beforeAll(async () => {
    scope = Effect.runSync(Scope.make())
    fake = await Effect.runPromise(YouTubeFake.make().pipe(Scope.provide(scope)))
    database = await aDatabase(backend)
    clock = aMovableClock()
    server = await startServer(backend, environment(), { database, clock: clock.clock })
    const key = await server.admin<{ key: string }>(`/workspaces/${server.workspaceId}/keys`, {
      kind: "live",
      scopes: ["posts:read", "posts:write", "comments:write"]
    })
    liveKey = key.key
    const { access, refresh } = fake.grant()
    const channel = fake.channels[0]!
    const account = await server.admin(`/workspaces/${server.workspaceId}/accounts`, {
      profile_id: server.profileId,
      platform: "video",
      sandbox: false,
      handle: "mayabakes",
      credentials: { access_token: access, refresh_token: refresh, channel_id: channel.id, uploads_playlist_id: channel.uploads },
      external_id: channel.id
    })
    accountId = account.id
    // A vertical 50-second video: a Short.
    const uploaded = await call(server.baseUrl, "POST", "/v1/media", {
      key: liveKey,
      body: { data: Buffer.from(anMp4({ durationSeconds: 50, width: 1080, height: 1920 })).toString("base64") }
    })
    expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201)
    short = uploaded.body.id as string
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
    await database?.drop()
    if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  const aPost = (caption: string, extra: Record<string, unknown> = {}) => ({
    profile_id: server.profileId,
    caption,
    media: [short],
    targets: [{ account_id: accountId, video: { made_for_kids: false, privacy_status: "unlisted" } }],
    approval: { mode: "none" },
    ...extra
  })

  const publish = async (caption: string) => {
    const on = server
    const created = await call(on.baseUrl, "POST", "/v1/posts", { key: liveKey, body: aPost(caption) })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const done = await eventually(
      () => call(on.baseUrl, "GET", `/v1/posts/${created.body.id}`, { key: liveKey }),
      (reply) => ["published", "failed"].includes(reply.body.targets?.[0]?.status),
      `post ${created.body.id} to settle`,
      { intervalMs: 20 }
    )
    return done.body.targets[0]
  }

  it("publishes a Short exactly once, its final answer lost on the way, with the /shorts/ address", async () => {
    // The only chunk is the final one: YouTube makes the video, the answer never arrives.
    fake.faults.injectAfter("chunk", { lose: true })
    const target = await publish("Shaping a boule\nFull recipe on the blog.")
    const video = fake.videos.find((v) => v.snippet.title === "Shaping a boule")
    expect(video).toBeDefined()
    expect(target).toMatchObject({ status: "published", permalink: `https://www.youtube.com/shorts/${video!.id}`, error: null })
    expect(fake.videos.filter((v) => v.snippet.title === "Shaping a boule")).toHaveLength(1)
    expect(fake.count("init")).toBe(1)
    expect(video!.status).toMatchObject({ privacyStatus: "unlisted", selfDeclaredMadeForKids: false })
    expect(target.options).toEqual({
      video: { made_for_kids: false, privacy_status: "unlisted", title: "Shaping a boule", tags: [] }
    })
  })

  /**
   * Validate and create on `on` refuse the post up front: 422 `quota_exceeded` naming the
   * target's account, the limit and when the Pacific day ends (07:00 or 08:00 UTC); answers that end.
   */
  const expectRefusedUpFront = async (on: TestServer) => {
    const inits = fake.count("init")
    const refusal = { code: "quota_exceeded", field: "targets[0].account_id", message: expect.stringMatching(/limit of 2\b/) }
    const validated = await call(on.baseUrl, "POST", "/v1/posts/validate", { key: liveKey, body: aPost("Third loaf") })
    expect(validated.status, JSON.stringify(validated.body)).toBe(200)
    expect(validated.body.issues).toEqual([expect.objectContaining(refusal)])
    const created = await call(on.baseUrl, "POST", "/v1/posts", { key: liveKey, body: aPost("Third loaf") })
    expect(created.status, JSON.stringify(created.body)).toBe(422)
    expect(created.body.error).toMatchObject(refusal)
    const resetsAt = /resets at (\S+)\.$/.exec(created.body.error.message as string)?.[1]
    expect(resetsAt).toMatch(/^\d{4}-\d{2}-\d{2}T0[78]:00:00\.000Z$/)
    expect(fake.count("init")).toBe(inits)
    return resetsAt!
  }

  it("counts the project's uploads in the database and refuses the third of the day up front (validate and create)", async () => {
    // The Short above was the day's first upload, this is its second.
    const second = await publish("Second loaf")
    expect(second.status).toBe("published")
    await expectRefusedUpFront(server)
    // On PostgreSQL another server on the same database, which uploaded nothing itself, counts in
    // the same budget: it refuses too.
    if (backend === "postgres") {
      const other = await startServer(backend, environment(), { database, clock: clock.clock })
      try {
        await expectRefusedUpFront(other)
      } finally {
        await other.stop()
      }
    }
  })

  it("a post scheduled for the next Pacific day is not refused: that day's uploads are unspent", async () => {
    const resetsAt = await expectRefusedUpFront(server)
    const tomorrow = new Date(Date.parse(resetsAt) + 60 * 60_000).toISOString()
    const validated = await call(server.baseUrl, "POST", "/v1/posts/validate", {
      key: liveKey,
      body: aPost("Tomorrow's loaf", { scheduled_at: tomorrow })
    })
    expect(validated.body.issues).toEqual([])
  })

  it("reads the Short's comments and answers one as the channel", async () => {
    const video = fake.videos[0]!
    fake.comments.push({
      id: "UgxFan1",
      videoId: video.id,
      parentId: null,
      text: "What hydration?",
      authorDisplayName: "@breadfan",
      authorChannelId: "UCfan00000000000000000000",
      publishedAt: new Date().toISOString(),
      moderationStatus: "published"
    })
    const posts = await call(server.baseUrl, "GET", "/v1/posts?limit=10", { key: liveKey })
    const postId = (posts.body.data as Array<{ id: string; targets: Array<{ permalink: string | null }> }>).find((p) =>
      p.targets[0]?.permalink?.endsWith(video.id)
    )!.id
    const listed = await eventually(
      () => call(server.baseUrl, "GET", `/v1/comments?post_id=${postId}&limit=100`, { key: liveKey }),
      (reply) => reply.status === 200 && (reply.body.data as Array<unknown>).length > 0,
      "the comment to be read",
      { step: () => clock.advance(60_000), intervalMs: 150 }
    )
    const comment = (listed.body.data as Array<{ id: string; text: string }>)[0]!
    expect(comment.text).toBe("What hydration?")
    const answered = await call(server.baseUrl, "POST", `/v1/comments/${comment.id}/replies`, {
      key: liveKey,
      body: { text: "78%, and a long cold proof." }
    })
    expect(answered.status, JSON.stringify(answered.body)).toBeLessThan(300)
    expect(fake.comments.find((c) => c.parentId === "UgxFan1")?.text).toBe("78%, and a long cold proof.")
  })

  it("the day's count survives a restart of the server", async () => {
    await server.stop()
    server = await startServer(backend, environment(), { database, clock: clock.clock })
    await expectRefusedUpFront(server)
  })
})
