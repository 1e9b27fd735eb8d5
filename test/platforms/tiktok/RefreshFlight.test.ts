/**
 * One rotating refresh token, spent once: TikTok's publishing and its analytics are built apart
 * (each router makes its own adapter from the same settings), and both refresh an expired token.
 * Against a fake that refuses a spent refresh token as TikTok does, two refreshes at once would
 * burn it: the second one refused, the account sent to reconnect.
 */
import { assert, describe, it } from "@effect/vitest"
import { Credentials } from "@postwire/platforms"
import { Effect } from "effect"
import { aRouter } from "../adapterConformance.ts"
import { anAccount } from "../builders.ts"
import { aPublishedItem, anAnalyticsAdapter } from "../insightsHarness.ts"
import * as TikTokInsightsFake from "./TikTokInsightsFake.ts"

/** A refresh-token grant sent straight to the fake: the error it answers, if any. */
const refreshWith = (fake: TikTokInsightsFake.TikTokInsightsFake, refreshToken: string) =>
  Effect.promise(async () => {
    const response = await fetch(`${fake.url}/v2/oauth/token/`, {
      method: "POST",
      body: new URLSearchParams({ client_key: "key", client_secret: "secret", grant_type: "refresh_token", refresh_token: refreshToken })
    })
    return { status: response.status, error: ((await response.json()) as { error?: string }).error }
  })

describe("TikTok token refresh shared by publishing and analytics", () => {
  it.live("publishing and analytics that find the token expired at the same time refresh it once and both carry the rotated tokens", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokInsightsFake.make()
      fake.videos.set("7310", { view_count: 10_000, like_count: 900, comment_count: 40, share_count: 12 })
      const settings = { shortvideo: { baseUrl: fake.url, clientKey: "key", clientSecret: "secret" } }
      const publishing = yield* aRouter(settings as never)
      const { adapter: analytics } = yield* anAnalyticsAdapter("shortvideo", settings as never)
      const spent = fake.refreshToken
      const account = anAccount("shortvideo", {
        credentials: Credentials.encode("shortvideo", { access_token: "act.expired", refresh_token: spent, expires_at: Date.now() - 60_000 })
      })

      const [creator, metrics] = yield* Effect.all(
        [publishing.creatorInfo(account), analytics.collectPosts({ account, targets: [aPublishedItem(account, "7310")], now: Date.now() })],
        { concurrency: "unbounded" }
      )

      assert.strictEqual(fake.count("token"), 1)
      assert.strictEqual(creator.username, "maya.bakes")
      assert.strictEqual(metrics.readings.length, 1)
      // Both hand back the same rotated tokens to be stored: whichever is written last is current.
      const fromPublishing = JSON.parse(creator.credentials!.credentials) as { access_token: string; refresh_token: string }
      const fromAnalytics = JSON.parse(metrics.credentials!.credentials) as { access_token: string; refresh_token: string }
      assert.deepStrictEqual(fromPublishing, fromAnalytics)
      assert.strictEqual(fromPublishing.refresh_token, fake.refreshToken)
      assert.strictEqual(fromPublishing.access_token, fake.accessToken)
      // The fake refuses the spent refresh token, as TikTok does: a second refresh would have failed.
      assert.deepStrictEqual(yield* refreshWith(fake, spent), { status: 400, error: "invalid_grant" })
    }).pipe(Effect.scoped)
  )
})
