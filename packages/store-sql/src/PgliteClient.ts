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
import {
  chmodSync,
  closeSync,
  createReadStream,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync
} from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { createGunzip, gunzipSync } from "node:zlib"
import { PGlite, parse as protocolResults, protocol } from "@electric-sql/pglite"
import { Effect, Layer, Semaphore, Stream } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { SqlClient, type SqlConnection, SqlError, Statement } from "effect/sql"
import * as PrivateFiles from "./PrivateFiles.ts"

/** Where the embedded database keeps its data, and how much memory it may take. */
export interface PgliteClientOptions {
  /** A directory to persist to (created when missing); in memory when absent. */
  readonly dataDir?: string | undefined
  /**
   * PostgreSQL settings (`name: value`) over {@link memorySettings}, e.g. `{ shared_buffers: "128MB" }`
   * for a large embedded database.
   */
  readonly settings?: Readonly<Record<string, string>> | undefined
  /**
   * A data directory to start a new database from, as PGlite's `dumpDataDir()` writes it: its
   * schema and rows are there from the first statement. Used only when the database is new (in
   * memory, or a `dataDir` that holds no database yet); an existing database opens as it is.
   * Copying a dump takes a fraction of the time of creating a database (PostgreSQL's `initdb`,
   * about 2.5 s on a small machine), which a test suite that starts many databases notices.
   *
   * @example
   * ```ts
   * const template = await pglite.dumpDataDir("none") // once, from a database set up as needed
   * const fresh = PgliteClient.layer({ template })    // each new database starts as a copy of it
   * ```
   *
   * A path (a string) names a gzipped tar of a data directory, as {@link packagedTemplate} and
   * `PgliteTemplate.write` make it: a new `dataDir` is unpacked from it on disk before PGlite
   * opens it, streamed (no copy of the database in memory), and PGlite's `initdb` does not run.
   * A template that is missing or does not load is logged in one line and the database is
   * created by `initdb` instead. Whatever the template holds, the migrations still run on it.
   */
  readonly template?: Blob | string | undefined
}

/** The file name of the template `npm run build` of this package writes into its `dist/`. */
export const packagedTemplateFile = "embedded-template.tar.gz"

/**
 * Where this package's own template is: a new database with every migration of this version
 * applied, made by `npm run build` (`scripts/embedded-template.mjs`) with the PGlite version this
 * package pins, shipped in its `dist/`. The path may not exist (a source checkout never built);
 * `undefined` when the package cannot be found (bundled into an application without it).
 */
export const packagedTemplate = (): string | undefined => {
  try {
    // CommonJS build: __filename; ES module build, sources and bundles: import.meta.url.
    const from = typeof __filename === "string" ? __filename : import.meta.url
    return join(dirname(createRequire(from).resolve("@postwire/store-sql/package.json")), "dist", packagedTemplateFile)
  } catch {
    return undefined
  }
}

/**
 * PostgreSQL's memory settings for the embedded database. PostgreSQL's defaults size a server
 * for a hundred connections with 128 MB of shared buffers; PGlite has one connection and the
 * whole cluster lives in the process's WebAssembly heap, where every page of shared memory is
 * written at start and stays resident. These keep the embedded default light (docs/performance.md,
 * "The embedded default" and "Seventeenth round: the second start"): the operating system's page
 * cache still holds the files, and 8 MB of shared buffers hold a small installation's hot rows.
 */
export const memorySettings: Readonly<Record<string, string>> = {
  shared_buffers: "8MB",
  wal_buffers: "1MB",
  max_connections: "10",
  work_mem: "4MB",
  maintenance_work_mem: "16MB",
  temp_buffers: "2MB"
}

/** Whether a data directory already holds a database (PostgreSQL writes `PG_VERSION` first). */
const holdsDatabase = (dataDir: string | undefined): boolean =>
  dataDir !== undefined && existsSync(join(dataDir, "PG_VERSION"))

/** A tar entry's text field: up to its first NUL. */
const tarText = (header: Buffer, start: number, length: number): string => {
  const field = header.subarray(start, start + length)
  const end = field.indexOf(0)
  return field.subarray(0, end < 0 ? length : end).toString("utf8")
}

