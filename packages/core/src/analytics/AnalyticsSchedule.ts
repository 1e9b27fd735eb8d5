/**
 * When a published target's metrics are read, as data: often in its first hours, then daily,
 * never after `stopAfterMs`; slower after failures. Every step is a setting (the server reads
 * them from `POSTWIRE_ANALYTICS_*`, docs/analytics.md).
 *
 * | target's age                 | a reading every     |
 * |------------------------------|---------------------|
 * | up to `frequentUntilMs` (24 h) | `frequentEveryMs` (1 h) |
 * | up to `stopAfterMs` (30 days)  | `dailyEveryMs` (24 h)   |
 * | older                        | none (finished)     |
 *
 * The first reading comes `frequentEveryMs` after publishing. Accounts are read every
 * `accountEveryMs` (24 h).
 *
 * @since 0.5.0
 */

const minute = 60_000
const hour = 60 * minute
const day = 24 * hour

/** The steps of the schedule. */
export interface ScheduleSettings {
  /** The interval of readings while the target is young. */
  readonly frequentEveryMs: number
  /** Up to this age readings are frequent. */
  readonly frequentUntilMs: number
  /** The interval of readings after that. */
  readonly dailyEveryMs: number
  /** No reading is made later than this after publishing. */
  readonly stopAfterMs: number
  /** The interval of an account's readings. */
  readonly accountEveryMs: number
}

/** The documented defaults. */
export const defaultSchedule: ScheduleSettings = {
  frequentEveryMs: hour,
  frequentUntilMs: day,
  dailyEveryMs: day,
  stopAfterMs: 30 * day,
  accountEveryMs: day
}

/** The longest wait a failing reading backs off to. */
export const maxBackoffMs = 6 * hour

/** When the first reading of a target published at `publishedAt` is due. */
export const firstReadingAt = (schedule: ScheduleSettings, publishedAt: number): number => publishedAt + schedule.frequentEveryMs

/** The interval for a target of this age. */
export const intervalFor = (schedule: ScheduleSettings, ageMs: number): number =>
  ageMs < schedule.frequentUntilMs ? schedule.frequentEveryMs : schedule.dailyEveryMs

/**
 * When to read next after a reading at `at` of a target published at `publishedAt`, or `null`
 * past the stop age: the collection is finished. A reading late past the stop age is still
 * made once (the last one), then none.
 */
export const nextReadingAt = (schedule: ScheduleSettings, publishedAt: number, at: number): number | null => {
  const next = at + intervalFor(schedule, at - publishedAt)
  const stop = publishedAt + schedule.stopAfterMs
  if (at >= stop) return null
  return Math.min(next, stop)
}

/**
 * When to read again after the `failures`-th failure in a row: 5, 10, 20 … minutes up to
 * {@link maxBackoffMs}, never sooner than the time the platform named (`notBefore`); `null` past
 * the stop age.
 */
export const retryAt = (
  schedule: ScheduleSettings,
  publishedAt: number,
  at: number,
  failures: number,
  notBefore?: number
): number | null => {
  if (at >= publishedAt + schedule.stopAfterMs) return null
  const backoff = Math.min(5 * minute * 2 ** Math.max(0, failures - 1), maxBackoffMs)
  return Math.max(at + backoff, notBefore ?? 0)
}
