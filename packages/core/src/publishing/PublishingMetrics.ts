/**
 * The publisher's metrics, in Effect's metric registry (served at `GET /metrics` by the server,
 * readable with `Metric.snapshot` by an app that embeds the engine). Labels are the platform and
 * the outcome only: never an id.
 *
 * @since 0.1.0
 */
import { Effect, Metric } from "effect"
import * as MetricSeries from "../MetricSeries.ts"

/** Targets that reached a final outcome (`published` or `failed`), by platform. */
export const targetsTotal = Metric.counter("postwire_targets_total", {
  description: "Targets that reached a final outcome, by platform and outcome (published, failed).",
  incremental: true
})

/**
 * Targets given back to the queue after a failure of the instance's own infrastructure (the
 * database did not answer, an adapter defect), by platform and reason: retried, never failed.
 */
export const requeuesTotal = Metric.counter("postwire_publish_requeues_total", {
  description:
    "Publishing steps that failed for a reason of the instance's own (a database that did not answer, an adapter defect) and gave their target back to the queue, by platform and reason.",
  incremental: true
})

/** Seconds boundaries shared by the publishing histograms: 50 ms to about 1 hour. */
const boundaries = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 3600]

/**
 * How long each publishing step took, from its claim to its recorded outcome (`published`,
 * `failed`, `in_progress`, `unconfirmed`, `requeued`, `lost`), by platform.
 */
export const stepDuration = Metric.histogram("postwire_publish_step_duration_seconds", {
  description: "Seconds from claiming a target to recording the outcome of its publishing step, by platform and outcome.",
  boundaries
})

/** How late a target's first publishing step started after the target was due: the queue's latency. */
export const publishDelay = Metric.histogram("postwire_publish_delay_seconds", {
  description: "Seconds from when a target was due to when a worker started publishing it, by platform.",
  boundaries
})

/** Records one step's outcome, its duration, and (for a first step) how late it started. */
export const recordStep = (options: {
  readonly platform: string
  readonly outcome: string
  readonly claimedAt: number
  readonly finishedAt: number
  readonly dueAt: number | null
  readonly firstStep: boolean
}): Effect.Effect<void> =>
  // One operation of the runtime for the step's two or three updates (as `Metric.update` does each).
  Effect.withFiber((fiber) => {
    const { platform, outcome } = options
    MetricSeries.of(stepDuration, { platform, outcome }).updateUnsafe(
      Math.max(0, options.finishedAt - options.claimedAt) / 1000,
      fiber.context
    )
    if (outcome === "published" || outcome === "failed") {
      MetricSeries.of(targetsTotal, { platform, outcome }).updateUnsafe(1, fiber.context)
    }
    if (options.firstStep && options.dueAt !== null) {
      MetricSeries.of(publishDelay, { platform }).updateUnsafe(Math.max(0, options.claimedAt - options.dueAt) / 1000, fiber.context)
    }
    return Effect.void
  })

/** Counts one target given back to the queue after an infrastructure failure (see {@link requeuesTotal}). */
export const recordRequeue = (options: { readonly platform: string; readonly reason: string }): Effect.Effect<void> =>
  Metric.update(MetricSeries.of(requeuesTotal, { platform: options.platform, reason: options.reason }), 1)