/**
 * Unpacks a gzipped tar of a data directory (ustar, as PGlite's `dumpDataDir` writes it) into
 * `target`, which must not exist, streaming: each file is written as its bytes arrive. Only
 * directories and regular files; an entry leaving `target` or of another kind fails it.
 */
const unpack = async (archive: string, target: string): Promise<void> => {
  mkdirSync(target, { mode: 0o700 })
  let pending: Buffer = Buffer.alloc(0)
  let file: { fd: number; remaining: number; padding: number } | undefined
  let skip = 0
  let ended = false
  try {
    for await (const chunk of createReadStream(archive).pipe(createGunzip()) as AsyncIterable<Buffer>) {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
      for (;;) {
        if (skip > 0) {
          const n = Math.min(skip, pending.length)
          pending = pending.subarray(n)
          skip -= n
          if (skip > 0) break
        } else if (file !== undefined) {
          const n = Math.min(file.remaining, pending.length)
          writeSync(file.fd, pending, 0, n)
          pending = pending.subarray(n)
          file.remaining -= n
          if (file.remaining > 0) break
          closeSync(file.fd)
          skip = file.padding
          file = undefined
        } else {
          if (ended || pending.length < 512) break
          const header = pending.subarray(0, 512)
          pending = pending.subarray(512)
          if (header.every((byte) => byte === 0)) {
            ended = true
            break
          }
          const name = [tarText(header, 345, 155), tarText(header, 0, 100)].filter((part) => part !== "").join("/")
          const parts = name.split("/").filter((part) => part !== "" && part !== ".")
          if (parts.length === 0 || parts.includes("..")) throw new Error(`template entry outside the data directory: ${name}`)
          const path = join(target, ...parts)
          const type = String.fromCharCode(header[156] ?? 0)
          const size = Number.parseInt(tarText(header, 124, 12).trim() || "0", 8)
          if (type === "5") {
            mkdirSync(path, { recursive: true, mode: 0o700 })
          } else if (type === "0" || type === "\0") {
            mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
            file = { fd: openSync(path, "w", 0o600), remaining: size, padding: (512 - (size % 512)) % 512 }
          } else {
            throw new Error(`template entry of an unsupported kind (${JSON.stringify(type)}): ${name}`)
          }
        }
      }
    }
    if (!ended || file !== undefined) throw new Error("the template ends before its last entry")
  } finally {
    if (file !== undefined) closeSync(file.fd)
  }
}

/**
 * A new database in `dataDir` from the template at `archive`: unpacked beside it, then moved into
 * place, so that an interrupted start leaves no half database (`PG_VERSION` arrives with the
 * whole directory). False, with one line logged, when the template is missing or does not unpack
 * (the caller runs `initdb`).
 */
