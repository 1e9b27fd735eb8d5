import { assert, describe, it } from "@effect/vitest"
import type { PublishInput, PublishMedia } from "@postwire/core"
import { Credentials, type PlatformRouter, youtube } from "@postwire/platforms"
import { Effect } from "effect"
import { aNodeRouter, aRouter, drive, tracerOff } from "../adapterConformance.ts"
import { anAccount, anImage, aPost, aPublishInput, aTarget, aVideo } from "../builders.ts"
import * as YouTubeFake from "./YouTubeFake.ts"

type Fake = YouTubeFake.YouTubeFake

const kib = 1024

const settings = (fake: Fake, extra: Record<string, unknown> = {}) => ({
  apiUrl: `${fake.url}/youtube/v3`,
  uploadUrl: `${fake.url}/upload/youtube/v3`,
  tokenUrl: `${fake.url}/token`,
  clientId: fake.clientId,
  clientSecret: fake.clientSecret,
  chunkBytes: 256 * kib,
  lookIntervalMs: 1,
  ...extra
})

const routerFor = (fake: Fake, extra: Record<string, unknown> = {}) =>
  aRouter({ video: settings(fake, extra) } as unknown as PlatformRouter.Options)

/** A video whose bytes are `size` ASCII letters (the fake counts what arrives). */
const aVideoOf = (size: number, facts: { width?: number; height?: number; durationSeconds?: number } = {}): PublishMedia => {
  const base = aVideo({ sizeBytes: size, width: 1920, height: 1080, durationSeconds: 300, ...facts })
  return { ...base, read: Effect.succeed(new Uint8Array(size).fill(0x61)) }
}

const credentialsOf = (fake: Fake, extra: Partial<Credentials.Stored<typeof youtube>> = {}) => {
  const { access, refresh } = fake.grant()
  return Credentials.encode(youtube, {
    access_token: access,
    refresh_token: refresh,
    expires_at: Date.now() + 3_500_000,
    channel_id: fake.channels[0]!.id,
    uploads_playlist_id: fake.channels[0]!.uploads,
    ...extra
  })
}

const anUpload = (
  fake: Fake,
  options: {
    readonly media?: ReadonlyArray<PublishMedia>
    readonly video?: Record<string, unknown> | null
    readonly caption?: string
    readonly credentials?: string
  } = {}
): PublishInput => {
  const account = anAccount("video", { externalId: fake.channels[0]!.id, credentials: options.credentials ?? credentialsOf(fake) })
  const videoOptions = options.video === null ? {} : { video: { made_for_kids: false, ...options.video } }
  return aPublishInput({
    account,
    post: aPost({ caption: options.caption ?? "Sourdough in 10 steps\nEverything I learned baking 200 loaves." }),
    target: aTarget(account, { options: videoOptions as never }),
    media: options.media ?? [aVideoOf(600 * kib)]
  })
}

