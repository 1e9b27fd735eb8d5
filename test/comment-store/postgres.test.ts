/**
 * The comment store conformance suite on PostgreSQL, when `DATABASE_URL` is set, in a fresh
 * schema dropped at the end. With `REQUIRE_POSTGRES=1` a missing URL fails the run.
 */
import { assert, describe, it } from "@effect/vitest"
import { layerPostgres, SqlCommentStore, SqlStore } from "@postwire/store-sql"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { commentStoreConformance } from "./conformance.ts"

const url = process.env.DATABASE_URL

/** A fresh schema for this run, created before the store starts and dropped after it stops. */
const freshSchema = (databaseUrl: string, schema: string) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* Effect.acquireRelease(sql`CREATE SCHEMA ${sql(schema)}`, () =>
        sql`DROP SCHEMA ${sql(schema)} CASCADE`.pipe(Effect.orDie))
    })
  ).pipe(Layer.provide(layerPostgres(Redacted.make(databaseUrl), { maxConnections: 1 })))

if (url === undefined) {
  describe("CommentStore conformance: PostgreSQL", () => {
    if (process.env.REQUIRE_POSTGRES === "1") {
      it("needs DATABASE_URL, because REQUIRE_POSTGRES=1", () => {
        assert.fail("REQUIRE_POSTGRES=1 but DATABASE_URL is not set")
      })
    } else {
      it.skip("runs when DATABASE_URL is set", () => {})
    }
  })
} else {
  const schema = `pw_cmt_${Math.random().toString(36).slice(2, 10)}`
  commentStoreConformance("PostgreSQL", () =>
    SqlCommentStore.layer.pipe(
      Layer.provideMerge(SqlStore.layer),
      Layer.provide(layerPostgres(url, { searchPath: schema, maxConnections: 4 })),
      Layer.provide(freshSchema(url, schema))
    ))
}
