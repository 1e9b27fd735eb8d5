/**
 * Instagram's insights, as the fake of Meta's insights reads serves them (`../meta/InsightsFake.ts`):
 * the metrics of each media product type and the refusals of the media insights reference
 * (https://developers.facebook.com/docs/instagram-platform/reference/instagram-media/insights):
 * `impressions`, `plays`, `clips_replays_count`, `ig_reels_aggregated_all_plays_count` and
 * `video_views` are refused on every version since April 21, 2025 (code 100), a metric the media's
 * type lacks is refused with `(#100) The Media Insights API does not support the … metric for this
 * media product type.`; account insights
 * (https://developers.facebook.com/docs/instagram-platform/api-reference/instagram-user/insights)
 * refuse `impressions` since v22.0 and want `views` with `metric_type=total_value`.
 */
import { graphError } from "../meta/GraphFake.ts"
import * as InsightsFake from "../meta/InsightsFake.ts"

/** The ig-user-id the fake serves. */
export const igUserId = "17841400000000001"

const retired = new Set(["impressions", "plays", "clips_replays_count", "ig_reels_aggregated_all_plays_count", "video_views"])

const byType: Readonly<Record<string, ReadonlySet<string>>> = {
  FEED: new Set(["views", "reach", "likes", "comments", "shares", "saved", "total_interactions", "follows", "profile_visits", "profile_activity"]),
  REELS: new Set(["views", "reach", "likes", "comments", "shares", "saved", "total_interactions", "ig_reels_avg_watch_time", "ig_reels_video_view_total_time"]),
  STORY: new Set(["views", "reach", "shares", "total_interactions", "replies", "navigation", "follows", "profile_visits", "profile_activity"])
}

/** Meta's refusal of a retired metric (the wording its error answers use since v22.0). */
export const retiredMetric = (metric: string, what: "media" | "user") =>
  graphError(400, 100, undefined, {
    type: "OAuthException",
    message: `(#100) Starting from version 22 and above, the ${metric} metric is no longer supported for the queried ${what}. Please refer to the documentation at https://developers.facebook.com/docs/instagram-platform/${what === "media" ? "reference/instagram-media/insights" : "api-reference/instagram-user/insights"} for a list of supported metrics.`
  })

export const dialect: InsightsFake.InsightsDialect = {
  version: "v23.0",
  userEdge: "insights",
  multipleIds: true,
  itemMetricRefusal: (item, metric) => {
    if (retired.has(metric)) return retiredMetric(metric, "media")
    if (!(byType[item.type] ?? byType.FEED!).has(metric)) {
      return graphError(400, 100, undefined, {
        type: "OAuthException",
        message: `(#100) The Media Insights API does not support the ${metric} metric for this media product type.`
      })
    }
    return undefined
  },
  userMetricRefusal: (metric, request) => {
    if (metric === "impressions") return retiredMetric(metric, "user")
    if (["views", "profile_views", "total_interactions"].includes(metric) && request.params.metric_type !== "total_value") {
      return graphError(400, 100, undefined, { message: `(#100) The following metrics (${metric}) should be specified with parameter metric_type=total_value` })
    }
    return undefined
  }
}

/** Starts the Instagram insights fake. */
export const make = () =>
  InsightsFake.make(dialect, { id: igUserId, fields: { username: "maya.bakes", followers_count: 1520, follows_count: 310, media_count: 87 } })
