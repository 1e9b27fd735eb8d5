/**
 * The `RateLimitStore` in the process: for tests and an engine without a shared database.
 *
 * @since 0.2.0
 */
import { Effect, Layer } from "effect"
import { counterKey, pruneEvery, RateLimitStore, tally } from "../limits/RateLimitStore.ts"

/** Counters in the process: for tests and an engine without a shared database. */
export const make = (): RateLimitStore["Service"] => {
  const counters = new Map<string, { count: number; readonly expiresAt: number }>()
  let hits = 0
  return RateLimitStore.of({
    hit: (list) =>
      Effect.sync(() => {
        const counts = new Map<string, number>()
        for (const { hit, key, n } of tally(list)) {
          const counter = counters.get(key)
          if (counter === undefined) counters.set(key, { count: n, expiresAt: hit.expiresAt })
          else counter.count += n
          counts.set(key, counters.get(key)!.count)
        }
        // Every window start is in the past, so anything that expired before the oldest is dead.
        hits++
        if (list.length > 0 && hits % pruneEvery === 0) {
          const before = Math.min(...list.map((hit) => hit.windowStart))
          for (const [key, counter] of counters) if (counter.expiresAt < before) counters.delete(key)
        }
        return list.map((hit) => counts.get(counterKey(hit))!)
      })
  })
}

/** {@link make} as a layer. */
export const layer: Layer.Layer<RateLimitStore> = Layer.sync(RateLimitStore, make)
