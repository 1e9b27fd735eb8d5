import { assert, describe, it } from "@effect/vitest"
import { makeMemoryCounters, PlatformCounters } from "@postwire/core"
import { Credentials, youtube, YouTubeQuota } from "@postwire/platforms"
import { Effect } from "effect"
import { anAccount } from "../builders.ts"
import { failureOf } from "../comments/harness.ts"
import { aPublishedItem, anAnalyticsAdapter, counted } from "../insightsHarness.ts"
import * as YouTubeStatisticsFake from "./YouTubeStatisticsFake.ts"

const setUp = (options: { readonly stale?: boolean } = {}) =>
  Effect.gen(function* () {
    const fake = yield* YouTubeStatisticsFake.make()
    const counters = makeMemoryCounters()
    const account = anAccount("video", {
      externalId: "UCmaya0000000000000000",
      handle: "mayabakes",
      credentials: Credentials.encode(youtube, { access_token: options.stale === true ? "ya29.stale" : fake.accessToken, refresh_token: fake.refreshToken, channel_id: "UCmaya0000000000000000" })
    })
    const { adapter, capabilities } = yield* anAnalyticsAdapter("video", {
      video: { apiUrl: `${fake.url}/youtube/v3`, tokenUrl: `${fake.url}/token`, clientId: "client-1", clientSecret: "secret" }
    } as never).pipe(Effect.provideService(PlatformCounters, counters))
    return { fake, account, adapter, capabilities, counters }
  })

describe("YouTube analytics", () => {
  it.live("reads 60 videos' views, likes and comments in two videos.list calls of at most 50 ids, 1 unit each; a deleted video is gone", () =>
    Effect.gen(function* () {
      const { fake, account, adapter, capabilities, counters } = yield* setUp()
      assert.strictEqual(capabilities.batchSize, 50)
      const ids = Array.from({ length: 60 }, (_, i) => `vid${String(i).padStart(8, "0")}`)
      for (const [i, id] of ids.entries()) if (i !== 9) fake.videos.set(id, { viewCount: 5000 + i, likeCount: i === 2 ? undefined : 300 + i, commentCount: 12 })
      const targets = ids.map((id) => aPublishedItem(account, id))
      const { result, requests } = yield* counted(fake, adapter.collectPosts({ account, targets, now: Date.now() }))
      assert.strictEqual(requests, 2)
      assert.strictEqual(result.calls, 2)
      assert.deepStrictEqual(fake.requests.map((r) => r.params.id!.split(",").length), [50, 10])
      assert.strictEqual(fake.requests[0]!.params.part, "statistics")
      assert.deepStrictEqual(result.gone, [targets[9]!.id])
      assert.deepStrictEqual(result.readings.find((r) => r.targetId === targets[1]!.id)!.metrics, { views: 5001, likes: 301, comments: 12 })
      // A like count the owner hid is not provided (never 0).
      assert.deepStrictEqual(result.readings.find((r) => r.targetId === targets[2]!.id)!.metrics, { views: 5002, comments: 12 })
      // One unit a call, counted against the project's day.
      assert.strictEqual(yield* counters.read("video", "client-1:units", YouTubeQuota.window(Date.now())), 2)
    }).pipe(Effect.scoped)
  )

  it.live("reads the channel's subscribers (absent while hidden); an expired token is refreshed once", () =>
    Effect.gen(function* () {
      const { fake, account, adapter } = yield* setUp({ stale: true })
      const result = yield* adapter.collectAccount({ account, since: "2026-12-01", now: Date.now() })
      assert.deepStrictEqual(result.current, { followers: 7300, posts: 64 })
      assert.strictEqual(result.currentRaw.viewCount, 1_250_000)
      assert.strictEqual(fake.count("token"), 1)
      assert.include(result.credentials!.credentials, "ya29.refreshed1")

      fake.channel.hiddenSubscriberCount = true
      const hidden = yield* adapter.collectAccount({ account, since: "2026-12-01", now: Date.now() })
      assert.deepStrictEqual(hidden.current, { posts: 64 })
    }).pipe(Effect.scoped)
  )

  it.live("a revoked grant asks for a reconnect; the project's exhausted quota is quota_exceeded", () =>
    Effect.gen(function* () {
      const { fake, account, adapter } = yield* setUp({ stale: true })
      fake.revoked = true
      const revoked = yield* failureOf(adapter.collectAccount({ account, since: "2026-12-01", now: Date.now() }))
      assert.strictEqual(revoked.code, "token_expired")
      assert.isTrue(revoked.needsReconnect)

      const fresh = yield* setUp()
      fresh.fake.quotaExceeded = 1
      const quota = yield* failureOf(fresh.adapter.collectPosts({ account: fresh.account, targets: [aPublishedItem(fresh.account, "vid1")], now: Date.now() }))
      assert.strictEqual(quota.code, "quota_exceeded")
    }).pipe(Effect.scoped)
  )
})
