/**
 * The embedded database's template: a new PGlite database with the schema's migrations applied,
 * dumped as a gzipped tar. A first start unpacks it instead of running PostgreSQL's `initdb`,
 * which in PGlite is a third WebAssembly module run against a second PGlite instance: most of a
 * first start's time and nearly all of its peak memory (docs/performance.md, "Third round: the
 * first start"). `npm run build` of this package writes one into `dist/`
 * ({@link PgliteClient.packagedTemplate}).
 *
 * The tar is PGlite's own `dumpDataDir` format (https://pglite.dev/docs/api, `dumpDataDir` and
 * the `loadDataDir` option). PGlite is PostgreSQL compiled to WebAssembly: its data files are the
 * same on every machine (little-endian 32-bit WebAssembly), so a template made on one machine
 * opens on any other running the same PGlite version, which the package pins.
 *
 * @since 0.6.0
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gzipSync } from "node:zlib"
import { PGlite } from "@electric-sql/pglite"
import { Effect, Layer } from "effect"
import * as Migrations from "./migrations/Migrations.ts"
import * as PgliteClient from "./PgliteClient.ts"

/** What a template holds. */
export interface WriteOptions {
  /**
   * The last migration applied (`<number>_<name>`); every migration when absent. An older
   * template (made by an earlier version) is one with fewer: the migrations bring it forward.
   */
  readonly through?: string | undefined
}

/**
 * Writes a template to `path`: a new database (`initdb`), the migrations applied, dumped as a
 * gzipped tar. Holds no row of anyone's: the migrations create tables, the first start's
 * workspace, keys and secrets are made afterwards on each installation.
 *
 * @example
 * ```ts
 * await Effect.runPromise(PgliteTemplate.write("dist/embedded-template.tar.gz"))
 * ```
 */
export const write = (path: string, options: WriteOptions = {}): Effect.Effect<void, unknown> =>
  Effect.gen(function* () {
    const dataDir = mkdtempSync(join(tmpdir(), "postwire-template-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
    const database = join(dataDir, "db")
    // Created and migrated through the client the server uses, then closed (a clean shutdown).
    yield* Effect.scoped(
      Effect.gen(function* () {
        const migrate = options.through === undefined ? Migrations.migrate : Migrations.migrateTo(options.through)
        const context = yield* Layer.build(PgliteClient.layer({ dataDir: database }))
        yield* Effect.provide(migrate, context)
      })
    )
    const tar = yield* Effect.tryPromise(async () => {
      const db = new PGlite({ dataDir: database })
      try {
        await db.waitReady
        return new Uint8Array(await (await db.dumpDataDir("none")).arrayBuffer())
      } finally {
        await db.close()
      }
    })
    yield* Effect.sync(() => writeFileSync(path, gzipSync(tar, { level: 9 })))
  }).pipe(Effect.scoped)
