/**
 * The rate limits' own store: fixed-window counters. One request hits all its buckets (the
 * key's, the route's) in one step, on SQL one multi-row upsert, so every instance sharing a
 * database shares the counts exactly. The server's `RateLimiter` counts requests with it.
 *
 * Backends: `MemoryRateLimitStore` (in the process) and `SqlRateLimitStore` (the `rate_limits`
 * table of the current `SqlClient`, in `@postwire/store-sql`).
 *
 * @since 0.2.0
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "../store/StoreError.ts"

/**
 * One counter to add hits to: `bucket` in the window starting at `windowStart`, kept until
 * `expiresAt`; `hits` of them (1 when absent: a block reserved by the `RateLimiter` takes more).
 */
export interface RateLimitHit {
  readonly bucket: string
  readonly windowStart: number
  readonly expiresAt: number
  readonly hits?: number | undefined
}

/** The rate-limit counters. */
export class RateLimitStore extends Context.Service<
  RateLimitStore,
  {
    /**
     * Adds each hit (`hits` of them, 1 by default) to its counter, atomically, and returns each
     * counter's count including them, in the order given. A bucket named twice counts twice; both
     * get the final count.
     */
    readonly hit: (hits: ReadonlyArray<RateLimitHit>) => Effect.Effect<ReadonlyArray<number>, StoreError>
  }
>()("postwire/RateLimitStore") {}

/** Every this many hits, an instance deletes the counters that expired (they are dead). */
export const pruneEvery = 100

/** The key of a hit's counter: its window and bucket. */
export const counterKey = (hit: RateLimitHit) => `${hit.windowStart}\u0000${hit.bucket}`

/** The distinct counters of `hits`, each with how many hits it takes, in key order (so concurrent upserts lock rows in one order). */
export const tally = (hits: ReadonlyArray<RateLimitHit>) => {
  const counters = new Map<string, { readonly hit: RateLimitHit; n: number }>()
  for (const hit of hits) {
    const key = counterKey(hit)
    const counter = counters.get(key)
    if (counter === undefined) counters.set(key, { hit, n: hit.hits ?? 1 })
    else counter.n += hit.hits ?? 1
  }
  return [...counters.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, counter]) => ({ key, ...counter }))
}

