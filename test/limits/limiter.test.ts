/**
 * The rate limiter: a busy bucket's hits are reserved from the store in blocks, yet one instance
 * numbers its requests exactly as if each were counted in the store, and instances sharing a
 * store never admit more than the limit together. On the in-memory store (a counter shared by
 * the limiters, as a database is shared by instances); the same on PostgreSQL is in
 * `postgres.test.ts`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { MemoryRateLimitStore, type RateLimitStore } from "@postwire/core"
import { RateLimiter } from "@postwire/server"
import { anId, t0 } from "../store-conformance/builders.ts"

/** A store shared by several limiters, and how many times each called it. */
const sharedStore = () => {
  const store = MemoryRateLimitStore.make()
  const calls = { count: 0 }
  const counting: RateLimitStore["Service"] = {
    hit: (hits) =>
      Effect.suspend(() => {
        calls.count++
        return store.hit(hits)
      })
  }
  return { store: counting, calls }
}

const windowEnd = (windowStart: number) => windowStart + 120_000

/** `limiter` counts `n` requests of `bucket`, one after another, in the window at `windowStart`. */
const countInTurn = (limiter: RateLimiter.RateLimiter["Service"], bucket: string, limit: number, n: number, windowStart = t0) =>
  Effect.forEach(Array.from({ length: n }), () =>
    Effect.map(limiter.count([{ bucket, limit }], windowStart, windowEnd(windowStart)), ([number]) => number!)
  )

const admitted = (numbers: ReadonlyArray<number>, limit: number) => numbers.filter((n) => n <= limit)

describe("RateLimiter", () => {
  it.effect("numbers one instance's requests 1, 2, 3... while asking the store for only a few blocks", () =>
    Effect.gen(function* () {
      const { store, calls } = sharedStore()
      const limiter = RateLimiter.make(store)

      const numbers = yield* countInTurn(limiter, anId("key"), 100_000, 1_000)

      assert.deepStrictEqual(numbers, Array.from({ length: 1_000 }, (_, i) => i + 1))
      assert.isBelow(calls.count, 20)
    }))

  it.effect("asks the store for every request of a small limit, and refuses exactly past it", () =>
    Effect.gen(function* () {
      const { store, calls } = sharedStore()
      const limiter = RateLimiter.make(store)

      const numbers = yield* countInTurn(limiter, anId("key"), 5, 7)

      assert.deepStrictEqual(numbers.slice(0, 5), [1, 2, 3, 4, 5])
      assert.isTrue(numbers.slice(5).every((n) => n > 5))
      // Each of the first five asked the store; after the fifth the window is known to be spent.
      assert.strictEqual(calls.count, 5)
    }))

  it.effect("never lets instances sharing a store admit more than the limit together, each hit once", () =>
    Effect.gen(function* () {
      const { store } = sharedStore()
      const instances = [RateLimiter.make(store), RateLimiter.make(store), RateLimiter.make(store)]
      const bucket = anId("key")
      const limit = 1_000

      const numbers = yield* Effect.all(
        Array.from({ length: 1_500 }, (_, i) =>
          Effect.map(instances[i % 3]!.count([{ bucket, limit }], t0, windowEnd(t0)), ([n]) => n!)
        ),
        { concurrency: 48 }
      )

      const within = admitted(numbers, limit)
      assert.strictEqual(new Set(within).size, within.length)
      assert.isAtMost(within.length, limit)
      // What the others still hold unused is at most a sixteenth of what was left when they reserved it.
      assert.isAtLeast(within.length, limit - (2 * limit) / 16)
    }))

  it.effect("reserves one block of a bucket at a time: a burst on one instance leaves the window to the others", () =>
    Effect.gen(function* () {
      const shared = MemoryRateLimitStore.make()
      // Each reservation lets the other requests run before it is answered (a database's round trip),
      // so the burst's requests all find the block on its way.
      const slow: RateLimitStore["Service"] = {
        hit: (hits) => Effect.andThen(Effect.yieldNow, Effect.andThen(Effect.yieldNow, shared.hit(hits)))
      }
      const [a, b] = [RateLimiter.make(slow), RateLimiter.make(slow)]
      const bucket = anId("key")
      const limit = 800

      const burst = yield* Effect.all(
        Array.from({ length: 16 }, () => Effect.map(a.count([{ bucket, limit }], t0, windowEnd(t0)), ([n]) => n!)),
        { concurrency: "unbounded" }
      )
      assert.lengthOf(admitted(burst, limit), 16)
      // One block (a sixteenth of the window) and a hit for each of the others: the other instance has the rest.
      const others = yield* countInTurn(b, bucket, limit, limit)
      assert.isAtLeast(admitted(others, limit).length, limit - limit / 16 - 16)
    }))

  it.effect("hands out an instance's last reserved hits once the others have spent the window", () =>
    Effect.gen(function* () {
      const { store } = sharedStore()
      const [a, b] = [RateLimiter.make(store), RateLimiter.make(store)]
      const bucket = anId("key")
      const limit = 320

      // a reserves a block of 20 and uses one; b spends what is left, then is refused.
      const [first] = yield* countInTurn(a, bucket, limit, 1)
      const fromB = yield* countInTurn(b, bucket, limit, 400)
      const fromA = yield* countInTurn(a, bucket, limit, 25)

      assert.strictEqual(first, 1)
      assert.strictEqual(admitted(fromB, limit).length, limit - 20)
      assert.deepStrictEqual(admitted(fromA, limit), Array.from({ length: 19 }, (_, i) => i + 2))
      assert.strictEqual(admitted([first!, ...fromA, ...fromB], limit).length, limit)
    }))

  it.effect("counts a request once per bucket, and each bucket in its own blocks", () =>
    Effect.gen(function* () {
      const { store } = sharedStore()
      const limiter = RateLimiter.make(store)
      const key = anId("key")
      const route = anId("posts.create")

      const pairs = yield* Effect.forEach(Array.from({ length: 40 }), (_, i) =>
        limiter.count(
          i % 2 === 0 ? [{ bucket: key, limit: 10_000 }, { bucket: route, limit: 30 }] : [{ bucket: key, limit: 10_000 }, { bucket: key, limit: 10_000 }],
          t0,
          windowEnd(t0)
        )
      )

      assert.deepStrictEqual(pairs.map(([k]) => k), Array.from({ length: 40 }, (_, i) => i + 1))
      assert.deepStrictEqual(pairs.filter((_, i) => i % 2 === 0).map(([, r]) => r), Array.from({ length: 20 }, (_, i) => i + 1))
      assert.isTrue(pairs.filter((_, i) => i % 2 === 1).every(([k, again]) => k === again))
    }))

  it.effect("starts every window afresh, and leaves a request of an older window to the store", () =>
    Effect.gen(function* () {
      const { store } = sharedStore()
      const limiter = RateLimiter.make(store)
      const bucket = anId("key")

      const firstWindow = yield* countInTurn(limiter, bucket, 100_000, 3, t0)
      const next = yield* countInTurn(limiter, bucket, 100_000, 3, t0 + 60_000)
      const late = yield* countInTurn(limiter, bucket, 100_000, 2, t0)

      assert.deepStrictEqual(firstWindow, [1, 2, 3])
      assert.deepStrictEqual(next, [1, 2, 3])
      // The first window's block was dropped with it, so its late requests come after the whole block.
      assert.isTrue(late.every((n) => n > 3))
      assert.strictEqual(new Set(late).size, 2)
    }))
})
