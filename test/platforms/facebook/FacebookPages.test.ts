import { assert, describe, it } from "@effect/vitest"
import type { PublishMedia } from "@postwire/core"
import { Credentials, facebook } from "@postwire/platforms"
import { renderMessage } from "@postwire/domain"
import { Effect } from "effect"
import { adapterConformance, aRouter, drive, type FailureScenario } from "../adapterConformance.ts"
import { anAccount, anImage, aPost, aPublishInput, aTarget, aVideo } from "../builders.ts"
import * as FacebookPagesFake from "./FacebookPagesFake.ts"
import { bucThrottle, graphError } from "../meta/GraphFake.ts"

type Fake = FacebookPagesFake.FacebookPagesFake

const options = (fake: Fake) => ({ pages: { baseUrl: fake.url } })

const credentialsFor = (fake: Fake, overrides: Partial<Credentials.Stored<typeof facebook>> = {}) =>
  Credentials.encode(facebook, {
    page_access_token: fake.pageAccessToken,
    ...(fake.userAccessToken === null ? {} : { user_access_token: fake.userAccessToken }),
    ...overrides
  })

const aPagePost = (
  fake: Fake,
  options: { readonly credentials?: string; readonly media?: ReadonlyArray<PublishMedia>; readonly caption?: string } = {}
) => {
  const account = anAccount("pages", { externalId: FacebookPagesFake.pageId, credentials: options.credentials ?? credentialsFor(fake) })
  return aPublishInput({
    account,
    post: options.caption === undefined ? aPost() : aPost({ caption: options.caption }),
    target: aTarget(account),
    media: options.media ?? [aVideo({ durationSeconds: 42 })]
  })
}

const on = (route: string, status: number, code: number, subcode?: number, times = 1) => (fake: Fake) =>
  fake.faults.inject(route, graphError(status, code, subcode), times)

const failures: ReadonlyArray<FailureScenario<Fake>> = [
  { name: "200 (pages_manage_posts missing)", arrange: on("reel_start", 403, 200), code: "permission_missing", platformCode: "200", retryable: false, needsReconnect: true },
  { name: "10 (permission denied)", arrange: on("reel_start", 403, 10), code: "permission_missing", platformCode: "10", retryable: false, needsReconnect: true },
  { name: "190/492 (no role on the Page)", arrange: on("reel_start", 400, 190, 492), code: "permission_missing", platformCode: "190/492", retryable: false, needsReconnect: true },
  { name: "283 (task revoked)", arrange: on("reel_start", 400, 283), code: "permission_missing", platformCode: "283", retryable: false, needsReconnect: true },
  { name: "368 (temporarily blocked)", arrange: on("reel_start", 400, 368), code: "account_restricted", platformCode: "368", retryable: false },
  {
    name: "506 (duplicate post)",
    arrange: on("feed", 400, 506),
    input: (fake) => aPagePost(fake, { media: [] }),
    code: "media_invalid",
    platformCode: "506",
    retryable: false
  },
  { name: "32 (page request limit) on every attempt", arrange: on("reel_start", 400, 32, undefined, 3), code: "platform_unavailable", platformCode: "32", retryable: true },
  {
    name: "190/460 again after deriving a new Page token",
    arrange: (fake) => fake.faults.inject("reel_start", graphError(400, 190, 460), 2),
    code: "token_expired",
    platformCode: "190/460",
    retryable: false,
    needsReconnect: true
  },
  {
    name: "an upload the platform refuses",
    arrange: (fake) =>
      fake.faults.inject("rupload", { status: 400, json: { debug_info: { retriable: false, type: "ProcessingFailedError", message: "Fetching the file failed" } } }),
    code: "media_invalid",
    platformCode: "rupload_400",
    retryable: false
  },
  {
    name: "an upload host down on every attempt",
    arrange: (fake) => fake.faults.inject("rupload", { status: 503, json: { debug_info: { retriable: true, type: "ServiceUnavailable", message: "Try again" } } }, 3),
    code: "platform_unavailable",
    platformCode: "rupload_503",
    retryable: true
  },
  {
    name: "a reel whose processing fails",
    arrange: (fake) => {
      fake.reelProcessingFails = true
    },
    code: "media_invalid",
    platformCode: "video_status_error",
    retryable: false
  },
  {
    name: "a Page video longer than 20 minutes",
    arrange: () => {},
    input: (fake) => aPagePost(fake, { media: [aVideo({ durationSeconds: 1300, width: 1920, height: 1080 })] }),
    code: "media_too_long",
    platformCode: "media_rules",
    retryable: false
  },
  {
    name: "a Page video larger than 1 GB",
    arrange: () => {},
    input: (fake) => aPagePost(fake, { media: [aVideo({ durationSeconds: 300, width: 1920, height: 1080, sizeBytes: 2 * 1024 ** 3 })] }),
    code: "media_invalid",
    platformCode: "media_rules",
    retryable: false
  }
]

