/**
 * The embedded database's first start from the template `@postwire/store-sql` ships
 * (`dist/embedded-template.tar.gz`, made by its `npm run build`), instead of PostgreSQL's
 * `initdb` (docs/performance.md, "Third round: the first start"; the speed is measured by
 * `bench/embedded.ts`, not here):
 *
 * - the server's embedded start (`sqlClientLayer`) on a fresh data directory opens the packaged
 *   template, with every migration already applied, and what the first start wrote is there
 *   after a restart;
 * - a template made by an older version (fewer migrations) is migrated forward;
 * - a template that is missing, does not unpack, or does not open is logged in one line and the
 *   database is created by `initdb`, and works;
 * - the packed `@postwire/store-sql` tarball holds the template.
 *
 * Needs `@postwire/store-sql` built (CI runs `npm run build` first); without its template it builds it.
 */
import { execFile } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { promisify } from "node:util"
import { gzipSync } from "node:zlib"
import { type Context, Effect, Layer, Logger } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CredentialsCipher, EngineConfig, Ids, Store } from "@postwire/core"
import { seedFirstRun, sqlClientLayer, sqlStores } from "@postwire/server"
import { Migrations, PgliteClient, PgliteTemplate, SqlStore } from "@postwire/store-sql"
import { memoryEngineSettings } from "../support/MemoryEngine.ts"

const run = promisify(execFile)
const root = resolve(import.meta.dirname, "../..")
const work = mkdtempSync(join(tmpdir(), "postwire-template-test-"))
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** A new, empty directory under the test's folder. */
let made = 0
const aDirectory = (name: string) => {
  made += 1
  const dir = join(work, `${name}-${made}`)
  mkdirSync(dir)
  return dir
}

/** Runs `effect`, collecting the lines it logs. */
const logged = async <A>(effect: Effect.Effect<A, unknown>) => {
  const lines: Array<string> = []
  const collector = Logger.make((options) => {
    lines.push(String(Array.isArray(options.message) ? options.message.join(" ") : options.message))
  })
  const value = await Effect.runPromise(effect.pipe(Effect.provide(Logger.layer([collector]))))
  return { value, lines }
}

/** The migrations state of the embedded database in `dataDir` as it opens (before the store migrates it), then after. */
const openAndMigrate = (dataDir: string, template: string | undefined) =>
  Effect.scoped(
    Effect.gen(function* () {
      const client = yield* Layer.build(PgliteClient.layer({ dataDir, template }))
      const before = yield* Effect.provide(Migrations.state, client)
      const stores = yield* Layer.build(SqlStore.layer.pipe(Layer.provide(Layer.succeedContext(client))))
      const after = yield* Effect.provide(Migrations.state, client)
      const answer = yield* Effect.provide(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          return yield* sql<{ one: number }>`SELECT 1 AS one`
        }),
        client
      )
      const workspaces = yield* Effect.provide(
        Effect.gen(function* () {
          return yield* (yield* Store).countWorkspaces()
        }),
        stores
      )
      return { before, after, answer: answer[0]?.one, workspaces }
    })
  )

/** What the first start's seed needs beside the stores: ids, the engine's settings, the credentials cipher. */
const engine = <R>(stores: Context.Context<R>) =>
  Layer.mergeAll(
    Layer.succeedContext(stores),
    Ids.layer,
    EngineConfig.layer(memoryEngineSettings),
    CredentialsCipher.layer.pipe(Layer.provide(EngineConfig.layer(memoryEngineSettings)))
  )

const packaged = PgliteClient.packagedTemplate()

beforeAll(async () => {
  if (packaged === undefined || !existsSync(packaged)) await run("npm", ["run", "build", "-w", "@postwire/store-sql"], { cwd: root })
}, 600_000)

