import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { anAccount } from "../builders.ts"
import { failureOf } from "../comments/harness.ts"
import { aPublishedItem, anAnalyticsAdapter, counted } from "../insightsHarness.ts"
import * as AppViewCountsFake from "./AppViewCountsFake.ts"

const setUp = (access?: string) =>
  Effect.gen(function* () {
    const fake = yield* AppViewCountsFake.make()
    const account = anAccount("atproto", { externalId: fake.did, handle: "@maya.bsky.social", credentials: fake.credentials(access) })
    const { adapter, capabilities } = yield* anAnalyticsAdapter("atproto")
    return { fake, account, adapter, capabilities }
  })

const uri = (did: string, i: number) => `at://${did}/app.bsky.feed.post/3mabc${1000 + i}`

describe("Bluesky analytics", () => {
  it.live("reads 30 posts' likes, reposts, replies and quotes in two getPosts calls; a deleted post is gone", () =>
    Effect.gen(function* () {
      const { fake, account, adapter, capabilities } = yield* setUp()
      assert.strictEqual(capabilities.batchSize, 25)
      const uris = Array.from({ length: 30 }, (_, i) => uri(fake.did, i))
      for (const [i, u] of uris.entries()) if (i !== 4) fake.posts.set(u, { likeCount: 20 + i, repostCount: 3, replyCount: 5, quoteCount: 1 })
      const targets = uris.map((u) => aPublishedItem(account, u))
      const { result, requests } = yield* counted(fake, adapter.collectPosts({ account, targets, now: Date.now() }))
      assert.strictEqual(requests, 2)
      assert.strictEqual(result.calls, 2)
      assert.deepStrictEqual(fake.requests.map((r) => r.query.getAll("uris").length), [25, 5])
      assert.deepStrictEqual(result.gone, [targets[4]!.id])
      assert.deepStrictEqual(result.readings.find((r) => r.targetId === targets[2]!.id)!.metrics, { likes: 22, reposts: 3, comments: 5, quotes: 1 })
    }).pipe(Effect.scoped)
  )

  it.live("reads the profile's followers; an expired session is refreshed once and the new tokens come back", () =>
    Effect.gen(function* () {
      const { fake, account, adapter } = yield* setUp("stale")
      const result = yield* adapter.collectAccount({ account, since: "2026-12-01", now: Date.now() })
      assert.deepStrictEqual(result.current, { followers: 860, following: 120, posts: 431 })
      assert.deepStrictEqual(result.days, [])
      assert.strictEqual(fake.count("com.atproto.server.refreshSession"), 1)
      assert.include(result.credentials!.credentials, '"refresh_jwt":"refresh-1"')
    }).pipe(Effect.scoped)
  )

  it.live("a revoked session asks for a reconnect; a rate limit is retryable at ratelimit-reset", () =>
    Effect.gen(function* () {
      const { fake, account, adapter } = yield* setUp("stale")
      fake.refreshToken = "revoked-elsewhere"
      const revoked = yield* failureOf(adapter.collectAccount({ account, since: "2026-12-01", now: Date.now() }))
      assert.strictEqual(revoked.code, "token_expired")
      assert.isTrue(revoked.needsReconnect)

      const fresh = yield* setUp()
      const resetAt = Math.floor(Date.now() / 1000) + 300
      fresh.fake.rateLimited = { remaining: 5, resetAt }
      const throttled = yield* failureOf(fresh.adapter.collectPosts({ account: fresh.account, targets: [aPublishedItem(fresh.account, uri(fresh.fake.did, 1))], now: Date.now() }))
      assert.strictEqual(throttled.code, "platform_unavailable")
      assert.strictEqual(throttled.retryAt, resetAt * 1000)
    }).pipe(Effect.scoped)
  )
})
