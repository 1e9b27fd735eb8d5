/**
 * A Bluesky video through the video service (`app.bsky.video.*`) against a fake service that
 * follows the lexicons, in front of the fake PDS: the upload limits asked first, the upload with
 * a service-auth token for the PDS, the job polled (`InProgress` between checks) until its blob
 * is ready and the post embeds it; a job that fails and a daily limit that is reached end the
 * target as not published. The path without a video service is in Atproto.test.ts.
 * https://docs.bsky.app/docs/tutorials/video
 * https://github.com/bluesky-social/atproto/tree/main/lexicons/app/bsky/video
 */
import { assert, describe, it } from "@effect/vitest"
import type { PlatformRouter } from "@postwire/platforms"
import { Effect } from "effect"
import * as Xrpc from "../../../packages/platforms/src/atproto/Xrpc.ts"
import { aRouter, drive } from "../adapterConformance.ts"
import { anAccount, aPost, aPublishInput, aTarget, aVideo } from "../builders.ts"
import * as PdsFake from "./PdsFake.ts"
import * as VideoServiceFake from "./VideoServiceFake.ts"

const settings = (video: VideoServiceFake.VideoServiceFake) =>
  ({ atproto: { webHost: "https://bsky.app", videoServiceUrl: video.url, videoServiceDid: video.did, pollIntervalMs: 1_000, videoChecksMax: 5 } }) as unknown as PlatformRouter.Options

const aVideoPost = (fake: PdsFake.PdsFake) => {
  const pair = fake.session()
  const account = anAccount("atproto", {
    handle: fake.handle,
    externalId: fake.did,
    credentials: Xrpc.encode({ did: fake.did, handle: fake.handle, service: fake.url, access_jwt: pair.access, refresh_jwt: pair.refresh })
  })
  return aPublishInput({
    account,
    post: aPost({ caption: "Shaping the loaves" }),
    target: aTarget(account, { options: { atproto: { alt: ["Hands folding dough"] } } as never }),
    media: [aVideo()]
  })
}

describe("Bluesky video through the video service", () => {
  it.live("uploads to the video service, polls the job until its blob is ready, and embeds that blob", () =>
    Effect.gen(function* () {
      const pds = yield* PdsFake.make()
      const video = yield* VideoServiceFake.make(pds)
      const client = yield* aRouter(settings(video))
      const result = yield* drive(client, aVideoPost(pds))
      assert.isDefined(result.published, result.failure?.platformCode)
      assert.deepStrictEqual(
        result.steps.map((s) => [s._tag, s._tag === "InProgress" ? s.pollAfterMs : null]),
        [
          ["InProgress", 1_000],
          ["InProgress", 1_000],
          ["Published", null]
        ]
      )
      assert.strictEqual(video.count("limits"), 1)
      assert.strictEqual(video.count("uploadVideo"), 1)
      assert.strictEqual(video.count("jobStatus"), 2)
      assert.strictEqual(pds.count("upload"), 0, "the video did not go to the PDS directly")
      const [job] = [...video.jobs.values()]
      const embed = pds.posts()[0]!.value.embed as { $type: string; video: unknown; alt: string; aspectRatio: unknown }
      assert.strictEqual(embed.$type, "app.bsky.embed.video")
      assert.deepStrictEqual(embed.video, job!.blob)
      assert.strictEqual(embed.alt, "Hands folding dough")
      assert.deepStrictEqual(embed.aspectRatio, { width: 1080, height: 1920 })
      assert.lengthOf(pds.posts(), 1)
      // The tokens asked of the PDS: the limits for the service, the upload for the PDS itself.
      assert.deepStrictEqual(
        [...pds.serviceTokens.values()],
        [
          { aud: video.did, lxm: "app.bsky.video.getUploadLimits" },
          { aud: `did:web:${new URL(pds.url).hostname}`, lxm: "com.atproto.repo.uploadBlob" }
        ]
      )
    })
  )

  it.live("a job that fails ends the target as media_invalid, not published, with the service's error", () =>
    Effect.gen(function* () {
      const pds = yield* PdsFake.make()
      const video = yield* VideoServiceFake.make(pds)
      video.failWith = "Video is too long"
      const client = yield* aRouter(settings(video))
      const result = yield* drive(client, aVideoPost(pds))
      assert.strictEqual(result.failure?.code, "media_invalid")
      assert.strictEqual(result.failure?.platformCode, "Video is too long")
      assert.isTrue(result.failure?.notPublished)
      assert.isFalse(result.failure?.retryable)
      assert.lengthOf(pds.posts(), 0)
      assert.strictEqual(pds.count("create"), 0)
    })
  )

  it.live("a daily limit reached (canUpload false) ends the target before any upload", () =>
    Effect.gen(function* () {
      const pds = yield* PdsFake.make()
      const video = yield* VideoServiceFake.make(pds)
      video.limitReached = true
      const client = yield* aRouter(settings(video))
      const result = yield* drive(client, aVideoPost(pds))
      assert.strictEqual(result.failure?.code, "quota_exceeded")
      assert.strictEqual(result.failure?.platformCode, "Daily video limit reached")
      assert.isTrue(result.failure?.notPublished)
      assert.strictEqual(video.count("uploadVideo"), 0)
      assert.lengthOf(pds.posts(), 0)
    })
  )

  it.live("a job that is still processing after the allowed checks ends the target, not published", () =>
    Effect.gen(function* () {
      const pds = yield* PdsFake.make()
      const video = yield* VideoServiceFake.make(pds)
      video.checksBeforeDone = 100
      const client = yield* aRouter(settings(video))
      const result = yield* drive(client, aVideoPost(pds))
      assert.strictEqual(result.failure?.platformCode, "video_processing_timeout")
      assert.isTrue(result.failure?.notPublished)
      assert.strictEqual(video.count("jobStatus"), 5)
      assert.lengthOf(pds.posts(), 0)
    })
  )
})
