import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, describe, expect, it } from "vitest"
import { PgliteClient } from "@postwire/store-sql"

const directories: Array<string> = []
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true })
})

const dataDir = () => {
  const directory = mkdtempSync(join(tmpdir(), "postwire-embedded-memory-"))
  directories.push(directory)
  return join(directory, "db")
}

const settingsOf = (options: PgliteClient.PgliteClientOptions) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ name: string; value: string }>`
        SELECT name, current_setting(name) AS value FROM pg_settings
        WHERE name IN ('shared_buffers', 'wal_buffers', 'max_connections', 'work_mem')`
      return Object.fromEntries(rows.map((row) => [row.name, row.value]))
    }).pipe(Effect.provide(PgliteClient.layer(options)))
  )

describe("the embedded database's memory", () => {
  it("starts with the light settings, on a data directory and in memory", async () => {
    const light = { shared_buffers: "8MB", wal_buffers: "1MB", max_connections: "10", work_mem: "4MB" }
    expect(await settingsOf({ dataDir: dataDir() })).toEqual(light)
    expect(await settingsOf({})).toEqual(light)
  })

  it("takes an embedder's own settings over the defaults, and keeps the data across restarts", async () => {
    const directory = dataDir()
    await Effect.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE kept (id int PRIMARY KEY)`
        yield* sql`INSERT INTO kept VALUES (1), (2)`
      }).pipe(Effect.provide(PgliteClient.layer({ dataDir: directory })))
    )
    const reopened = await Effect.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const [buffers] = yield* sql<{ value: string }>`SELECT current_setting('shared_buffers') AS value`
        const kept = yield* sql<{ id: number }>`SELECT id FROM kept ORDER BY id`
        return { buffers: buffers?.value, kept: kept.map((row) => row.id) }
      }).pipe(Effect.provide(PgliteClient.layer({ dataDir: directory, settings: { shared_buffers: "64MB" } })))
    )
    expect(reopened).toEqual({ buffers: "64MB", kept: [1, 2] })
  })
})
