/**
 * The platforms' counters (`PlatformCounters` of `@postwire/core`) in the `platform_counters`
 * table of the current `SqlClient` (PostgreSQL or the embedded database): one upsert per add,
 * whose condition keeps the total within the limit, so that every instance on the database
 * shares one count exactly and a restart keeps it.
 *
 * @since 0.7.0
 */
import { type CounterAdd, counterKeepAfterEndMs, PlatformCounters, Spans, StoreError } from "@postwire/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

/** Every this many new windows, an instance deletes the counters of windows long over. */
const pruneEvery = 50

/** Counters in `platform_counters` (created by migration 0017). */
export const make: Effect.Effect<PlatformCounters["Service"], never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  let adds = 0

  const read = (platform: string, key: string, windowId: string) =>
    Effect.map(
      sql<{ readonly used: string | number }>`SELECT used FROM platform_counters
        WHERE platform = ${platform} AND key = ${key} AND window_id = ${windowId}`,
      (rows) => (rows[0] === undefined ? 0 : Number(rows[0].used))
    )

  const add = (platform: string, add: CounterAdd) =>
    Effect.gen(function* () {
      const units = Math.max(0, Math.round(add.units))
      // The row is created when the first add fits; an existing one grows only when the new total fits.
      const rows = yield* (add.force === true
        ? sql<{ readonly used: string | number }>`INSERT INTO platform_counters (platform, key, window_id, used, ends_at)
            VALUES (${platform}, ${add.key}, ${add.window.id}, ${units}, ${add.window.endsAt})
            ON CONFLICT (platform, key, window_id) DO UPDATE SET used = platform_counters.used + EXCLUDED.used
            RETURNING used`
        : units > add.limit
          ? Effect.succeed([])
          : sql<{ readonly used: string | number }>`INSERT INTO platform_counters (platform, key, window_id, used, ends_at)
              VALUES (${platform}, ${add.key}, ${add.window.id}, ${units}, ${add.window.endsAt})
              ON CONFLICT (platform, key, window_id) DO UPDATE SET used = platform_counters.used + EXCLUDED.used
              WHERE platform_counters.used + EXCLUDED.used <= ${add.limit}
              RETURNING used`)
      adds++
      if (adds % pruneEvery === 0) {
        const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
        yield* Effect.ignore(sql`DELETE FROM platform_counters WHERE ends_at < ${now - counterKeepAfterEndMs}`)
      }
      const row = rows[0]
      if (row !== undefined) return { _tag: "Allowed", used: Number(row.used), endsAt: add.window.endsAt } as const
      return { _tag: "Refused", used: yield* read(platform, add.key, add.window.id), endsAt: add.window.endsAt } as const
    }).pipe(
      Effect.mapError((cause) => new StoreError({ operation: "addPlatformCounter", cause })),
      Spans.withSpan("PlatformCounters.add")
    )

  return PlatformCounters.of({
    add,
    read: (platform, key, window) =>
      read(platform, key, window.id).pipe(
        Effect.mapError((cause) => new StoreError({ operation: "readPlatformCounter", cause })),
        Spans.withSpan("PlatformCounters.read")
      )
  })
})

/** {@link make} as a layer; the schema must be migrated (the `Store`'s layer does it). */
export const layer: Layer.Layer<PlatformCounters, never, SqlClient.SqlClient> = Layer.effect(
  PlatformCounters
)(make)
