/**
 * What a Node app that embeds Postwire (the engine, or the server as a handler) chooses: the
 * database, the data directory, the public address, the platforms. Resolved into the same
 * `ServerSettings` that `postwire serve` runs with.
 *
 * @since 0.1.0
 */
import { Effect, Layer, Redacted } from "effect"
import type { SqlClient } from "effect/sql"
import { type PlatformPlugin, type PlatformRouter, Registry } from "@postwire/platforms"
import { PgliteClient } from "@postwire/store-sql"
import { ConfigProblem, resolveSettings, type ServerSettings } from "../config/ServerConfig.ts"
import * as MasterSecrets from "../config/MasterSecrets.ts"
import { type SqlStores, sqlStores, storeLayer } from "../Storage.ts"

/** Options shared by {@link PostwireEngine} and {@link makeHandler}. */
export interface EmbedOptions {
  /**
   * Where the data lives: `"embedded"` (default) for the embedded database in `dataDir/db`,
   * `"memory"` for an embedded database that lives as long as the process (tests, examples),
   * or a `postgres://` URL.
   */
  readonly database?: string | undefined
  /** Data directory of the embedded database, uploaded media and development e-mails. Default `./.postwire`. */
  readonly dataDir?: string | undefined
  /**
   * The address at which the server's pages are reachable, including any path prefix, e.g.
   * `https://app.example.com/postwire`. Approval links, media addresses and error `docs` links
   * start with it. Default `http://localhost:8080`.
   */
  readonly publicUrl?: string | undefined
  /**
   * The platforms: either platform plugins to serve beside the built-in four (`[myBlog]`, see
   * `PlatformPlugin` and docs/platforms.md), or the settings of the platforms (where their APIs
   * are, the app credentials to call them with, and `plugins`). Default: the four built-in
   * platforms on their real APIs.
   */
  readonly platforms?: PlatformRouter.Options | ReadonlyArray<PlatformPlugin> | undefined
  /**
   * Further settings by their environment variable names (`POSTWIRE_RATE_LIMIT_PER_KEY`,
   * `POSTWIRE_SMTP_URL`, `POSTWIRE_TIKTOK_CLIENT_KEY`, … see docs/configuration.md). Nothing is
   * read from `process.env` unless you pass it here: `env: process.env`.
   */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined
}

const isPluginList = (value: PlatformRouter.Options | ReadonlyArray<PlatformPlugin>): value is ReadonlyArray<PlatformPlugin> =>
  Array.isArray(value)

/** Resolves embedding options; throws `ConfigProblem` naming the option that is wrong. */
export const resolveEmbedSettings = (options: EmbedOptions): ServerSettings => {
  const env = options.env ?? {}
  const database = options.database ?? "embedded"
  if (database !== "embedded" && database !== "memory" && !/^postgres(ql)?:\/\//.test(database)) {
    throw new ConfigProblem("database", `expected "embedded", "memory" or a postgres:// URL, got "${database}"`)
  }
  const platforms = options.platforms
  const plugins = platforms === undefined ? [] : isPluginList(platforms) ? platforms : (platforms.plugins ?? [])
  // A plugin that cannot be served stops the start here, naming it (Registry.PluginProblem).
  Registry.make(plugins)
  // The same reading as `postwire serve`: each plugin's `env` reads its settings from `env`.
  const settings = resolveSettings(
    {
      dataDir: options.dataDir,
      databaseUrl: database === "embedded" || database === "memory" ? undefined : database,
      plugins
    },
    { ...env, DATABASE_URL: undefined, POSTWIRE_PUBLIC_URL: options.publicUrl ?? env.POSTWIRE_PUBLIC_URL ?? "http://localhost:8080" }
  )
  // A database that lives as long as the process needs no secret that outlives it.
  const withSecret =
    database === "memory" && settings.secrets.length === 0 ? { ...settings, secrets: [Redacted.make(MasterSecrets.generate())] } : settings
  if (platforms === undefined || isPluginList(platforms)) return withSecret
  // Settings given in full: they are the publishing side's (the connect side still reads `env`).
  return { ...withSecret, platforms }
}

/**
 * A database in memory, started from the template `@postwire/store-sql` ships (every migration
 * applied) rather than by PostgreSQL's `initdb`: each engine or handler with `database: "memory"`
 * (a test suite starts many) skips creating the database. Without a built template it is
 * created by `initdb`, with one line logged.
 */
export const memoryDatabaseLayer = (): Layer.Layer<SqlClient.SqlClient, unknown> =>
  Layer.unwrap(Effect.sync(() => PgliteClient.layer({ template: PgliteClient.packagedTemplate() })))

/** The stores for embedding options: PostgreSQL, the embedded database on disk, or one in memory. */
export const embedStoreLayer = (
  options: EmbedOptions,
  settings: ServerSettings
): Layer.Layer<SqlStores, unknown> =>
  options.database === "memory" ? sqlStores.pipe(Layer.provide(memoryDatabaseLayer())) : storeLayer(settings)
