/**
 * Every call to a platform, observed: a span (`platform.publish`, `platform.permalink`,
 * `platform.creator_info`) with the target, post and account ids as attributes, and the metrics
 * `postwire_platform_calls_total{platform,operation,outcome}` and
 * `postwire_platform_call_duration_seconds{platform,operation}`. The outcome is `ok` or the
 * error code the call failed with (a bounded set: the error catalog).
 *
 * @since 0.1.0
 */

import { MetricSeries, PlatformClient, PlatformFailure, Spans } from "@postwire/core"
import { Cause, Clock, Effect, Layer, Metric } from "effect"

/** Platform calls by platform, operation and outcome. */
export const callsTotal = Metric.counter("postwire_platform_calls_total", {
  description: "Calls to the platforms' APIs, by platform, operation (publish, permalink, creator_info) and outcome (ok or the error code).",
  incremental: true
})

/** Platform call durations by platform and operation. */
export const callDuration = Metric.histogram("postwire_platform_call_duration_seconds", {
  description: "Seconds a call to a platform's API took, by platform and operation.",
  boundaries: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120]
})

const outcomeOf = (cause: Cause.Cause<unknown>): string => {
  const failure = Cause.findErrorOption(cause)
  if (failure._tag === "Some" && failure.value instanceof PlatformFailure) return failure.value.code
  return Cause.hasInterruptsOnly(cause) ? "interrupted" : "internal_error"
}

const observe = <A, E, R>(
  operation: string,
  platform: string,
  attributes: Record<string, string>,
  call: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.gen(function* () {
    const started = yield* Clock.currentTimeNanos
    const exit = yield* Effect.exit(call)
    const seconds = Number((yield* Clock.currentTimeNanos) - started) / 1e9
    const outcome = exit._tag === "Success" ? "ok" : outcomeOf(exit.cause)
    yield* Metric.update(MetricSeries.of(callsTotal, { platform, operation, outcome }), 1)
    yield* Metric.update(MetricSeries.of(callDuration, { platform, operation }), seconds)
    return yield* exit
  }).pipe(
    Spans.withSpan(`platform.${operation}`, { kind: "client", attributes: { "postwire.platform": platform, ...attributes } })
  )

/** Wraps the `PlatformClient` below it so that each call is traced and counted. */
export const layer: Layer.Layer<PlatformClient, never, PlatformClient> = Layer.effect(PlatformClient)(
  Effect.map(PlatformClient, (client) => {
    const permalink = client.permalink
    const admit = client.admit
    return {
      // A check in the database, no platform call: not observed as one.
      ...(admit === undefined ? {} : { admit }),
      publish: (input) =>
        observe(
          "publish",
          input.target.platform,
          { "postwire.target_id": input.target.id, "postwire.post_id": input.target.postId, "postwire.account_id": input.account.id },
          client.publish(input)
        ),
      creatorInfo: (account) =>
        observe("creator_info", account.platform, { "postwire.account_id": account.id }, client.creatorInfo(account)),
      ...(permalink === undefined
        ? {}
        : {
            permalink: (input) =>
              observe(
                "permalink",
                input.target.platform,
                { "postwire.target_id": input.target.id, "postwire.post_id": input.target.postId, "postwire.account_id": input.account.id },
                permalink(input)
              )
          })
    }
  })
)
