/**
 * A real Postwire server on a loopback port for black-box tests: the embedded database
 * (PGlite in memory) or a fresh schema of the PostgreSQL at `DATABASE_URL`.
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { HttpServer } from "effect/http"
import { SqlClient } from "effect/sql"
import type { Store } from "@postwire/core"
import { layerPostgres, PgliteClient, SqlStore } from "@postwire/store-sql"
import { type FirstRun, resolveSettings, seedFirstRun, serverLayer } from "@postwire/server"

/** Which database a test server runs on. */
export type Backend = "embedded" | "postgres"

/** A running server and what its first start created. */
export interface TestServer extends FirstRun {
  readonly baseUrl: string
  readonly adminToken: string
  readonly backend: Backend
  /** Calls the admin API. */
  readonly admin: <A = { id: string }>(path: string, body: unknown) => Promise<A>
  readonly stop: () => Promise<void>
}

/** The backends to run black-box suites on: PostgreSQL only when configured (required in CI). */
export const backends = (): ReadonlyArray<Backend> => {
  if (process.env.DATABASE_URL) return ["embedded", "postgres"]
  if (process.env.REQUIRE_POSTGRES === "1") {
    throw new Error("REQUIRE_POSTGRES=1 but DATABASE_URL is not set: the PostgreSQL suite must run")
  }
  return ["embedded"]
}

const postgresStore = (): Layer.Layer<Store, unknown> => {
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
  return SqlStore.layer.pipe(Layer.provide(layerPostgres(url, { searchPath: schema })), Layer.provideMerge(createSchema))
}

/** Starts a server; extra environment (rate limits, public URL) as the CLI would read it. */
export const startServer = async (
  backend: Backend,
  env: Readonly<Record<string, string>> = {}
): Promise<TestServer> => {
  const dataDir = mkdtempSync(join(tmpdir(), "postwire-test-"))
  const adminToken = `pwadm_test_${randomBytes(8).toString("hex")}`
  const settings = resolveSettings(
    { port: "1", host: "127.0.0.1", dataDir },
    { POSTWIRE_ADMIN_TOKEN: adminToken, ...env }
  )
  const store = backend === "postgres" ? postgresStore() : SqlStore.layer.pipe(Layer.provide(PgliteClient.layer({})))
  // Port 0: the OS picks a free port; the public URL follows once it is known.
  const layer = serverLayer({ ...settings, port: 0 }, store)
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  const address = Context.get(context, HttpServer.HttpServer).address
  if (!("port" in address)) throw new Error("server did not bind a TCP port")
  const baseUrl = `http://127.0.0.1:${address.port}`
  const seeded = await Effect.runPromise(seedFirstRun().pipe(Effect.provideContext(context)))
  if (seeded === undefined) throw new Error("expected an empty database")
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
    adminToken,
    backend,
    admin,
    stop: async () => {
      await Effect.runPromise(Scope.close(scope, Exit.void))
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
}