describe("the embedded database's first start from a template", () => {
  it("starts the server's embedded database from the packaged template, every migration there, and keeps what the first start wrote", async () => {
    expect(packaged).toBe(join(root, "packages", "store-sql", "dist", "embedded-template.tar.gz"))
    const dataDir = aDirectory("serve")
    const settings = { databaseUrl: undefined, dataDir }
    // The server's own start code (`sqlClientLayer`): the lock, `<dataDir>/db`, the packaged template.
    const first = await logged(
      Effect.scoped(
        Effect.gen(function* () {
          const client = yield* Layer.build(sqlClientLayer(settings))
          const migrations = yield* Effect.provide(Migrations.state, client)
          const stores = yield* Layer.build(sqlStores.pipe(Layer.provide(Layer.succeedContext(client))))
          const seeded = yield* Effect.provide(seedFirstRun(), engine(stores))
          return { migrations, seeded }
        })
      )
    )
    expect(first.lines.filter((line) => line.includes("embedded database"))).toEqual([])
    expect(first.value.migrations.pending).toEqual([])
    expect(first.value.seeded?.workspaceId).toMatch(/^ws_/)
    expect(readdirSync(join(dataDir, "db"))).toContain("PG_VERSION")

    const second = await logged(
      Effect.scoped(
        Effect.gen(function* () {
          const stores = yield* Layer.build(sqlStores.pipe(Layer.provide(sqlClientLayer(settings))))
          const seededAgain = yield* Effect.provide(seedFirstRun(), engine(stores))
          const workspace = yield* Effect.provide(
            Effect.gen(function* () {
              return yield* (yield* Store).getWorkspace(first.value.seeded!.workspaceId as never)
            }),
            stores
          )
          return { seededAgain, workspace }
        })
      )
    )
    expect(second.lines.filter((line) => line.includes("embedded database"))).toEqual([])
    expect(second.value.seededAgain).toBeUndefined()
    expect(second.value.workspace._tag).toBe("Some")
  }, 300_000)

  it("migrates a template made by an older version forward", async () => {
    const older = join(work, "older.tar.gz")
    await Effect.runPromise(PgliteTemplate.write(older, { through: "0010_history_bounded" }))
    const { value, lines } = await logged(openAndMigrate(join(aDirectory("older"), "db"), older))
    expect(lines.filter((line) => line.includes("embedded database"))).toEqual([])
    expect(value.before.applied).toEqual(Migrations.known.slice(0, Migrations.known.indexOf("0010_history_bounded") + 1))
    expect(value.before.pending).toEqual(Migrations.known.slice(Migrations.known.indexOf("0010_history_bounded") + 1))
    expect(value.after).toEqual({ applied: Migrations.known, pending: [], unknown: [] })
  }, 300_000)

  it("creates the database with initdb, saying so in one line, when the template is missing", async () => {
    const missing = join(work, "no-such-template.tar.gz")
    const dataDir = join(aDirectory("missing"), "db")
    const { value, lines } = await logged(openAndMigrate(dataDir, missing))
    expect(lines.filter((line) => line.includes("embedded database"))).toEqual([
      `embedded database: no template at ${missing}; creating the database with initdb (slower first start)`
    ])
    expect(value.before.applied).toEqual([])
    expect(value.after.pending).toEqual([])
    // Data written survives a restart, with no word about the template (the database exists).
    const again = await logged(openAndMigrate(dataDir, missing))
    expect(again.lines.filter((line) => line.includes("embedded database"))).toEqual([])
    expect(again.value.before.pending).toEqual([])
  }, 300_000)

  it("creates the database with initdb when the template does not unpack or does not open", async () => {
    const notGzip = join(work, "not-gzip.tar.gz")
    writeFileSync(notGzip, "not a template")
    // A tar that unpacks but is no database PGlite can open (a PostgreSQL major version it is not).
    const foreign = join(work, "foreign.tar.gz")
    writeFileSync(foreign, gzipSync(aTar([["PG_VERSION", "99\n"]])))
    for (const [template, says] of [
      [notGzip, "did not unpack"],
      [foreign, "did not open"]
    ] as const) {
      const dataDir = join(aDirectory("broken"), "db")
      const { value, lines } = await logged(openAndMigrate(dataDir, template))
      const about = lines.filter((line) => line.includes("embedded database"))
      expect(about).toHaveLength(1)
      expect(about[0]).toContain(`the template ${template} ${says}`)
      expect(value.before.applied).toEqual([])
      expect(value).toMatchObject({ answer: 1, workspaces: 0, after: { pending: [], unknown: [] } })
      expect(readdirSync(dirname(dataDir)).filter((name) => name.includes(".template-"))).toEqual([])
    }
  }, 300_000)

  it("ships the template in the packed @postwire/store-sql", async () => {
    const { stdout } = await run("npm", ["pack", "--dry-run", "--json", "-w", "@postwire/store-sql"], { cwd: root, maxBuffer: 64 * 1024 * 1024 })
    const [packed] = JSON.parse(stdout) as Array<{ files: Array<{ path: string; size: number }> }>
    const template = packed!.files.find((file) => file.path === "dist/embedded-template.tar.gz")
    expect(template?.size).toBeGreaterThan(0)
  }, 300_000)
})

/** A ustar archive of regular files (`[name, text]`). */
const aTar = (files: ReadonlyArray<readonly [string, string]>): Uint8Array => {
  const blocks: Array<Uint8Array> = []
  for (const [name, text] of files) {
    const data = Buffer.from(text)
    const header = Buffer.alloc(512)
    header.write(name, 0)
    header.write("0000600\0", 100)
    header.write(`${data.length.toString(8).padStart(11, "0")}\0`, 124)
    header.write("0", 156)
    header.write("ustar\0", 257)
    blocks.push(header, data, Buffer.alloc((512 - (data.length % 512)) % 512))
  }
  blocks.push(Buffer.alloc(1024))
  return Buffer.concat(blocks)
}
