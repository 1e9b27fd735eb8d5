/**
 * The Mastodon adapter against the fake server (MastodonFake.ts), through the publishing router:
 * text, images, a video processed in the background, the server's own limits, the target's
 * options, lost answers resolved without a second status, rate limits and refusals.
 */
import { assert, describe, it } from "@effect/vitest"
import type { PlatformClient, PlatformFailure, PublishInput } from "@postwire/core"
import { Effect, Result } from "effect"
import { aRouter, drive } from "../adapterConformance.ts"
import { anImage, aVideo } from "../builders.ts"
import { idempotencyKey } from "../../../packages/platforms/src/fediverse/Fediverse.ts"
import * as MastodonFake from "./MastodonFake.ts"
import { aMastodonPost, routerOptions } from "./support.ts"

const setUp = (overrides: Record<string, unknown> = {}) =>
  Effect.gen(function* () {
    const fake = yield* MastodonFake.make()
    const client = yield* aRouter(routerOptions(overrides) as never)
    return { fake, client }
  })

/** One step, its failure as a value. */
const step = (client: PlatformClient["Service"], input: PublishInput) => Effect.result(client.publish(input))

const failureOf = <A>(result: Result.Result<A, PlatformFailure>): PlatformFailure => {
  if (Result.isSuccess(result)) throw new Error(`expected a failure, got ${JSON.stringify(result.success)}`)
  return result.failure
}

