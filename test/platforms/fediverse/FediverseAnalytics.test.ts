import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { anAccount } from "../builders.ts"
import { failureOf } from "../comments/harness.ts"
import { aPublishedItem, anAnalyticsAdapter, counted } from "../insightsHarness.ts"
import * as MastodonCountsFake from "./MastodonCountsFake.ts"

const setUp = () =>
  Effect.gen(function* () {
    const fake = yield* MastodonCountsFake.make()
    const account = anAccount("fediverse", { externalId: fake.accountId, handle: "@maya@mastodon.example", credentials: fake.credentials() })
    const { adapter, capabilities } = yield* anAnalyticsAdapter("fediverse", { fediverse: { allowLoopback: true } } as never)
    return { fake, account, adapter, capabilities }
  })

const counts = (n: number) => ({ favourites_count: 30 + n, reblogs_count: 8 + n, replies_count: 4 })

describe("Mastodon analytics", () => {
  it.live("reads 25 statuses' favourites, boosts and replies in two calls of at most 20 ids; a deleted one is gone", () =>
    Effect.gen(function* () {
      const { fake, account, adapter, capabilities } = yield* setUp()
      assert.strictEqual(capabilities.batchSize, 20)
      const ids = Array.from({ length: 25 }, (_, i) => String(113_000_000 + i))
      for (const [i, id] of ids.entries()) if (i !== 3) fake.statuses.set(id, counts(i))
      const targets = ids.map((id) => aPublishedItem(account, id))
      const { result, requests } = yield* counted(fake, adapter.collectPosts({ account, targets, now: Date.now() }))
      assert.strictEqual(requests, 2)
      assert.strictEqual(result.calls, 2)
      assert.deepStrictEqual(fake.requests.map((r) => r.query.getAll("id[]").length), [20, 5])
      assert.deepStrictEqual(result.gone, [targets[3]!.id])
      assert.deepStrictEqual(result.readings.find((r) => r.targetId === targets[1]!.id)!.metrics, { likes: 31, reposts: 9, comments: 4 })
    }).pipe(Effect.scoped)
  )

  it.live("a server older than 4.3 is read one status at a time", () =>
    Effect.gen(function* () {
      const { fake, account, adapter } = yield* setUp()
      fake.multiple = false
      fake.statuses.set("1", counts(0))
      const targets = ["1", "2"].map((id) => aPublishedItem(account, id))
      const { result, requests } = yield* counted(fake, adapter.collectPosts({ account, targets, now: Date.now() }))
      assert.strictEqual(requests, 3)
      assert.strictEqual(result.calls, 3)
      assert.deepStrictEqual(result.gone, [targets[1]!.id])
      assert.strictEqual(result.readings[0]!.metrics.likes, 30)
    }).pipe(Effect.scoped)
  )

  it.live("reads the account's followers; a revoked token asks for a reconnect; a rate limit says when", () =>
    Effect.gen(function* () {
      const { fake, account, adapter } = yield* setUp()
      const result = yield* adapter.collectAccount({ account, since: "2026-12-01", now: Date.now() })
      assert.deepStrictEqual(result.current, { followers: 530, following: 210, posts: 1204 })

      const reset = new Date(Date.now() + 5 * 60_000)
      reset.setMilliseconds(0)
      fake.rateLimited = { remaining: 10, resetAt: reset.toISOString() }
      const throttled = yield* failureOf(adapter.collectAccount({ account, since: "2026-12-01", now: Date.now() }))
      assert.strictEqual(throttled.code, "platform_unavailable")
      assert.strictEqual(throttled.retryAt, reset.getTime())

      fake.rateLimited = { remaining: 0, resetAt: "" }
      fake.accessToken = "rotated-elsewhere"
      const revoked = yield* failureOf(adapter.collectAccount({ account, since: "2026-12-01", now: Date.now() }))
      assert.strictEqual(revoked.code, "token_expired")
      assert.isTrue(revoked.needsReconnect)
    }).pipe(Effect.scoped)
  )
})
