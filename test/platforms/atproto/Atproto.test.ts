/**
 * The Bluesky adapter against the fake PDS: text with rich-text facets and a link card, images,
 * a video, the record key chosen and saved before the create, lost answers resolved by reading
 * the key back, an expired access token refreshed, rate limits and refusals.
 */
import { assert, describe, it } from "@effect/vitest"
import type { PublishInput, PublishMedia } from "@postwire/core"
import type { PlatformRouter } from "@postwire/platforms"
import { Effect, Result } from "effect"
import * as Xrpc from "../../../packages/platforms/src/atproto/Xrpc.ts"
import { aRouter, drive } from "../adapterConformance.ts"
import { anAccount, anImage, aPost, aPublishInput, aTarget, aVideo } from "../builders.ts"
import * as PdsFake from "./PdsFake.ts"

// No video service: a video goes to the PDS as a blob (the video service is tested in Video.test.ts).
const options = (_fake: PdsFake.PdsFake) => ({ atproto: { webHost: "https://bsky.app", videoServiceUrl: null } }) as unknown as PlatformRouter.Options

const credentialsOf = (fake: PdsFake.PdsFake) => {
  const pair = fake.session()
  return Xrpc.encode({ did: fake.did, handle: fake.handle, service: fake.url, access_jwt: pair.access, refresh_jwt: pair.refresh })
}

const aBlueskyPost = (
  fake: PdsFake.PdsFake,
  options: { readonly caption?: string; readonly media?: ReadonlyArray<PublishMedia>; readonly alt?: ReadonlyArray<string>; readonly credentials?: string } = {}
): PublishInput => {
  const account = anAccount("atproto", { handle: fake.handle, externalId: fake.did, credentials: options.credentials ?? credentialsOf(fake) })
  return aPublishInput({
    account,
    post: aPost({ caption: options.caption ?? "Fresh sourdough today" }),
    target: aTarget(account, options.alt === undefined ? {} : { options: { atproto: { alt: options.alt } } as never }),
    media: options.media ?? []
  })
}

const utf8 = (text: string, start: number, end: number) => Buffer.from(text, "utf8").subarray(start, end).toString("utf8")

