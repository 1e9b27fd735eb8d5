/**
 * `database: "memory"` (the engine, the handler, and the test suites that embed them) starts
 * from the template `@postwire/store-sql` ships, as `postwire serve`'s first start does, instead
 * of running PostgreSQL's `initdb` (docs/performance.md, "Seventeenth round: the second start").
 * What shows it: the database opens with every migration already applied (a database `initdb`
 * made has none), and it is the template's own cluster: PostgreSQL's system identifier, which
 * every `initdb` draws anew, is the template's.
 *
 * Needs `@postwire/store-sql` built (CI runs `npm run build` first); without its template it builds it.
 */
import { execFile } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { resolve } from "node:path"
import { promisify } from "node:util"
import { gunzipSync } from "node:zlib"
import { PGlite } from "@electric-sql/pglite"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { beforeAll, describe, expect, it } from "vitest"
import { PostwireEngine } from "@postwire/server"
import { Migrations, PgliteClient } from "@postwire/store-sql"
import { memoryDatabaseLayer } from "../../packages/server/src/embedding/EmbedOptions.ts"

const root = resolve(import.meta.dirname, "../..")
const packaged = PgliteClient.packagedTemplate()

beforeAll(async () => {
  if (packaged === undefined || !existsSync(packaged)) {
    await promisify(execFile)("npm", ["run", "build", "-w", "@postwire/store-sql"], { cwd: root })
  }
}, 600_000)

/** PostgreSQL's identifier of the cluster, drawn by `initdb` when it creates one. */
const systemIdentifier = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ id: string }>`SELECT system_identifier::text AS id FROM pg_control_system()`
  return row?.id
})

/** How a database opens: its cluster's identifier and the migrations it holds before any store migrates it. */
const opened = (database: Layer.Layer<SqlClient.SqlClient, unknown>) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const client = yield* Layer.build(database)
        const state = yield* Effect.provide(Migrations.state, client)
        const id = yield* Effect.provide(systemIdentifier, client)
        return { id, pending: state.pending, applied: state.applied.length }
      })
    )
  )

/** The identifier of the cluster in the packaged template itself. */
const templateIdentifier = async () => {
  const db = new PGlite({ loadDataDir: new Blob([gunzipSync(readFileSync(packaged!))]) })
  try {
    const { rows } = await db.query<{ id: string }>("SELECT system_identifier::text AS id FROM pg_control_system()")
    return rows[0]?.id
  } finally {
    await db.close()
  }
}

describe('database: "memory"', () => {
  it("opens the shipped template, every migration applied, rather than a database initdb creates", async () => {
    const template = await templateIdentifier()
    expect(template).toMatch(/^\d+$/)

    const first = await opened(memoryDatabaseLayer())
    const second = await opened(memoryDatabaseLayer())
    expect(first).toEqual({ id: template, pending: [], applied: Migrations.known.length })
    expect(second).toEqual(first)

    // What `initdb` gives instead: a cluster of its own, no migration applied.
    const created = await opened(PgliteClient.layer({}))
    expect(created.id).not.toBe(template)
    expect(created.pending).toEqual(Migrations.known)
  }, 300_000)

  it("serves an engine on it", async () => {
    const engine = await PostwireEngine.make({ database: "memory" })
    try {
      const { id } = await engine.workspaces.create({ name: "acme" })
      const profile = await engine.workspace(id).profiles.create({ name: "Main" })
      expect(profile.id).toMatch(/^prof_/)
    } finally {
      await engine.close()
    }
  }, 300_000)
})
