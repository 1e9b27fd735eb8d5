/**
 * Instagram analytics through the Instagram Graph API (Instagram Login host `graph.instagram.com`,
 * or `graph.facebook.com`), permission `instagram_business_manage_insights`
 * (Facebook Login: `instagram_manage_insights`).
 *
 * ## Published media
 *
 * Media insights (https://developers.facebook.com/docs/instagram-platform/reference/instagram-media/insights):
 * `views` replaced `impressions`, `plays`, `clips_replays_count` and
 * `ig_reels_aggregated_all_plays_count`, refused on every version since April 21, 2025 (code 100);
 * `video_views` is gone too. Each media product type takes its own metrics, and asking one a type
 * does not have refuses the whole request (`(#100) The Media Insights API does not support the …
 * metric for this media product type.`), so a reading takes, per batch of up to 50 media:
 *
 * 1. `GET /?ids=…&fields=media_product_type,like_count,comments_count` (one call): each media's
 *    type and its counts; a deleted media is `gone`.
 * 2. `GET /?ids=…&fields=insights.metric(…)` once per product type present (FEED, REELS, STORY),
 *    with that type's metrics.
 *
 * A media with too few viewers answers `(#10) Not enough viewers for the media to show insights`:
 * its type's media are then read one by one (`GET /{id}/insights`), and a media answering that
 * keeps the counts of step 1 only; so does a story whose insights are refused (they last 24
 * hours). Insights may lag up to 48 hours.
 *
 * ## The account
 *
 * `GET /{ig-user-id}?fields=followers_count,follows_count,media_count` (the current counts) and
 * daily `reach` from `GET /{ig-user-id}/insights?metric=reach&period=day&since&until`
 * (https://developers.facebook.com/docs/instagram-platform/api-reference/instagram-user/insights;
 * `impressions` refused since v22.0; a range of at most 30 days, days in Pacific time).
 *
 * @since 0.5.0
 */
import type { AnalyticsCapabilities, PlatformFailure, PostReading, RawMetrics } from "@postwire/core"
import { Effect } from "effect"
import { field, stringField } from "../internal/Wire.ts"
import { type Call, longLivedSteps } from "../meta/GraphComments.ts"
import { numbersOf, readInBatches } from "../internal/AnalyticsReading.ts"
import { accountDays, dayRange, latestValues, normalize, readMany } from "../meta/GraphInsights.ts"
import * as GraphApi from "../meta/GraphApi.ts"
import * as Sessions from "../meta/Sessions.ts"
import type { Wire } from "../internal/Wire.ts"
import type { AnalyticsAdapter } from "../Plugin.ts"
import * as Instagram from "./Instagram.ts"

/** Media one multiple-id read takes (Graph's limit on `ids`). */
export const batchSize = 50

/** The current metrics of each media product type (the media insights reference's table). */
export const metricsByType: Readonly<Record<string, ReadonlyArray<string>>> = {
  FEED: ["views", "reach", "likes", "comments", "shares", "saved", "total_interactions"],
  REELS: ["views", "reach", "likes", "comments", "shares", "saved", "total_interactions", "ig_reels_avg_watch_time", "ig_reels_video_view_total_time"],
  STORY: ["views", "reach", "shares", "total_interactions", "replies"]
}

/** What Instagram provides, and where it says so. */
export const capabilities: AnalyticsCapabilities = {
  post: ["views", "reach", "likes", "comments", "shares", "saves", "watch_time_seconds"],
  account: ["followers", "following", "posts", "reach"],
  batchSize,
  sources: [
    "https://developers.facebook.com/docs/instagram-platform/reference/instagram-media/insights",
    "https://developers.facebook.com/docs/instagram-platform/api-reference/instagram-user/insights",
    "https://developers.facebook.com/docs/instagram-platform/reference/instagram-user",
    "https://developers.facebook.com/docs/instagram-platform/insights"
  ]
}

/** Insights' 30-day limit on an account's daily range. */
const maxDays = 30

/** The normalized names of a media's metrics, from Instagram's. */
const postNames = {
  views: ["views"],
  reach: ["reach"],
  likes: ["likes", "like_count"],
  comments: ["comments", "comments_count"],
  shares: ["shares"],
  saves: ["saved"]
} as const

/** One media's reading from its fields and its insights. */
const reading = (item: unknown, insights: RawMetrics): Pick<PostReading, "metrics" | "raw"> => {
  const raw: Record<string, number | string | null> = { ...insights }
  for (const name of ["like_count", "comments_count"]) {
    const value = field(item, name)
    if (typeof value === "number") raw[name] = value
  }
  const type = stringField(item, "media_product_type")
  if (type !== undefined) raw.media_product_type = type
  const total = raw.ig_reels_video_view_total_time
  return {
    metrics: {
      ...normalize(raw, postNames),
      // Milliseconds on the wire.
      ...(typeof total === "number" ? { watch_time_seconds: Math.round(total / 1000) } : {})
    },
    raw
  }
}

