import { assert, describe, it } from "@effect/vitest"
import { Credentials, tiktok } from "@postwire/platforms"
import { Effect } from "effect"
import { anAccount } from "../builders.ts"
import { failureOf } from "../comments/harness.ts"
import { aPublishedItem, anAnalyticsAdapter, counted } from "../insightsHarness.ts"
import * as TikTokInsightsFake from "./TikTokInsightsFake.ts"

const setUp = (credentials: { readonly scopes?: ReadonlyArray<string>; readonly expired?: boolean } = {}) =>
  Effect.gen(function* () {
    const fake = yield* TikTokInsightsFake.make()
    const account = anAccount("shortvideo", {
      credentials: Credentials.encode(tiktok, {
        access_token: credentials.expired === true ? "act.old" : fake.accessToken,
        refresh_token: fake.refreshToken,
        ...(credentials.scopes === undefined ? {} : { scopes: credentials.scopes })
      })
    })
    const { adapter, capabilities } = yield* anAnalyticsAdapter("shortvideo", { shortvideo: { baseUrl: fake.url, clientKey: "key", clientSecret: "secret" } })
    return { fake, account, adapter, capabilities }
  })

const video = (n: number) => ({ view_count: 10_000 + n, like_count: 900 + n, comment_count: 40 + n, share_count: 12 + n })

describe("TikTok analytics", () => {
  it.live("reads 45 videos' views, likes, comments and shares in three queries of at most 20 ids; a deleted video is gone", () =>
    Effect.gen(function* () {
      const { fake, account, adapter, capabilities } = yield* setUp()
      assert.strictEqual(capabilities.batchSize, 20)
      const ids = Array.from({ length: 45 }, (_, i) => `73100000000000${String(i).padStart(5, "0")}`)
      for (const [i, id] of ids.entries()) if (i !== 7) fake.videos.set(id, video(i))
      const targets = ids.map((id) => aPublishedItem(account, id))
      const { result, requests } = yield* counted(fake, adapter.collectPosts({ account, targets, now: Date.now() }))
      assert.strictEqual(requests, 3)
      assert.strictEqual(result.calls, 3)
      assert.deepStrictEqual(
        fake.requests.map((r) => (r.json as { filters: { video_ids: Array<string> } }).filters.video_ids.length),
        [20, 20, 5]
      )
      assert.strictEqual(fake.requests[0]!.params.fields, "id,view_count,like_count,comment_count,share_count")
      assert.deepStrictEqual(result.gone, [targets[7]!.id])
      assert.strictEqual(result.readings.length, 44)
      assert.deepStrictEqual(result.readings.find((r) => r.targetId === targets[3]!.id)!.metrics, { views: 10_003, likes: 903, comments: 43, shares: 15 })
    }).pipe(Effect.scoped)
  )

  it.live("reads the follower count; TikTok has no daily figures", () =>
    Effect.gen(function* () {
      const { fake, account, adapter } = yield* setUp()
      const { result, requests } = yield* counted(fake, adapter.collectAccount({ account, since: "2026-12-01", now: Date.now() }))
      assert.strictEqual(requests, 1)
      assert.deepStrictEqual(result.current, { followers: 12_400, following: 88, posts: 142 })
      assert.strictEqual(result.currentRaw.likes_count, 310_000)
      assert.deepStrictEqual(result.days, [])
    }).pipe(Effect.scoped)
  )

  it.live("a token without video.list or user.info.stats is permission_missing asking for a reconnect; known missing, nothing is sent", () =>
    Effect.gen(function* () {
      const { fake, account, adapter } = yield* setUp()
      fake.videos.set("7310", video(0))
      fake.scopes.delete("video.list")
      const refused = yield* failureOf(adapter.collectPosts({ account, targets: [aPublishedItem(account, "7310")], now: Date.now() }))
      assert.strictEqual(refused.code, "permission_missing")
      assert.strictEqual(refused.platformCode, "scope_not_authorized")
      assert.isTrue(refused.needsReconnect)

      const known = yield* setUp({ scopes: ["user.info.basic", "video.publish", "video.list"] })
      const stats = yield* failureOf(known.adapter.collectAccount({ account: known.account, since: "2026-12-01", now: Date.now() }))
      assert.strictEqual(stats.code, "permission_missing")
      assert.strictEqual(stats.platformCode, "scope_not_authorized:user.info.stats")
      assert.isTrue(stats.needsReconnect)
      assert.strictEqual(known.fake.requests.length, 0)
    }).pipe(Effect.scoped)
  )

  it.live("an expired access token is refreshed once and the rotated tokens come back to be stored", () =>
    Effect.gen(function* () {
      const { fake, account, adapter } = yield* setUp({ expired: true })
      fake.videos.set("7310", video(0))
      const result = yield* adapter.collectPosts({ account, targets: [aPublishedItem(account, "7310")], now: Date.now() })
      assert.strictEqual(result.readings.length, 1)
      assert.strictEqual(fake.count("token"), 1)
      const stored = JSON.parse(result.credentials!.credentials) as { access_token: string; refresh_token: string }
      assert.strictEqual(stored.refresh_token, "rft.rotated1")
    }).pipe(Effect.scoped)
  )

  it.live("TikTok's rate limit is retryable after its one-minute window", () =>
    Effect.gen(function* () {
      const { fake, account, adapter } = yield* setUp()
      fake.rateLimited = 10
      const before = Date.now()
      const failed = yield* failureOf(adapter.collectAccount({ account, since: "2026-12-01", now: before }))
      assert.strictEqual(failed.code, "platform_unavailable")
      assert.strictEqual(failed.platformCode, "rate_limit_exceeded")
      assert.isAtLeast(failed.retryAt!, before + 60_000)
    }).pipe(Effect.scoped)
  )
})