// Every adapter behaves the same over fetch (the library default) and over the server's node:http sender.
for (const transport of ["fetch", "node"] as const) adapterConformance<Fake>({
  transport,
  name: "Facebook Pages (pages)",
  start: FacebookPagesFake.make(),
  options,
  input: (fake, credentials) => aPagePost(fake, credentials === undefined ? {} : { credentials }),
  permalink: /^https:\/\/www\.facebook\.com\/reel\/\d+\/$/,
  publishCount: FacebookPagesFake.publishCount,
  processFor: (fake, polls) => {
    fake.pollsBeforePublished = polls
  },
  firstRoute: "reel_start",
  unavailable: graphError(500, 1, undefined, { message: "An unknown error occurred" }),
  publishRoute: "reel_finish",
  lostPublishAnswer: "looked-up",
  failures,
  refresh: {
    arrange: (fake) => credentialsFor(fake, { page_access_token: "EAAP.invalidated" }),
    assertRefreshed: (fake, credentials) => {
      const stored = JSON.parse(credentials) as Credentials.Stored<typeof facebook>
      assert.strictEqual(stored.page_access_token, fake.pageAccessToken)
      assert.strictEqual(stored.user_access_token, fake.userAccessToken ?? undefined)
    },
    arrangeFailure: (fake) => {
      const credentials = credentialsFor(fake, { page_access_token: "EAAP.invalidated" })
      fake.userAccessToken = null
      return credentials
    },
    failurePlatformCode: "190/463"
  }
})