describe("YouTube adapter (video)", () => {
  it.live("uploads in 256 KiB chunks and answers the watch address; the snippet and status are what the target asked", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* YouTubeFake.make()
        const client = yield* routerFor(fake)
        const result = yield* drive(client, anUpload(fake, { video: { privacy_status: "unlisted", tags: ["bread", "sour dough"] } }))
        assert.isDefined(result.published, String(result.failure?.platformCode))
        const video = fake.videos[0]!
        assert.strictEqual(fake.videos.length, 1)
        assert.strictEqual(result.published!.platformPostId, video.id)
        assert.strictEqual(result.published!.permalink, `https://www.youtube.com/watch?v=${video.id}`)
        assert.strictEqual(video.bytes, 600 * kib)
        // 600 KiB in 256 KiB chunks: 256 + 256 + 88.
        assert.strictEqual(fake.count("chunk"), 3)
        assert.strictEqual(video.snippet.title, "Sourdough in 10 steps")
        assert.strictEqual(video.snippet.description, "Sourdough in 10 steps\nEverything I learned baking 200 loaves.")
        assert.deepStrictEqual(video.snippet.tags, ["bread", "sour dough"])
        assert.deepInclude(video.status, { privacyStatus: "unlisted", selfDeclaredMadeForKids: false })
      })
    )
  )

  it.live("the same chunked upload over the server's node:http sender (308 answers are not redirects)", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* YouTubeFake.make()
        const client = yield* aNodeRouter({ video: settings(fake) } as unknown as PlatformRouter.Options)
        fake.faults.inject("chunk", { lose: true }, 1, { armedBy: "chunk" })
        const result = yield* tracerOff(drive(client, anUpload(fake)))
        assert.isDefined(result.published, String(result.failure?.platformCode))
        assert.strictEqual(fake.videos.length, 1)
        assert.strictEqual(fake.videos[0]!.bytes, 600 * kib)
        assert.strictEqual(fake.count("chunk"), 4)
      })
    )
  )

  it.live("a chunk YouTube refuses (400) ends the target as not published, without looping", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* YouTubeFake.make()
        const client = yield* routerFor(fake)
        fake.faults.inject("chunk", YouTubeFake.googleError(400, "badRequest", "Invalid Content-Range header", "global"), 1, { armedBy: "chunk" })
        const result = yield* drive(client, anUpload(fake))
        assert.deepInclude(result.failure, { code: "media_invalid", platformCode: "badRequest", notPublished: true })
        assert.strictEqual(fake.videos.length, 0)
      })
    )
  )

  it.live("a vertical video of at most three minutes is a Short: its address is /shorts/", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* YouTubeFake.make()
        const client = yield* routerFor(fake)
        const short = yield* drive(client, anUpload(fake, { media: [aVideoOf(100 * kib, { width: 1080, height: 1920, durationSeconds: 58 })] }))
        assert.match(short.published!.permalink!, /^https:\/\/www\.youtube\.com\/shorts\/vid\d+$/)
        const long = yield* drive(client, anUpload(fake, { media: [aVideoOf(100 * kib, { width: 1080, height: 1920, durationSeconds: 181 })] }))
        assert.match(long.published!.permalink!, /watch\?v=/)
        const square = yield* drive(client, anUpload(fake, { media: [aVideoOf(100 * kib, { width: 1080, height: 1080, durationSeconds: 180 })] }))
        assert.match(square.published!.permalink!, /\/shorts\//)
      })
    )
  )

  it.live("a chunk cut in the middle: the session says what it has and the upload goes on from there, never from the start", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* YouTubeFake.make()
        const client = yield* routerFor(fake)
        // The second chunk's connection drops before YouTube keeps it.
        fake.faults.inject("chunk", { lose: true }, 1, { armedBy: "chunk" })
        const checkpoints: Array<{ readonly chunks: number; readonly state: unknown }> = []
        const input = {
          ...anUpload(fake),
          checkpoint: (state: unknown) => Effect.sync(() => void checkpoints.push({ chunks: fake.count("chunk"), state }))
        }
        const result = yield* drive(client, input)
        assert.isDefined(result.published)
        assert.strictEqual(fake.count("init"), 1)
        assert.strictEqual(fake.count("status"), 1)
        // 3 chunks and the one lost; the session was saved before the first byte.
        assert.strictEqual(fake.count("chunk"), 4)
        assert.strictEqual(checkpoints.length, 1)
        assert.strictEqual(checkpoints[0]!.chunks, 0)
        const ranges = fake.requests.filter((r) => r.route === "chunk").map((r) => r.headers["content-range"])
        assert.deepStrictEqual(ranges, [
          `bytes 0-262143/${600 * kib}`,
          `bytes 262144-524287/${600 * kib}`,
          `bytes 262144-524287/${600 * kib}`,
          `bytes 524288-614399/${600 * kib}`
        ])
        assert.strictEqual(fake.videos.length, 1)
      })
    )
  )

  it.live("an upload that cannot go on ends the step with the session saved; the next step resumes from the reported offset", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* YouTubeFake.make()
        const client = yield* routerFor(fake)
        fake.faults.inject("chunk", googleUnavailable, 10, { armedBy: "chunk" })
        fake.faults.inject("status", googleUnavailable, 10)
        const first = yield* drive(client, anUpload(fake))
        assert.strictEqual(first.failure?.code, "platform_unavailable")
        assert.isTrue(first.failure?.retryable)
        const saved = first.failure?.state as { upload_url: string }
        assert.match(saved.upload_url, /upload_id=/)
        fake.faults.clear()
        const second = yield* drive(client, { ...anUpload(fake), account: first.account, state: saved })
        assert.isDefined(second.published)
        assert.strictEqual(fake.count("init"), 1)
        assert.strictEqual(fake.videos.length, 1)
        assert.strictEqual(fake.videos[0]!.bytes, 600 * kib)
        const last = fake.requests.filter((r) => r.route === "chunk").at(-1)!
        assert.strictEqual(last.headers["content-range"], `bytes 524288-614399/${600 * kib}`)
      })
    )
  )

  it.live("the final chunk's answer lost: the session's status gives the video, nothing is uploaded again", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* YouTubeFake.make()
        const client = yield* routerFor(fake)
        // One chunk only: it is the final one; YouTube makes the video, the answer never comes.
        fake.faults.injectAfter("chunk", { lose: true })
        const result = yield* drive(client, anUpload(fake, { media: [aVideoOf(100 * kib)] }))
        assert.isDefined(result.published)
        assert.strictEqual(result.published!.platformPostId, fake.videos[0]!.id)
        assert.strictEqual(fake.videos.length, 1)
        assert.strictEqual(fake.count("chunk"), 1)
        assert.strictEqual(fake.count("init"), 1)
      })
    )
  )

  it.live("the final answer lost and the session gone: the uploads playlist finds the video, nothing is uploaded again", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* YouTubeFake.make()
        const client = yield* routerFor(fake)
        fake.faults.injectAfter("chunk", { lose: true })
        fake.faults.inject("status", YouTubeFake.googleError(404, "notFound", "Not Found", "global"), 5)
        const result = yield* drive(client, anUpload(fake, { media: [aVideoOf(100 * kib)] }))
        assert.isDefined(result.published)
        assert.strictEqual(result.published!.platformPostId, fake.videos[0]!.id)
        assert.strictEqual(fake.count("playlistItems"), 1)
        assert.strictEqual(fake.videos.length, 1)
        assert.strictEqual(fake.count("init"), 1)
      })
    )
  )

  it.live("a session gone with no video: looked for again, then publish_unconfirmed (gave up), never uploaded again", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* YouTubeFake.make()
        const client = yield* routerFor(fake, { lostUploadWindowMs: 0 })
        fake.faults.inject("chunk", { lose: true }, 1)
        fake.faults.inject("status", YouTubeFake.googleError(404, "notFound", "Not Found", "global"), 5)
        const result = yield* drive(client, anUpload(fake, { media: [aVideoOf(100 * kib)] }))
        assert.strictEqual(result.failure?.code, "publish_unconfirmed")
        assert.isTrue(result.failure?.gaveUp)
        assert.strictEqual(fake.videos.length, 0)
        assert.strictEqual(fake.count("init"), 1)
      })
    )
  )

  it.live("the project's day is counted: an upload past its uploads bucket is refused up front with quota_exceeded", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* YouTubeFake.make()
        // Room for two uploads and no third.
        const client = yield* routerFor(fake, { dailyUploads: 2 })
        for (let i = 0; i < 2; i++) assert.isDefined((yield* drive(client, anUpload(fake, { media: [aVideoOf(10 * kib)] }))).published)
        const refused = yield* drive(client, anUpload(fake, { media: [aVideoOf(10 * kib)] }))
        assert.strictEqual(refused.failure?.code, "quota_exceeded")
        assert.strictEqual(refused.failure?.platformCode, "project_daily_uploads")
        assert.isTrue(refused.failure?.notPublished)
        assert.strictEqual(refused.failure?.details?.limit, 2)
        assert.match(String(refused.failure?.details?.resets_at), /^\d{4}-\d{2}-\d{2}T(07|08):00:00\.000Z$/)
        assert.strictEqual(fake.count("init"), 2)
      })
    )
  )

  it.live("YouTube's own quotaExceeded marks the day spent: the next upload is refused before anything is sent", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* YouTubeFake.make()
        fake.uploadsUsed = 100
        const client = yield* routerFor(fake)
        const first = yield* drive(client, anUpload(fake))
        assert.strictEqual(first.failure?.code, "quota_exceeded")
        assert.strictEqual(first.failure?.platformCode, "quotaExceeded")
        const second = yield* drive(client, anUpload(fake))
        assert.strictEqual(second.failure?.platformCode, "project_daily_uploads")
        assert.strictEqual(fake.count("init"), 1)
      })
    )
  )

  it.live("an expired access token is refreshed before the upload; the new credentials leave with the result", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* YouTubeFake.make()
        const client = yield* routerFor(fake)
        const stale = credentialsOf(fake, { expires_at: Date.now() - 1000 })
        const result = yield* drive(client, anUpload(fake, { credentials: stale }))
        assert.isDefined(result.published)
        assert.strictEqual(fake.count("token"), 1)
        const stored = JSON.parse(result.account.credentials!) as Credentials.Stored<typeof youtube>
        assert.notStrictEqual(stored.access_token, (JSON.parse(stale) as Credentials.Stored<typeof youtube>).access_token)
        assert.strictEqual(stored.refresh_token, (JSON.parse(stale) as Credentials.Stored<typeof youtube>).refresh_token)
        assert.isAbove(stored.expires_at!, Date.now() + 3_000_000)
      })
    )
  )

  it.live("a token YouTube refuses (401 authError) is refreshed once; a revoked grant ends in token_expired with a reconnect", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* YouTubeFake.make()
        const client = yield* routerFor(fake)
        const credentials = credentialsOf(fake)
        // The access token expired early on YouTube's side.
        fake.clockOffsetMs = 3_600_000
        const refreshed = yield* drive(client, anUpload(fake, { credentials }))
        assert.isDefined(refreshed.published)
        assert.strictEqual(fake.count("token"), 1)
        const another = credentialsOf(fake)
        fake.refreshTokens.clear()
        const revoked = yield* drive(client, anUpload(fake, { credentials: another }))
        assert.strictEqual(revoked.failure?.code, "token_expired")
        assert.strictEqual(revoked.failure?.platformCode, "invalid_grant")
        assert.isTrue(revoked.failure?.needsReconnect)
      })
    )
  )

  it.live("a thumbnail among the media is set with thumbnails.set after the upload", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* YouTubeFake.make()
        const client = yield* routerFor(fake)
        const thumb = { ...anImage(), read: Effect.succeed(new Uint8Array(2048).fill(0x62)) }
        const result = yield* drive(
          client,
          anUpload(fake, { media: [aVideoOf(10 * kib), thumb], video: { thumbnail_media_id: thumb.record.id } })
        )
        assert.isDefined(result.published)
        assert.strictEqual(fake.thumbnails.get(fake.videos[0]!.id), 2048)
      })
    )
  )

  it.live("refusals map to the catalog: made_for_kids missing (option_required), uploadLimitExceeded, insufficient scope, invalidTitle", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* YouTubeFake.make()
        const client = yield* routerFor(fake)
        const noKids = yield* drive(client, anUpload(fake, { video: null }))
        assert.strictEqual(noKids.failure?.code, "option_required")
        assert.strictEqual(noKids.failure?.platformCode, "option:made_for_kids")
        assert.isTrue(noKids.failure?.notPublished)
        assert.strictEqual(fake.count("init"), 0)

        fake.faults.inject("init", YouTubeFake.googleError(400, "uploadLimitExceeded", "The user has exceeded the number of videos they may upload."))
        const limit = yield* drive(client, anUpload(fake))
        assert.deepInclude(limit.failure, { code: "quota_exceeded", platformCode: "uploadLimitExceeded", notPublished: true })

        const { access, refresh } = fake.grant([YouTubeFake.commentsScope.replace("force-ssl", "readonly")])
        const readOnly = Credentials.encode(youtube, { access_token: access, refresh_token: refresh, channel_id: fake.channels[0]!.id })
        const scope = yield* drive(client, anUpload(fake, { credentials: readOnly }))
        assert.deepInclude(scope.failure, { code: "permission_missing", platformCode: "insufficientPermissions", needsReconnect: true })

        fake.faults.inject("init", YouTubeFake.googleError(400, "invalidTitle", "The request metadata specifies an invalid or empty video title."))
        const title = yield* drive(client, anUpload(fake))
        assert.deepInclude(title.failure, { code: "caption_invalid", platformCode: "invalidTitle", notPublished: true })
      })
    )
  )
})

const googleUnavailable = YouTubeFake.googleError(503, "backendError", "Backend Error", "global")
