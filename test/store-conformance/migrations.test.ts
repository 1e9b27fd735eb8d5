/**
 * The migration runner: instances starting together on one PostgreSQL database, and a database
 * migrated by a newer version.
 */
import { randomBytes } from "node:crypto"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { layerPostgres, Migrations } from "@postwire/store-sql"
import { onPostgres } from "../support/Postgres.ts"

// Concurrent starts need real connections: PostgreSQL only (the embedded database has one).
onPostgres("Migrations.migrate on postgres", (url) =>
  describe("Migrations.migrate on postgres", () => {
    const schema = `pw_mig_${randomBytes(6).toString("hex")}`
    const onSchema = <A>(effect: Effect.Effect<A, unknown, SqlClient.SqlClient>) =>
      Effect.runPromise(effect.pipe(Effect.provide(layerPostgres(url, { maxConnections: 1, searchPath: schema }))))
    const statement = (text: string) =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        return yield* sql.unsafe(text)
      })

    beforeAll(async () => {
      await onSchema(statement(`CREATE SCHEMA ${schema}`))
    })
    afterAll(async () => {
      await onSchema(statement(`DROP SCHEMA IF EXISTS ${schema} CASCADE`))
    })

    it("runs each migration once when six instances start at the same moment", async () => {
      const results = await Promise.all(Array.from({ length: 6 }, () => onSchema(Migrations.migrate)))
      const ran = results.map((r) => r.length).sort((a, b) => b - a)
      expect(ran).toEqual([Migrations.known.length, 0, 0, 0, 0, 0])
      const rows = await onSchema(statement("SELECT migration_id FROM postwire_migrations ORDER BY migration_id"))
      expect(rows.length).toBe(Migrations.known.length)
      expect(await onSchema(Migrations.state)).toEqual({ applied: Migrations.known, pending: [], unknown: [] })
    })

    it("refuses a database migrated by a newer version, without changing it", async () => {
      await onSchema(statement("INSERT INTO postwire_migrations (migration_id, name) VALUES (9002, 'from_the_future')"))
      const failure = await onSchema(Effect.flip(Migrations.migrate))
      expect(failure).toBeInstanceOf(Migrations.SchemaFromNewerVersion)
      expect((failure as Migrations.SchemaFromNewerVersion).unknown).toEqual(["9002_from_the_future"])
      expect((await onSchema(Migrations.state)).unknown).toEqual(["9002_from_the_future"])
    })
  })
)
