/**
 * Two creates at once can never together exceed an account's quota: each counts the quota again
 * under the account's lock, in the transaction that inserts. On PostgreSQL the requests really
 * run side by side on a pool of connections.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { anImage, aPost } from "../support/Builders.ts"
import { call, errorOf } from "../support/Http.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"

describe.each(backends())("concurrent creates against a quota on %s", (backend) => {
  let server: TestServer
  let image: string

  beforeAll(async () => {
    server = await startServer(backend, {
      POSTWIRE_RATE_LIMIT_PER_KEY: "100000",
      POSTWIRE_RATE_LIMIT_POSTS_CREATE: "100000"
    })
    image = await anImage(server)
  })
  afterAll(() => server?.stop())

  it("accepts exactly the quota's worth of simultaneous creates and refuses the rest", async () => {
    const limited = await server.admin(`/workspaces/${server.workspaceId}/accounts`, {
      profile_id: server.profileId,
      platform: "photo",
      sandbox: true,
      daily_quota: 3
    })
    const body = aPost(server, [image], { targets: [{ account_id: limited.id }], approval: { mode: "none" } })
    const replies = await Promise.all(
      Array.from({ length: 10 }, () => call(server.baseUrl, "POST", "/v1/posts", { key: server.testKey, body }))
    )
    const statuses = replies.map((reply) => reply.status).sort()
    expect(statuses, JSON.stringify(replies.filter((r) => r.status !== 201 && r.status !== 422).map((r) => r.body))).toEqual([201, 201, 201, 422, 422, 422, 422, 422, 422, 422])
    for (const refused of replies.filter((reply) => reply.status === 422)) {
      expect(errorOf(refused)).toMatchObject({ code: "quota_exceeded", field: "targets[0].account_id" })
    }
    const account = await call(server.baseUrl, "GET", `/v1/accounts/${limited.id}`, { key: server.testKey })
    expect(account.body.quota).toMatchObject({ used: 3, limit: 3 })
  })
})
