import { assert, describe, it } from "@effect/vitest"
import { Credentials, instagram } from "@postwire/platforms"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { adapterConformance, aRouter, drive, type FailureScenario } from "../adapterConformance.ts"
import { anAccount, anImage, aPost, aPublishInput, aTarget, aVideo } from "../builders.ts"
import type { ContainerFake } from "../meta/ContainerFake.ts"
import type { PublishMedia } from "@postwire/core"
import { bucThrottle, graphError } from "../meta/GraphFake.ts"
import * as InstagramFake from "./InstagramFake.ts"

type Fake = ContainerFake

const options = (fake: Fake) => ({
  photo: { baseUrl: fake.url, refreshUrl: `${fake.origin}/refresh_access_token` }
})

const aPhotoPost = (
  fake: Fake,
  options: {
    readonly credentials?: string
    readonly type?: "reel" | "feed" | "story"
    readonly media?: ReadonlyArray<PublishMedia>
  } = {}
) => {
  const account = anAccount("photo", {
    externalId: InstagramFake.igUserId,
    credentials: options.credentials ?? Credentials.encode(instagram, { access_token: fake.accessToken })
  })
  return aPublishInput({
    account,
    post: aPost(),
    target: aTarget(account, { options: { photo: { type: options.type ?? "reel" } } }),
    media: options.media ?? [aVideo()]
  })
}

const on = (route: string, status: number, code: number, subcode?: number, times = 1) => (fake: Fake) =>
  fake.faults.inject(route, graphError(status, code, subcode), times)

const failures: ReadonlyArray<FailureScenario<Fake>> = [
  { name: "media_publish 9/2207042 (daily limit)", arrange: on("publish", 400, 9, 2207042), code: "quota_exceeded", platformCode: "9/2207042", retryable: true },
  { name: "media_publish 4/2207051 (spam restriction)", arrange: on("publish", 400, 4, 2207051), code: "account_restricted", platformCode: "4/2207051", retryable: false },
  { name: "container 25/2207050 (restricted account)", arrange: on("create", 400, 25, 2207050), code: "account_restricted", platformCode: "25/2207050", retryable: false },
  { name: "container 368 (temporarily blocked)", arrange: on("create", 400, 368), code: "account_restricted", platformCode: "368", retryable: false },
  { name: "container 352/2207026 (unsupported video)", arrange: on("create", 400, 352, 2207026), code: "media_invalid", platformCode: "352/2207026", retryable: false },
  { name: "container 9004/2207052 (media not fetchable)", arrange: on("create", 400, 9004, 2207052), code: "media_invalid", platformCode: "9004/2207052", retryable: false },
  { name: "container 36003 (aspect ratio)", arrange: on("create", 400, 36003), code: "media_invalid", platformCode: "36003", retryable: false },
  { name: "container 100 (invalid parameter)", arrange: on("create", 400, 100), code: "media_invalid", platformCode: "100", retryable: false },
  { name: "container 10 (permission)", arrange: on("create", 400, 10), code: "permission_missing", platformCode: "10", retryable: false, needsReconnect: true },
  { name: "container 200 (permission)", arrange: on("create", 403, 200), code: "permission_missing", platformCode: "200", retryable: false, needsReconnect: true },
  {
    name: "190/460 again after a refresh",
    arrange: (fake) => {
      fake.faults.inject("create", graphError(400, 190, 460), 2)
    },
    code: "token_expired",
    platformCode: "190/460",
    retryable: false,
    needsReconnect: true
  },
  { name: "limit 4 (app throttling) on every attempt", arrange: on("limit", 400, 4, undefined, 3), code: "platform_unavailable", platformCode: "4", retryable: true },
  { name: "container 17 (user throttling) on every attempt", arrange: on("create", 400, 17, undefined, 3), code: "platform_unavailable", platformCode: "17", retryable: true },
  { name: "container 613 (rate limit) on every attempt", arrange: on("create", 400, 613, undefined, 3), code: "platform_unavailable", platformCode: "613", retryable: true },
  { name: "media_publish -2/2207003 (download timeout) on every attempt", arrange: on("publish", 400, -2, 2207003, 3), code: "platform_unavailable", platformCode: "-2/2207003", retryable: true },
  {
    name: "an is_transient error on every attempt",
    arrange: (fake) => fake.faults.inject("create", graphError(400, 80001, undefined, { is_transient: true }), 3),
    code: "platform_unavailable",
    platformCode: "80001",
    retryable: true
  },
  {
    name: "a container that ends in ERROR",
    arrange: (fake) => {
      fake.containerOutcome = "ERROR"
      fake.containerErrorText = "Error: Media upload has failed with error code 2207026"
    },
    code: "media_invalid",
    platformCode: "2207026",
    retryable: false
  },
  {
    name: "a container that EXPIRED",
    arrange: (fake) => {
      fake.containerOutcome = "EXPIRED"
    },
    code: "platform_unavailable",
    platformCode: "container_expired",
    retryable: true
  }
]

