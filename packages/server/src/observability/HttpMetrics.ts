/**
 * The HTTP server's metrics: requests by route template, method and status, and their
 * duration. The route is the template the router matched (`/v1/posts/:id`), never the path as
 * sent, so that ids never become labels; a request no route served is counted as `unmatched`.
 *
 * @since 0.1.0
 */
import { MetricSeries } from "@postwire/core"
import { Context, Effect, Metric } from "effect"
import { HttpRouter } from "effect/http"

/** Requests served, by route template, method and status. */
export const requestsTotal = Metric.counter("postwire_http_requests_total", {
  description: "HTTP requests served, by route template, method and status.",
  incremental: true
})

/** Request durations, by route template and method. */
export const requestDuration = Metric.histogram("postwire_http_request_duration_seconds", {
  description: "Seconds from receiving an HTTP request to its response, by route template and method.",
  boundaries: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
})

const methods = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])

/** The method as a label: one of the standard methods, else `OTHER`. */
export const methodLabel = (method: string): string => (methods.has(method) ? method : "OTHER")

/**
 * Where the route template of the request being served is written once a route matched it:
 * the router finds the route inside the request's middleware, which reads it afterwards.
 */
export class MatchedRoute extends Context.Service<MatchedRoute, { template: string | undefined }>()(
  "postwire/MatchedRoute"
) {}

/**
 * Route middleware that writes each matched route's template into {@link MatchedRoute}.
 * Provide its layer to the routes: it wraps every route added under it.
 */
export const RouteTemplates = HttpRouter.middleware((httpEffect) =>
  Effect.gen(function* () {
    const slot = yield* Effect.serviceOption(MatchedRoute)
    if (slot._tag === "Some") {
      const route = yield* Effect.serviceOption(HttpRouter.RouteContext)
      if (route._tag === "Some") slot.value.template = route.value.route.path
    }
    return yield* httpEffect
  })
)

/** Records one served request. */
export const recordRequest = (options: {
  readonly route: string
  readonly method: string
  readonly status: number
  readonly seconds: number
}): Effect.Effect<void> =>
  Effect.gen(function* () {
    const method = methodLabel(options.method)
    yield* Metric.update(
      MetricSeries.of(requestsTotal, { route: options.route, method, status: String(options.status) }),
      1
    )
    yield* Metric.update(MetricSeries.of(requestDuration, { route: options.route, method }), options.seconds)
  })
