import { assert, describe, it } from "@effect/vitest"
import type { PublishMedia } from "@postwire/core"
import { Credentials, linkedin } from "@postwire/platforms"
import { Effect } from "effect"
import { adapterConformance, aRouter, drive, type FailureScenario } from "../adapterConformance.ts"
import { anAccount, anImage, aPost, aPublishInput, aTarget, aVideo } from "../builders.ts"
import * as LinkedInFake from "./LinkedInFake.ts"

type Fake = LinkedInFake.LinkedInFake

const day = 86_400_000

const options = (fake: Fake) => ({
  professional: {
    apiUrl: fake.url,
    tokenUrl: `${fake.url}/oauth/v2/accessToken`,
    clientId: fake.clientId,
    clientSecret: fake.clientSecret,
    pollIntervalMs: 1
  }
})

const credentialsOf = (fake: Fake, overrides: Partial<Credentials.Stored<typeof linkedin>> = {}) =>
  Credentials.encode(linkedin, {
    access_token: fake.accessToken,
    expires_at: Date.now() + 50 * day,
    ...(fake.refreshToken === undefined ? {} : { refresh_token: fake.refreshToken }),
    member: LinkedInFake.member,
    ...overrides
  })

/** A video of `bytes` ASCII bytes (the fake counts a part's bytes as its text's length). */
const aVideoOf = (bytes: number, overrides: Parameters<typeof aVideo>[0] = {}): PublishMedia => {
  const video = aVideo({ sizeBytes: bytes, durationSeconds: 42, ...overrides })
  return { ...video, read: Effect.succeed(new Uint8Array(bytes).fill(0x41)) }
}

const aLinkedInPost = (
  fake: Fake,
  options: {
    readonly author?: string
    readonly credentials?: string
    readonly media?: ReadonlyArray<PublishMedia>
    readonly caption?: string
    readonly professional?: unknown
  } = {}
) => {
  const account = anAccount("professional", {
    externalId: options.author ?? LinkedInFake.organization,
    credentials: options.credentials ?? credentialsOf(fake)
  })
  const post = aPost(options.caption === undefined ? {} : { caption: options.caption })
  const target = aTarget(account, options.professional === undefined ? {} : { options: { professional: options.professional } as never })
  return aPublishInput({ account, post, target, media: options.media ?? [anImage()] })
}

const on = (route: string, reply: ReturnType<typeof LinkedInFake.linkedInError>, times = 1) => (fake: Fake) =>
  fake.faults.inject(route, reply, times)

const failures: ReadonlyArray<FailureScenario<Fake>> = [
  {
    name: "403 ACCESS_DENIED on the post (no page role)",
    arrange: on("post", LinkedInFake.linkedInError(403, "ACCESS_DENIED", "Not enough permissions to access: /posts", 100)),
    code: "permission_missing",
    platformCode: "ACCESS_DENIED:100",
    retryable: false,
    needsReconnect: true
  },
  {
    name: "429 on the image upload (throttled until the limit resets)",
    arrange: on("image-init", LinkedInFake.linkedInError(429, undefined, "Resource level throttle APPLICATION DAY limit for calls to this resource is reached."), 3),
    code: "platform_unavailable",
    platformCode: "http_429",
    retryable: true
  },
  {
    name: "422 duplicate content",
    arrange: on("post", LinkedInFake.linkedInError(422, undefined, "Content is a duplicate of urn:li:share:7000000000000000001")),
    code: "media_invalid",
    platformCode: "http_422",
    retryable: false
  },
  {
    name: "an upload whose processing fails",
    arrange: (fake) => {
      fake.processingFails = true
    },
    code: "media_invalid",
    platformCode: "PROCESSING_FAILED:Unsupported media",
    retryable: false
  },
  {
    name: "426 NONEXISTENT_VERSION (a sunset LinkedIn-Version)",
    arrange: (fake) => {
      fake.versions = ["202701"]
    },
    code: "platform_version_inactive",
    platformCode: "NONEXISTENT_VERSION",
    retryable: true
  },
  {
    name: "401 again after a refresh",
    arrange: on("image-init", LinkedInFake.linkedInError(401, "EXPIRED_ACCESS_TOKEN", "The token used in the request has expired", 65602), 2),
    code: "token_expired",
    platformCode: "EXPIRED_ACCESS_TOKEN:65602",
    retryable: false,
    needsReconnect: true
  }
]