// Every adapter behaves the same over fetch (the library default) and over the server's node:http sender.
for (const transport of ["fetch", "node"] as const) adapterConformance<Fake>({
  transport,
  name: "Instagram (photo)",
  start: InstagramFake.make(),
  options,
  input: (fake, credentials) => aPhotoPost(fake, credentials === undefined ? {} : { credentials }),
  permalink: /^https:\/\/www\.instagram\.com\/p\/C\d{8}x\/$/,
  publishCount: (fake) => fake.media.length,
  processFor: (fake, polls) => {
    fake.pollsBeforeFinished = polls
  },
  firstRoute: "limit",
  unavailable: graphError(500, 1, undefined, { message: "An unknown error occurred" }),
  publishRoute: "publish",
  lostPublishAnswer: "looked-up",
  failures,
  refresh: {
    arrange: (fake) => Credentials.encode(instagram, { access_token: fake.accessToken, expires_at: Date.now() + 86_400_000 }),
    assertRefreshed: (fake, credentials) => {
      const stored = JSON.parse(credentials) as Credentials.Stored<typeof instagram>
      assert.strictEqual(stored.access_token, fake.accessToken)
      assert.isAbove(stored.expires_at ?? 0, Date.now() + 50 * 86_400_000)
    },
    arrangeFailure: (fake) => {
      const stale = Credentials.encode(instagram, { access_token: fake.accessToken })
      fake.accessToken = "IGQ.after-password-change"
      return stale
    },
    failurePlatformCode: "190/463"
  },
  quota: {
    arrange: (fake) => {
      fake.quotaUsedBefore = 100
    },
    platformCode: "content_publishing_limit:100/100"
  }
})

