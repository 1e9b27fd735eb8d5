/**
 * Rate limits: fixed one-minute windows counted by the process's `RateLimiter` in the
 * `RateLimitStore`, so every instance sharing a database shares the counts; all the limits of a
 * request are counted in one step.
 * Every response carries the `X-RateLimit-*` headers of the tightest limit that applied.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"
import { type Limit, RateLimiter } from "../limits/RateLimiter.ts"

export type { Limit }

const windowMs = 60_000

/** The state of one limit after counting this request. */
export interface LimitState {
  readonly limit: number
  readonly remaining: number
  /** Unix seconds at which the window resets. */
  readonly reset: number
  readonly exceeded: boolean
}

/** Counts one request against every limit at once (at most one statement on SQL), in the order given. */
export const countRequests = Effect.fn("rateLimits.count")(function* (limits: ReadonlyArray<Limit>) {
  const limiter = yield* RateLimiter
  const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
  const windowStart = Math.floor(now / windowMs) * windowMs
  const counts = yield* limiter.count(limits, windowStart, windowStart + 2 * windowMs)
  return limits.map(({ limit }, i) => {
    const count = counts[i]!
    return {
      limit,
      remaining: Math.max(0, limit - count),
      reset: Math.ceil((windowStart + windowMs) / 1000),
      exceeded: count > limit,
      retryAfter: Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000))
    }
  })
})

/**
 * The state of `bucket` with `limit` per minute as it stands, without counting this request:
 * `exceeded` once the window's hits reached the limit (the next one would be refused).
 */
export const peekRequests = Effect.fn("rateLimits.peek")(function* (bucket: string, limit: number) {
  const limiter = yield* RateLimiter
  const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
  const windowStart = Math.floor(now / windowMs) * windowMs
  const count = yield* limiter.peek(bucket, windowStart, windowStart + 2 * windowMs)
  return {
    limit,
    remaining: Math.max(0, limit - count),
    reset: Math.ceil((windowStart + windowMs) / 1000),
    exceeded: count >= limit,
    retryAfter: Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000))
  }
})

/** Counts one request against `bucket` with `limit` per minute. */
export const countRequest = (bucket: string, limit: number) =>
  Effect.map(countRequests([{ bucket, limit }]), (states) => states[0]!)

/** The tightest of several limits: an exceeded one first, then the fewest remaining. */
export const tightest = <L extends LimitState>(states: ReadonlyArray<L>): L =>
  states.reduce((a, b) => {
    if (a.exceeded !== b.exceeded) return a.exceeded ? a : b
    return b.remaining < a.remaining ? b : a
  })

/** Adds the rate-limit headers (and `Retry-After` when exceeded) to the response of this request. */
export const announce = (state: LimitState & { readonly retryAfter: number }) =>
  HttpEffect.appendPreResponseHandler((_request, response) =>
    Effect.succeed(
      HttpServerResponse.setHeaders(response, {
        "x-ratelimit-limit": String(state.limit),
        "x-ratelimit-remaining": String(state.remaining),
        "x-ratelimit-reset": String(state.reset),
        ...(state.exceeded ? { "retry-after": String(state.retryAfter) } : {})
      })
    )
  )
