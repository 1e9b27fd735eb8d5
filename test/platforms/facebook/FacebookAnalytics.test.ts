import { assert, describe, it } from "@effect/vitest"
import { Credentials, facebook } from "@postwire/platforms"
import { Effect } from "effect"
import { anAccount } from "../builders.ts"
import { failureOf } from "../comments/harness.ts"
import { aPublishedItem, anAnalyticsAdapter, counted } from "../insightsHarness.ts"
import { bucThrottle } from "../meta/GraphFake.ts"
import * as FacebookInsightsFake from "./FacebookInsightsFake.ts"

const setUp = (options: { readonly token?: string } = {}) =>
  Effect.gen(function* () {
    const fake = yield* FacebookInsightsFake.make()
    const account = anAccount("pages", {
      externalId: FacebookInsightsFake.pageId,
      handle: "Maya Bakes",
      credentials: Credentials.encode(facebook, { page_access_token: options.token ?? fake.accessToken })
    })
    const { adapter, capabilities } = yield* anAnalyticsAdapter("pages", { pages: { baseUrl: fake.url } })
    return { fake, account, adapter, capabilities }
  })

describe("Facebook Page analytics", () => {
  it.live("reads posts' views, reach, reactions, comments and shares with the current metric names, 50 a call", () =>
    Effect.gen(function* () {
      const { fake, account, adapter, capabilities } = yield* setUp()
      assert.strictEqual(capabilities.batchSize, 50)
      const ids = Array.from({ length: 51 }, (_, i) => `${FacebookInsightsFake.pageId}_9000${String(i).padStart(2, "0")}`)
      for (const [i, id] of ids.entries()) fake.items.set(id, FacebookInsightsFake.aPost(id, i, i === 1 ? { shares: 0 } : {}))
      const targets = ids.map((id) => aPublishedItem(account, id))
      const { result, requests } = yield* counted(fake, adapter.collectPosts({ account, targets, now: Date.now() }))
      assert.strictEqual(requests, 2)
      assert.strictEqual(result.calls, 2)
      assert.strictEqual(result.readings.length, 51)
      const first = result.readings.find((r) => r.targetId === targets[0]!.id)!
      assert.deepStrictEqual(first.metrics, { views: 2000, reach: 1500, likes: 80, comments: 12, shares: 4 })
      assert.strictEqual(first.raw.post_clicks, 30)
      // Graph leaves `shares` out of a post nobody shared.
      assert.strictEqual(result.readings.find((r) => r.targetId === targets[1]!.id)!.metrics.shares, 0)
      for (const request of fake.requests) assert.notMatch(request.params.fields ?? "", /impressions|page_fans/)
    }).pipe(Effect.scoped)
  )

  it.live("a reel (a Video node) is read apart from the posts: its reactions and comments, without shares or insights", () =>
    Effect.gen(function* () {
      const { fake, account, adapter } = yield* setUp()
      const post = `${FacebookInsightsFake.pageId}_1`
      fake.items.set(post, FacebookInsightsFake.aPost(post, 0))
      fake.items.set("1207000000000001", FacebookInsightsFake.aVideo("1207000000000001"))
      const targets = [aPublishedItem(account, post), aPublishedItem(account, "1207000000000001")]
      const { result, requests } = yield* counted(fake, adapter.collectPosts({ account, targets, now: Date.now() }))
      assert.strictEqual(requests, 2)
      assert.strictEqual(result.calls, 2)
      assert.deepStrictEqual(result.gone, [])
      assert.deepStrictEqual(result.readings.find((r) => r.targetId === targets[1]!.id)!.metrics, { likes: 25, comments: 3 })
      assert.strictEqual(result.readings.find((r) => r.targetId === targets[0]!.id)!.metrics.views, 2000)
    }).pipe(Effect.scoped)
  )

  it.live("a post deleted on Facebook is gone", () =>
    Effect.gen(function* () {
      const { fake, account, adapter } = yield* setUp()
      const kept = `${FacebookInsightsFake.pageId}_1`
      fake.items.set(kept, FacebookInsightsFake.aPost(kept, 0))
      const targets = [aPublishedItem(account, kept), aPublishedItem(account, `${FacebookInsightsFake.pageId}_2`)]
      const { result, requests } = yield* counted(fake, adapter.collectPosts({ account, targets, now: Date.now() }))
      assert.deepStrictEqual(result.gone, [targets[1]!.id])
      assert.deepStrictEqual(result.readings.map((r) => r.targetId), [targets[0]!.id])
      assert.strictEqual(result.calls, requests)
    }).pipe(Effect.scoped)
  )

  it.live("reads the Page's followers now and its daily follows, views and reach", () =>
    Effect.gen(function* () {
      const { fake, account, adapter } = yield* setUp()
      fake.user.daily.set("2026-11-30", { page_follows: 4790, page_media_view: 5100, page_total_media_view_unique: 3900 })
      fake.user.daily.set("2026-12-01", { page_follows: 4800, page_media_view: 6100, page_total_media_view_unique: 4200 })
      const { result, requests } = yield* counted(fake, adapter.collectAccount({ account, since: "2026-11-30", now: Date.parse("2026-12-02T10:00:00Z") }))
      assert.strictEqual(requests, 2)
      assert.deepStrictEqual(result.current, { followers: 4810 })
      const day = result.days.find((d) => d.date === "2026-12-01")!
      assert.deepStrictEqual(day.metrics, { followers: 4800, views: 6100, reach: 4200 })
      assert.strictEqual(result.days.find((d) => d.date === "2026-11-30")!.metrics.views, 5100)
    }).pipe(Effect.scoped)
  )

  it.live("the retired Page metrics answer Meta's invalid metric error", () =>
    Effect.gen(function* () {
      const { fake } = yield* setUp()
      const answer = yield* Effect.promise(() =>
        fetch(`${fake.url}/${FacebookInsightsFake.pageId}/insights?metric=page_impressions&period=day&access_token=${fake.accessToken}`).then(
          (r) => r.json() as Promise<{ error: { code: number; message: string } }>
        )
      )
      assert.strictEqual(answer.error.code, 100)
      assert.strictEqual(answer.error.message, "(#100) The value must be a valid insights metric")
    }).pipe(Effect.scoped)
  )

  it.live("an invalidated Page token without a user token asks for a reconnect; a Page throttle is retryable later", () =>
    Effect.gen(function* () {
      const { fake, account, adapter } = yield* setUp({ token: "revoked" })
      const revoked = yield* failureOf(adapter.collectAccount({ account, since: "2026-12-01", now: Date.now() }))
      assert.strictEqual(revoked.code, "token_expired")
      assert.isTrue(revoked.needsReconnect)
      assert.strictEqual(fake.count("user"), 1)

      fake.accessToken = "revoked"
      fake.faults.inject("user", bucThrottle(80001, { minutes: 10 }))
      const now = Date.now()
      const throttled = yield* failureOf(adapter.collectAccount({ account, since: "2026-12-01", now }))
      assert.strictEqual(throttled.code, "platform_unavailable")
      assert.isAtLeast(throttled.retryAt!, now + 10 * 60_000)
    }).pipe(Effect.scoped)
  )
})
