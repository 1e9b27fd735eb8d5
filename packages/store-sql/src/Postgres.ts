/**
 * PostgreSQL as the `SqlClient` of the `Store`, through `@effect/sql-pg`: for production, where
 * any number of server instances share one database.
 *
 * @since 0.1.0
 */
import { Config, type Layer, Redacted } from "effect"
import type { SqlClient, SqlError } from "effect/sql"
import { PgClient } from "@effect/sql-pg"

/** Connection settings beyond the URL. */
export interface PostgresOptions {
  /** Pool size per instance (default 10). */
  readonly maxConnections?: number | undefined
  /**
   * Sets `search_path` on every connection, so the store's tables live in that schema:
   * one database can hold several isolated stores (tests use a fresh schema per run).
   */
  readonly searchPath?: string | undefined
}

/**
 * A pooled PostgreSQL `SqlClient` from a connection URL such as `postgres://user@host/db`.
 *
 * @example
 * ```ts
 * const Production = SqlStore.layer.pipe(Layer.provide(layerPostgres(process.env.DATABASE_URL!)))
 * ```
 */
export const layerPostgres = (
  url: string | Redacted.Redacted<string>,
  options: PostgresOptions = {}
): Layer.Layer<SqlClient.SqlClient, SqlError.SqlError> =>
  PgClient.layer({
    url: typeof url === "string" ? Redacted.make(url) : url,
    maxConnections: options.maxConnections ?? 10,
    ...(options.searchPath === undefined ? {} : { startupParameters: { search_path: options.searchPath } })
  })

/**
 * Like {@link layerPostgres}, with the URL read from configuration.
 *
 * @example
 * ```ts
 * const Production = SqlStore.layer.pipe(Layer.provide(layerPostgresConfig(Config.redacted("DATABASE_URL"))))
 * ```
 */
export const layerPostgresConfig = (
  url: Config.Config<Redacted.Redacted<string>>,
  options: PostgresOptions = {}
): Layer.Layer<SqlClient.SqlClient, SqlError.SqlError | Config.ConfigError> =>
  PgClient.layerConfig(
    Config.map(url, (url) => ({
      url,
      maxConnections: options.maxConnections ?? 10,
      ...(options.searchPath === undefined ? {} : { startupParameters: { search_path: options.searchPath } })
    }))
  )
