/**
 * Pacing a platform's documented per-minute call limits (TikTok: 6 `video/init` calls a minute
 * per user token, 20 `creator_info`, 30 `status/fetch`): a sliding window of the calls this
 * process made per key (an account and an endpoint). A call the window has no room for is not
 * made: the caller learns when the window has room again and the publisher takes the step again
 * then (`PlatformFailure.retryAt`), so a burst waits its turn instead of failing.
 *
 * The window counts only this process's calls. Several instances sharing an account may still
 * meet the platform's own refusal; {@link CallPacer.spend} then closes the window for its whole
 * length, which the platform's limit surely allows.
 *
 * @internal
 */
import { Clock, Effect } from "effect"

/** A documented limit: at most `calls` calls in any `perMs` milliseconds. */
export interface CallLimit {
  readonly calls: number
  readonly perMs: number
}

/** Per-key windows of calls. */
export interface CallPacer {
  /**
   * Takes a call out of the window of `key`: `undefined` when it may be made now (it is counted),
   * otherwise the time (epoch milliseconds) from which the window has room.
   */
  readonly take: (key: string, limit: CallLimit) => Effect.Effect<number | undefined>
  /** When the window of `key` has room, without taking a call: `undefined` when it has room now. */
  readonly nextFree: (key: string, limit: CallLimit) => Effect.Effect<number | undefined>
  /**
   * The platform refused a call of `key` for its rate limit: no call is made for the window's
   * whole length. Returns the time from which one may be made again.
   */
  readonly spend: (key: string, limit: CallLimit) => Effect.Effect<number>
}

/** Keys remembered at most (the least recently used are forgotten first). */
const keysKept = 10_000

/** Creates an empty pacer; time comes from Effect's `Clock`. */
export const make = (): CallPacer => {
  const windows = new Map<string, { calls: Array<number>; closedUntil: number }>()

  /** The window of `key` at `now`, with the calls that left it dropped. */
  const windowAt = (key: string, limit: CallLimit, now: number) => {
    let window = windows.get(key)
    if (window === undefined) {
      if (windows.size >= keysKept) windows.delete(windows.keys().next().value as string)
      window = { calls: [], closedUntil: 0 }
    } else {
      // Most recently used last, so the oldest key is the first one forgotten.
      windows.delete(key)
    }
    windows.set(key, window)
    while (window.calls.length > 0 && now - window.calls[0]! >= limit.perMs) window.calls.shift()
    return window
  }

  const freeAt = (window: { calls: Array<number>; closedUntil: number }, limit: CallLimit, now: number) => {
    if (window.closedUntil > now) return window.closedUntil
    if (window.calls.length < limit.calls) return undefined
    // The call that must leave for one more to fit.
    return window.calls[window.calls.length - limit.calls]! + limit.perMs
  }

  return {
    take: (key, limit) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const window = windowAt(key, limit, now)
        const at = freeAt(window, limit, now)
        if (at === undefined) window.calls.push(now)
        return at
      }),
    nextFree: (key, limit) =>
      Effect.map(Clock.currentTimeMillis, (now) => freeAt(windowAt(key, limit, now), limit, now)),
    spend: (key, limit) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const window = windowAt(key, limit, now)
        window.closedUntil = Math.max(window.closedUntil, now + limit.perMs)
        return window.closedUntil
      })
  }
}
