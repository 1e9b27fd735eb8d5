/**
 * When deliveries are attempted: a 10 second limit per attempt, 8 retries after the first
 * attempt with growing intervals and a little jitter, the last about 24 hours after the first,
 * the 3 days of failures after which a failing endpoint is disabled, and how long the delivery
 * log and the events are kept.
 *
 * @since 0.1.0
 */
import { Effect, Random } from "effect"

const minute = 60_000
const hour = 60 * minute

/** How long an attempt may take before it counts as failed. */
export const attemptTimeoutMs = 10_000

/** Retries after the first attempt. */
export const maxRetries = 8

/**
 * The wait before each retry, before jitter: 1 m, 5 m, 15 m, 30 m, 1 h, 3 h, 6 h, 13 h 9 m.
 * They add up to exactly 24 hours, so the last retry comes 24 hours (plus jitter) after the
 * first attempt.
 */
export const retryIntervalsMs: ReadonlyArray<number> = [
  minute,
  5 * minute,
  15 * minute,
  30 * minute,
  hour,
  3 * hour,
  6 * hour,
  13 * hour + 9 * minute
]

/** Each wait is lengthened by up to this share, at random, so endpoints that fail together are not retried together. */
export const jitterRatio = 0.1

/**
 * An endpoint is disabled when a delivery has used up its retries and every attempt to the
 * endpoint has failed for at least this long: 3 days. One event's attempts span at most about
 * 26.4 hours, so one bad event alone never disables an endpoint.
 */
export const disableAfterFailingMs = 3 * 24 * hour

/** How long events, deliveries and their attempts are kept: 30 days. */
export const logRetentionMs = 30 * 24 * hour

/**
 * The wait before retry `retry` (1 to {@link maxRetries}) given a random number in [0, 1).
 *
 * @example
 * ```ts
 * retryDelayMs(1, 0) // 60_000
 * ```
 */
export const retryDelayMs = (retry: number, random: number): number => {
  const base = retryIntervalsMs[retry - 1]
  if (base === undefined) throw new RangeError(`retry must be 1 to ${maxRetries}, got ${retry}`)
  return Math.round(base * (1 + jitterRatio * random))
}

/**
 * When to try again after `attemptsMade` failed attempts ending at `at`, or `null`
 * when every retry is used up. Jitter comes from Effect's `Random`.
 */
export const nextAttemptAt = (attemptsMade: number, at: number): Effect.Effect<number | null> =>
  attemptsMade > maxRetries
    ? Effect.succeed(null)
    : Effect.map(Random.next, (random) => at + retryDelayMs(attemptsMade, random))
