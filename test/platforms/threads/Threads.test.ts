import { assert, describe, it } from "@effect/vitest"
import type { PublishMedia } from "@postwire/core"
import { Credentials, threads } from "@postwire/platforms"
import { Effect } from "effect"
import { adapterConformance, aRouter, drive, type FailureScenario } from "../adapterConformance.ts"
import { anAccount, anImage, aPost, aPublishInput, aTarget, aVideo } from "../builders.ts"
import type { ContainerFake } from "../meta/ContainerFake.ts"
import { graphError } from "../meta/GraphFake.ts"
import * as ThreadsFake from "./ThreadsFake.ts"

type Fake = ContainerFake

const options = (fake: Fake) => ({
  textpost: { baseUrl: fake.url, refreshUrl: `${fake.origin}/refresh_access_token` }
})

const aThreadsPost = (fake: Fake, options: { readonly credentials?: string; readonly media?: ReadonlyArray<PublishMedia> } = {}) => {
  const account = anAccount("textpost", {
    externalId: ThreadsFake.threadsUserId,
    credentials: options.credentials ?? Credentials.encode(threads, { access_token: fake.accessToken })
  })
  return aPublishInput({ account, post: aPost(), target: aTarget(account), media: options.media ?? [] })
}

const on = (route: string, status: number, code: number, subcode?: number, times = 1) => (fake: Fake) =>
  fake.faults.inject(route, graphError(status, code, subcode), times)

const containerFails = (errorMessage: string) => (fake: Fake) => {
  fake.containerOutcome = "ERROR"
  fake.containerErrorText = errorMessage
}

const failures: ReadonlyArray<FailureScenario<Fake>> = [
  { name: "threads_publish 9/2207042 (limit)", arrange: on("publish", 400, 9, 2207042), code: "quota_exceeded", platformCode: "9/2207042", retryable: true },
  { name: "container 10 (permission)", arrange: on("create", 400, 10), code: "permission_missing", platformCode: "10", retryable: false, needsReconnect: true },
  { name: "container 100 (invalid parameter, e.g. more than 5 links)", arrange: on("create", 400, 100), code: "media_invalid", platformCode: "100", retryable: false },
  { name: "container 4 (throttling) on every attempt", arrange: on("create", 400, 4, undefined, 3), code: "platform_unavailable", platformCode: "4", retryable: true },
  { name: "a 500 without an envelope on every attempt", arrange: (fake) => fake.faults.inject("create", { status: 502, raw: "<html>Bad Gateway</html>" }, 3), code: "platform_unavailable", platformCode: "http_502", retryable: true },
  {
    name: "190 again after a refresh",
    arrange: (fake) => fake.faults.inject("create", graphError(400, 190), 2),
    code: "token_expired",
    platformCode: "190",
    retryable: false,
    needsReconnect: true
  },
  {
    name: "error_message INVALID_DURATION",
    arrange: containerFails("INVALID_DURATION"),
    input: (fake) => aThreadsPost(fake, { media: [aVideo()] }),
    code: "media_invalid",
    platformCode: "INVALID_DURATION",
    retryable: false
  },
  {
    name: "error_message FAILED_PROCESSING_VIDEO",
    arrange: containerFails("FAILED_PROCESSING_VIDEO"),
    input: (fake) => aThreadsPost(fake, { media: [aVideo()] }),
    code: "media_invalid",
    platformCode: "FAILED_PROCESSING_VIDEO",
    retryable: false
  },
  {
    name: "error_message FAILED_DOWNLOADING_VIDEO",
    arrange: containerFails("FAILED_DOWNLOADING_VIDEO"),
    input: (fake) => aThreadsPost(fake, { media: [aVideo()] }),
    code: "platform_unavailable",
    platformCode: "FAILED_DOWNLOADING_VIDEO",
    retryable: true
  }
]

// Every adapter behaves the same over fetch (the library default) and over the server's node:http sender.
for (const transport of ["fetch", "node"] as const) adapterConformance<Fake>({
  transport,
  name: "Threads (textpost)",
  start: ThreadsFake.make(),
  options,
  input: (fake, credentials) => aThreadsPost(fake, credentials === undefined ? {} : { credentials }),
  permalink: /^https:\/\/www\.threads\.net\/@maya\.bakes\/post\/D\d{8}y$/,
  publishCount: (fake) => fake.media.length,
  processFor: (fake, polls) => {
    fake.pollsBeforeFinished = polls
  },
  firstRoute: "limit",
  unavailable: graphError(503, 2, undefined, { message: "Service temporarily unavailable", is_transient: true }),
  publishRoute: "publish",
  lostPublishAnswer: "looked-up",
  failures,
  refresh: {
    arrange: (fake) => Credentials.encode(threads, { access_token: fake.accessToken, expires_at: Date.now() + 3 * 86_400_000 }),
    assertRefreshed: (fake, credentials) => {
      const stored = JSON.parse(credentials) as Credentials.Stored<typeof threads>
      assert.strictEqual(stored.access_token, fake.accessToken)
      assert.isAbove(stored.expires_at ?? 0, Date.now() + 50 * 86_400_000)
    },
    arrangeFailure: (fake) => {
      const stale = Credentials.encode(threads, { access_token: fake.accessToken, expires_at: Date.now() - 1_000 })
      fake.accessToken = "THQ.reissued-elsewhere"
      return stale
    },
    failurePlatformCode: "190/463"
  },
  quota: {
    arrange: (fake) => {
      fake.quotaUsedBefore = 250
    },
    platformCode: "threads_publishing_limit:250/250"
  }
})

