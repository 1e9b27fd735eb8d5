/**
 * The handlers of analytics: `GET /v1/posts/{id}/metrics`, `GET /v1/accounts/{id}/metrics`,
 * `GET /v1/analytics` and `GET /v1/analytics/chart.svg`.
 *
 * @since 0.5.0
 */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "@postwire/domain"
import { analyticsChart } from "./AnalyticsChart.ts"
import { respond } from "./Failures.ts"

/** /v1/…/metrics and /v1/analytics… */
export const AnalyticsHandlers = HttpApiBuilder.group(Api, "analytics", (handlers) =>
  handlers
    .handle("postMetrics", () => Effect.die("analytics: not implemented yet"))
    .handle("accountMetrics", () => Effect.die("analytics: not implemented yet"))
    .handle("overview", () => Effect.die("analytics: not implemented yet"))
    .handle("chart", ({ query }) => respond(analyticsChart(query)))
)
