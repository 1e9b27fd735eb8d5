/**
 * Threads analytics through the Threads API (`graph.threads.net`), permission
 * `threads_manage_insights` (https://developers.facebook.com/documentation/threads/insights).
 *
 * - Posts: `GET /{threads-media-id}/insights?metric=views,likes,replies,reposts,quotes,shares`,
 *   one call per post (the Threads API documents no multiple-id read). `views` is "in
 *   development" at Meta; replies of a root post count all replies, nested ones included. A post
 *   deleted on Threads (`(#100) … does not exist`, 100/33) is `gone`.
 * - The account: `GET /{threads-user-id}/threads_insights?metric=views,followers_count&since&until`:
 *   `followers_count` is the total now; `views` is a daily series of PROFILE views (not post views),
 *   kept as `profile_views`. `since`/`until` do not reach before April 13, 2024 (1712991600).
 *
 * @since 0.5.0
 */
import type { AnalyticsCapabilities } from "@postwire/core"
import { Effect } from "effect"
import type { Wire } from "../internal/Wire.ts"
import * as GraphApi from "../meta/GraphApi.ts"
import { longLivedSteps } from "../meta/GraphComments.ts"
import { readInBatches, renamed } from "../internal/AnalyticsReading.ts"
import { accountDays, dayRange, isMissing, latestValues, normalize } from "../meta/GraphInsights.ts"
import * as Sessions from "../meta/Sessions.ts"
import type { AnalyticsAdapter } from "../Plugin.ts"
import * as Threads from "./Threads.ts"

/** The post metrics asked (all the Threads media insights has). */
export const postMetrics = ["views", "likes", "replies", "reposts", "quotes", "shares"] as const

/** What Threads provides, and where Meta says so. */
export const capabilities: AnalyticsCapabilities = {
  post: ["views", "likes", "comments", "reposts", "quotes", "shares"],
  account: ["followers", "profile_views"],
  batchSize: 1,
  sources: ["https://developers.facebook.com/documentation/threads/insights"]
}

/** The earliest time the user insights range takes (April 13, 2024). */
const earliest = 1_712_991_600

/** Creates the Threads analytics adapter. */
export const make = (options: { readonly graph: GraphApi.GraphApi; readonly openSession: Sessions.OpenLongLived }): AnalyticsAdapter => {
  const { graph } = options
  const withSession = longLivedSteps(options.openSession)

  const collectPosts: AnalyticsAdapter["collectPosts"] = (input) =>
    withSession(input.account, (call) =>
      Effect.gen(function* () {
        return yield* readInBatches({
          targets: input.targets,
          batchSize: 1,
          read: ([id]) =>
            Effect.matchEffect(call((token) => graph.get(`${id}/insights`, { metric: postMetrics.join(",") }, token)), {
              onSuccess: (body) => Effect.succeed({ items: new Map([[id!, body]]), calls: 1 }),
              onFailure: (f) => (isMissing(f) ? Effect.succeed({ items: new Map<string, unknown>(), calls: 1 }) : Effect.fail(f))
            }),
          reading: (body) => {
            const raw = latestValues(body)
            return { raw, metrics: renamed(raw, { views: "views", likes: "likes", comments: "replies", reposts: "reposts", quotes: "quotes", shares: "shares" }) }
          }
        })
      })
    ).pipe(Effect.withSpan("platforms.textpost.analytics.posts"))

  const collectAccount: AnalyticsAdapter["collectAccount"] = (input) =>
    withSession(input.account, (call) =>
      Effect.gen(function* () {
        const userId = input.account.externalId ?? "me"
        const range = dayRange(input.since, input.now, 365)
        const answer = yield* call((token) =>
          graph.get(
            `${userId}/threads_insights`,
            { metric: "views,followers_count", since: Math.max(range.since, earliest), until: range.until },
            token
          )
        )
        const all = latestValues(answer)
        const currentRaw = typeof all.followers_count === "number" ? { followers_count: all.followers_count } : {}
        return {
          current: normalize(currentRaw, { followers: ["followers_count"] }),
          currentRaw,
          days: accountDays(answer, { profile_views: ["views"] }),
          calls: 1
        }
      })
    ).pipe(Effect.withSpan("platforms.textpost.analytics.account"))

  return { collectPosts, collectAccount }
}

/** The adapter of the plugin: the publishing settings' host, app secret proof and token refresh. */
export const fromSettings = (settings: Threads.Config, wire: Wire): AnalyticsAdapter => {
  const graph = GraphApi.make({ wire, baseUrl: settings.baseUrl, platform: "textpost", appSecret: Threads.proofSecret(settings) })
  return make({
    graph,
    openSession: Sessions.longLived({
      graph,
      wire,
      refreshUrl: settings.refreshUrl,
      refreshWithinMs: settings.refreshWithinMs,
      refreshGrantType: "th_refresh_token"
    })
  })
}
