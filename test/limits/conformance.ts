/**
 * The one specification the rate-limit and idempotency stores pass: in memory, on
 * PGlite and on PostgreSQL. One store instance serves the whole suite, so each case uses its
 * own buckets and keys and never sees another case's data.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { type IdempotencyRecord, IdempotencyStore, type RateLimitHit, RateLimitStore } from "@postwire/core"
import { anId, t0 } from "../store-conformance/builders.ts"

/** A claim of a fresh key, in progress from `t0` with a one-minute lock. */
export const anIdempotencyClaim = (
  overrides: Partial<IdempotencyRecord> = {}
): IdempotencyRecord => ({
  workspaceId: anId("ws"),
  keyId: anId("key"),
  key: anId("idem"),
  requestHash: "hash-a",
  state: "in_progress",
  status: null,
  body: null,
  createdAt: t0,
  lockedUntil: t0 + 60_000,
  ...overrides
})

/** A hit of `bucket` in the minute starting at `windowStart`. */
export const aHit = (bucket: string, windowStart = t0): RateLimitHit => ({
  bucket,
  windowStart,
  expiresAt: windowStart + 120_000
})

const limits = Effect.gen(function* () {
  return yield* RateLimitStore
})

const keys = Effect.gen(function* () {
  return yield* IdempotencyStore
})

/**
 * Registers the suite for one implementation of both stores.
 *
 * @param makeLayer builds the stores under test once for the whole suite.
 */