const unpackTemplate = (archive: string | undefined, dataDir: string): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    if (archive === undefined || !existsSync(archive)) {
      yield* Effect.logWarning(
        `embedded database: no template at ${archive ?? "(package not found)"}; creating the database with initdb (slower first start)`
      )
      return false
    }
    // Anything already in the directory (not a database) is left to initdb, as before.
    if (readdirSync(dataDir).length > 0) return false
    const unpacking = `${dataDir}.template-${process.pid}`
    return yield* Effect.tryPromise({
      try: async () => {
        rmSync(unpacking, { recursive: true, force: true })
        try {
          await unpack(archive, unpacking)
          rmSync(dataDir, { recursive: true })
          renameSync(unpacking, dataDir)
        } finally {
          rmSync(unpacking, { recursive: true, force: true })
        }
        return true
      },
      catch: (cause) => cause
    }).pipe(
      Effect.catch((cause) =>
        Effect.as(
          Effect.logWarning(
            `embedded database: the template ${archive} did not unpack (${messageOf(cause)}); creating the database with initdb`
          ),
          false
        )
      )
    )
  })

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
  if (options.dataDir !== undefined) {
    // Another local user must read nothing of the database (approval links, keys' digests, sealed
    // tokens) and write nothing into it: owner-only from the first file PGlite writes to the last.
    yield* PrivateFiles.ownerOnlyUmask
    const dataDir = options.dataDir
    yield* Effect.try({
      try: () => {
        mkdirSync(dataDir, { recursive: true, mode: 0o700 })
        // Closed to others at once; what is inside is repaired once PGlite has opened it.
        chmodSync(dataDir, 0o700)
      },
      catch: (cause) => toSqlError(cause, "connect")
    })
  }
  const params = startParams({ ...memorySettings, ...options.settings })
  const open = (loadDataDir: Blob | undefined) =>
    Effect.tryPromise({
      try: async () => {
        const db = new PGlite({
          startParams: params,
          ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
          ...(loadDataDir === undefined ? {} : { loadDataDir })
        })
        try {
          await db.waitReady
        } catch (cause) {
          await db.close().catch(() => undefined)
          throw cause
        }
        // Files an older version left open, those PGlite writes with modes of its own (chmod,
        // past the umask: its relation cache, a dump it loads): made owner-only, in one walk.
        if (options.dataDir !== undefined) PrivateFiles.makePrivate(options.dataDir)
        return db
      },
      catch: (cause) => toSqlError(cause, "connect")
    })
  const template = options.template
  const isNew = !holdsDatabase(options.dataDir)
  const opened: Effect.Effect<PGlite, SqlError.SqlError> =
    typeof template !== "string" || !isNew
      ? open(isNew && typeof template !== "string" ? template : undefined)
      : options.dataDir === undefined
        ? // In memory: PGlite loads the (decompressed) template into its own file system.
          Effect.tryPromise({
            try: async () => new Blob([gunzipSync(readFileSync(template))]),
            catch: (cause) => cause
          }).pipe(
            Effect.matchEffect({
              onFailure: (cause) =>
                Effect.andThen(
                  Effect.logWarning(`embedded database: the template ${template} did not load (${messageOf(cause)}); creating the database with initdb`),
                  open(undefined)
                ),
              onSuccess: (blob) => open(blob)
            })
          )
        : Effect.gen(function* () {
            const dataDir = options.dataDir as string
            if (!(yield* unpackTemplate(template, dataDir))) return yield* open(undefined)
            // A template PGlite cannot open (made by another PGlite version, damaged): the
            // directory holds nothing but the template, so it is emptied and initdb runs.
            return yield* open(undefined).pipe(
              Effect.catch((error) =>
                Effect.gen(function* () {
                  yield* Effect.logWarning(
                    `embedded database: the template ${template} did not open (${error.message}); creating the database with initdb`
                  )
                  yield* Effect.sync(() => {
                    rmSync(dataDir, { recursive: true, force: true })
                    mkdirSync(dataDir, { recursive: true, mode: 0o700 })
                  })
                  return yield* open(undefined)
                })
              )
            )
          })
  const pglite = yield* Effect.acquireRelease(opened, (db) => Effect.promise(() => db.close()))

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

/** Statements kept prepared on the connection; the least recently used is closed past this. */
const preparedStatementsKept = 256

/** What a statement prepared on the connection needs to run: its name and its parameters' types. */
interface Prepared {
  readonly name: string
  readonly parameterTypes: ReadonlyArray<number>
}

/** PostgreSQL's "cached plan must not change result type": the statement is prepared again. */
const isStalePlan = (cause: unknown) =>
  typeof cause === "object" && cause !== null && "code" in cause && cause.code === "0A000" &&
  cause instanceof Error && cause.message.includes("cached plan")

const concat = (parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0))
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

/**
 * Runs statements as named prepared statements: the first time a text is seen it is parsed and
 * described once; every run then binds, describes its portal, executes and syncs in one
 * exchange with the database, where `PGlite.query` takes six (parse, describe, bind, describe,
 * execute, sync) and parses the text each time. The files are synced after each statement that
 * leaves no transaction open, as `query` does, and not in the middle of one.
 */
