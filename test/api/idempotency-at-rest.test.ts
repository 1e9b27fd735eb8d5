/**
 * Stored idempotent responses at rest: a create's answer holds its approval link, and the
 * `idempotency_keys` table must not give that link's token to whoever reads the database.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { anOpenDatabase, type OpenDatabase } from "../secrets/LegacyDatabase.ts"
import { aPost, anImage } from "../support/Builders.ts"
import { call } from "../support/Http.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"

describe.each(backends())("stored idempotent responses at rest on %s", (backend) => {
  let database: OpenDatabase
  let server: TestServer | undefined
  let firstAnswer: Record<string, unknown> = {}

  beforeAll(async () => {
    database = await anOpenDatabase(backend)
  })
  afterAll(async () => {
    await server?.stop()
    await database?.drop()
  })

  it("holds no approval token in idempotency_keys, and the replay still answers the same approval link", async () => {
    server = await startServer(backend, {}, { database })
    const image = await anImage(server)
    const create = () =>
      call(server!.baseUrl, "POST", "/v1/posts", {
        key: server!.testKey,
        body: aPost(server!, [image]),
        headers: { "idempotency-key": "sealed-at-rest" }
      })
    const first = await create()
    expect(first.status).toBe(201)
    const url: string = first.body.approval.url
    const token = url.slice(url.lastIndexOf("/") + 1)
    expect(token.length).toBeGreaterThanOrEqual(32)
    const replayed = await create()
    expect(replayed.headers.get("idempotent-replayed")).toBe("true")
    expect(replayed.body.approval.url).toBe(url)
    await server.stop()
    server = undefined

    const rows = await database.run(
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ readonly body: string | null }>`SELECT body FROM idempotency_keys`)
    )
    const bodies = rows.map((row) => row.body ?? "")
    // The create's response is stored (besides the image upload's, sent without a key).
    expect(bodies.filter((body) => body !== "")).toHaveLength(1)
    for (const body of bodies) {
      expect(body).not.toContain(token)
      expect(body).not.toContain(first.body.id)
    }
    firstAnswer = first.body
  })

  it("still replays a response stored in clear by an earlier version", async () => {
    // As a version before sealing left it: the create's answer as JSON.
    const legacy = JSON.stringify({ ...firstAnswer, caption: "stored in clear" })
    await database.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE idempotency_keys SET body = ${legacy} WHERE body IS NOT NULL`))
    server = await startServer(backend, {}, { database })
    const image = (firstAnswer.media as ReadonlyArray<string>)[0]!
    const replayed = await call(server.baseUrl, "POST", "/v1/posts", {
      key: server.testKey,
      body: aPost(server, [image]),
      headers: { "idempotency-key": "sealed-at-rest" }
    })
    expect(replayed.status).toBe(201)
    expect(replayed.headers.get("idempotent-replayed")).toBe("true")
    expect(replayed.body).toEqual({ ...firstAnswer, caption: "stored in clear" })
  })
})
