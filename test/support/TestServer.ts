/**
 * A real Postwire server on a loopback port for black-box tests: the embedded database
 * (PGlite in memory) or a fresh schema of the PostgreSQL at `DATABASE_URL`.
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Clock, Context, Effect, Exit, Layer, Scope } from "effect"
import { HttpServer } from "effect/http"
import { SqlClient } from "effect/sql"
import type { AnalyticsStore, CommentStore, ConnectStore, MediaStore, PublishingStore, Store, WebhookStore } from "@postwire/core"
import { PGlite } from "@electric-sql/pglite"
import { layerPostgres, PgliteClient } from "@postwire/store-sql"
import {
  type FirstRun,
  type IdempotencyStore,
  type PlatformPlugin,
  type RateLimitStore,
  resolveSettings,
  seedFirstRun,
  serverLayer,
  sqlStores
} from "@postwire/server"

/** Which database a test server runs on. */
export type Backend = "embedded" | "postgres"

/** A running server and what its first start created. */
export interface TestServer extends FirstRun {
  readonly baseUrl: string
  /** The public address the server writes into links (`POSTWIRE_PUBLIC_URL`; not where it listens). */
  readonly publicUrl: string
  readonly adminToken: string
  readonly backend: Backend
  /** The server's data directory (media, and approval e-mails when no SMTP server is set). */
  readonly dataDir: string
  /** Calls the admin API. */
  readonly admin: <A = { id: string }>(path: string, body: unknown) => Promise<A>
  /**
   * Runs `effect` on the server's own stores, for what the API does not show: the positive
   * signal that a background loop has run past a point (a comment poll's next time, a lease let
   * go), before a test asserts that nothing else happened.
   */
  readonly read: <A, E>(effect: Effect.Effect<A, E, ServerStores>) => Promise<A>
  readonly stop: () => Promise<void>
}

/**
 * The backends to run black-box suites on: PostgreSQL only when configured (required in CI).
 * `POSTWIRE_TEST_BACKENDS=postgres` narrows them (CI's second pass: the first ran the embedded ones).
 */
export const backends = (): ReadonlyArray<Backend> => {
  const only = process.env.POSTWIRE_TEST_BACKENDS
  if (only !== undefined && only !== "") {
    const named = only.split(",").map((name) => name.trim())
    const unknown = named.filter((name) => name !== "embedded" && name !== "postgres")
    if (unknown.length > 0) throw new Error(`POSTWIRE_TEST_BACKENDS names ${unknown.join(", ")}: use embedded, postgres`)
    if (named.includes("postgres") && !process.env.DATABASE_URL) {
      throw new Error("POSTWIRE_TEST_BACKENDS names postgres but DATABASE_URL is not set")
    }
    return named as ReadonlyArray<Backend>
  }
  if (process.env.DATABASE_URL) return ["embedded", "postgres"]
  if (process.env.REQUIRE_POSTGRES === "1") {
    throw new Error("REQUIRE_POSTGRES=1 but DATABASE_URL is not set: the PostgreSQL suite must run")
  }
  return ["embedded"]
}

/**
 * A new embedded database as PostgreSQL's `initdb` leaves it, dumped once per test process:
 * every embedded database of the suite starts as a copy of it (0.7 s) instead of running
 * `initdb` again (about 3 s on a two-core machine). The migrations still run on each, as on a
 * real first start.
 */
let embeddedTemplate: Promise<Blob> | undefined
export const anEmbeddedTemplate = (): Promise<Blob> => {
  embeddedTemplate ??= (async () => {
    const db = new PGlite()
    await db.waitReady
    try {
      return await db.dumpDataDir("none")
    } finally {
      await db.close()
    }
  })()
  return embeddedTemplate
}

/** What a server needs of its database. */
export type ServerStores =
  | Store
  | WebhookStore
  | PublishingStore
  | ConnectStore
  | CommentStore
  | AnalyticsStore
  | MediaStore
  | RateLimitStore.RateLimitStore
  | IdempotencyStore.IdempotencyStore

const postgresStore = (): Layer.Layer<ServerStores, unknown> => {
  const url = process.env.DATABASE_URL
  if (!url) throw new Error("DATABASE_URL is not set")
  const schema = `pw_api_${randomBytes(6).toString("hex")}`
  const createSchema = Layer.effectDiscard(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql.unsafe(`CREATE SCHEMA IF NOT EXISTS ${schema}`)
      yield* Effect.addFinalizer(() => sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).pipe(Effect.ignore))
    })
  ).pipe(Layer.provide(layerPostgres(url, { maxConnections: 2 })))
  return sqlStores.pipe(Layer.provide(layerPostgres(url, { searchPath: schema })), Layer.provideMerge(createSchema))
}

