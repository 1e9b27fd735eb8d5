/**
 * Analytics in the contract: how each published post and each account is doing, over time.
 * `GET /v1/posts/{id}/metrics`, `GET /v1/accounts/{id}/metrics`, `GET /v1/analytics` and
 * `GET /v1/analytics/chart.svg`, all with scope `analytics:read`.
 *
 * @since 0.5.0
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  AccountMetrics,
  AccountMetricsQuery,
  AnalyticsChartQuery,
  AnalyticsOverview,
  AnalyticsQuery,
  PostMetrics,
  PostMetricsQuery
} from "./Analytics.ts"
import { Authentication, RequiredScope } from "./Auth.ts"

const postParams = {
  /** The post's id, `post_…`. An unknown id, or one of another workspace, is 404 `not_found`. */
  id: Schema.String.annotate({ description: "The post's id, `post_…`. An unknown id, or one of another workspace, is 404 `not_found`." })
}

const accountParams = {
  /** The account's id, `acc_…`. An unknown id, or one of another workspace, is 404 `not_found`. */
  id: Schema.String.annotate({
    description: "The account's id, `acc_…`. An unknown id, or one of another workspace, is 404 `not_found`."
  })
}

const gains =
  "A day's value is what the items gained that day: the growth between two readings of an item is counted on the day " +
  "(in `time_zone`) of the later reading, its first reading counts whole. Days are those of `time_zone`: an IANA name " +
  "(daylight saving followed) or a fixed offset, `UTC` by default. The range is `from` to `to` inclusive, 30 days " +
  "ending today by default, at most 92 days (400 `invalid_range`)."

/** Analytics: post metrics, account metrics, the workspace's totals and series, and their chart. */
export class AnalyticsGroup extends HttpApiGroup.make("analytics")
  .add(
    HttpApiEndpoint.get("postMetrics", "/v1/posts/:id/metrics", { params: postParams, query: PostMetricsQuery, success: PostMetrics })
      .annotate(RequiredScope, "analytics:read")
      .annotate(OpenApi.Summary, "Retrieve a post's metrics")
      .annotate(
        OpenApi.Description,
        "Answers each target's latest metrics (`values` under normalized names, `raw` under the platform's own), when " +
          "they were read (`collected_at`) and where the collection stands. With `series=true`, every snapshot too, oldest " +
          "first. Readings are frequent in a target's first hours, then daily, and stop after 30 days by default " +
          "(docs/analytics.md). Sandbox targets get the simulated platform's numbers, which grow with the item's age. " +
          "Scope `analytics:read`."
      ),
    HttpApiEndpoint.get("accountMetrics", "/v1/accounts/:id/metrics", {
      params: accountParams,
      query: AccountMetricsQuery,
      success: AccountMetrics
    })
      .annotate(RequiredScope, "analytics:read")
      .annotate(OpenApi.Summary, "Retrieve an account's metrics by day")
      .annotate(
        OpenApi.Description,
        "Answers the account's current counts (`followers`, …) and its figures by day from `from` to `to` inclusive (30 " +
          "days ending today by default, at most 92: 400 `invalid_range`). Accounts are read once a day. Scope `analytics:read`."
      ),
    HttpApiEndpoint.get("overview", "/v1/analytics", { query: AnalyticsQuery, success: AnalyticsOverview })
      .annotate(RequiredScope, "analytics:read")
      .annotate(OpenApi.Summary, "Totals and daily series of published items")
      .annotate(
        OpenApi.Description,
        "Answers what the workspace's published items gained in a range of days, filtered by `profile_id`, `platform` " +
          `and \`account_id\`: \`totals\` and \`series\` over everything matching, and a page of rows per profile and platform. ${gains} ` +
          "Follow `cursor.next` while `cursor.has_more` is true, with the same filters. Scope `analytics:read`."
      ),
    HttpApiEndpoint.get("chart", "/v1/analytics/chart.svg", {
      query: AnalyticsChartQuery,
      /** An SVG line chart of the daily series (no script: readable in an e-mail or a README). */
      success: Schema.String.pipe(HttpApiSchema.asText({ contentType: "image/svg+xml" })).annotate({
        description: "An SVG line chart of the daily series (no script: readable in an e-mail or a README)."
      })
    })
      .annotate(RequiredScope, "analytics:read")
      .annotate(OpenApi.Summary, "Chart of a daily series (SVG)")
      .annotate(
        OpenApi.Description,
        "Draws the `series` of `GET /v1/analytics` for one `metric` (default `views`) with the same filters as a clean SVG " +
          `line chart: points, axes and labels, no JavaScript. ${gains} Scope \`analytics:read\`.`
      )
  )
  .middleware(Authentication)
  .annotate(
    OpenApi.Description,
    "How published posts and accounts are doing over time: views, likes, comments, followers, read from each platform " +
      "on a schedule and kept as snapshots."
  ) {}
