/**
 * A revoked key is refused by every instance within a second (issue #37, F10), over real HTTP:
 * two servers on one database, the key used on the second (so it has it cached), revoked
 * through the first; the second's clock moves on a second and the key is refused there too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aKeyWithScopes } from "../support/Builders.ts"
import { call, errorOf } from "../support/Http.ts"
import { aMovableClock } from "../support/MovableClock.ts"
import { onPostgres } from "../support/Postgres.ts"
import { aDatabase, startServer, type TestDatabase, type TestServer } from "../support/TestServer.ts"

// Instances share a database only on PostgreSQL: the embedded one belongs to one process, whose
// admin API forgets a revoked key at once (test/api/auth.test.ts).
onPostgres("key revocation across instances", () => describe("key revocation across instances on PostgreSQL", () => {
  const backend = "postgres" as const
  let database: TestDatabase
  let first: TestServer
  let second: TestServer
  const time = aMovableClock()

  beforeAll(async () => {
    database = await aDatabase(backend)
    first = await startServer(backend, {}, { database })
    second = await startServer(backend, {}, { database, clock: time.clock })
  })
  afterAll(async () => {
    await second?.stop()
    await first?.stop()
    await database?.drop()
  })

  it("is seen by an instance that had the key cached once a second has passed", async () => {
    const key = await aKeyWithScopes(first, ["posts:read"])
    expect((await call(second.baseUrl, "GET", "/v1/posts", { key })).status).toBe(200)

    const keys = await call(first.baseUrl, "GET", `/admin/v1/workspaces/${first.workspaceId}/keys`, { key: first.adminToken })
    const id = (keys.body.data as Array<{ id: string; last4: string }>).find((k) => k.last4 === key.slice(-4))!.id
    const revoked = await call(first.baseUrl, "POST", `/admin/v1/workspaces/${first.workspaceId}/keys/${id}/revoke`, {
      key: first.adminToken,
      body: {}
    })
    expect(revoked.status).toBe(200)
    expect((await call(first.baseUrl, "GET", "/v1/posts", { key })).status).toBe(401)

    time.advance(1_000)
    const refused = await call(second.baseUrl, "GET", "/v1/posts", { key })
    expect(refused.status).toBe(401)
    expect(errorOf(refused).code).toBe("unauthorized")
  })
}))
