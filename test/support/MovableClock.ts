/**
 * A clock for a test server: real time plus an offset the test moves forward, so a server's
 * retry schedule, secret expiry or cursor age can be crossed without waiting. Sleeping stays
 * real, so the server's loops keep polling.
 */
import { Clock, Effect } from "effect"

/** A movable clock and its controls. */
export interface MovableClock {
  readonly clock: Clock.Clock
  /** Moves time forward for the server. */
  readonly advance: (ms: number) => void
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
  const clock: Clock.Clock = {
    ...real,
    currentTimeMillisUnsafe: millis,
    currentTimeMillis: Effect.sync(millis),
    currentTimeNanosUnsafe: () => BigInt(millis()) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(millis()) * 1_000_000n),
    sleep: (duration) => real.sleep(duration)
  }
  return {
    clock,
    advance: (ms) => {
      offset += ms
    },
    now: millis,
    nowSeconds: () => Math.floor(millis() / 1000)
  }
}
