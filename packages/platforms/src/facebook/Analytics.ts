/**
 * Facebook Page analytics through the Graph API, with the Page token (permissions
 * `pages_read_engagement` and `read_insights`).
 *
 * ## Page posts
 *
 * Meta retired the Page `impressions` metrics for all versions (the `_unique` ones by June 15,
 * 2025, the rest on November 15, 2025; an invalid metric error since), with `views` in their place:
 * `post_impressions` → `post_media_view`, `post_impressions_unique` →
 * `post_total_media_view_unique`; `page_fans` → `page_follows`, `page_impressions` →
 * `page_media_view`, `page_impressions_unique` → `page_total_media_view_unique`
 * (https://developers.facebook.com/documentation/pages-api/platforminsights/page/deprecated-metrics,
 * https://developers.facebook.com/documentation/pages-api/changelog/,
 * https://developers.facebook.com/blog/post/2025/08/15/page-insights-api-updates/). Only the current
 * names are asked.
 *
 * Up to 50 posts in one call, by Graph's multiple-id read with field expansion
 * (https://developers.facebook.com/docs/graph-api/guides/field-expansion/):
 * `GET /?ids=…&fields=shares,comments.summary(true).limit(0),reactions.summary(true).limit(0),
 * insights.metric(post_media_view,post_total_media_view_unique,post_clicks)`
 * (https://developers.facebook.com/docs/graph-api/reference/insights). `likes` counts every
 * reaction (the post's `reactions` summary); Graph leaves `shares` out of a post nobody shared
 * (read as 0).
 *
 * ## The Page
 *
 * `GET /{page-id}?fields=followers_count` (now) and
 * `GET /{page-id}/insights?metric=page_follows,page_media_view,page_total_media_view_unique&period=day&since&until`
 * (at most 90 days; days in Pacific time).
 *
 * @since 0.5.0
 */
import type { AnalyticsCapabilities, PostReading } from "@postwire/core"
import { Effect } from "effect"
import type { Wire } from "../internal/Wire.ts"
import * as GraphApi from "../meta/GraphApi.ts"
import { accountDays, chunks, countAt, dayRange, itemsOf, latestValues, normalize, numbersOf, pageSteps, readMany } from "../meta/GraphInsights.ts"
import * as Sessions from "../meta/Sessions.ts"
import type { AnalyticsAdapter } from "../Plugin.ts"
import type * as FacebookPages from "./FacebookPages.ts"

/** Posts one multiple-id read takes. */
export const batchSize = 50

/** The current post metrics asked. */
export const postMetrics = ["post_media_view", "post_total_media_view_unique", "post_clicks"] as const

/** The current daily Page metrics asked. */
export const pageMetrics = ["page_follows", "page_media_view", "page_total_media_view_unique"] as const

/** What Facebook Pages provide, and where Meta says so. */
export const capabilities: AnalyticsCapabilities = {
  post: ["views", "reach", "likes", "comments", "shares"],
  account: ["followers", "views", "reach"],
  batchSize,
  sources: [
    "https://developers.facebook.com/docs/graph-api/reference/insights",
    "https://developers.facebook.com/documentation/pages-api/platforminsights/page/deprecated-metrics",
    "https://developers.facebook.com/documentation/pages-api/changelog/",
    "https://developers.facebook.com/docs/graph-api/guides/field-expansion/"
  ]
}

/** Page insights' limit on one daily range. */
const maxDays = 90

const postFields = `shares,comments.summary(true).limit(0),reactions.summary(true).limit(0),insights.metric(${postMetrics.join(",")})`

/** One post's reading. */
const reading = (targetId: PostReading["targetId"], item: unknown): PostReading => {
  const raw: Record<string, number | string | null> = {
    ...latestValues((item as { insights?: unknown }).insights),
    shares: countAt(item, "shares", "count") ?? 0
  }
  const comments = countAt(item, "comments", "summary", "total_count")
  const reactions = countAt(item, "reactions", "summary", "total_count")
  if (comments !== undefined) raw.comments = comments
  if (reactions !== undefined) raw.reactions = reactions
  return {
    targetId,
    metrics: normalize(raw, {
      views: ["post_media_view"],
      reach: ["post_total_media_view_unique"],
      likes: ["reactions"],
      comments: ["comments"],
      shares: ["shares"]
    }),
    raw
  }
}

/** Creates the Facebook Pages analytics adapter. */
export const make = (options: { readonly graph: GraphApi.GraphApi; readonly openSession: Sessions.OpenPage }): AnalyticsAdapter => {
  const { graph } = options
  const withSession = pageSteps(options.openSession)

  const collectPosts: AnalyticsAdapter["collectPosts"] = (input) =>
    withSession(input.account, (call) =>
      Effect.gen(function* () {
        const targetOf = itemsOf(input.targets)
        const readings: Array<PostReading> = []
        const gone: Array<PostReading["targetId"]> = []
        let calls = 0
        for (const ids of chunks([...targetOf.keys()], batchSize)) {
          const read = yield* readMany(graph, call, ids, postFields)
          calls += read.calls
          for (const id of read.gone) gone.push(...(targetOf.get(id) ?? []))
          for (const [id, item] of read.items) for (const targetId of targetOf.get(id) ?? []) readings.push(reading(targetId, item))
        }
        return { readings, gone, calls }
      })
    ).pipe(Effect.withSpan("platforms.pages.analytics.posts"))

  const collectAccount: AnalyticsAdapter["collectAccount"] = (input) =>
    withSession(input.account, (call, pageId) =>
      Effect.gen(function* () {
        const page = yield* call((token) => graph.get(pageId, { fields: "followers_count" }, token))
        const currentRaw = numbersOf(page, ["followers_count"])
        const range = dayRange(input.since, input.now, maxDays)
        const insights = yield* call((token) => graph.get(`${pageId}/insights`, { metric: pageMetrics.join(","), period: "day", ...range }, token))
        return {
          current: normalize(currentRaw, { followers: ["followers_count"] }),
          currentRaw,
          days: accountDays(insights, { followers: ["page_follows"], views: ["page_media_view"], reach: ["page_total_media_view_unique"] }),
          calls: 2
        }
      })
    ).pipe(Effect.withSpan("platforms.pages.analytics.account"))

  return { collectPosts, collectAccount }
}

/** The adapter of the plugin: the publishing settings' Graph host and app secret. */
export const fromSettings = (settings: FacebookPages.Config, wire: Wire): AnalyticsAdapter => {
  const graph = GraphApi.make({ wire, baseUrl: settings.baseUrl, platform: "pages", appSecret: settings.appSecret })
  return make({ graph, openSession: Sessions.page(graph) })
}
