import { assert, describe, it } from "@effect/vitest"
import { Credentials, linkedin } from "@postwire/platforms"
import { Effect } from "effect"
import { anAccount } from "../builders.ts"
import { failureOf } from "../comments/harness.ts"
import { aPublishedItem, anAnalyticsAdapter, counted } from "../insightsHarness.ts"
import * as SocialActionsFake from "./SocialActionsFake.ts"

const organization = "urn:li:organization:5515715"

const setUp = (options: { readonly author?: string; readonly scopes?: ReadonlyArray<string> } = {}) =>
  Effect.gen(function* () {
    const fake = yield* SocialActionsFake.make()
    const account = anAccount("professional", {
      externalId: options.author ?? organization,
      credentials: Credentials.encode(linkedin, {
        access_token: fake.accessToken,
        member: "urn:li:person:maya",
        ...(options.scopes === undefined ? {} : { scopes: [...options.scopes] })
      })
    })
    const { adapter, capabilities } = yield* anAnalyticsAdapter("professional", {
      professional: { apiUrl: fake.url, tokenUrl: null, clientId: "cid", clientSecret: "secret" }
    } as never)
    return { fake, account, adapter, capabilities }
  })

describe("LinkedIn analytics", () => {
  it.live("reads a page's posts' likes and comments one call a post; a deleted post is gone; the page's followers", () =>
    Effect.gen(function* () {
      const { fake, account, adapter, capabilities } = yield* setUp({ scopes: ["w_organization_social", "r_organization_social"] })
      assert.strictEqual(capabilities.batchSize, 1)
      fake.posts.set("urn:li:share:7001", { likes: 44, comments: 6 })
      const targets = ["urn:li:share:7001", "urn:li:share:7002"].map((urn) => aPublishedItem(account, urn))
      const { result, requests } = yield* counted(fake, adapter.collectPosts({ account, targets, now: Date.now() }))
      assert.strictEqual(requests, 2)
      assert.strictEqual(result.calls, 2)
      assert.deepStrictEqual(result.readings[0]!.metrics, { likes: 44, comments: 6 })
      assert.deepStrictEqual(result.gone, [targets[1]!.id])
      assert.strictEqual(fake.requests[0]!.path, `/rest/socialActions/${encodeURIComponent("urn:li:share:7001")}`)

      const page = yield* adapter.collectAccount({ account, since: "2026-12-01", now: Date.now() })
      assert.deepStrictEqual(page.current, { followers: 2450 })
    }).pipe(Effect.scoped)
  )

  it.live("an app without the author's read permission reads nothing and makes no call; refused all the same, no reconnect is asked", () =>
    Effect.gen(function* () {
      const basic = yield* setUp({ author: "urn:li:person:maya", scopes: ["openid", "profile", "w_member_social"] })
      basic.fake.posts.set("urn:li:share:7001", { likes: 44, comments: 6 })
      const nothing = yield* basic.adapter.collectPosts({ account: basic.account, targets: [aPublishedItem(basic.account, "urn:li:share:7001")], now: Date.now() })
      assert.deepStrictEqual(nothing, { readings: [], gone: [], calls: 0 })
      const noFollowers = yield* basic.adapter.collectAccount({ account: basic.account, since: "2026-12-01", now: Date.now() })
      assert.deepStrictEqual(noFollowers.current, {})
      assert.strictEqual(basic.fake.requests.length, 0)

      const refusedApp = yield* setUp()
      refusedApp.fake.canRead = false
      const refused = yield* failureOf(refusedApp.adapter.collectPosts({ account: refusedApp.account, targets: [aPublishedItem(refusedApp.account, "urn:li:share:1")], now: Date.now() }))
      assert.strictEqual(refused.code, "permission_missing")
      assert.strictEqual(refused.platformCode, "ACCESS_DENIED:100")
      assert.isFalse(refused.needsReconnect === true)
    }).pipe(Effect.scoped)
  )

  it.live("a revoked token asks for a reconnect", () =>
    Effect.gen(function* () {
      const { fake, account, adapter } = yield* setUp()
      fake.accessToken = "another"
      const failed = yield* failureOf(adapter.collectAccount({ account, since: "2026-12-01", now: Date.now() }))
      assert.strictEqual(failed.code, "token_expired")
      assert.isTrue(failed.needsReconnect)
    }).pipe(Effect.scoped)
  )
})