/** A database that outlives the servers started on it, so a test can stop a server and start another on it. */
export interface TestDatabase {
  readonly backend: Backend
  /** The PostgreSQL schema holding it (PostgreSQL only). */
  readonly schema?: string
  /** The stores on this database, for one server. */
  readonly stores: () => Layer.Layer<ServerStores, unknown>
  /** The master secret every server on it runs with (`POSTWIRE_SECRET`), as on a real deployment. */
  readonly secret: string
  /** What the first server on it created; servers started later report the same. */
  firstRun: FirstRun | undefined
  /** Deletes the database. */
  readonly drop: () => Promise<void>
}

/** A database of the backend that survives server restarts: PGlite on a directory, or a PostgreSQL schema. */
export const aDatabase = async (backend: Backend): Promise<TestDatabase> => {
  if (backend === "embedded") {
    const directory = mkdtempSync(join(tmpdir(), "postwire-db-"))
    const template = await anEmbeddedTemplate()
    return {
      backend,
      secret: randomBytes(32).toString("base64url"),
      stores: () => sqlStores.pipe(Layer.provide(PgliteClient.layer({ dataDir: directory, template }))),
      firstRun: undefined,
      drop: async () => rmSync(directory, { recursive: true, force: true })
    }
  }
  const url = process.env.DATABASE_URL
  if (!url) throw new Error("DATABASE_URL is not set")
  const schema = `pw_db_${randomBytes(6).toString("hex")}`
  const onSchema = (statement: string) =>
    Effect.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql.unsafe(statement)
      }).pipe(Effect.provide(layerPostgres(url, { maxConnections: 1 })))
    )
  await onSchema(`CREATE SCHEMA ${schema}`)
  return {
    backend,
    schema,
    secret: randomBytes(32).toString("base64url"),
    stores: () => sqlStores.pipe(Layer.provide(layerPostgres(url, { searchPath: schema }))),
    firstRun: undefined,
    drop: () => onSchema(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
  }
}

/** What a test may change about the server beyond its environment. */
export interface ServerOptions {
  /** The server's clock (e.g. one a test moves forward to expire approval links). */
  readonly clock?: Clock.Clock
  /** Runs on this database instead of a fresh one; it stays when the server stops. */
  readonly database?: TestDatabase
  /** Listens on this port instead of one the OS picks (so `POSTWIRE_PUBLIC_URL` can name it). */
  readonly port?: number
  /** Platform plugins served beside the built-in ones (as `--plugin` gives them). */
  readonly plugins?: ReadonlyArray<PlatformPlugin>
}

/** Starts a server; extra environment (rate limits, public URL) as the CLI would read it. */
export const startServer = async (
  backend: Backend,
  env: Readonly<Record<string, string>> = {},
  options: ServerOptions = {}
): Promise<TestServer> => {
  const dataDir = mkdtempSync(join(tmpdir(), "postwire-test-"))
  const adminToken = `pwadm_test_${randomBytes(16).toString("hex")}`
  const settings = resolveSettings(
    { port: "1", host: "127.0.0.1", dataDir, ...(options.plugins === undefined ? {} : { plugins: options.plugins }) },
    // Publishing is opt-in: suites that look at queued posts must not see them published under
    // them, so the publisher looks for due targets once an hour unless a suite asks for more.
    {
      POSTWIRE_ADMIN_TOKEN: adminToken,
      POSTWIRE_PUBLISH_POLL_MS: "3600000",
      ...(options.database === undefined ? {} : { POSTWIRE_SECRET: options.database.secret }),
      ...env
    }
  )
  const store =
    options.database?.stores() ??
    (backend === "postgres"
      ? postgresStore()
      : sqlStores.pipe(Layer.provide(PgliteClient.layer({ template: await anEmbeddedTemplate() }))))
  // Port 0: the OS picks a free port; the public URL follows once it is known.
  const server = serverLayer({ ...settings, port: options.port ?? 0 }, store)
  const layer = options.clock === undefined ? server : server.pipe(Layer.provide(Layer.succeed(Clock.Clock)(options.clock)))
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  const address = Context.get(context, HttpServer.HttpServer).address
  if (!("port" in address)) throw new Error("server did not bind a TCP port")
  const baseUrl = `http://127.0.0.1:${address.port}`
  const seeded = (await Effect.runPromise(seedFirstRun().pipe(Effect.provideContext(context)))) ?? options.database?.firstRun
  if (seeded === undefined) throw new Error("expected an empty database")
  if (options.database !== undefined) options.database.firstRun = seeded
  const admin = async <A>(path: string, body: unknown): Promise<A> => {
    const response = await fetch(`${baseUrl}/admin/v1${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify(body)
    })
    const json = (await response.json()) as A
    if (!response.ok) throw new Error(`admin ${path} failed: ${response.status} ${JSON.stringify(json)}`)
    return json
  }
  return {
    ...seeded,
    baseUrl,
    publicUrl: settings.publicUrl,
    adminToken,
    backend,
    dataDir,
    admin,
    read: (effect) => Effect.runPromise(effect.pipe(Effect.provideContext(context))),
    stop: async () => {
      await Effect.runPromise(Scope.close(scope, Exit.void))
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
}
