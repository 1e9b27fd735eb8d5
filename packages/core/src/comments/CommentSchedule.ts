/**
 * When a published target's comments are read, as data: often while the post is young, rarer as
 * it ages, never after {@link stopAfterMs}; slower after failures; and how many platform calls
 * one account may spend on comments in an hour.
 *
 * | post's age      | a poll every |
 * |-----------------|--------------|
 * | up to 1 hour    | 1 minute     |
 * | up to 24 hours  | 5 minutes    |
 * | up to 7 days    | 1 hour       |
 * | up to 30 days   | 6 hours      |
 * | older           | none (stop)  |
 *
 * @since 0.3.0
 */

const minute = 60_000
const hour = 60 * minute
const day = 24 * hour

/** The first poll comes this long after the target published. */
export const firstPollAfterMs = minute

/** No poll is made later than this after the target published. */
export const stopAfterMs = 30 * day

/** The age bands of the schedule: up to `untilAge`, a poll every `everyMs`. */
export const bands: ReadonlyArray<{ readonly untilAge: number; readonly everyMs: number }> = [
  { untilAge: hour, everyMs: minute },
  { untilAge: day, everyMs: 5 * minute },
  { untilAge: 7 * day, everyMs: hour },
  { untilAge: stopAfterMs, everyMs: 6 * hour }
]

/** Default platform calls one account may spend on comment polls per clock hour. */
export const defaultHourlyCallBudget = 120

/** The longest wait a failing poll backs off to (the schedule's own interval may be longer). */
export const maxBackoffMs = hour

/** The wait between polls for a post of this age. */
export const intervalFor = (ageMs: number): number =>
  (bands.find((band) => ageMs < band.untilAge) ?? bands[bands.length - 1]!).everyMs

/**
 * When to poll next after a poll at `at` of a target published at `publishedAt`, or `null` when
 * that would be past {@link stopAfterMs}: polling stops.
 *
 * @example
 * ```ts
 * nextPollAt(t, t + 60_000) // t + 120_000: the second minute
 * nextPollAt(t, t + 2 * 3_600_000) // five minutes later
 * ```
 */
export const nextPollAt = (publishedAt: number, at: number): number | null => {
  const next = at + intervalFor(at - publishedAt)
  return next > publishedAt + stopAfterMs ? null : next
}

/**
 * When to poll again after the `failures`-th failure in a row (`platform_unavailable`,
 * `rate_limited`, any refusal): 1, 2, 4 … minutes up to {@link maxBackoffMs}, never sooner than
 * the schedule would; `null` past the stop age.
 */
export const retryAt = (publishedAt: number, at: number, failures: number): number | null => {
  const backoff = Math.min(minute * 2 ** Math.max(0, failures - 1), maxBackoffMs)
  const next = at + Math.max(backoff, intervalFor(at - publishedAt))
  return next > publishedAt + stopAfterMs ? null : next
}

/** The start of the clock hour holding `at`: the window an account's call budget counts in. */
export const budgetWindow = (at: number): number => Math.floor(at / hour) * hour

/** The end of the budget window holding `at`: an account out of budget is polled again then. */
export const budgetWindowEnd = (at: number): number => budgetWindow(at) + hour
