import { assert, describe, expectTypeOf, it } from "@effect/vitest"
import { afterEach, beforeEach } from "vitest"
import { type Post, PostwireApiError, PostwireClient, type PostwireClientError } from "@postwire/client"
import { Chunk, Effect, Layer, Redacted, Stream } from "effect"
import { errorAnswer, FakePostwire, FIXTURE_API_KEY, somePosts } from "./fixtures/FakePostwire.ts"
import { aCreatePostBody } from "./fixtures/client.ts"

let fake: FakePostwire
beforeEach(async () => {
  fake = await FakePostwire.start()
})
afterEach(() => fake.close())

const provideClient = (options: { readonly maxRetries?: number } = {}) =>
  Effect.provide(PostwireClient.layer({ apiKey: Redacted.make(FIXTURE_API_KEY), baseUrl: fake.url, ...options }))

describe("PostwireClient", () => {
  it("types every call's error channel as PostwireClientError", () => {
    const program = Effect.gen(function* () {
      const postwire = yield* PostwireClient
      return yield* postwire.posts.get("post_01JD0000000000000000000001")
    })

    expectTypeOf(program).toEqualTypeOf<Effect.Effect<Post, PostwireClientError, PostwireClient>>()
  })

  it.live("fails with a PostwireApiError that Effect.catchTag can handle", () =>
    Effect.gen(function* () {
      fake.answerNext(
        "POST",
        "/v1/posts",
        errorAnswer(422, {
          code: "quota_exceeded",
          message: "The account reached its daily posting limit.",
          message_id: "Akun telah mencapai batas posting harian.",
          target_id: "tgt_01JD0000000000000000000001",
          retryable: true
        })
      )
      const postwire = yield* PostwireClient

      const handled = yield* postwire.posts
        .create(aCreatePostBody())
        .pipe(Effect.catchTag("PostwireApiError", (error) => Effect.succeed(error)))

      assert.instanceOf(handled, PostwireApiError)
      assert.deepStrictEqual(
        { status: handled.status, code: handled.code, targetId: handled.targetId, retryable: handled.retryable },
        { status: 422, code: "quota_exceeded", targetId: "tgt_01JD0000000000000000000001", retryable: true }
      )
    }).pipe(provideClient())
  )

  it.live("fails with a PostwireConnectionError when the server cannot be reached", () =>
    Effect.gen(function* () {
      const unreachable = yield* Effect.promise(async () => {
        const stopped = await FakePostwire.start()
        await stopped.close()
        return stopped.url
      })

      const error = yield* Effect.flip(
        Effect.gen(function* () {
          const postwire = yield* PostwireClient
          return yield* postwire.accounts.list()
        }).pipe(
          Effect.provide(PostwireClient.layer({ apiKey: FIXTURE_API_KEY, baseUrl: unreachable, maxRetries: 0 }))
        )
      )

      assert.strictEqual(error._tag, "PostwireConnectionError")
      assert.strictEqual(error._tag === "PostwireConnectionError" && error.kind, "network")
    })
  )

  it.live("listAll streams every post of every page, following cursor.next", () =>
    Effect.gen(function* () {
      fake.posts = somePosts(8, "queued")
      fake.pageSize = 3
      const postwire = yield* PostwireClient

      const posts = yield* Stream.runCollect(postwire.posts.listAll({ status: "queued" }))

      assert.deepStrictEqual(
        Chunk.toReadonlyArray(Chunk.fromIterable(posts)).map((post) => post.id),
        fake.posts.map((post) => post.id)
      )
      assert.strictEqual(fake.requests.length, 3)
    }).pipe(provideClient())
  )

  it.live("sends the key given as a Redacted value", () =>
    Effect.gen(function* () {
      const postwire = yield* PostwireClient

      yield* postwire.profiles.list()

      assert.strictEqual(fake.requests[0]?.headers.authorization, `Bearer ${FIXTURE_API_KEY}`)
    }).pipe(provideClient())
  )

  it.live("runs on another HttpClient through PostwireClient.make", () =>
    Effect.gen(function* () {
      const { FetchHttpClient } = yield* Effect.promise(() => import("effect/http"))
      const live = Layer.effect(PostwireClient, PostwireClient.make({ apiKey: FIXTURE_API_KEY, baseUrl: fake.url })).pipe(
        Layer.provide(FetchHttpClient.layer)
      )

      const profiles = yield* PostwireClient.use((postwire) => postwire.profiles.list()).pipe(Effect.provide(live))

      assert.strictEqual(profiles.data.length, 1)
    })
  )
})