describe("Threads adapter", () => {
  it.live("publishes the caption as a TEXT container when there is no media", () =>
    Effect.gen(function* () {
      const fake = yield* ThreadsFake.make()
      const client = yield* aRouter(options(fake))
      const input = aThreadsPost(fake)
      const result = yield* drive(client, input)
      assert.isDefined(result.published)
      assert.deepInclude(fake.containers[0]!.params, { media_type: "TEXT", text: input.post.caption })
    })
  )

  it.live("publishes one image as an IMAGE container and one video as a VIDEO container", () =>
    Effect.gen(function* () {
      const fake = yield* ThreadsFake.make()
      const client = yield* aRouter(options(fake))
      const image = aThreadsPost(fake, { media: [anImage()] })
      const video = aThreadsPost(fake, { media: [aVideo()] })
      yield* drive(client, image)
      yield* drive(client, video)
      assert.deepInclude(fake.containers[0]!.params, { media_type: "IMAGE", image_url: image.media[0]!.url, text: image.post.caption })
      assert.deepInclude(fake.containers[1]!.params, { media_type: "VIDEO", video_url: video.media[0]!.url, text: video.post.caption })
    })
  )

  it.live("publishes a carousel as one post", () =>
    Effect.gen(function* () {
      const fake = yield* ThreadsFake.make()
      const client = yield* aRouter(options(fake))
      const input = aThreadsPost(fake, { media: [anImage(), anImage()] })
      const result = yield* drive(client, input)
      assert.isDefined(result.published, result.failure?.platformCode)
      const [a, b, parent] = fake.containers
      assert.deepInclude(a!.params, { media_type: "IMAGE", is_carousel_item: "true" })
      assert.deepInclude(b!.params, { media_type: "IMAGE", is_carousel_item: "true" })
      assert.deepInclude(parent!.params, { media_type: "CAROUSEL", children: `${a!.id},${b!.id}`, text: input.post.caption })
      assert.lengthOf(fake.media, 1)
    })
  )

  it.live("publishes with a token that cannot be refreshed while it is still valid", () =>
    Effect.gen(function* () {
      const fake = yield* ThreadsFake.make()
      const client = yield* aRouter({ textpost: { ...options(fake).textpost, refreshUrl: null } })
      const credentials = Credentials.encode(threads, { access_token: fake.accessToken, expires_at: Date.now() + 86_400_000 })
      const result = yield* drive(client, aThreadsPost(fake, { credentials }))
      assert.isDefined(result.published)
      assert.strictEqual(fake.count("refresh"), 0)
      assert.isTrue(result.steps.every((s) => s.credentials === undefined))
    })
  )

  it.live("reads the publishing limit once for targets in a row while the quota is far", () =>
    Effect.gen(function* () {
      const fake = yield* ThreadsFake.make()
      const client = yield* aRouter(options(fake))
      for (let i = 0; i < 3; i++) assert.isDefined((yield* drive(client, aThreadsPost(fake))).published)
      assert.lengthOf(fake.media, 3)
      assert.strictEqual(fake.count("limit"), 1)
    })
  )

  it.live("reads the publishing limit once for a burst of one account's targets started together", () =>
    Effect.gen(function* () {
      const fake = yield* ThreadsFake.make()
      const client = yield* aRouter(options(fake))
      const results = yield* Effect.forEach(Array.from({ length: 8 }, () => aThreadsPost(fake)), (input) => drive(client, input), {
        concurrency: "unbounded"
      })
      assert.isTrue(results.every((result) => result.published !== undefined))
      assert.lengthOf(fake.media, 8)
      assert.strictEqual(fake.count("limit"), 1)
    })
  )

  it.live("reads the publishing limit once per target of a burst when the account nears its quota", () =>
    Effect.gen(function* () {
      const fake = yield* ThreadsFake.make()
      fake.quotaUsedBefore = 200
      const client = yield* aRouter(options(fake))
      const results = yield* Effect.forEach(Array.from({ length: 4 }, () => aThreadsPost(fake)), (input) => drive(client, input), {
        concurrency: "unbounded"
      })
      assert.isTrue(results.every((result) => result.published !== undefined))
      assert.strictEqual(fake.count("limit"), 4)
    })
  )

  it.live("reads the publishing limit before every target once the account nears its quota", () =>
    Effect.gen(function* () {
      const fake = yield* ThreadsFake.make()
      fake.quotaUsedBefore = 200
      const client = yield* aRouter(options(fake))
      for (let i = 0; i < 3; i++) assert.isDefined((yield* drive(client, aThreadsPost(fake))).published)
      assert.strictEqual(fake.count("limit"), 3)
    })
  )

  it.live("still stops at the quota when it was used up elsewhere since the last reading", () =>
    Effect.gen(function* () {
      const fake = yield* ThreadsFake.make()
      const client = yield* aRouter(options(fake))
      assert.isDefined((yield* drive(client, aThreadsPost(fake))).published)
      // The account's quota is spent by another app: the platform refuses the publish.
      fake.quotaUsedBefore = 250
      const refused = yield* drive(client, aThreadsPost(fake))
      assert.strictEqual(refused.failure?.code, "quota_exceeded")
      assert.strictEqual(refused.failure?.retryable, true)
      assert.lengthOf(fake.media, 1)
      // The next target reads the limit again and stops before creating a container.
      const containers = fake.containers.length
      const next = yield* drive(client, aThreadsPost(fake))
      assert.strictEqual(next.failure?.code, "quota_exceeded")
      assert.strictEqual(next.failure?.platformCode, "threads_publishing_limit:251/250")
      assert.strictEqual(fake.containers.length, containers)
      assert.strictEqual(fake.count("limit"), 2)
    })
  )
})
