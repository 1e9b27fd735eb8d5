import { assert, describe, it } from "@effect/vitest"
import { Credentials, instagram } from "@postwire/platforms"
import { Effect } from "effect"
import { anAccount } from "../builders.ts"
import { failureOf } from "../comments/harness.ts"
import { aPublishedItem, anAnalyticsAdapter, counted } from "../insightsHarness.ts"
import { bucThrottle, graphError } from "../meta/GraphFake.ts"
import { endTimeOf } from "../meta/InsightsFake.ts"
import * as InstagramInsightsFake from "./InstagramInsightsFake.ts"

const setUp = (options: { readonly token?: string } = {}) =>
  Effect.gen(function* () {
    const fake = yield* InstagramInsightsFake.make()
    const account = anAccount("photo", {
      externalId: InstagramInsightsFake.igUserId,
      handle: "@maya.bakes",
      credentials: Credentials.encode(instagram, { access_token: options.token ?? fake.accessToken })
    })
    const { adapter, capabilities } = yield* anAnalyticsAdapter("photo", { photo: { baseUrl: fake.url, refreshUrl: null } })
    return { fake, account, adapter, capabilities }
  })

const feed = (id: string, n: number) => ({
  id,
  type: "FEED",
  fields: { like_count: 40 + n, comments_count: 5 + n },
  insights: { views: 900 + n, reach: 610 + n, likes: 40 + n, comments: 5 + n, shares: 3, saved: 7, total_interactions: 55 + n }
})