export const limitStoresConformance = <E>(
  name: string,
  makeLayer: () => Layer.Layer<RateLimitStore | IdempotencyStore, E>
): void =>
  layer(makeLayer(), { timeout: 60_000 })(`Limit stores conformance: ${name}`, (it) => {
    describe("rate limits", () => {
      it.effect("counts hits per bucket and window", () =>
        Effect.gen(function* () {
          const store = yield* limits
          const bucket = anId("bucket")
          const hit = (b: string, windowStart: number) => Effect.map(store.hit([aHit(b, windowStart)]), ([count]) => count)

          assert.deepStrictEqual([yield* hit(bucket, t0), yield* hit(bucket, t0), yield* hit(bucket, t0)], [1, 2, 3])
          assert.strictEqual(yield* hit(bucket, t0 + 60_000), 1)
          assert.strictEqual(yield* hit(anId("bucket"), t0), 1)
          assert.strictEqual(yield* hit(bucket, t0), 4)
        }))

      it.effect("hits several buckets at once and answers each count in the order asked", () =>
        Effect.gen(function* () {
          const store = yield* limits
          const key = anId("key")
          const route = anId("posts.create")
          yield* store.hit([aHit(key)])
          yield* store.hit([aHit(key)])

          assert.deepStrictEqual(yield* store.hit([aHit(route), aHit(key)]), [1, 3])
          assert.deepStrictEqual(yield* store.hit([aHit(key), aHit(route)]), [4, 2])
          assert.deepStrictEqual(yield* store.hit([]), [])
        }))

      it.effect("counts a bucket named twice in one hit twice", () =>
        Effect.gen(function* () {
          const store = yield* limits
          const bucket = anId("bucket")

          assert.deepStrictEqual(yield* store.hit([aHit(bucket), aHit(bucket)]), [2, 2])
          assert.deepStrictEqual(yield* store.hit([aHit(bucket)]), [3])
        }))

      it.effect("counts every one of many concurrent hits exactly once", () =>
        Effect.gen(function* () {
          const store = yield* limits
          const key = anId("key")
          const route = anId("route")
          const counts = yield* Effect.all(
            Array.from({ length: 25 }, () => store.hit([aHit(key), aHit(route)])),
            { concurrency: "unbounded" }
          )

          const sorted = (i: number) => counts.map((pair) => pair[i]!).sort((a, b) => a - b)
          assert.deepStrictEqual(sorted(0), Array.from({ length: 25 }, (_, i) => i + 1))
          assert.deepStrictEqual(sorted(1), Array.from({ length: 25 }, (_, i) => i + 1))
        }))

      it.effect("adds a block of hits at once, beside single hits", () =>
        Effect.gen(function* () {
          const store = yield* limits
          const key = anId("key")
          const route = anId("route")

          assert.deepStrictEqual(yield* store.hit([{ ...aHit(key), hits: 20 }, aHit(route)]), [20, 1])
          assert.deepStrictEqual(yield* store.hit([aHit(key)]), [21])
          assert.deepStrictEqual(yield* store.hit([{ ...aHit(route), hits: 5 }, { ...aHit(route), hits: 3 }]), [9, 9])
        }))

      it.effect("keeps counting the current window while expired windows are pruned", () =>
        Effect.gen(function* () {
          const store = yield* limits
          const bucket = anId("bucket")
          const current = t0 + 10 * 60_000
          yield* store.hit([aHit(bucket, current)])
          for (let i = 0; i < 250; i++) yield* store.hit([aHit(anId("bucket"), t0)])
          // A hit in the current window prunes what expired before it (every hundredth hit).
          for (let i = 0; i < 100; i++) yield* store.hit([aHit(anId("bucket"), current)])

          assert.deepStrictEqual(yield* store.hit([aHit(bucket, current)]), [2])
        }))
    })

    describe("idempotency", () => {
      it.effect("starts a new key, reports it in progress, and refuses another request under it", () =>
        Effect.gen(function* () {
          const store = yield* keys
          const claim = anIdempotencyClaim()

          assert.deepStrictEqual(yield* store.begin(claim, t0 - 86_400_000), { _tag: "Started" })
          assert.deepStrictEqual(yield* store.begin({ ...claim, createdAt: t0 + 1 }, t0 - 86_400_000), { _tag: "InProgress" })
          assert.deepStrictEqual(yield* store.begin({ ...claim, requestHash: "hash-b", createdAt: t0 + 1 }, t0 - 86_400_000), {
            _tag: "Mismatch"
          })
        }))

      it.effect("replays a completed response, and refuses another request under its key", () =>
        Effect.gen(function* () {
          const store = yield* keys
          const claim = anIdempotencyClaim()
          yield* store.begin(claim, 0)
          yield* store.complete(claim, 201, '{"id":"post_1"}')
          // a completed response replays even after its claim's lock would have run out
          const later = { ...claim, createdAt: claim.lockedUntil + 1 }

          assert.deepStrictEqual(yield* store.begin(later, 0), { _tag: "Replay", status: 201, body: '{"id":"post_1"}' })
          assert.deepStrictEqual(yield* store.begin({ ...later, requestHash: "hash-b" }, 0), { _tag: "Mismatch" })
        }))

      it.effect("takes over a claim whose request crashed once its lock has passed", () =>
        Effect.gen(function* () {
          const store = yield* keys
          const claim = anIdempotencyClaim({ lockedUntil: t0 + 1000 })
          yield* store.begin(claim, 0)

          const retry = { ...claim, createdAt: t0 + 1000, lockedUntil: t0 + 2000 }
          assert.deepStrictEqual(yield* store.begin({ ...claim, createdAt: t0 + 999 }, 0), { _tag: "InProgress" })
          assert.deepStrictEqual(yield* store.begin(retry, 0), { _tag: "Started" })
          assert.deepStrictEqual(yield* store.begin({ ...claim, createdAt: t0 + 1500 }, 0), { _tag: "InProgress" })
          assert.deepStrictEqual(yield* store.begin({ ...claim, requestHash: "hash-b", createdAt: t0 + 5000 }, 0), {
            _tag: "Mismatch"
          })
        }))

      it.effect("never lets another request take over a crashed claim, whatever its lock", () =>
        Effect.gen(function* () {
          const store = yield* keys
          const claim = anIdempotencyClaim({ lockedUntil: t0 + 1000 })
          yield* store.begin(claim, 0)

          assert.deepStrictEqual(yield* store.begin({ ...claim, requestHash: "hash-b", createdAt: t0 + 50_000 }, 0), {
            _tag: "Mismatch"
          })
          assert.deepStrictEqual(yield* store.begin({ ...claim, createdAt: t0 + 50_000 }, 0), { _tag: "Started" })
        }))

      it.effect("starts again over an expired record, whatever it held", () =>
        Effect.gen(function* () {
          const store = yield* keys
          const claim = anIdempotencyClaim()
          yield* store.begin(claim, 0)
          yield* store.complete(claim, 200, "old")
          const dayLater = { ...claim, requestHash: "hash-b", createdAt: t0 + 86_400_000, lockedUntil: t0 + 86_460_000 }

          // not yet expired: the old record still answers
          assert.deepStrictEqual(yield* store.begin(dayLater, claim.createdAt), { _tag: "Mismatch" })
          assert.deepStrictEqual(yield* store.begin(dayLater, claim.createdAt + 1), { _tag: "Started" })
          assert.deepStrictEqual(yield* store.begin({ ...dayLater, createdAt: dayLater.createdAt + 1 }, claim.createdAt + 1), {
            _tag: "InProgress"
          })
          yield* store.complete(dayLater, 201, "new")
          assert.deepStrictEqual(yield* store.begin({ ...dayLater, createdAt: dayLater.createdAt + 2 }, claim.createdAt + 1), {
            _tag: "Replay",
            status: 201,
            body: "new"
          })
        }))

      it.effect("lets a released key start again, but never releases a completed one", () =>
        Effect.gen(function* () {
          const store = yield* keys
          const claim = anIdempotencyClaim()
          yield* store.begin(claim, 0)
          yield* store.release(claim)
          assert.deepStrictEqual(yield* store.begin(claim, 0), { _tag: "Started" })

          yield* store.complete(claim, 202, "done")
          yield* store.release(claim)
          assert.deepStrictEqual(yield* store.begin(claim, 0), { _tag: "Replay", status: 202, body: "done" })
        }))

      it.effect("completes or releases nothing for a key never claimed", () =>
        Effect.gen(function* () {
          const store = yield* keys
          const claim = anIdempotencyClaim()
          yield* store.complete(claim, 201, "ghost")
          yield* store.release(claim)

          assert.deepStrictEqual(yield* store.begin(claim, 0), { _tag: "Started" })
        }))

      it.effect("completes and releases only the request's own claim, never one that took the key over", () =>
        Effect.gen(function* () {
          const store = yield* keys
          const claim = anIdempotencyClaim({ lockedUntil: t0 + 1000 })
          yield* store.begin(claim, 0)
          const takeover = { ...claim, createdAt: t0 + 1000, lockedUntil: t0 + 61_000 }
          assert.deepStrictEqual(yield* store.begin(takeover, 0), { _tag: "Started" })

          // the first request, still running, can neither complete nor free the key
          assert.strictEqual(yield* store.complete(claim, 201, "first"), false)
          yield* store.release(claim)
          assert.deepStrictEqual(yield* store.begin({ ...claim, createdAt: t0 + 2000 }, 0), { _tag: "InProgress" })
          assert.strictEqual(yield* store.complete(takeover, 201, "second"), true)
          assert.deepStrictEqual(yield* store.begin({ ...claim, createdAt: t0 + 3000 }, 0), { _tag: "Replay", status: 201, body: "second" })
        }))

      it.effect("settles a claim whose commit went unanswered: its stored response, or the key released", () =>
        Effect.gen(function* () {
          const store = yield* keys
          const committed = anIdempotencyClaim()
          yield* store.begin(committed, 0)
          yield* store.complete(committed, 201, "stored")
          assert.deepStrictEqual(yield* store.settle(committed), { _tag: "Committed", status: 201, body: "stored" })
          assert.deepStrictEqual(yield* store.begin({ ...committed, createdAt: t0 + 1 }, 0), { _tag: "Replay", status: 201, body: "stored" })

          const rolledBack = anIdempotencyClaim()
          yield* store.begin(rolledBack, 0)
          assert.deepStrictEqual(yield* store.settle(rolledBack), { _tag: "Released" })
          assert.deepStrictEqual(yield* store.begin({ ...rolledBack, createdAt: t0 + 1, lockedUntil: t0 + 60_001 }, 0), { _tag: "Started" })
          // the key is now another request's claim: nothing of the first one is left to settle
          assert.deepStrictEqual(yield* store.settle(rolledBack), { _tag: "Gone" })
        }))

      it.effect("scopes keys to the workspace and the API key", () =>
        Effect.gen(function* () {
          const store = yield* keys
          const claim = anIdempotencyClaim()
          yield* store.begin(claim, 0)

          assert.deepStrictEqual(yield* store.begin({ ...claim, keyId: anId("key") }, 0), { _tag: "Started" })
          assert.deepStrictEqual(yield* store.begin({ ...claim, workspaceId: anId("ws") }, 0), { _tag: "Started" })
          yield* store.complete({ ...claim, keyId: anId("key") }, 201, "other")
          assert.deepStrictEqual(yield* store.begin({ ...claim, createdAt: t0 + 1 }, 0), { _tag: "InProgress" })
        }))

      it.effect("lets exactly one of many concurrent claims start", () =>
        Effect.gen(function* () {
          const store = yield* keys
          const claim = anIdempotencyClaim()
          const results = yield* Effect.all(
            Array.from({ length: 10 }, () => store.begin(claim, 0)),
            { concurrency: "unbounded" }
          )

          assert.strictEqual(results.filter((r) => r._tag === "Started").length, 1)
          assert.strictEqual(results.filter((r) => r._tag === "InProgress").length, 9)
        }))
    })
  })
