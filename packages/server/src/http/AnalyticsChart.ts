/**
 * `GET /v1/analytics/chart.svg`: the daily series of `GET /v1/analytics` drawn as an SVG line
 * chart. Placeholder of the contract: the chart itself is drawn by the `charts` work (#42), which
 * replaces this file.
 *
 * @since 0.5.0
 */
import { Effect } from "effect"
import type { Analytics } from "@postwire/domain"

/** The chart for a query (placeholder: an empty SVG until the chart is drawn). */
export const analyticsChart = (_query: Analytics.AnalyticsChartQuery) =>
  Effect.succeed('<svg xmlns="http://www.w3.org/2000/svg" width="640" height="320" role="img"></svg>')
