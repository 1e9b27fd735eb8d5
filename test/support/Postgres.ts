/**
 * PostgreSQL for tests. `DATABASE_URL` names the server; without it the PostgreSQL variants are
 * shown as skipped, and with `REQUIRE_POSTGRES=1` a missing URL fails the run instead.
 */
import { layerPostgres } from "@postwire/store-sql"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { describe, expect, it } from "vitest"

/**
 * Declares `suite` when `DATABASE_URL` is set. Otherwise declares one test under `title`: skipped
 * (saying `when`), or failing when `REQUIRE_POSTGRES=1`.
 */
export const onPostgres = (title: string, suite: (url: string) => void, when = "runs when DATABASE_URL is set") => {
  const url = process.env.DATABASE_URL
  if (url !== undefined) return suite(url)
  describe(title, () => {
    if (process.env.REQUIRE_POSTGRES === "1") {
      it("needs DATABASE_URL, because REQUIRE_POSTGRES=1", () => {
        expect.fail("REQUIRE_POSTGRES=1 but DATABASE_URL is not set")
      })
    } else {
      it.skip(when, () => {})
    }
  })
}

/** A schema created before whatever uses it starts, and dropped (with all it holds) after it stops. */
const schemaFor = (url: string, schema: string) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* Effect.acquireRelease(sql`CREATE SCHEMA ${sql(schema)}`, () =>
        sql`DROP SCHEMA ${sql(schema)} CASCADE`.pipe(Effect.orDie))
    })
  ).pipe(Layer.provide(layerPostgres(Redacted.make(url), { maxConnections: 1 })))

/**
 * A connection pool on a fresh schema `<prefix>_<random>` (every connection's `search_path`), so
 * runs never see each other's data. The schema exists before the pool is used and is dropped
 * after it closes.
 */
export const freshSchema = (url: string, prefix: string, options: { readonly maxConnections?: number } = {}) => {
  const schema = `${prefix}_${Math.random().toString(36).slice(2, 10)}`
  return layerPostgres(url, { searchPath: schema, ...options }).pipe(Layer.provide(schemaFor(url, schema)))
}
