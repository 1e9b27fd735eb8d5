/**
 * An instance whose PostgreSQL stops answering (a TCP proxy between them swallows every byte):
 * `/ready` says so within its limit, `/health` stays 200, and an API call answers a retryable 503
 * `service_unavailable` in the shared shape (not a 500), all while the database is gone; once it
 * answers again, the instance is ready again.
 */
import { Effect, Exit, Layer, Scope } from "effect"
import { layerPostgres } from "@postwire/store-sql"
import { sqlStores } from "@postwire/server"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as FaultProxy from "../support/FaultProxy.ts"
import { eventually } from "../support/Eventually.ts"
import { call } from "../support/Http.ts"
import { onPostgres } from "../support/Postgres.ts"
import { aDatabase, startServer, type TestDatabase, type TestServer } from "../support/TestServer.ts"

/** A bounded wait for an answer: a request still unanswered after `ms` fails the test. */
const get = (url: string, ms: number) => fetch(url, { signal: AbortSignal.timeout(ms) })

onPostgres("an instance whose database stops answering", (url) => {
  describe("an instance whose database stops answering", () => {
    const scope = Effect.runSync(Scope.make())
    let proxy: FaultProxy.DatabaseProxy
    let database: TestDatabase
    let server: TestServer
    beforeAll(async () => {
      proxy = await Effect.runPromise(Scope.provide(FaultProxy.scoped(url), scope))
      const real = await aDatabase("postgres")
      // A statement limit well above /ready's 2 s: /ready must not wait for the client to give up.
      const stores = () =>
        sqlStores.pipe(Layer.provide(layerPostgres(proxy.url, { searchPath: real.schema, statementTimeoutMs: 12_000 })))
      database = { ...real, stores }
      server = await startServer("postgres", { POSTWIRE_ROLE: "api" }, { database })
    })
    afterAll(async () => {
      proxy?.forward()
      await server?.stop()
      await database?.drop()
      await Effect.runPromise(Scope.close(scope, Exit.void))
    })

    it("answers /ready 503 within its limit, /health 200, and API calls 503 service_unavailable, then ready again", async () => {
      expect((await get(`${server.baseUrl}/ready`, 10_000)).status).toBe(200)
      expect((await call(server.baseUrl, "GET", "/v1/posts", { key: server.testKey })).status).toBe(200)

      proxy.swallow()
      expect((await get(`${server.baseUrl}/health`, 10_000)).status).toBe(200)
      // Well under the client's own limit (12 s + 2 s): only /ready's own limit can answer this soon.
      const notReady = await get(`${server.baseUrl}/ready`, 8_000)
      expect(notReady.status).toBe(503)
      const reason = ((await notReady.json()) as { error: { code: string; message: string } }).error
      expect(reason.code).toBe("not_ready")
      expect(reason.message).toMatch(/^This instance is not ready: its database gave no answer within \d+ ms\.$/)

      const refused = await call(server.baseUrl, "GET", "/v1/posts", { key: server.testKey, headers: { "accept-language": "id" } })
      expect(refused.status).toBe(503)
      expect(Object.keys(refused.body)).toEqual(["error"])
      expect(refused.body.error.code).toBe("service_unavailable")
      expect(refused.body.error.retryable).toBe(true)
      expect(refused.body.error.message).toContain("basis data")

      proxy.forward()
      await eventually(async () => (await get(`${server.baseUrl}/ready`, 10_000)).status, (status) => status === 200, "/ready to answer 200", {
        intervalMs: 100
      })
    })
  })
})