/**
 * Whether a media's insights refusal leaves it with its counts only: "not enough viewers" (code
 * 10), or, for a story, any refusal of the media (its insights exist for 24 hours only).
 */
const countsOnly = (type: string) => (f: PlatformFailure) => f.platformCode === "10" || (type === "STORY" && f.code === "media_invalid")

/** Creates the Instagram analytics adapter over the photo adapter's Graph host and sessions. */
export const make = (options: { readonly graph: GraphApi.GraphApi; readonly openSession: Sessions.OpenLongLived }): AnalyticsAdapter => {
  const { graph } = options
  const withSession = longLivedSteps(options.openSession)

  /** Insights of media of one product type: one multiple-id read, or one by one when one has too few viewers. */
  const insightsOf = (call: Call, ids: ReadonlyArray<string>, type: string) =>
    Effect.gen(function* () {
      const metrics = metricsByType[type]!
      const soft = countsOnly(type)
      const byId = new Map<string, RawMetrics>()
      const all = yield* Effect.result(readMany(graph, call, ids, `insights.metric(${metrics.join(",")})`))
      if (all._tag === "Success") {
        for (const [id, item] of all.success.items) byId.set(id, latestValues(field(item, "insights")))
        return { byId, calls: all.success.calls }
      }
      if (!soft(all.failure)) return yield* Effect.fail(all.failure)
      let calls = 1
      for (const id of ids) {
        calls += 1
        const one = yield* Effect.result(call((token) => graph.get(`${id}/insights`, { metric: metrics.join(",") }, token)))
        if (one._tag === "Success") byId.set(id, latestValues(one.success))
        else if (!soft(one.failure)) return yield* Effect.fail(one.failure)
      }
      return { byId, calls }
    })

  const collectPosts: AnalyticsAdapter["collectPosts"] = (input) =>
    withSession(input.account, (call) =>
      Effect.gen(function* () {
        return yield* readInBatches({
          targets: input.targets,
          batchSize,
          read: (ids) =>
            Effect.gen(function* () {
              const head = yield* readMany(graph, call, ids, "media_product_type,like_count,comments_count")
              let calls = head.calls
              const byType = new Map<string, Array<string>>()
              for (const [id, item] of head.items) {
                const type = stringField(item, "media_product_type") ?? "FEED"
                const key = metricsByType[type] === undefined ? "FEED" : type
                byType.set(key, [...(byType.get(key) ?? []), id])
              }
              const items = new Map<string, { readonly item: unknown; readonly insights: RawMetrics }>()
              for (const [type, typed] of byType) {
                const read = yield* insightsOf(call, typed, type)
                calls += read.calls
                for (const id of typed) items.set(id, { item: head.items.get(id), insights: read.byId.get(id) ?? {} })
              }
              return { items, calls }
            }),
          reading: (found) => reading((found as { readonly item: unknown }).item, (found as { readonly insights: RawMetrics }).insights)
        })
      })
    ).pipe(Effect.withSpan("platforms.photo.analytics.posts"))

  const collectAccount: AnalyticsAdapter["collectAccount"] = (input) =>
    withSession(input.account, (call) =>
      Effect.gen(function* () {
        const userId = input.account.externalId ?? "me"
        const profile = yield* call((token) => graph.get(userId, { fields: "followers_count,follows_count,media_count" }, token))
        const currentRaw = numbersOf(profile, ["followers_count", "follows_count", "media_count"])
        const range = dayRange(input.since, input.now, maxDays)
        const insights = yield* call((token) => graph.get(`${userId}/insights`, { metric: "reach", period: "day", ...range }, token))
        const days = accountDays(insights, { reach: ["reach"] })
        return {
          current: normalize(currentRaw, { followers: ["followers_count"], following: ["follows_count"], posts: ["media_count"] }),
          currentRaw,
          days,
          calls: 2
        }
      })
    ).pipe(Effect.withSpan("platforms.photo.analytics.account"))

  return { collectPosts, collectAccount }
}

/** The adapter of the plugin: the publishing settings' Graph host, app secret proof and token refresh. */
export const fromSettings = (settings: Instagram.Config, wire: Wire): AnalyticsAdapter => {
  const graph = GraphApi.make({ wire, baseUrl: settings.baseUrl, platform: "photo", appSecret: Instagram.proofSecret(settings) })
  return make({
    graph,
    openSession: Sessions.longLived({
      graph,
      wire,
      refreshUrl: settings.refreshUrl,
      refreshWithinMs: settings.refreshWithinMs,
      refreshGrantType: "ig_refresh_token"
    })
  })
}
