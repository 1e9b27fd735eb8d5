import { assert, describe, it } from "@effect/vitest"
import { Credentials, threads } from "@postwire/platforms"
import { Effect } from "effect"
import { anAccount } from "../builders.ts"
import { failureOf } from "../comments/harness.ts"
import { aPublishedItem, anAnalyticsAdapter, counted } from "../insightsHarness.ts"
import * as ThreadsInsightsFake from "./ThreadsInsightsFake.ts"

const setUp = (options: { readonly token?: string } = {}) =>
  Effect.gen(function* () {
    const fake = yield* ThreadsInsightsFake.make()
    const account = anAccount("textpost", {
      externalId: ThreadsInsightsFake.threadsUserId,
      handle: "@maya.bakes",
      credentials: Credentials.encode(threads, { access_token: options.token ?? fake.accessToken })
    })
    const { adapter, capabilities } = yield* anAnalyticsAdapter("textpost", { textpost: { baseUrl: fake.url, refreshUrl: null } })
    return { fake, account, adapter, capabilities }
  })

const aThread = (id: string, n: number) => ({
  id,
  type: "TEXT_POST",
  fields: {},
  insights: { views: 700 + n, likes: 50 + n, replies: 9, reposts: 3, quotes: 2, shares: 1 }
})

describe("Threads analytics", () => {
  it.live("reads each post's views, likes, replies, reposts, quotes and shares, one call a post; a deleted post is gone", () =>
    Effect.gen(function* () {
      const { fake, account, adapter, capabilities } = yield* setUp()
      assert.strictEqual(capabilities.batchSize, 1)
      fake.items.set("1801", aThread("1801", 0))
      fake.items.set("1802", aThread("1802", 1))
      const targets = ["1801", "1802", "1803"].map((id) => aPublishedItem(account, id))
      const { result, requests } = yield* counted(fake, adapter.collectPosts({ account, targets, now: Date.now() }))
      assert.strictEqual(requests, 3)
      assert.strictEqual(result.calls, 3)
      assert.deepStrictEqual(result.gone, [targets[2]!.id])
      assert.deepStrictEqual(result.readings.find((r) => r.targetId === targets[1]!.id)!.metrics, {
        views: 701,
        likes: 51,
        comments: 9,
        reposts: 3,
        quotes: 2,
        shares: 1
      })
      assert.strictEqual(result.readings[0]!.raw.replies, 9)
    }).pipe(Effect.scoped)
  )

  it.live("reads the followers now and the daily profile views in one call", () =>
    Effect.gen(function* () {
      const { fake, account, adapter } = yield* setUp()
      fake.user.totals = { followers_count: 2300 }
      fake.user.daily.set("2026-12-01", { views: 64 })
      fake.user.daily.set("2026-12-02", { views: 71 })
      const { result, requests } = yield* counted(fake, adapter.collectAccount({ account, since: "2026-12-01", now: Date.parse("2026-12-03T12:00:00Z") }))
      assert.strictEqual(requests, 1)
      assert.deepStrictEqual(result.current, { followers: 2300 })
      assert.deepStrictEqual(
        result.days.filter((d) => d.date <= "2026-12-02").map((d) => [d.date, d.metrics.profile_views]),
        [
          ["2026-12-01", 64],
          ["2026-12-02", 71]
        ]
      )
    }).pipe(Effect.scoped)
  )

  it.live("without the insights permission: permission_missing, asking for a reconnect; a revoked token likewise", () =>
    Effect.gen(function* () {
      const { fake, account, adapter } = yield* setUp()
      fake.items.set("1801", aThread("1801", 0))
      fake.insightsScope = false
      const denied = yield* failureOf(adapter.collectPosts({ account, targets: [aPublishedItem(account, "1801")], now: Date.now() }))
      assert.strictEqual(denied.code, "permission_missing")
      assert.isTrue(denied.needsReconnect)
      const revoked = yield* setUp({ token: "revoked" })
      const failed = yield* failureOf(revoked.adapter.collectAccount({ account: revoked.account, since: "2026-12-01", now: Date.now() }))
      assert.strictEqual(failed.code, "token_expired")
      assert.isTrue(failed.needsReconnect)
    }).pipe(Effect.scoped)
  )
})