for (const transport of ["fetch", "node"] as const) adapterConformance<Fake>({
  transport,
  name: "LinkedIn (professional)",
  start: LinkedInFake.make(),
  options,
  input: (fake, credentials) => aLinkedInPost(fake, credentials === undefined ? {} : { credentials }),
  permalink: /^https:\/\/www\.linkedin\.com\/feed\/update\/urn:li:share:\d+$/,
  publishCount: (fake) => fake.posts.length,
  processFor: (fake, polls) => {
    fake.pollsBeforeAvailable = polls
  },
  firstRoute: "image-init",
  unavailable: LinkedInFake.linkedInError(503, undefined, "Service Unavailable"),
  publishRoute: "post",
  lostPublishAnswer: "looked-up",
  failures,
  refresh: {
    arrange: (fake) => credentialsOf(fake, { expires_at: Date.now() - 1_000 }),
    assertRefreshed: (fake, credentials) => {
      const stored = JSON.parse(credentials) as Credentials.Stored<typeof linkedin>
      assert.strictEqual(stored.access_token, fake.accessToken)
      assert.strictEqual(stored.refresh_token, fake.refreshToken)
      assert.isAbove(stored.expires_at ?? 0, Date.now() + 59 * day)
    },
    arrangeFailure: (fake) => {
      const stale = credentialsOf(fake, { expires_at: Date.now() - 1_000 })
      fake.refreshToken = "AQX-revoked-by-the-member"
      return stale
    },
    failurePlatformCode: "invalid_request"
  }
})

