/**
 * The rate limits' own store: fixed-window counters, owned by the server because limits are an
 * HTTP concern. One request hits all its buckets (the key's, the route's) in one step, on SQL
 * one multi-row upsert, so every instance sharing a database shares the counts exactly.
 *
 * `layerMemory` counts in the process; `layerSql` counts in the `rate_limits` table of the
 * current `SqlClient` (PostgreSQL or the embedded database).
 *
 * @since 0.2.0
 */
import { Spans, StoreError } from "@postwire/core"
import { Array as Arr, Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

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
>()("postwire/server/RateLimitStore") {}

/** Every this many hits, an instance deletes the counters that expired (they are dead). */
const pruneEvery = 100

const counterKey = (hit: RateLimitHit) => `${hit.windowStart}\u0000${hit.bucket}`

/** The distinct counters of `hits`, each with how many hits it takes, in key order (so concurrent upserts lock rows in one order). */
const tally = (hits: ReadonlyArray<RateLimitHit>) => {
  const counters = new Map<string, { readonly hit: RateLimitHit; n: number }>()
  for (const hit of hits) {
    const key = counterKey(hit)
    const counter = counters.get(key)
    if (counter === undefined) counters.set(key, { hit, n: hit.hits ?? 1 })
    else counter.n += hit.hits ?? 1
  }
  return [...counters.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, counter]) => ({ key, ...counter }))
}

/** Counters in the process: for tests and an engine without a shared database. */
export const makeMemory = (): RateLimitStore["Service"] => {
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

/** {@link makeMemory} as a layer. */
export const layerMemory: Layer.Layer<RateLimitStore> = Layer.sync(RateLimitStore, makeMemory)

/** Counters in the `rate_limits` table (created by the store's first migration). */
export const makeSql: Effect.Effect<RateLimitStore["Service"], never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  let hits = 0

  const upsert = (hits: Arr.NonEmptyReadonlyArray<RateLimitHit>) =>
    sql`INSERT INTO rate_limits ${sql.insert(
      Arr.map(tally(hits) as unknown as Arr.NonEmptyReadonlyArray<ReturnType<typeof tally>[number]>, ({ hit, n }) => ({
        bucket: hit.bucket,
        window_start: hit.windowStart,
        count: n,
        expires_at: hit.expiresAt
      }))
    )}
      ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limits.count + EXCLUDED.count
      RETURNING bucket, window_start, count`

  return RateLimitStore.of({
    hit: (list) =>
      Arr.isReadonlyArrayNonEmpty(list)
        ? Effect.gen(function* () {
            const rows = yield* upsert(list)
            const counts = new Map(rows.map((row) => [`${Number(row.window_start)}\u0000${row.bucket as string}`, Number(row.count)]))
            // Every window start is in the past, so anything that expired before the oldest is dead;
            // a failed prune is retried a hundred hits later.
            hits++
            if (hits % pruneEvery === 0) {
              const before = Math.min(...list.map((hit) => hit.windowStart))
              yield* Effect.ignore(sql`DELETE FROM rate_limits WHERE expires_at < ${before}`)
            }
            return list.map((hit) => counts.get(counterKey(hit))!)
          }).pipe(
            Effect.mapError((cause) => new StoreError({ operation: "hitRateLimits", cause })),
            Spans.withSpan("RateLimitStore.hit")
          )
        : Effect.succeed([])
  })
})

/** {@link makeSql} as a layer; the schema must be migrated (the `Store`'s layer does it). */
export const layerSql: Layer.Layer<RateLimitStore, never, SqlClient.SqlClient> = Layer.effect(RateLimitStore)(makeSql)