describe("Instagram analytics", () => {
  it.live("says what it provides, from Instagram's documentation", () =>
    Effect.gen(function* () {
      const { capabilities } = yield* setUp()
      assert.deepStrictEqual([...capabilities.post], ["views", "reach", "likes", "comments", "shares", "saves", "watch_time_seconds"])
      assert.include([...capabilities.account], "followers")
      assert.strictEqual(capabilities.batchSize, 50)
      assert.include([...capabilities.sources], "https://developers.facebook.com/docs/instagram-platform/reference/instagram-media/insights")
    }).pipe(Effect.scoped))

  it.live("reads a feed post, a reel and a story with each type's current metrics, in one call per type after one for the types", () =>
    Effect.gen(function* () {
      const { fake, account, adapter } = yield* setUp()
      fake.items.set("1790001", feed("1790001", 0))
      fake.items.set("1790002", {
        id: "1790002",
        type: "REELS",
        fields: { like_count: 300, comments_count: 21 },
        insights: { views: 12000, reach: 8000, likes: 300, comments: 21, shares: 44, saved: 60, total_interactions: 425, ig_reels_avg_watch_time: 6400, ig_reels_video_view_total_time: 76_800_000 }
      })
      fake.items.set("1790003", { id: "1790003", type: "STORY", fields: {}, insights: { views: 410, reach: 380, shares: 2, total_interactions: 9, replies: 4 } })
      const targets = ["1790001", "1790002", "1790003"].map((id) => aPublishedItem(account, id))
      const { result, requests } = yield* counted(fake, adapter.collectPosts({ account, targets, now: Date.now() }))
      assert.strictEqual(result.calls, 4)
      assert.strictEqual(requests, 4)
      assert.deepStrictEqual(result.gone, [])
      const [post, reel, story] = targets.map((t) => result.readings.find((r) => r.targetId === t.id)!)
      assert.deepStrictEqual(post!.metrics, { views: 900, reach: 610, likes: 40, comments: 5, shares: 3, saves: 7 })
      assert.strictEqual(post!.raw.total_interactions, 55)
      assert.strictEqual(post!.raw.media_product_type, "FEED")
      assert.deepStrictEqual(reel!.metrics, { views: 12000, reach: 8000, likes: 300, comments: 21, shares: 44, saves: 60, watch_time_seconds: 76_800 })
      assert.strictEqual(reel!.raw.ig_reels_avg_watch_time, 6400)
      // A story has no likes, comments nor saves: they are absent, never 0.
      assert.deepStrictEqual(story!.metrics, { views: 410, reach: 380, shares: 2 })
      assert.strictEqual(story!.raw.replies, 4)
      // The retired names were never asked (the fake refuses them with code 100).
      for (const request of fake.requests) assert.notMatch(request.params.fields ?? "", /impressions|plays|video_views/)
    }).pipe(Effect.scoped))

  it.live("reads 60 posts in two batches of at most 50 ids", () =>
    Effect.gen(function* () {
      const { fake, account, adapter } = yield* setUp()
      const ids = Array.from({ length: 60 }, (_, i) => `17900${String(i).padStart(3, "0")}`)
      for (const [i, id] of ids.entries()) fake.items.set(id, feed(id, i))
      const { result, requests } = yield* counted(fake, adapter.collectPosts({ account, targets: ids.map((id) => aPublishedItem(account, id)), now: Date.now() }))
      assert.strictEqual(result.readings.length, 60)
      assert.strictEqual(requests, 4)
      assert.strictEqual(result.calls, 4)
      assert.deepStrictEqual(
        fake.requests.filter((r) => r.route === "ids").map((r) => r.params.ids!.split(",").length),
        [50, 50, 10, 10]
      )
      assert.strictEqual(result.readings.find((r) => r.targetId !== undefined && r.metrics.views === 959)?.metrics.likes, 99)
    }).pipe(Effect.scoped))

  it.live("a media deleted on Instagram is gone, the others are read", () =>
    Effect.gen(function* () {
      const { fake, account, adapter } = yield* setUp()
      fake.items.set("1790001", feed("1790001", 0))
      fake.items.set("1790003", feed("1790003", 2))
      const targets = ["1790001", "1790002", "1790003"].map((id) => aPublishedItem(account, id))
      const { result, requests } = yield* counted(fake, adapter.collectPosts({ account, targets, now: Date.now() }))
      assert.deepStrictEqual(result.gone, [targets[1]!.id])
      assert.deepStrictEqual(result.readings.map((r) => r.targetId).sort(), [targets[0]!.id, targets[2]!.id].sort())
      assert.strictEqual(result.calls, requests)
    }).pipe(Effect.scoped))

  it.live("a media with too few viewers for insights keeps its like and comment counts", () =>
    Effect.gen(function* () {
      const { fake, account, adapter } = yield* setUp()
      fake.items.set("1790001", feed("1790001", 0))
      fake.items.set("1790002", { ...feed("1790002", 1), fewViewers: true })
      const targets = ["1790001", "1790002"].map((id) => aPublishedItem(account, id))
      const { result, requests } = yield* counted(fake, adapter.collectPosts({ account, targets, now: Date.now() }))
      const quiet = result.readings.find((r) => r.targetId === targets[1]!.id)!
      assert.deepStrictEqual(quiet.metrics, { likes: 41, comments: 6 })
      assert.strictEqual(result.readings.find((r) => r.targetId === targets[0]!.id)!.metrics.views, 900)
      assert.strictEqual(result.calls, requests)
    }).pipe(Effect.scoped))

  it.live("a story whose insights are refused (they last 24 hours) keeps what it has; a feed post's refusal fails the reading", () =>
    Effect.gen(function* () {
      const { fake, account, adapter } = yield* setUp()
      const refused = graphError(400, 100, undefined, { message: "(#100) Insights are not available for this media." })
      fake.items.set("1790001", feed("1790001", 0))
      fake.items.set("1790003", { id: "1790003", type: "STORY", fields: {}, insights: { views: 410 }, refusal: refused })
      const targets = ["1790001", "1790003"].map((id) => aPublishedItem(account, id))
      const { result, requests } = yield* counted(fake, adapter.collectPosts({ account, targets, now: Date.now() }))
      assert.strictEqual(result.calls, requests)
      assert.deepStrictEqual(result.readings.find((r) => r.targetId === targets[1]!.id)!.metrics, {})
      assert.strictEqual(result.readings.find((r) => r.targetId === targets[0]!.id)!.metrics.views, 900)

      fake.items.get("1790001")!.refusal = refused
      const failed = yield* failureOf(adapter.collectPosts({ account, targets: [targets[0]!], now: Date.now() }))
      assert.strictEqual(failed.platformCode, "100")
      assert.isFalse(failed.retryable)
    }).pipe(Effect.scoped)
  )

  it.live("reads the account's followers and its daily reach by Pacific day", () =>
    Effect.gen(function* () {
      const { fake, account, adapter } = yield* setUp()
      fake.user.daily.set("2026-12-01", { reach: 120 })
      fake.user.daily.set("2026-12-02", { reach: 180 })
      const now = Date.parse("2026-12-03T12:00:00Z")
      const { result, requests } = yield* counted(fake, adapter.collectAccount({ account, since: "2026-12-01", now }))
      assert.deepStrictEqual(result.current, { followers: 1520, following: 310, posts: 87 })
      assert.strictEqual(result.calls, 2)
      assert.strictEqual(requests, 2)
      const byDay = Object.fromEntries(result.days.map((d) => [d.date, d.metrics.reach]))
      assert.strictEqual(byDay["2026-12-01"], 120)
      assert.strictEqual(byDay["2026-12-02"], 180)
      assert.strictEqual(endTimeOf("2026-12-01"), "2026-12-02T08:00:00+0000")
    }).pipe(Effect.scoped))

  it.live("Instagram refuses the retired metric names with code 100, as the fake's callers would see", () =>
    Effect.gen(function* () {
      const { fake } = yield* setUp()
      fake.items.set("1790001", feed("1790001", 0))
      const answer = yield* Effect.promise(() =>
        fetch(`${fake.url}/1790001/insights?metric=impressions,reach&access_token=${fake.accessToken}`).then((r) => r.json() as Promise<{ error: { code: number; message: string } }>)
      )
      assert.strictEqual(answer.error.code, 100)
      assert.include(answer.error.message, "the impressions metric is no longer supported")
    }).pipe(Effect.scoped))

  it.live("a revoked token asks for a reconnect, as for comments", () =>
    Effect.gen(function* () {
      const { fake, account, adapter } = yield* setUp({ token: "revoked" })
      fake.items.set("1790001", feed("1790001", 0))
      const failed = yield* failureOf(adapter.collectPosts({ account, targets: [aPublishedItem(account, "1790001")], now: Date.now() }))
      assert.strictEqual(failed.code, "token_expired")
      assert.isTrue(failed.needsReconnect)
      const account2 = yield* failureOf(adapter.collectAccount({ account, since: "2026-12-01", now: Date.now() }))
      assert.isTrue(account2.needsReconnect)
    }).pipe(Effect.scoped))

  it.live("a throttled account is retryable at the time Meta gives", () =>
    Effect.gen(function* () {
      const { fake, account, adapter } = yield* setUp()
      fake.items.set("1790001", feed("1790001", 0))
      fake.faults.inject("ids", bucThrottle(80002, { minutes: 30 }))
      const before = Date.now()
      const failed = yield* failureOf(adapter.collectPosts({ account, targets: [aPublishedItem(account, "1790001")], now: before }))
      assert.strictEqual(failed.code, "platform_unavailable")
      assert.isTrue(failed.retryable)
      assert.isAtLeast(failed.retryAt!, before + 30 * 60_000)
      assert.isFalse(failed.needsReconnect === true)
    }).pipe(Effect.scoped))
})
