/**
 * A clock for a test server: real time plus an offset the test moves forward, so a server's
 * retry schedule, secret expiry or cursor age can be crossed without waiting. Sleeping stays
 * real, so the server's loops keep polling; moving time forward wakes at once every sleeper whose
 * deadline it passes (as a real clock would have), so a loop that polls every second sees the
 * new time without the test waiting out its pause.
 */
import { Clock, Duration, Effect } from "effect"

/** A movable clock and its controls. */
export interface MovableClock {
  readonly clock: Clock.Clock
  /** Moves time forward for the server, waking every sleep whose deadline has now passed. */
  readonly advance: (ms: number) => void
  /**
   * Steps the wall clock forward without time passing (as NTP stepping a host's clock would):
   * what the server reads moves on, its sleeps, measured on a monotonic clock, do not.
   */
  readonly step: (ms: number) => void
  /** The server's time, in milliseconds. */
  readonly now: () => number
  /** The server's time, in unix seconds (for a verifier's replay check). */
  readonly nowSeconds: () => number
}

/** A clock that reads real time plus an offset the test moves forward. */
export const aMovableClock = (): MovableClock => {
  const real = Effect.runSync(Clock.clockWith(Effect.succeed))
  let offset = 0
  const millis = () => real.currentTimeMillisUnsafe() + offset
  // Each sleeper's deadline on the moved clock, and how to wake it.
  const sleepers = new Set<{ deadline: number; readonly wake: () => void }>()
  const sleep = (duration: Duration.Duration): Effect.Effect<void> =>
    Effect.callback<void>((resume) => {
      const ms = Math.max(0, Duration.toMillis(duration))
      const sleeper = {
        deadline: millis() + ms,
        wake: () => {
          clearTimeout(timer)
          sleepers.delete(sleeper)
          resume(Effect.void)
        }
      }
      // Node's timers hold at most 2^31 - 1 ms; an endless sleep only wakes when time passes it.
      const timer = Number.isFinite(ms) ? setTimeout(sleeper.wake, Math.min(ms, 2 ** 31 - 1)) : undefined
      sleepers.add(sleeper)
      return Effect.sync(() => {
        clearTimeout(timer)
        sleepers.delete(sleeper)
      })
    })
  const clock: Clock.Clock = {
    ...real,
    currentTimeMillisUnsafe: millis,
    currentTimeMillis: Effect.sync(millis),
    currentTimeNanosUnsafe: () => BigInt(millis()) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(millis()) * 1_000_000n),
    sleep
  }
  return {
    clock,
    advance: (ms) => {
      offset += ms
      const at = millis()
      for (const sleeper of [...sleepers]) if (sleeper.deadline <= at) sleeper.wake()
    },
    step: (ms) => {
      offset += ms
      for (const sleeper of sleepers) sleeper.deadline += ms
    },
    now: millis,
    nowSeconds: () => Math.floor(millis() / 1000)
  }
}
