/**
 * Facebook Page insights, as the fake of Meta's insights reads serves them (`../meta/InsightsFake.ts`):
 * the metrics Meta retired for every version (by June 15 and on November 15, 2025:
 * `post_impressions*`, `page_impressions*`, `page_fans*`,
 * https://developers.facebook.com/documentation/pages-api/platforminsights/page/deprecated-metrics)
 * answer the invalid metric error, `(#100) The value must be a valid insights metric`
 * (https://developers.facebook.com/docs/graph-api/reference/insights: "The API returns an invalid
 * metric error when calling any of these metrics").
 */
import { graphError } from "../meta/GraphFake.ts"
import * as InsightsFake from "../meta/InsightsFake.ts"

/** The Page the fake serves. */
export const pageId = "101202303404505"

const retired = (metric: string) => /^(post_impressions|page_impressions|page_posts_impressions|page_fans|page_fan_)/i.test(metric)

/** Meta's invalid metric error. */
export const invalidMetric = graphError(400, 100, undefined, { type: "OAuthException", message: "(#100) The value must be a valid insights metric" })

export const dialect: InsightsFake.InsightsDialect = {
  version: "v23.0",
  userEdge: "insights",
  multipleIds: true,
  itemMetricRefusal: (_item, metric) => (retired(metric) ? invalidMetric : undefined),
  userMetricRefusal: (metric) => (retired(metric) ? invalidMetric : undefined)
}

/** Starts the Facebook Page insights fake. */
export const make = () => InsightsFake.make(dialect, { id: pageId, fields: { name: "Maya Bakes", followers_count: 4810 } })

/** A Page post with its counts and insights, as Graph answers its fields. */
export const aPost = (id: string, n: number, options: { readonly shares?: number } = {}): InsightsFake.InsightItem => ({
  id,
  type: "post",
  fields: {
    ...(options.shares === 0 ? {} : { shares: { count: options.shares ?? 4 } }),
    comments: { data: [], summary: { order: "ranked", total_count: 12 + n, can_comment: true } },
    reactions: { data: [], summary: { total_count: 80 + n, viewer_reaction: "NONE" } }
  },
  insights: { post_media_view: 2000 + n, post_total_media_view_unique: 1500 + n, post_clicks: 30 + n }
})