describe("Instagram adapter", () => {
  it.live("creates a reel container shared to the feed, with the caption", () =>
    Effect.gen(function* () {
      const fake = yield* InstagramFake.make()
      const client = yield* aRouter(options(fake))
      const input = aPhotoPost(fake)
      yield* drive(client, input)
      assert.deepInclude(fake.containers[0]!.params, {
        media_type: "REELS",
        video_url: input.media[0]!.url,
        caption: input.post.caption,
        share_to_feed: "true"
      })
    })
  )

  it.live("publishes a carousel: children first, then the CAROUSEL container, once", () =>
    Effect.gen(function* () {
      const fake = yield* InstagramFake.make()
      fake.pollsBeforeFinished = 2
      const client = yield* aRouter(options(fake))
      const input = aPhotoPost(fake, { type: "feed", media: [anImage(), aVideo(), anImage()] })
      const result = yield* drive(client, input)
      assert.isDefined(result.published, result.failure?.platformCode)
      const [a, b, c, parent] = fake.containers
      assert.deepInclude(a!.params, { image_url: input.media[0]!.url, is_carousel_item: "true" })
      assert.deepInclude(b!.params, { media_type: "VIDEO", video_url: input.media[1]!.url, is_carousel_item: "true" })
      assert.deepInclude(c!.params, { image_url: input.media[2]!.url, is_carousel_item: "true" })
      assert.deepInclude(parent!.params, { media_type: "CAROUSEL", children: `${a!.id},${b!.id},${c!.id}`, caption: input.post.caption })
      assert.lengthOf(fake.media, 1)
      assert.strictEqual(fake.media[0]!.containerId, parent!.id)
    })
  )

  it.live("publishes a single image to the feed and an image story", () =>
    Effect.gen(function* () {
      const fake = yield* InstagramFake.make()
      const client = yield* aRouter(options(fake))
      const feed = aPhotoPost(fake, { type: "feed", media: [anImage()] })
      const story = aPhotoPost(fake, { type: "story", media: [anImage()] })
      yield* drive(client, feed)
      yield* drive(client, story)
      assert.deepStrictEqual(fake.containers[0]!.params.image_url, feed.media[0]!.url)
      assert.deepStrictEqual(fake.containers[0]!.params.caption, feed.post.caption)
      assert.deepInclude(fake.containers[1]!.params, { media_type: "STORIES", image_url: story.media[0]!.url })
      assert.lengthOf(fake.media, 2)
    })
  )

  it.live("refuses a reel without exactly one video before calling Instagram", () =>
    Effect.gen(function* () {
      const fake = yield* InstagramFake.make()
      const client = yield* aRouter(options(fake))
      const result = yield* drive(client, aPhotoPost(fake, { type: "reel", media: [anImage()] }))
      assert.strictEqual(result.failure?.code, "media_invalid")
      assert.strictEqual(result.failure?.details?.platform, "photo")
      assert.lengthOf(fake.requests, 0)
    })
  )

  it.live("keeps polling when media_publish answers that the media is not ready", () =>
    Effect.gen(function* () {
      const fake = yield* InstagramFake.make()
      fake.faults.inject("publish", graphError(400, 9007, 2207027, { message: "Media ID is not available" }))
      const client = yield* aRouter(options(fake))
      const result = yield* drive(client, aPhotoPost(fake))
      assert.isDefined(result.published)
      assert.strictEqual(fake.count("publish"), 2)
      assert.lengthOf(fake.media, 1)
    })
  )

  // https://developers.facebook.com/docs/graph-api/overview/rate-limiting#buc-rate-limits
  it.live("takes a Business Use Case throttle (80002) at any step for a wait until the header's time, not a media error", () =>
    Effect.gen(function* () {
      for (const route of ["limit", "create", "publish"]) {
        const fake = yield* InstagramFake.make()
        fake.faults.inject(route, bucThrottle(80002, { minutes: 19 }))
        const client = yield* aRouter(options(fake))
        const before = Date.now()
        const result = yield* drive(client, aPhotoPost(fake))
        const failure = result.failure
        assert.strictEqual(failure?.code, "platform_unavailable", route)
        assert.strictEqual(failure?.platformCode, "80002", route)
        assert.isTrue(failure?.retryable, route)
        assert.isAtLeast(failure!.retryAt!, before + 19 * 60_000, route)
        assert.isAtMost(failure!.retryAt!, Date.now() + 19 * 60_000, route)
        // Not asked again within the step: each call counts against the limit.
        assert.strictEqual(fake.count(route), 1, route)
        assert.lengthOf(fake.media, 0)
        // Refused at the publish call: nothing was published, the target may wait its turn.
        if (route === "publish") assert.isTrue(failure?.notPublished)
      }
    })
  )

  it.live("sends appsecret_proof on every call when the proof is on, and the fake checks it", () =>
    Effect.gen(function* () {
      const fake = yield* InstagramFake.make()
      fake.appSecret = "meta-app-secret"
      fake.requireProof = true
      const client = yield* aRouter({ photo: { ...options(fake).photo, appSecret: "meta-app-secret", appSecretProof: "on" } })
      yield* drive(client, aPhotoPost(fake))
      assert.lengthOf(fake.media, 1)
      const { createHmac } = yield* Effect.promise(() => import("node:crypto"))
      const proof = createHmac("sha256", "meta-app-secret").update(fake.accessToken).digest("hex")
      for (const request of fake.requests) assert.strictEqual(request.params.appsecret_proof, proof)
    })
  )

  it.live("sends no appsecret_proof by default on a host other than graph.facebook.com (auto)", () =>
    Effect.gen(function* () {
      const fake = yield* InstagramFake.make()
      const client = yield* aRouter({ photo: { ...options(fake).photo, appSecret: "meta-app-secret" } })
      yield* drive(client, aPhotoPost(fake))
      assert.lengthOf(fake.media, 1)
      for (const request of fake.requests) assert.isUndefined(request.params.appsecret_proof)
    })
  )

  it.live("a proof signed with the wrong secret is refused by the fake as Meta does (code 100)", () =>
    Effect.gen(function* () {
      const fake = yield* InstagramFake.make()
      fake.appSecret = "the-real-secret"
      const client = yield* aRouter({ photo: { ...options(fake).photo, appSecret: "a-wrong-secret", appSecretProof: "on" } })
      const { failure } = yield* drive(client, aPhotoPost(fake))
      assert.strictEqual(failure?.platformCode, "100")
      assert.lengthOf(fake.media, 0)
    })
  )

  it.effect("abandons a container still processing after processingTimeoutMs, so a retry starts over", () =>
    Effect.gen(function* () {
      const fake = yield* InstagramFake.make()
      fake.pollsBeforeFinished = 1_000
      const client = yield* aRouter({ photo: { ...options(fake).photo, processingTimeoutMs: 10 * 60_000 } })
      const input = aPhotoPost(fake)
      const first = yield* client.publish(input)
      assert.strictEqual(first._tag, "InProgress")
      yield* TestClock.adjust("11 minutes")
      const failure = yield* Effect.flip(client.publish({ ...input, state: first.state }))
      assert.strictEqual(failure.code, "platform_unavailable")
      assert.strictEqual(failure.platformCode, "processing_timeout")
      assert.strictEqual(failure.state, null)
    })
  )
})
