/**
 * The embedded database's client runs statements as named prepared statements: what a caller
 * reads is the same as `PGlite.query` gives, a statement whose table changed shape is prepared
 * again, more texts than are kept prepared all still run, and a failed statement leaves the
 * connection usable (its transaction rolled back).
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { PGlite } from "@electric-sql/pglite"
import { assert, describe, expect, it, layer } from "@effect/vitest"
import { beforeAll } from "vitest"
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

  describe("a template", () => {
    let template: Blob
    /** A dump of a database holding one row, as an embedder would make it once. */
    beforeAll(async () => {
      const db = new PGlite()
      await db.waitReady
      await db.exec("CREATE TABLE seeded (id int PRIMARY KEY, note text); INSERT INTO seeded VALUES (1, 'from the template')")
      template = await db.dumpDataDir("none")
      await db.close()
    })
    /** Writes row 2 unless it is there, then reads every note. */
    const notes = (options: PgliteClient.PgliteClientOptions, written: string) =>
      Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            yield* sql`INSERT INTO seeded VALUES (${2}, ${written}) ON CONFLICT (id) DO NOTHING`
            return (yield* sql<{ note: string }>`SELECT note FROM seeded ORDER BY id`).map((row) => row.note)
          }).pipe(Effect.provide(PgliteClient.layer(options)))
        )
      )

    it("starts a new database in memory as a copy of it, each copy its own", async () => {
      expect(await notes({ template }, "first")).toEqual(["from the template", "first"])
      expect(await notes({ template }, "second")).toEqual(["from the template", "second"])
    })

    it("starts a new data directory from it, and opens that directory as it is later", async () => {
      const dataDir = join(mkdtempSync(join(tmpdir(), "postwire-template-")), "db")
      try {
        expect(await notes({ dataDir, template }, "first")).toEqual(["from the template", "first"])
        const other = new PGlite({ loadDataDir: template })
        await other.waitReady
        await other.exec("UPDATE seeded SET note = 'another template'")
        const otherTemplate = await other.dumpDataDir("none")
        await other.close()
        // The directory holds a database now: it opens with its own rows, whatever template is given.
        expect(await notes({ dataDir, template: otherTemplate }, "again")).toEqual(["from the template", "first"])
        expect(await notes({ template: otherTemplate }, "again")).toEqual(["another template", "again"])
      } finally {
        rmSync(dirname(dataDir), { recursive: true, force: true })
      }
    })
  })
})