describe("Facebook Pages adapter", () => {
  it.live("posts a caption to the feed with its first link", () =>
    Effect.gen(function* () {
      const fake = yield* FacebookPagesFake.make()
      const client = yield* aRouter(options(fake))
      const caption = "New menu is live: https://bakery.example/menu?utm=fb see you Saturday"
      const result = yield* drive(client, aPagePost(fake, { media: [], caption }))
      assert.deepInclude(fake.posts[0]!.params, { message: caption, link: "https://bakery.example/menu?utm=fb" })
      assert.strictEqual(result.published?.platformPostId, fake.posts[0]!.id)
      assert.match(result.published?.permalink ?? "", /^https:\/\/www\.facebook\.com\/104000000000001\/posts\/\d+\/$/)
      assert.lengthOf(result.steps, 1)
    })
  )

  // https://developers.facebook.com/docs/graph-api/overview/rate-limiting#buc-rate-limits
  it.live("takes a Page Business Use Case throttle (80001) for a wait until the header's time, not a media error", () =>
    Effect.gen(function* () {
      const fake = yield* FacebookPagesFake.make()
      fake.faults.inject("feed", bucThrottle(80001, { minutes: 12, objectId: FacebookPagesFake.pageId }))
      const client = yield* aRouter(options(fake))
      const before = Date.now()
      const result = yield* drive(client, aPagePost(fake, { media: [] }))
      assert.strictEqual(result.failure?.code, "platform_unavailable")
      assert.strictEqual(result.failure?.platformCode, "80001")
      assert.isTrue(result.failure?.retryable)
      assert.isTrue(result.failure?.notPublished)
      assert.isAtLeast(result.failure!.retryAt!, before + 12 * 60_000)
      assert.isAtMost(result.failure!.retryAt!, Date.now() + 12 * 60_000)
      assert.strictEqual(fake.count("feed"), 1)
      assert.lengthOf(fake.posts, 0)
    })
  )

  it.live("posts one image through photos and links to its post", () =>
    Effect.gen(function* () {
      const fake = yield* FacebookPagesFake.make()
      const client = yield* aRouter(options(fake))
      const input = aPagePost(fake, { media: [anImage()] })
      const result = yield* drive(client, input)
      assert.deepInclude(fake.posts[0]!.params, { url: input.media[0]!.url, caption: input.post.caption, published: "true" })
      assert.strictEqual(result.published?.platformPostId, fake.posts[0]!.id)
      assert.isNotNull(result.published?.permalink)
    })
  )

  it.live("posts several images as one feed post with attached media", () =>
    Effect.gen(function* () {
      const fake = yield* FacebookPagesFake.make()
      const client = yield* aRouter(options(fake))
      const input = aPagePost(fake, { media: [anImage(), anImage(), anImage()] })
      const result = yield* drive(client, input)
      assert.isDefined(result.published, result.failure?.platformCode)
      assert.lengthOf(fake.unpublishedPhotos, 3)
      assert.lengthOf(fake.posts, 1)
      assert.deepInclude(fake.posts[0]!.params, {
        message: input.post.caption,
        "attached_media[0]": JSON.stringify({ media_fbid: fake.unpublishedPhotos[0] }),
        "attached_media[2]": JSON.stringify({ media_fbid: fake.unpublishedPhotos[2] })
      })
    })
  )

  // https://developers.facebook.com/docs/video-api/guides/reels-publishing ("Rate Limit": 30 in 24 hours)
  it.live("a reel over the Reels API's 30 a day fails quota_exceeded with the limit and the reset time in its message", () =>
    Effect.gen(function* () {
      const fake = yield* FacebookPagesFake.make()
      fake.reelsUsedBefore = FacebookPagesFake.reelsPerDay
      const client = yield* aRouter(options(fake))
      const before = Date.now()
      const result = yield* drive(client, aPagePost(fake))
      assert.strictEqual(result.failure?.code, "quota_exceeded")
      assert.strictEqual(result.failure?.platformCode, "9")
      assert.isTrue(result.failure?.retryable)
      assert.strictEqual(result.failure?.details?.limit, 30)
      const resetsAt = Date.parse(String(result.failure?.details?.resets_at))
      assert.isAtLeast(resetsAt, before + 24 * 3_600_000)
      assert.isAtMost(resetsAt, Date.now() + 24 * 3_600_000)
      const message = renderMessage("quota_exceeded", "en", result.failure?.details)
      assert.match(message, /^The account reached its daily posting limit of 30\. It resets at \d{4}-\d{2}-\d{2}T/)
      assert.lengthOf(fake.posts, 0)
    })
  )

  it.live("publishes a reel: start, hosted-file upload, finish, then the video's status", () =>
    Effect.gen(function* () {
      const fake = yield* FacebookPagesFake.make()
      const client = yield* aRouter(options(fake))
      const input = aPagePost(fake)
      const result = yield* drive(client, input)
      const upload = fake.requests.find((r) => r.route === "rupload")!
      assert.strictEqual(upload.headers.authorization, `OAuth ${fake.pageAccessToken}`)
      assert.strictEqual(upload.headers.file_url, input.media[0]!.url)
      const finish = fake.requests.find((r) => r.route === "reel_finish")!
      assert.deepInclude(finish.params, {
        upload_phase: "finish",
        video_id: fake.reels[0]!.videoId,
        video_state: "PUBLISHED",
        description: input.post.caption
      })
      assert.strictEqual(result.published?.platformPostId, fake.reels[0]!.videoId)
      assert.strictEqual(result.published?.permalink, `https://www.facebook.com/reel/${fake.reels[0]!.videoId}/`)
    })
  )

  it.live("never re-sends a feed post whose answer was lost: finds it among the Page's posts since the call", () =>
    Effect.gen(function* () {
      const fake = yield* FacebookPagesFake.make()
      // Posts made before by hand, one with the same text an hour ago: not taken for it.
      fake.posts.push({ id: `${FacebookPagesFake.pageId}_1`, kind: "feed", params: { message: "Hello from Postwire" }, createdAt: Date.now() - 60 * 60_000 })
      for (let i = 0; i < 130; i++) {
        fake.posts.push({ id: `${FacebookPagesFake.pageId}_9${i}`, kind: "feed", params: { message: `Other ${i}` }, createdAt: Date.now() + 1 })
      }
      fake.faults.injectAfter("feed", { lose: true })
      const client = yield* aRouter(options(fake))
      const input = aPagePost(fake, { media: [] })
      const checkpoints: Array<unknown> = []
      const result = yield* drive(client, { ...input, post: { ...input.post, caption: "Hello from Postwire" }, checkpoint: (state) => Effect.sync(() => void checkpoints.push(state)) })
      const mine = fake.posts.find((p) => p.kind === "feed" && p.params.message === "Hello from Postwire" && !p.id.endsWith("_1"))!
      assert.strictEqual(result.published?.platformPostId, mine.id)
      assert.strictEqual(fake.count("feed"), 1)
      assert.isAtLeast(fake.count("published_posts"), 2)
      assert.lengthOf(checkpoints, 1)
      assert.isNumber((checkpoints[0] as { post_sent_at: number }).post_sent_at)
    })
  )

  it.live("finds a photo post whose answer was lost", () =>
    Effect.gen(function* () {
      const fake = yield* FacebookPagesFake.make()
      fake.faults.injectAfter("photos", { lose: true })
      const client = yield* aRouter(options(fake))
      const result = yield* drive(client, aPagePost(fake, { media: [anImage()] }))
      assert.strictEqual(result.published?.platformPostId, fake.posts[0]!.id)
      assert.strictEqual(fake.count("photos"), 1)
    })
  )

  it.live("asks again while the Page's posts cannot be read, and fails, not published, once the post is surely not there", () =>
    Effect.gen(function* () {
      const fake = yield* FacebookPagesFake.make()
      // The call never reached Meta: nothing is published.
      fake.faults.inject("feed", { lose: true })
      fake.faults.inject("published_posts", graphError(500, 2, undefined, { is_transient: true }), 6)
      const client = yield* aRouter({ pages: { baseUrl: fake.url, pollIntervalMs: 1, lostPostWindowMs: 300 } })
      const result = yield* drive(client, aPagePost(fake, { media: [] }), 5_000)
      assert.strictEqual(result.failure?.code, "platform_unavailable")
      assert.strictEqual(result.failure?.platformCode, "post_not_found_after_lost_answer")
      assert.isTrue(result.failure?.notPublished)
      assert.isNull(result.failure?.state)
      assert.isTrue(result.steps.some((s) => s._tag === "InProgress"))
      assert.strictEqual(fake.count("feed"), 1)
      assert.lengthOf(fake.posts, 0)
    })
  )

  it.live("asks the person to reconnect when a Page token is invalid and no user token is stored", () =>
    Effect.gen(function* () {
      const fake = yield* FacebookPagesFake.make()
      const client = yield* aRouter(options(fake))
      const credentials = Credentials.encode(facebook, { page_access_token: "EAAP.invalidated" })
      const result = yield* drive(client, aPagePost(fake, { credentials }))
      assert.strictEqual(result.failure?.code, "token_expired")
      assert.strictEqual(result.failure?.platformCode, "190/463")
      assert.strictEqual(result.failure?.needsReconnect, true)
      assert.strictEqual(fake.count("page_token"), 0)
    })
  )

  it.live("refuses images and a video together before calling the Page", () =>
    Effect.gen(function* () {
      const fake = yield* FacebookPagesFake.make()
      const client = yield* aRouter(options(fake))
      const result = yield* drive(client, aPagePost(fake, { media: [anImage(), aVideo()] }))
      assert.strictEqual(result.failure?.code, "media_invalid")
      assert.lengthOf(fake.requests, 0)
    })
  )
})
