/**
 * The webhook dispatcher's metrics, in Effect's metric registry (served at `GET /metrics` by the
 * server). Labels are low-cardinality: never an endpoint or event id.
 *
 * @since 0.1.0
 */
import { Effect, Metric } from "effect"
import * as MetricSeries from "../MetricSeries.ts"

/** Delivery attempts by outcome: `delivered`, `retry` (failed, tried again later), `dead` (retries used up). */
export const deliveriesTotal = Metric.counter("postwire_webhook_deliveries_total", {
  description: "Webhook delivery attempts by outcome: delivered, retry (failed, will be tried again), dead (retries used up).",
  incremental: true
})

/** Endpoints disabled because their deliveries kept failing. */
export const endpointsDisabledTotal = Metric.counter("postwire_webhook_endpoints_disabled_total", {
  description: "Webhook endpoints disabled by the dispatcher because every delivery failed for too long.",
  incremental: true
})

/** Records one delivery attempt's outcome, and the endpoint it disabled if it did. */
export const recordAttempt = (outcome: "delivered" | "retry" | "dead", endpointDisabled: boolean): Effect.Effect<void> =>
  Effect.gen(function* () {
    yield* Metric.update(MetricSeries.of(deliveriesTotal, { outcome }), 1)
    if (endpointDisabled) yield* Metric.update(endpointsDisabledTotal, 1)
  })