describe("Mastodon adapter", () => {
  it.live("publishes text with the target's options and an Idempotency-Key derived from the target", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { fake, client } = yield* setUp()
        const checkpoints: Array<unknown> = []
        const input = {
          ...aMastodonPost(fake, {
            caption: "Sourdough day 🍞\nSee you at the market",
            fediverse: { visibility: "unlisted", spoiler_text: "food", sensitive: true, language: "en" }
          }),
          checkpoint: (state: unknown) => Effect.sync(() => void checkpoints.push(state))
        }
        const result = yield* drive(client, input)
        assert.isDefined(result.published, JSON.stringify(result.failure))
        const status = fake.statuses[0]!
        assert.strictEqual(fake.statuses.length, 1)
        assert.strictEqual(status.text, "Sourdough day 🍞\nSee you at the market")
        assert.strictEqual(status.visibility, "unlisted")
        assert.strictEqual(status.spoilerText, "food")
        assert.isTrue(status.sensitive)
        assert.strictEqual(status.language, "en")
        assert.strictEqual(result.published!.platformPostId, status.id)
        assert.strictEqual(result.published!.permalink, `${fake.origin}/@maya/${status.id}`)
        const sent = fake.requests.find((r) => r.route === "status")!
        assert.strictEqual(sent.headers["idempotency-key"], idempotencyKey(input.target.id))
        assert.strictEqual(sent.headers.authorization, `Bearer ${fake.ownerToken}`)
        // The checkpoint came before the status was sent.
        assert.strictEqual(checkpoints.length, 1)
      })
    )
  )

  it.live("uploads images (200: processed) and attaches them in order", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { fake, client } = yield* setUp()
        const result = yield* drive(client, aMastodonPost(fake, { media: [anImage({ filename: "a.jpg" }), anImage({ mime: "image/png", filename: "b.png" })] }))
        assert.isDefined(result.published)
        assert.strictEqual(fake.count("upload"), 2)
        assert.strictEqual(fake.count("media"), 0)
        const media = [...fake.media.values()]
        assert.deepStrictEqual(media.map((m) => [m.filename, m.mime]), [["a.jpg", "image/jpeg"], ["b.png", "image/png"]])
        assert.deepStrictEqual(fake.statuses[0]!.mediaIds, media.map((m) => m.id))
      })
    )
  )

  it.live("sends each media item's description (alt text) from the target's `alt`, in order", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { fake, client } = yield* setUp()
        const input = aMastodonPost(fake, {
          media: [anImage({ filename: "a.jpg" }), anImage({ filename: "b.jpg" }), anImage({ filename: "c.jpg" })],
          fediverse: { alt: ["A round sourdough loaf, scored in a leaf pattern 🍞", ""] }
        })
        const result = yield* drive(client, input)
        assert.isDefined(result.published, JSON.stringify(result.failure))
        const media = [...fake.media.values()]
        assert.deepStrictEqual(
          media.map((m) => [m.filename, m.description]),
          [
            ["a.jpg", "A round sourdough loaf, scored in a leaf pattern 🍞"],
            ["b.jpg", null],
            ["c.jpg", null]
          ]
        )
      })
    )
  )

  it.live("refuses a description over the server's description_limit before uploading anything", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { fake, client } = yield* setUp()
        fake.configuration.media_attachments.description_limit = 20
        const result = yield* drive(client, aMastodonPost(fake, { media: [anImage(), anImage()], fediverse: { alt: ["short", "x".repeat(21)] } }))
        assert.strictEqual(result.failure?.code, "media_invalid")
        assert.strictEqual(result.failure?.platformCode, "description_limit")
        assert.isTrue(result.failure?.notPublished)
        assert.deepInclude(JSON.stringify(result.failure?.details), "at most 20 characters; this one has 21")
        assert.strictEqual(fake.count("upload"), 0)
        // Emoji count as one character each (code points), as the server counts them.
        const emoji = yield* drive(client, aMastodonPost(fake, { media: [anImage()], fediverse: { alt: ["🍞".repeat(20)] } }))
        assert.isDefined(emoji.published, JSON.stringify(emoji.failure))
      })
    )
  )

  it.live("a server that lowered its limit since it was read refuses the upload (422 with its words): media_invalid, nothing posted", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { fake, client } = yield* setUp()
        const first = yield* drive(client, aMastodonPost(fake, { caption: "first" }))
        assert.isDefined(first.published)
        // The limits are kept an hour: the lower limit is not read yet.
        fake.configuration.media_attachments.description_limit = 10
        const result = yield* drive(client, aMastodonPost(fake, { media: [anImage()], fediverse: { alt: ["a loaf on a board"] } }))
        assert.strictEqual(result.failure?.code, "media_invalid")
        assert.isTrue(result.failure?.notPublished)
        assert.deepInclude(JSON.stringify(result.failure?.details), "Description is too long (maximum is 10 characters)")
        assert.strictEqual(fake.media.size, 0)
        assert.strictEqual(fake.statuses.length, 1)
      })
    )
  )

  it.live("waits for a video the server processes in the background (202, then 206 until 200)", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { fake, client } = yield* setUp()
        fake.processingChecks = 3
        const result = yield* drive(client, aMastodonPost(fake, { media: [aVideo()] }))
        assert.isDefined(result.published)
        assert.strictEqual(result.steps.filter((s) => s._tag === "InProgress").length, 4)
        assert.strictEqual(fake.count("media"), 4)
        assert.strictEqual(fake.statuses.length, 1)
        assert.strictEqual(fake.statuses[0]!.mediaIds.length, 1)
      })
    )
  )

  it.live("a video the server fails to process ends the target unsent (the attachment is gone: 404)", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { fake, client } = yield* setUp()
        fake.processingChecks = 5
        const input = aMastodonPost(fake, { media: [aVideo()] })
        const first = yield* client.publish(input)
        assert.strictEqual(first._tag, "InProgress")
        // Mastodon drops an attachment whose processing failed.
        fake.media.clear()
        const result = yield* drive(client, { ...input, state: first.state })
        assert.strictEqual(result.failure?.code, "media_invalid")
        assert.strictEqual(result.failure?.platformCode, "media_processing_failed")
        assert.isTrue(result.failure?.notPublished)
        assert.strictEqual(fake.count("status"), 0)
      })
    )
  )

  it.live("checks the server's own limits before sending anything", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { fake, client } = yield* setUp()
        fake.configuration.statuses.max_characters = 100
        fake.configuration.statuses.max_media_attachments = 2
        const long = yield* drive(client, aMastodonPost(fake, { caption: "x".repeat(101) }))
        assert.strictEqual(long.failure?.code, "caption_too_long")
        assert.strictEqual(long.failure?.details?.limit, 100)
        assert.isTrue(long.failure?.notPublished)
        const spoiler = yield* drive(client, aMastodonPost(fake, { caption: "x".repeat(90), fediverse: { spoiler_text: "y".repeat(11) } }))
        assert.strictEqual(spoiler.failure?.code, "caption_too_long")
        const many = yield* drive(client, aMastodonPost(fake, { media: [anImage(), anImage(), anImage()] }))
        assert.strictEqual(many.failure?.code, "media_invalid")
        assert.strictEqual(many.failure?.platformCode, "fediverse_media_max")
        const mixed = yield* drive(client, aMastodonPost(fake, { media: [anImage(), aVideo()] }))
        assert.strictEqual(mixed.failure?.platformCode, "fediverse_images_and_video")
        assert.strictEqual(fake.count("upload"), 0)
        assert.strictEqual(fake.count("status"), 0)
        // The limits were read once for the server.
        assert.strictEqual(fake.count("instance"), 1)
      })
    )
  )

  it.live("publishes what a server with higher limits takes; a URL counts 23 characters", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { fake, client } = yield* setUp()
        fake.configuration.statuses.max_characters = 1_000
        const long = yield* drive(client, aMastodonPost(fake, { caption: "x".repeat(900) }))
        assert.isDefined(long.published)
        const withUrl = yield* drive(client, aMastodonPost(fake, { caption: `${"y".repeat(970)} https://example.com/${"z".repeat(200)}` }))
        assert.isDefined(withUrl.published)
        assert.strictEqual(fake.statuses.length, 2)
      })
    )
  )

  it.live("maps the server's 422 for text over its limit (limits changed after they were read)", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { fake, client } = yield* setUp()
        yield* drive(client, aMastodonPost(fake, { caption: "first" }))
        fake.configuration.statuses.max_characters = 50
        const result = yield* drive(client, aMastodonPost(fake, { caption: "z".repeat(60) }))
        assert.strictEqual(result.failure?.code, "caption_too_long")
        assert.strictEqual(result.failure?.platformCode, "text_character_limit")
        assert.strictEqual(result.failure?.details?.limit, 50)
        assert.isTrue(result.failure?.notPublished)
        assert.isFalse(result.failure?.retryable)
      })
    )
  )

  it.live("a lost answer after the status was made: found on the account, never sent twice", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { fake, client } = yield* setUp()
        fake.faults.injectAfter("status", { lose: true })
        const input = aMastodonPost(fake, { media: [anImage()] })
        const first = failureOf(yield* step(client, input))
        assert.strictEqual(first.code, "platform_unavailable")
        assert.strictEqual(fake.statuses.length, 1)
        const again = yield* drive(client, { ...input, state: first.state })
        assert.isDefined(again.published)
        assert.strictEqual(again.published!.platformPostId, fake.statuses[0]!.id)
        assert.strictEqual(fake.count("status"), 1)
        assert.strictEqual(fake.count("account_statuses"), 1)
        assert.strictEqual(fake.statuses.length, 1)
      })
    )
  )

  it.live("a lost request (nothing made): not found, sent again with the same key, made once", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { fake, client } = yield* setUp()
        fake.faults.inject("status", { lose: true })
        const input = aMastodonPost(fake, { caption: "only once" })
        const first = failureOf(yield* step(client, input))
        assert.strictEqual(fake.statuses.length, 0)
        const again = yield* drive(client, { ...input, state: first.state })
        assert.isDefined(again.published)
        const sent = fake.requests.filter((r) => r.route === "status")
        assert.strictEqual(sent.length, 2)
        assert.strictEqual(sent[0]!.headers["idempotency-key"], sent[1]!.headers["idempotency-key"])
        assert.strictEqual(fake.statuses.length, 1)
      })
    )
  )

  it.live("the same Idempotency-Key sent again returns the status already made (the server's replay)", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { fake, client } = yield* setUp()
        const input = aMastodonPost(fake, { caption: "a replayed key" })
        const first = yield* drive(client, input)
        // The account's list shows nothing (say, the status is not listed yet): the key is sent again.
        fake.faults.inject("account_statuses", { status: 200, json: [] })
        const state = { phase: "status", media_ids: [], key: idempotencyKey(input.target.id), at: Date.now() }
        const again = yield* drive(client, { ...input, state })
        assert.strictEqual(again.published?.platformPostId, first.published?.platformPostId)
        assert.strictEqual(fake.statuses.length, 1)
      })
    )
  )

  it.live("past the key's hour, a status never found ends as publish_unconfirmed without sending", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { fake, client } = yield* setUp()
        const input = aMastodonPost(fake, { caption: "lost long ago" })
        const state = { phase: "status", media_ids: [], key: idempotencyKey(input.target.id), at: Date.now() - 2 * 60 * 60 * 1000 }
        const result = yield* drive(client, { ...input, state })
        assert.strictEqual(result.failure?.code, "publish_unconfirmed")
        assert.isTrue(result.failure?.gaveUp)
        assert.strictEqual(fake.count("status"), 0)
      })
    )
  )

  it.live("a rate limit (429) waits until X-RateLimit-Reset", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { fake, client } = yield* setUp()
        fake.rateLimitRemaining = 0
        const result = yield* drive(client, aMastodonPost(fake, { caption: "later" }))
        assert.strictEqual(result.failure?.code, "platform_unavailable")
        assert.strictEqual(result.failure?.platformCode, "rate_limited")
        assert.strictEqual(result.failure?.retryAt, Date.parse(fake.rateLimitReset))
        assert.strictEqual(fake.statuses.length, 0)
      })
    )
  )

  it.live("media uploads have their own limit (30 per 30 minutes): the target waits until its reset, nothing posted", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { fake, client } = yield* setUp()
        fake.mediaUploadsRemaining = 1
        const result = yield* drive(client, aMastodonPost(fake, { media: [anImage(), anImage()] }))
        assert.strictEqual(result.failure?.code, "platform_unavailable")
        assert.strictEqual(result.failure?.platformCode, "rate_limited")
        assert.strictEqual(result.failure?.retryAt, Date.parse(fake.mediaRateLimitReset))
        assert.strictEqual(fake.count("upload"), 2)
        assert.strictEqual(fake.statuses.length, 0)
      })
    )
  )

  it.live("a revoked token asks for a reconnect; a 5xx is retried", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { fake, client } = yield* setUp()
        const revoked = yield* drive(client, aMastodonPost(fake, { token: "tok-unknown" }))
        assert.strictEqual(revoked.failure?.code, "token_expired")
        assert.isTrue(revoked.failure?.needsReconnect)
        fake.faults.inject("upload", { status: 503, json: { error: "Service Unavailable" } })
        const retried = yield* drive(client, aMastodonPost(fake, { media: [anImage()] }))
        assert.isDefined(retried.published)
        assert.strictEqual(fake.count("upload"), 2)
      })
    )
  )
})