describe("LinkedIn adapter", () => {
  it.live("posts a text as the member, its reserved characters escaped and its hashtags kept", () =>
    Effect.gen(function* () {
      const fake = yield* LinkedInFake.make()
      const client = yield* aRouter(options(fake))
      const caption = "Launch (v2) is out: 50% off_today *only* #launch @team <3 [beta] {x} a|b ~c \\d"
      const result = yield* drive(client, aLinkedInPost(fake, { author: LinkedInFake.member, media: [], caption }))
      assert.isDefined(result.published, result.failure?.platformCode)
      const sent = fake.posts[0]!.body
      assert.strictEqual(sent.commentary, "Launch \\(v2\\) is out: 50% off\\_today \\*only\\* #launch \\@team \\<3 \\[beta\\] \\{x\\} a\\|b \\~c \\\\d")
      assert.isFalse(LinkedInFake.unescapedReserved(String(sent.commentary)))
      assert.deepInclude(sent, { author: LinkedInFake.member, visibility: "PUBLIC", lifecycleState: "PUBLISHED" })
      assert.isUndefined(sent.content)
      const header = fake.requests.find((r) => r.route === "post")!.headers
      assert.strictEqual(header["linkedin-version"], "202610")
      assert.strictEqual(header["x-restli-protocol-version"], "2.0.0")
      assert.strictEqual(result.published!.permalink, `https://www.linkedin.com/feed/update/${fake.posts[0]!.id}`)
    })
  )

  it.live("sends the LinkedIn-Version of the setting, and is refused without a version LinkedIn serves", () =>
    Effect.gen(function* () {
      const fake = yield* LinkedInFake.make()
      const client = yield* aRouter({ professional: { ...options(fake).professional, version: "202611" } })
      assert.isDefined((yield* drive(client, aLinkedInPost(fake, { media: [] }))).published)
      assert.strictEqual(fake.requests.find((r) => r.route === "post")!.headers["linkedin-version"], "202611")
      const old = yield* aRouter({ professional: { ...options(fake).professional, version: "202301" } })
      const refused = yield* drive(old, aLinkedInPost(fake, { media: [] }))
      assert.strictEqual(refused.failure?.code, "platform_version_inactive")
      assert.deepInclude(refused.failure?.details ?? {}, { version: "202301", settings: "POSTWIRE_LINKEDIN_VERSION" })
      assert.lengthOf(fake.posts, 1)
    })
  )

  it.live("uploads one image through the Images API and posts it as media", () =>
    Effect.gen(function* () {
      const fake = yield* LinkedInFake.make()
      const client = yield* aRouter(options(fake))
      const result = yield* drive(client, aLinkedInPost(fake))
      assert.isDefined(result.published, result.failure?.platformCode)
      const [image] = [...fake.images.keys()]
      assert.deepEqual(fake.posts[0]!.body.content, { media: { id: image } })
      assert.strictEqual(fake.count("image-upload"), 1)
    })
  )

  it.live("posts 2 to 20 images as one MultiImage post, in order", () =>
    Effect.gen(function* () {
      const fake = yield* LinkedInFake.make()
      const client = yield* aRouter(options(fake))
      const media = Array.from({ length: 20 }, () => anImage())
      const result = yield* drive(client, aLinkedInPost(fake, { media }))
      assert.isDefined(result.published, result.failure?.platformCode)
      assert.deepEqual(fake.posts[0]!.body.content, { multiImage: { images: [...fake.images.keys()].map((id) => ({ id })) } })
      assert.lengthOf(fake.posts, 1)
    })
  )

  it.live("uploads a video in parts, finalizes it with the parts' ETags in order, and waits for AVAILABLE", () =>
    Effect.gen(function* () {
      const fake = yield* LinkedInFake.make()
      fake.partSize = 64 * 1024
      fake.pollsBeforeAvailable = 2
      const client = yield* aRouter(options(fake))
      const result = yield* drive(client, aLinkedInPost(fake, { media: [aVideoOf(200 * 1024)] }))
      assert.isDefined(result.published, result.failure?.platformCode)
      assert.strictEqual(fake.count("video-part"), 4)
      assert.strictEqual(fake.count("video-finalize"), 1)
      assert.isAtLeast(result.steps.filter((s) => s._tag === "InProgress").length, 2)
      const [video] = [...fake.videos.keys()]
      assert.deepEqual(fake.posts[0]!.body.content, { media: { id: video } })
    })
  )

  it.live("shares an article link with its title and description, and the visibility asked for", () =>
    Effect.gen(function* () {
      const fake = yield* LinkedInFake.make()
      const client = yield* aRouter(options(fake))
      const link = { url: "https://example.com/launch", title: "Our launch", description: "What is new" }
      const input = aLinkedInPost(fake, { author: LinkedInFake.member, media: [], professional: { visibility: "CONNECTIONS", link } })
      const result = yield* drive(client, input)
      assert.isDefined(result.published, result.failure?.platformCode)
      assert.deepInclude(fake.posts[0]!.body, {
        visibility: "CONNECTIONS",
        content: { article: { source: link.url, title: link.title, description: link.description } }
      })
      // With one image, the image is the article's thumbnail.
      const illustrated = yield* drive(client, aLinkedInPost(fake, { professional: { link } }))
      assert.isDefined(illustrated.published, illustrated.failure?.platformCode)
      const [thumbnail] = [...fake.images.keys()]
      assert.deepInclude(fake.posts[1]!.body, {
        visibility: "PUBLIC",
        content: { article: { source: link.url, thumbnail, title: link.title, description: link.description } }
      })
    })
  )

  it.live("finds a text post whose answer was lost by its commentary, never posting again", () =>
    Effect.gen(function* () {
      const fake = yield* LinkedInFake.make()
      const client = yield* aRouter(options(fake))
      fake.faults.injectAfter("post", { lose: true })
      const result = yield* drive(client, aLinkedInPost(fake, { media: [], caption: "Quarterly update (Q3) #news" }))
      assert.isDefined(result.published, result.failure?.platformCode)
      assert.strictEqual(result.published!.platformPostId, fake.posts[0]!.id)
      assert.strictEqual(fake.count("post"), 1)
      assert.strictEqual(fake.count("posts-by-author"), 1)
    })
  )

  it.live("ends publish_unconfirmed when the answer was lost and the app may not list the member's posts", () =>
    Effect.gen(function* () {
      const fake = yield* LinkedInFake.make()
      const client = yield* aRouter(options(fake))
      fake.faults.injectAfter("post", { lose: true })
      const result = yield* drive(client, aLinkedInPost(fake, { author: LinkedInFake.member, media: [] }))
      assert.strictEqual(result.failure?.code, "publish_unconfirmed")
      assert.strictEqual(result.failure?.gaveUp, true)
      assert.strictEqual(result.failure?.platformCode, "lookup_refused:ACCESS_DENIED:100")
      assert.strictEqual(fake.count("post"), 1)
      assert.lengthOf(fake.posts, 1)
    })
  )

  it.live("keeps looking within the window, then ends publish_unconfirmed without posting again", () =>
    Effect.gen(function* () {
      const fake = yield* LinkedInFake.make()
      const client = yield* aRouter({ professional: { ...options(fake).professional, lookupWindowMs: 0 } })
      // LinkedIn refused the post with a 502 after all: nothing was made, and nothing is found.
      fake.faults.inject("post", LinkedInFake.linkedInError(502, undefined, "Bad Gateway"))
      const result = yield* drive(client, aLinkedInPost(fake, { media: [] }))
      assert.strictEqual(result.failure?.code, "publish_unconfirmed")
      assert.strictEqual(result.failure?.platformCode, "post_not_found_after_window")
      assert.strictEqual(fake.count("post"), 1)
      assert.lengthOf(fake.posts, 0)
    })
  )

  it.live("refuses a caption over 3,000 characters counted after escaping, before any upload", () =>
    Effect.gen(function* () {
      const fake = yield* LinkedInFake.make()
      const client = yield* aRouter(options(fake))
      const result = yield* drive(client, aLinkedInPost(fake, { caption: `${"a".repeat(2_999)}(` }))
      assert.strictEqual(result.failure?.code, "caption_too_long")
      assert.strictEqual(result.failure?.notPublished, true)
      assert.lengthOf(fake.requests, 0)
    })
  )

  it.live("publishes with a token that has no refresh token while it is valid, and asks for a reconnect once it ended", () =>
    Effect.gen(function* () {
      const fake = yield* LinkedInFake.make()
      fake.refreshToken = undefined
      const client = yield* aRouter(options(fake))
      assert.isDefined((yield* drive(client, aLinkedInPost(fake, { media: [] }))).published)
      const ended = yield* drive(client, aLinkedInPost(fake, { media: [], credentials: credentialsOf(fake, { expires_at: Date.now() - 1 }) }))
      assert.strictEqual(ended.failure?.code, "token_expired")
      assert.strictEqual(ended.failure?.needsReconnect, true)
      assert.strictEqual(fake.count("refresh"), 0)
    })
  )
})
