/**
 * PostgreSQL as the `SqlClient` of the `Store`, through `@effect/sql-pg`: for production, where
 * any number of server instances share one database.
 *
 * Every wait on the database is bounded. A statement the server does not answer within
 * `statementTimeoutMs` (plus a short margin for the server's own timeout to speak first) has its
 * connection destroyed, never returned to the pool, so the call fails with a connection error:
 * the driver alone would wait forever for a `COMMIT` the network swallowed (see
 * `internal/AnsweringSocket.ts`). PostgreSQL enforces the same limit on its side
 * (`statement_timeout`) and ends a session left idle inside a transaction
 * (`idle_in_transaction_session_timeout`), so a client that vanished never holds row locks for
 * long; TCP keepalive finds a dead peer of an idle connection.
 *
 * @since 0.1.0
 */
import { Config, type Layer, Redacted } from "effect"
import type { SqlClient, SqlError } from "effect/sql"
import { PgClient } from "@effect/sql-pg"
import * as AnsweringSocket from "./internal/AnsweringSocket.ts"

/** Connection settings beyond the URL. */
export interface PostgresOptions {
  /** Pool size per instance (default 10). */
  readonly maxConnections?: number | undefined
  /**
   * Sets `search_path` on every connection, so the store's tables live in that schema:
   * one database can hold several isolated stores (tests use a fresh schema per run).
   */
  readonly searchPath?: string | undefined
  /**
   * Longest a statement may run, or wait for its answer (default 30 s): PostgreSQL cancels
   * it then, and a connection that still has not answered 2 s later is destroyed.
   */
  readonly statementTimeoutMs?: number | undefined
  /** Longest a session may sit idle inside an open transaction before PostgreSQL ends it (default 60 s). */
  readonly idleInTransactionTimeoutMs?: number | undefined
  /** Longest opening a connection (TCP, TLS and authentication) may take (default 5 s). */
  readonly connectTimeoutMs?: number | undefined
}

/** The documented defaults of {@link PostgresOptions}. */
export const defaultPostgresOptions = {
  maxConnections: 10,
  statementTimeoutMs: 30_000,
  idleInTransactionTimeoutMs: 60_000,
  connectTimeoutMs: 5_000
} as const

/** How much longer than `statement_timeout` the client waits: the server's clean cancel speaks first. */
const answerMarginMs = 2_000
/** Idle time before TCP keepalive probes start on a pooled connection. */
const keepAliveMs = 10_000

/** Where a URL points over TCP; undefined for a Unix socket (`?host=/var/run/...`) or no host at all. */
const tcpAddress = (url: string): { readonly host: string; readonly port: number } | undefined => {
  try {
    const parsed = new URL(url)
    const hostParam = parsed.searchParams.get("host")
    if (hostParam !== null || parsed.hostname === "") return undefined
    return { host: parsed.hostname.replace(/^\[(.*)\]$/, "$1"), port: parsed.port === "" ? 5432 : Number(parsed.port) }
  } catch {
    return undefined
  }
}

/** The `@effect/sql-pg` pool settings for a URL and these options. */
const poolConfig = (url: Redacted.Redacted<string>, options: PostgresOptions): PgClient.PgPoolConfig => {
  const statementTimeoutMs = options.statementTimeoutMs ?? defaultPostgresOptions.statementTimeoutMs
  const idleMs = options.idleInTransactionTimeoutMs ?? defaultPostgresOptions.idleInTransactionTimeoutMs
  const address = tcpAddress(Redacted.value(url))
  return {
    url,
    maxConnections: options.maxConnections ?? defaultPostgresOptions.maxConnections,
    connectTimeout: options.connectTimeoutMs ?? defaultPostgresOptions.connectTimeoutMs,
    keepAlive: keepAliveMs,
    startupParameters: {
      statement_timeout: String(statementTimeoutMs),
      idle_in_transaction_session_timeout: String(idleMs),
      ...(options.searchPath === undefined ? {} : { search_path: options.searchPath })
    },
    ...(address === undefined
      ? {}
      : {
          stream: () =>
            AnsweringSocket.open({ ...address, answerWithinMs: statementTimeoutMs + answerMarginMs, keepAliveMs })
        })
  }
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
  PgClient.layer(poolConfig(typeof url === "string" ? Redacted.make(url) : url, options))

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
  PgClient.layerConfig(Config.map(url, (url) => poolConfig(url, options)))