const makePreparedRunner = (pglite: PGlite) => {
  const prepared = new Map<string, Prepared>()
  let made = 0
  /** Closes of evicted statements, sent with the next exchange. */
  let closing: Array<Uint8Array> = []

  const prepare = async (sql: string): Promise<Prepared> => {
    const known = prepared.get(sql)
    if (known !== undefined) {
      // Most recently used last.
      prepared.delete(sql)
      prepared.set(sql, known)
      return known
    }
    made += 1
    const name = `pw_${made.toString(36)}`
    const sent = concat([
      ...closing,
      protocol.serialize.parse({ name, text: sql }),
      protocol.serialize.describe({ type: "S", name }),
      protocol.serialize.sync()
    ])
    // The closes go with this exchange whatever becomes of the parse.
    closing = []
    const { messages } = await pglite.execProtocol(sent, { syncToFs: false })
    const statement: Prepared = { name, parameterTypes: protocolResults.parseDescribeStatementResults(messages) }
    prepared.set(sql, statement)
    if (prepared.size > preparedStatementsKept) {
      const [oldest, evicted] = prepared.entries().next().value as [string, Prepared]
      prepared.delete(oldest)
      closing.push(protocol.serialize.close({ type: "S", name: evicted.name }))
    }
    return statement
  }

  const runOnce = async (sql: string, params: ReadonlyArray<unknown>, rowMode: "object" | "array") => {
    const statement = await prepare(sql)
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null
      const serializer = pglite.serializers[statement.parameterTypes[i] ?? 0]
      return serializer !== undefined ? serializer(value) : String(value)
    })
    const sent = concat([
      ...closing,
      protocol.serialize.bind({ statement: statement.name, values }),
      protocol.serialize.describe({ type: "P" }),
      protocol.serialize.execute({}),
      protocol.serialize.sync()
    ])
    closing = []
    let messages: ReadonlyArray<unknown>
    try {
      messages = (await pglite.execProtocol(sent, { syncToFs: false })).messages
    } finally {
      if (!pglite.isInTransaction()) await pglite.syncToFs()
    }
    return protocolResults.parseResults(messages as Parameters<typeof protocolResults.parseResults>[0], pglite.parsers, { rowMode })[0]
  }

  return async (sql: string, params: ReadonlyArray<unknown>, rowMode: "object" | "array") => {
    try {
      return await runOnce(sql, params, rowMode)
    } catch (cause) {
      if (!isStalePlan(cause)) throw cause
      // The tables changed shape under a prepared statement (a migration): prepare it again.
      const stale = prepared.get(sql)
      if (stale !== undefined) {
        prepared.delete(sql)
        closing.push(protocol.serialize.close({ type: "S", name: stale.name }))
      }
      return await runOnce(sql, params, rowMode)
    }
  }
}

const makeConnection = (pglite: PGlite): SqlConnection.Connection => {
  const runPrepared = makePreparedRunner(pglite)
  /** A statement's rows: as a prepared statement, or (`unprepared`) through `PGlite.query`. */
  const send = (
    sql: string,
    params: ReadonlyArray<unknown>,
    options: { readonly prepared: boolean; readonly rowMode: "object" | "array"; readonly operation: string }
  ) =>
    Effect.tryPromise({
      try: async (): Promise<ReadonlyArray<object>> =>
        options.prepared
          ? ((await runPrepared(sql, params, options.rowMode))?.rows ?? [])
          : (await pglite.query<object>(sql, params as Array<unknown>, { rowMode: options.rowMode })).rows,
      catch: (cause) => toSqlError(cause, options.operation)
    })
  const rows =
    (prepared: boolean) =>
    (
      sql: string,
      params: ReadonlyArray<unknown>,
      transformRows: (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
    ) =>
      Effect.map(send(sql, params, { prepared, rowMode: "object", operation: "execute" }), (found) =>
        transformRows ? transformRows(found) : found
      )
  const values = (prepared: boolean) => (sql: string, params: ReadonlyArray<unknown>) =>
    send(sql, params, { prepared, rowMode: "array", operation: "executeValues" }) as unknown as Effect.Effect<
      ReadonlyArray<ReadonlyArray<unknown>>,
      SqlError.SqlError
    >
  const execute = rows(true)
  return {
    execute,
    executeUnprepared: rows(false),
    executeRaw: (sql, params) =>
      Effect.tryPromise({
        try: () => pglite.query<Record<string, unknown>>(sql, params as Array<unknown>),
        catch: (cause) => toSqlError(cause, "executeRaw")
      }),
    executeValues: values(true),
    executeValuesUnprepared: values(false),
    executeStream: (sql, params, transformRows) => Stream.fromArrayEffect(execute(sql, params, transformRows))
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
