import { layerPostgres } from "@postwire/store-sql"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aDatabase, backends, startServer, type TestDatabase, type TestServer } from "../support/TestServer.ts"

describe.each(backends())("GET /health and GET /ready (%s)", (backend) => {
  describe.each(["all", "api", "worker"] as const)("role %s", (role) => {
    let server: TestServer
    beforeAll(async () => {
      server = await startServer(backend, { POSTWIRE_ROLE: role })
    })
    afterAll(async () => {
      await server?.stop()
    })

    it("answers /health alive and /ready ready without a key, listing the background loops a worker runs", async () => {
      const health = await fetch(`${server.baseUrl}/health`)
      expect(health.status).toBe(200)
      expect(await health.json()).toEqual({ status: "ok" })
      const ready = await fetch(`${server.baseUrl}/ready`)
      expect(ready.status).toBe(200)
      const loops =
        role === "api"
          ? {}
          : {
              publisher: "running",
              permalink_backfill: "running",
              dispatcher: "running",
              log_pruner: "running",
              token_renewal: "running",
              comment_polling: "running",
              media_jobs: "running",
              table_statistics: "running"
            }
      expect(await ready.json()).toEqual({ status: "ready", loops })
    })
  })
})

const postgres = backends().filter((backend) => backend === "postgres")

describe.each(postgres)("GET /ready on a database migrated by a newer version (%s)", () => {
  let database: TestDatabase
  let server: TestServer
  let schema: string
  const onSchema = (statement: string) =>
    Effect.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql.unsafe(statement)
      }).pipe(Effect.provide(layerPostgres(process.env.DATABASE_URL ?? "", { maxConnections: 1, searchPath: schema })))
    )

  beforeAll(async () => {
    database = await aDatabase("postgres")
    server = await startServer("postgres", { POSTWIRE_ROLE: "worker" }, { database })
    schema = database.schema ?? ""
  })
  afterAll(async () => {
    await server?.stop()
    await database?.drop()
  })

  it("answers 503 not_ready in the shared shape while the schema holds a migration it does not know, and ready again once it is gone", async () => {
    await onSchema("INSERT INTO postwire_migrations (migration_id, name) VALUES (9999, 'from_a_newer_version')")
    const notReady = await fetch(`${server.baseUrl}/ready`)
    expect(notReady.status).toBe(503)
    const body = (await notReady.json()) as { error: { code: string; message: string; retryable: boolean } }
    expect(Object.keys(body)).toEqual(["error"])
    expect(body.error.code).toBe("not_ready")
    expect(body.error.retryable).toBe(true)
    expect(body.error.message).toBe("This instance is not ready: its database was migrated by a newer version (9999_from_a_newer_version).")
    const inIndonesian = await fetch(`${server.baseUrl}/ready`, { headers: { "accept-language": "id" } })
    expect(((await inIndonesian.json()) as { error: { message: string } }).error.message).toContain("belum siap")

    await onSchema("DELETE FROM postwire_migrations WHERE migration_id = 9999")
    const ready = await fetch(`${server.baseUrl}/ready`)
    expect(ready.status).toBe(200)
  })
})
