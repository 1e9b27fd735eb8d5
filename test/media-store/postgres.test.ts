/**
 * The media lifecycle suite on PostgreSQL, when `DATABASE_URL` is set, in a fresh schema dropped
 * at the end. With `REQUIRE_POSTGRES=1` a missing URL fails the run.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { layerPostgres, SqlMediaStore, SqlStore } from "@postwire/store-sql"
import { mediaLifecycleConformance } from "./conformance.ts"

const url = process.env.DATABASE_URL

const freshSchema = (databaseUrl: string, schema: string) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* Effect.acquireRelease(sql`CREATE SCHEMA ${sql(schema)}`, () => sql`DROP SCHEMA ${sql(schema)} CASCADE`.pipe(Effect.orDie))
    })
  ).pipe(Layer.provide(layerPostgres(Redacted.make(databaseUrl), { maxConnections: 1 })))

if (url === undefined) {
  describe("media lifecycle: PostgreSQL", () => {
    if (process.env.REQUIRE_POSTGRES === "1") {
      it("needs DATABASE_URL, because REQUIRE_POSTGRES=1", () => {
        assert.fail("REQUIRE_POSTGRES=1 but DATABASE_URL is not set")
      })
    } else {
      it.skip("runs when DATABASE_URL is set", () => {})
    }
  })
} else {
  const schema = `pw_media_${Math.random().toString(36).slice(2, 10)}`
  mediaLifecycleConformance("PostgreSQL", () =>
    Layer.merge(SqlStore.layer, SqlMediaStore.layer).pipe(
      Layer.provide(layerPostgres(url, { searchPath: schema, maxConnections: 4 })),
      Layer.provide(freshSchema(url, schema))
    ))
}
