/**
 * The `RateLimitStore` on SQL: counters in the `rate_limits` table (PostgreSQL or the embedded
 * database), one multi-row upsert per request, so instances sharing a database share exact counts.
 *
 * @since 0.2.0
 */
import { type RateLimitHit, RateLimitCounters, RateLimitStore, Spans, StoreError } from "@postwire/core"
import { Array as Arr, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

/** Counters in the `rate_limits` table (created by the store's first migration). */
export const make: Effect.Effect<RateLimitStore["Service"], never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  let hits = 0

  const upsert = (hits: Arr.NonEmptyReadonlyArray<RateLimitHit>) =>
    sql`INSERT INTO rate_limits ${sql.insert(
      Arr.map(RateLimitCounters.tally(hits) as unknown as Arr.NonEmptyReadonlyArray<ReturnType<typeof RateLimitCounters.tally>[number]>, ({ hit, n }) => ({
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
            if (hits % RateLimitCounters.pruneEvery === 0) {
              const before = Math.min(...list.map((hit) => hit.windowStart))
              yield* Effect.ignore(sql`DELETE FROM rate_limits WHERE expires_at < ${before}`)
            }
            return list.map((hit) => counts.get(RateLimitCounters.counterKey(hit))!)
          }).pipe(
            Effect.mapError((cause) => new StoreError({ operation: "hitRateLimits", cause })),
            Spans.withSpan("RateLimitStore.hit")
          )
        : Effect.succeed([])
  })
})

/** {@link make} as a layer; the schema must be migrated (the `Store`'s layer does it). */
export const layer: Layer.Layer<RateLimitStore, never, SqlClient.SqlClient> = Layer.effect(RateLimitStore)(make)