describe("Bluesky adapter", () => {
  it.live("publishes text with facets on UTF-8 byte offsets and a link card for its first link", () =>
    Effect.gen(function* () {
      const fake = yield* PdsFake.make()
      const client = yield* aRouter(options(fake))
      const caption = "パン 🍞 fresh from @alice.example.com, see https://bakery.example/menu. #sourdough @nobody.example.org"
      const result = yield* drive(client, aBlueskyPost(fake, { caption }))
      assert.isDefined(result.published, result.failure?.platformCode)
      const [post] = fake.posts()
      assert.isDefined(post)
      const record = post!.value as { text: string; facets: Array<{ index: { byteStart: number; byteEnd: number }; features: Array<Record<string, string>> }>; embed: Record<string, unknown> }
      assert.strictEqual(record.text, caption)
      const spans = record.facets.map((f) => [utf8(caption, f.index.byteStart, f.index.byteEnd), f.features[0]!])
      assert.deepStrictEqual(spans, [
        ["@alice.example.com", { $type: "app.bsky.richtext.facet#mention", did: "did:plc:alice7example7aaaaaaaaaa" }],
        ["https://bakery.example/menu", { $type: "app.bsky.richtext.facet#link", uri: "https://bakery.example/menu" }],
        ["#sourdough", { $type: "app.bsky.richtext.facet#tag", tag: "sourdough" }]
      ])
      assert.deepStrictEqual(record.embed, {
        $type: "app.bsky.embed.external",
        external: { uri: "https://bakery.example/menu", title: "https://bakery.example/menu", description: "" }
      })
      assert.strictEqual(result.published!.platformPostId, post!.uri)
      assert.strictEqual(result.published!.permalink, `https://bsky.app/profile/${fake.handle}/post/${post!.uri.split("/")[4]}`)
    })
  )

  it.live("publishes up to four images with their alt text and aspect ratio", () =>
    Effect.gen(function* () {
      const fake = yield* PdsFake.make()
      const client = yield* aRouter(options(fake))
      const media = [anImage(), anImage({ mime: "image/png", width: 800, height: 600 })]
      const result = yield* drive(client, aBlueskyPost(fake, { media, alt: ["A loaf on a board"] }))
      assert.isDefined(result.published, result.failure?.platformCode)
      assert.strictEqual(fake.count("upload"), 2)
      const embed = fake.posts()[0]!.value.embed as { $type: string; images: Array<{ alt: string; aspectRatio: unknown; image: { mimeType: string } }> }
      assert.strictEqual(embed.$type, "app.bsky.embed.images")
      assert.deepStrictEqual(embed.images.map((i) => [i.alt, i.aspectRatio, i.image.mimeType]), [
        ["A loaf on a board", { width: 1080, height: 1350 }, "image/jpeg"],
        ["", { width: 800, height: 600 }, "image/png"]
      ])
    })
  )

  it.live("without a video service, publishes one video uploaded to the PDS as a video embed", () =>
    Effect.gen(function* () {
      const fake = yield* PdsFake.make()
      const client = yield* aRouter(options(fake))
      const result = yield* drive(client, aBlueskyPost(fake, { media: [aVideo()] }))
      assert.isDefined(result.published, result.failure?.platformCode)
      const embed = fake.posts()[0]!.value.embed as { $type: string; video: { mimeType: string }; aspectRatio: unknown }
      assert.strictEqual(embed.$type, "app.bsky.embed.video")
      assert.strictEqual(embed.video.mimeType, "video/mp4")
      assert.deepStrictEqual(embed.aspectRatio, { width: 1080, height: 1920 })
    })
  )

  it.live("saves the record key before the create, and a lost answer is found by reading it back", () =>
    Effect.gen(function* () {
      const fake = yield* PdsFake.make()
      const client = yield* aRouter(options(fake))
      const saved: Array<unknown> = []
      const input: PublishInput = {
        ...aBlueskyPost(fake),
        checkpoint: (state) =>
          Effect.sync(() => {
            saved.push(state)
            assert.strictEqual(fake.count("create"), 0, "the key is saved before the create is sent")
          })
      }
      fake.faults.injectAfter("create", { lose: true })
      const first = yield* Effect.result(client.publish(input))
      assert.isTrue(Result.isFailure(first))
      assert.strictEqual(Result.isFailure(first) ? first.failure.code : undefined, "platform_unavailable")
      assert.lengthOf(fake.posts(), 1, "the PDS made the post although its answer was lost")
      const rkey = (saved[0] as { rkey: string }).rkey
      assert.match(rkey, /^[234567abcdefghij][234567a-z]{12}$/)
      const again = yield* client.publish({ ...input, state: saved[0] })
      assert.strictEqual(again._tag, "Published")
      assert.strictEqual(again._tag === "Published" ? again.platformPostId : undefined, `at://${fake.did}/app.bsky.feed.post/${rkey}`)
      assert.lengthOf(fake.posts(), 1)
      assert.strictEqual(fake.count("create"), 1, "never sent twice")
    })
  )

  it.live("a create that never reached the PDS is made under the saved key, once", () =>
    Effect.gen(function* () {
      const fake = yield* PdsFake.make()
      const client = yield* aRouter(options(fake))
      const saved: Array<unknown> = []
      const input: PublishInput = { ...aBlueskyPost(fake), checkpoint: (state) => Effect.sync(() => void saved.push(state)) }
      fake.faults.inject("create", { lose: true })
      assert.isTrue(Result.isFailure(yield* Effect.result(client.publish(input))))
      assert.lengthOf(fake.posts(), 0)
      const again = yield* client.publish({ ...input, state: saved[0] })
      assert.strictEqual(again._tag, "Published")
      assert.lengthOf(fake.posts(), 1)
      assert.strictEqual(fake.posts()[0]!.uri.split("/")[4], (saved[0] as { rkey: string }).rkey)
      // A third call (a crash before the answer was stored) finds it and creates nothing.
      const third = yield* client.publish({ ...input, state: saved[0] })
      assert.strictEqual(third._tag, "Published")
      assert.lengthOf(fake.posts(), 1)
    })
  )

  for (const status of [400, 401]) {
    it.live(`refreshes an expired access token (ExpiredToken, ${status}) and returns the new session to store`, () =>
      Effect.gen(function* () {
        const fake = yield* PdsFake.make()
        fake.expiredStatus = status
        const client = yield* aRouter(options(fake))
        const input = aBlueskyPost(fake)
        for (const session of fake.access.values()) session.expired = true
        const result = yield* drive(client, input)
        assert.isDefined(result.published, result.failure?.platformCode)
        assert.strictEqual(fake.count("refreshSession"), 1)
        const stored = JSON.parse(result.account.credentials!) as Xrpc.AtprotoCredentials
        assert.notStrictEqual(stored.refresh_jwt, (JSON.parse(input.account.credentials!) as Xrpc.AtprotoCredentials).refresh_jwt)
        assert.isFalse(fake.access.get(stored.access_jwt)!.expired)
      })
    )
  }

  it.live("asks for a reconnect when the session cannot be refreshed", () =>
    Effect.gen(function* () {
      const fake = yield* PdsFake.make()
      const client = yield* aRouter(options(fake))
      const input = aBlueskyPost(fake)
      for (const session of fake.access.values()) session.expired = true
      fake.refresh.clear()
      const result = yield* drive(client, input)
      assert.strictEqual(result.failure?.code, "token_expired")
      assert.strictEqual(result.failure?.platformCode, "ExpiredToken")
      assert.isTrue(result.failure?.needsReconnect)
      assert.lengthOf(fake.posts(), 0)
    })
  )

  it.live("a rate limit takes the step again at the time ratelimit-reset names", () =>
    Effect.gen(function* () {
      const fake = yield* PdsFake.make()
      const client = yield* aRouter(options(fake))
      const reset = Math.floor(Date.now() / 1000) + 900
      fake.rateLimited = { remaining: 1, resetAt: reset }
      const result = yield* drive(client, aBlueskyPost(fake))
      assert.strictEqual(result.failure?.code, "platform_unavailable")
      assert.strictEqual(result.failure?.platformCode, "RateLimitExceeded")
      assert.strictEqual(result.failure?.retryAt, reset * 1000)
      assert.lengthOf(fake.posts(), 0)
    })
  )

  it.live("an image the PDS refuses as too large fails the target as not published", () =>
    Effect.gen(function* () {
      const fake = yield* PdsFake.make()
      fake.blobLimit = 4
      const client = yield* aRouter(options(fake))
      const result = yield* drive(client, aBlueskyPost(fake, { media: [anImage()] }))
      assert.strictEqual(result.failure?.code, "media_invalid")
      assert.strictEqual(result.failure?.platformCode, "PayloadTooLarge")
      assert.isTrue(result.failure?.notPublished)
      assert.strictEqual(fake.count("create"), 0)
    })
  )

  it.live("a record the PDS refuses (InvalidRequest) ends the target as not published", () =>
    Effect.gen(function* () {
      const fake = yield* PdsFake.make()
      const client = yield* aRouter(options(fake))
      fake.faults.inject("create", { status: 400, json: { error: "InvalidRequest", message: "Invalid app.bsky.feed.post record" } })
      const result = yield* drive(client, aBlueskyPost(fake))
      assert.strictEqual(result.failure?.code, "content_rejected")
      assert.strictEqual(result.failure?.platformCode, "InvalidRequest")
      assert.isTrue(result.failure?.notPublished)
      assert.lengthOf(fake.posts(), 0)
    })
  )

  it.live("a text over 300 graphemes is refused before anything is sent", () =>
    Effect.gen(function* () {
      const fake = yield* PdsFake.make()
      const client = yield* aRouter(options(fake))
      const result = yield* drive(client, aBlueskyPost(fake, { caption: "🍞".repeat(301) }))
      assert.strictEqual(result.failure?.code, "caption_too_long")
      assert.isTrue(result.failure?.notPublished)
      assert.strictEqual(fake.requests.length, 0)
    })
  )
})
