/**
 * A `SqlClient` over PGlite, PostgreSQL compiled to WebAssembly and run inside the process:
 * the embedded database of `npx postwire serve`, in memory or persisted to a directory.
 *
 * PGlite has exactly one connection. Every statement and every transaction takes that
 * connection through one semaphore, so a transaction never sees another fiber's statement
 * in the middle of it.
 *
 * @since 0.1.0
 */
import { PGlite } from "@electric-sql/pglite"
import { Effect, Layer, Semaphore, Stream } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { SqlClient, type SqlConnection, SqlError, Statement } from "effect/sql"

/** Where the embedded database keeps its data, and how much memory it may take. */
export interface PgliteClientOptions {
  /** A directory to persist to (created when missing); in memory when absent. */
  readonly dataDir?: string | undefined
  /**
   * PostgreSQL settings (`name: value`) over {@link memorySettings}, e.g. `{ shared_buffers: "128MB" }`
   * for a large embedded database.
   */
  readonly settings?: Readonly<Record<string, string>> | undefined
}

/**
 * PostgreSQL's memory settings for the embedded database. PostgreSQL's defaults size a server
 * for a hundred connections with 128 MB of shared buffers; PGlite has one connection and the
 * whole cluster lives in the process's WebAssembly heap, where every page of shared memory is
 * written at start and stays resident. These keep the embedded default light (docs/performance.md,
 * "The embedded default"): the operating system's page cache still holds the files.
 */
export const memorySettings: Readonly<Record<string, string>> = {
  shared_buffers: "32MB",
  wal_buffers: "1MB",
  max_connections: "10",
  work_mem: "4MB",
  maintenance_work_mem: "16MB",
  temp_buffers: "2MB"
}

/** PGlite's own start parameters, then ours (a later `-c` wins). */
const startParams = (settings: Readonly<Record<string, string>>) => [
  ...PGlite.defaultStartParams,
  ...Object.entries(settings).flatMap(([name, value]) => ["-c", `${name}=${value}`])
]

/**
 * Starts PGlite and builds a `SqlClient` over it; the database closes with the scope.
 *
 * @example
 * ```ts
 * const sql = yield* PgliteClient.make({ dataDir: "./.postwire/db" })
 * ```
 */
export const make = Effect.fnUntraced(function* (options: PgliteClientOptions) {
  const pglite = yield* Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const params = startParams({ ...memorySettings, ...options.settings })
        const db =
          options.dataDir === undefined
            ? new PGlite({ startParams: params })
            : new PGlite({ dataDir: options.dataDir, startParams: params })
        await db.waitReady
        return db
      },
      catch: (cause) => toSqlError(cause, "connect")
    }),
    (db) => Effect.promise(() => db.close())
  )

  const connection = makeConnection(pglite)
  const semaphore = yield* Semaphore.make(1)
  // Held until the statement's or transaction's scope closes, so nothing interleaves.
  const lease = Effect.uninterruptibleMask((restore) => Effect.as(restore(semaphore.takeScoped(1)), connection))

  return yield* SqlClient.make({
    driver: "pglite",
    acquirer: lease,
    transactionAcquirer: lease,
    borrower: (f) => semaphore.withPermit(f(connection)),
    compiler,
    spanAttributes: [["db.system.name", "postgresql"]],
    releaseSavepoint: (name) => `RELEASE SAVEPOINT ${name}`
  })
})

/**
 * The embedded database as a `SqlClient` layer.
 *
 * @example
 * ```ts
 * const Embedded = SqlStore.layer.pipe(Layer.provide(PgliteClient.layer({ dataDir: ".postwire/db" })))
 * ```
 */
export const layer = (options: PgliteClientOptions = {}): Layer.Layer<SqlClient.SqlClient, SqlError.SqlError> =>
  Layer.effect(SqlClient.SqlClient)(make(options)).pipe(Layer.provide(Reactivity.layer))

const makeConnection = (pglite: PGlite): SqlConnection.Connection => {
  const query = (sql: string, params: ReadonlyArray<unknown>, operation: string) =>
    Effect.tryPromise({
      try: () => pglite.query<Record<string, unknown>>(sql, params as Array<unknown>),
      catch: (cause) => toSqlError(cause, operation)
    })
  const rows = (
    sql: string,
    params: ReadonlyArray<unknown>,
    transformRows: (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
  ) =>
    Effect.map(query(sql, params, "execute"), (result) =>
      transformRows ? transformRows(result.rows) : result.rows
    )
  const values = (sql: string, params: ReadonlyArray<unknown>) =>
    Effect.map(
      Effect.tryPromise({
        try: () => pglite.query<Array<unknown>>(sql, params as Array<unknown>, { rowMode: "array" }),
        catch: (cause) => toSqlError(cause, "executeValues")
      }),
      (result) => result.rows as ReadonlyArray<ReadonlyArray<unknown>>
    )
  return {
    execute: rows,
    executeUnprepared: rows,
    executeRaw: (sql, params) => query(sql, params, "executeRaw"),
    executeValues: values,
    executeValuesUnprepared: values,
    executeStream: (sql, params, transformRows) => Stream.fromArrayEffect(rows(sql, params, transformRows))
  }
}

const quoteIdentifier = Statement.defaultEscape('"')

const compiler = Statement.makeCompiler({
  dialect: "pg",
  placeholder: (index) => `$${index}`,
  onIdentifier: quoteIdentifier,
  onRecordUpdate: (placeholders, alias, columns, values, returning) => [
    `(values ${placeholders}) AS ${alias}${columns}${returning ? ` RETURNING ${returning[0]}` : ""}`,
    returning ? values.flat().concat(returning[1]) : values.flat()
  ],
  onCustom: () => ["", []]
})

const toSqlError = (cause: unknown, operation: string): SqlError.SqlError => {
  const props = { cause, message: messageOf(cause), operation }
  const code = typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : ""
  const constraint =
    typeof cause === "object" && cause !== null && "constraint" in cause ? String(cause.constraint) : "unknown"
  const reason =
    code === "23505"
      ? new SqlError.UniqueViolation({ ...props, constraint })
      : code.startsWith("23")
        ? new SqlError.ConstraintError(props)
        : code === "40001"
          ? new SqlError.SerializationError(props)
          : code === "40P01"
            ? new SqlError.DeadlockError(props)
            : code.startsWith("42")
              ? new SqlError.SqlSyntaxError(props)
              : code.startsWith("08") || operation === "connect"
                ? new SqlError.ConnectionError(props)
                : new SqlError.UnknownError(props)
  return new SqlError.SqlError({ reason })
}

const messageOf = (cause: unknown): string =>
  cause instanceof Error ? `PgliteClient: ${cause.message}` : "PgliteClient: query failed"
