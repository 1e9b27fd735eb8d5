/**
 * The embedded database's client runs statements as named prepared statements: what a caller
 * reads is the same as `PGlite.query` gives, a statement whose table changed shape is prepared
 * again, more texts than are kept prepared all still run, and a failed statement leaves the
 * connection usable (its transaction rolled back).
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { SqlClient } from "effect/sql"
import * as PgliteClient from "../src/PgliteClient.ts"

describe("PgliteClient", () => {
  layer(PgliteClient.layer())((it) => {
    it.effect("reads rows, values and parameters of each type as PGlite's own query does", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE typed (id int PRIMARY KEY, big bigint, flag boolean, doc jsonb, note text)`
        for (let run = 0; run < 7; run++) {
          // The same text every time: parsed once, then run prepared (past PostgreSQL's five custom plans).
          yield* sql`INSERT INTO typed VALUES (${run}, ${9_007_199_254_740 + run}, ${run % 2 === 0}, ${JSON.stringify({ run })}::jsonb, ${null})`
        }
        const rows = yield* sql`SELECT * FROM typed WHERE id >= ${5} ORDER BY id`
        assert.deepStrictEqual(rows, [
          { id: 5, big: 9_007_199_254_745, flag: false, doc: { run: 5 }, note: null },
          { id: 6, big: 9_007_199_254_746, flag: true, doc: { run: 6 }, note: null }
        ])
        assert.deepStrictEqual(yield* sql`SELECT id, note FROM typed WHERE id = ${6}`.values, [[6, null]])
      }))

    it.effect("prepares a statement again when its table changed shape", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE shaped (id int PRIMARY KEY)`
        yield* sql`INSERT INTO shaped VALUES (1)`
        assert.deepStrictEqual(yield* sql`SELECT * FROM shaped`, [{ id: 1 }])
        yield* sql`ALTER TABLE shaped ADD COLUMN label text DEFAULT 'one'`
        assert.deepStrictEqual(yield* sql`SELECT * FROM shaped`, [{ id: 1, label: "one" }])
      }))

    it.effect("runs every text when more are used than stay prepared, the first ones again too", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        for (let n = 0; n < 300; n++) assert.deepStrictEqual(yield* sql.unsafe(`SELECT ${n} AS n`), [{ n }])
        for (let n = 0; n < 5; n++) assert.deepStrictEqual(yield* sql.unsafe(`SELECT ${n} AS n`), [{ n }])
      }))

    it.effect("leaves the connection usable after a failed statement, its transaction rolled back", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE unique_once (id int PRIMARY KEY)`
        const failed = yield* sql
          .withTransaction(
            Effect.gen(function* () {
              yield* sql`INSERT INTO unique_once VALUES (${1})`
              yield* sql`INSERT INTO unique_once VALUES (${1})`
            })
          )
          .pipe(Effect.exit)
        assert.isTrue(Exit.isFailure(failed))
        assert.deepStrictEqual(yield* sql`SELECT count(*)::int AS n FROM unique_once`, [{ n: 0 }])
        yield* sql`INSERT INTO unique_once VALUES (${1})`
        assert.deepStrictEqual(yield* sql`SELECT count(*)::int AS n FROM unique_once`, [{ n: 1 }])
      }))
  })
})
