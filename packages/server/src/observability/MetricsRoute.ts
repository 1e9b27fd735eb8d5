/**
 * `GET /metrics`: every metric of the process in the Prometheus text format, rendered by
 * Effect's own Prometheus module. Served by every role; behind `POSTWIRE_METRICS_TOKEN`
 * (`Authorization: Bearer <token>`) when it is set.
 *
 * The backlog gauges (due targets no worker holds and how long the oldest has waited, targets
 * waiting for their platform to confirm, pending webhook deliveries, events not fanned out yet
 * and how long the oldest has waited, disabled endpoints) are
 * read from the database at scrape time by a few indexed counts, so any instance answers for
 * the whole fleet and nothing runs between scrapes.
 *
 * @since 0.1.0
 */
import { createHash, timingSafeEqual } from "node:crypto"
import { MetricSeries, PublishingStore, WebhookStore } from "@postwire/core"
import { localeFromAcceptLanguage, PostwireError, renderError } from "@postwire/domain"
import { Clock, Effect, Metric } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { PrometheusMetrics } from "effect/observability"
import { ServerConfig } from "../config/ServerConfig.ts"
import * as BackgroundLoops from "./BackgroundLoops.ts"

/** Targets due now that no worker holds. */
export const targetsDue = Metric.gauge("postwire_targets_due", {
  description: "Targets due for publishing that no worker has claimed yet, across the fleet."
})

/** How long the longest-waiting due target has waited: the lag to alert on. */
export const oldestDueAge = Metric.gauge("postwire_targets_due_oldest_age_seconds", {
  description: "Seconds since the longest-waiting unclaimed due target became due (0 when none waits)."
})

/** Targets waiting for their platform to confirm a publish. */
export const targetsUnconfirmed = Metric.gauge("postwire_targets_unconfirmed", {
  description: "Targets that may have been published and wait for their platform to confirm it."
})

/** Webhook deliveries still to be made. */
export const deliveriesPending = Metric.gauge("postwire_webhook_deliveries_pending", {
  description: "Webhook deliveries not yet delivered (due now or waiting for a retry), across the fleet."
})

/** Events written and not fanned out to their endpoints yet. */
export const eventsWaiting = Metric.gauge("postwire_webhook_events_waiting", {
  description: "Events written and not yet fanned out to webhook endpoints, across the fleet (near 0 while the dispatcher keeps up)."
})

/** How long the longest-waiting of them has waited: the dispatcher's lag. */
export const oldestEventWaitingAge = Metric.gauge("postwire_webhook_events_waiting_oldest_age_seconds", {
  description: "Seconds since the longest-waiting event not yet fanned out was written (0 when none waits)."
})

/** Endpoints disabled by failing deliveries. */
export const endpointsDisabled = Metric.gauge("postwire_webhook_endpoints_disabled", {
  description: "Webhook endpoints currently disabled because their deliveries kept failing."
})

/** Whether this instance's background loops run, by loop. */
export const loopRunning = Metric.gauge("postwire_background_loop_running", {
  description: "1 when this instance's background loop runs, 0 when it stopped, by loop (publisher, dispatcher, ...)."
})

const sameToken = (presented: string, expected: string) => {
  // Hashing both sides first keeps the comparison constant-time whatever the lengths.
  const digest = (value: string) => createHash("sha256").update(value).digest()
  return timingSafeEqual(digest(presented), digest(expected))
}

/** Reads the backlog gauges from the stores; a failing database leaves them as they were, logged. */
const readBacklog = Effect.gen(function* () {
  const at = yield* Clock.currentTimeMillis
  const publishing = yield* Effect.serviceOption(PublishingStore)
  if (publishing._tag === "Some") {
    const due = yield* publishing.value.dueTargets(at)
    yield* Metric.update(targetsDue, due.count)
    yield* Metric.update(oldestDueAge, due.oldestDueAt === null ? 0 : Math.max(0, at - due.oldestDueAt) / 1000)
    const unconfirmed = yield* publishing.value.unconfirmedTargets(at)
    yield* Metric.update(targetsUnconfirmed, unconfirmed.count)
  }
  const webhooks = yield* Effect.serviceOption(WebhookStore)
  if (webhooks._tag === "Some") {
    const backlog = yield* webhooks.value.deliveryBacklog()
    yield* Metric.update(deliveriesPending, backlog.pending)
    yield* Metric.update(endpointsDisabled, backlog.disabledEndpoints)
    yield* Metric.update(eventsWaiting, backlog.eventsWaiting)
    yield* Metric.update(
      oldestEventWaitingAge,
      backlog.oldestEventWaitingAt === null ? 0 : Math.max(0, at - backlog.oldestEventWaitingAt) / 1000
    )
  }
  for (const [loop, running] of yield* BackgroundLoops.states) {
    yield* Metric.update(MetricSeries.of(loopRunning, { loop }), running ? 1 : 0)
  }
}).pipe(Effect.catchCause((cause) => Effect.logWarning("reading the backlog for /metrics failed", cause)))

/** The `/metrics` route. */
export const MetricsRoute = HttpRouter.add(
  "GET",
  "/metrics",
  Effect.gen(function* () {
    const config = yield* ServerConfig
    if (config.metricsToken !== undefined) {
      const request = yield* HttpServerRequest.HttpServerRequest
      const header = request.headers.authorization ?? ""
      const presented = header.toLowerCase().startsWith("bearer ") ? header.slice(7).trim() : ""
      if (!sameToken(presented, config.metricsToken)) {
        const locale = localeFromAcceptLanguage(request.headers["accept-language"])
        return HttpServerResponse.jsonUnsafe(
          { error: renderError(new PostwireError({ code: "unauthorized" }), locale, config.publicUrl) },
          { status: 401, headers: { "www-authenticate": 'Bearer realm="metrics"' } }
        )
      }
    }
    yield* readBacklog
    const body = yield* PrometheusMetrics.format()
    return HttpServerResponse.text(body, { contentType: "text/plain; version=0.0.4; charset=utf-8" })
  })
)
