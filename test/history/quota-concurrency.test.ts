/**
 * Two creates at once can never together exceed an account's quota: each counts the quota again
 * under the account's lock, in the transaction that inserts (the post is written first, then the
 * accounts locked and counted, and a full cap rolls the post back). On PostgreSQL the requests
 * really run side by side on a pool of connections.
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
  it.each([
    ["alone", false],
    ["under Idempotency-Keys (inside the key's transaction)", true]
  ] as const)("holds %s with posts on two capped accounts: the refused leave no post", async (_, withKeys) => {
    const account = (quota: number) =>
      server.admin(`/workspaces/${server.workspaceId}/accounts`, {
        profile_id: server.profileId,
        platform: "photo",
        sandbox: true,
        daily_quota: quota
      })
    const roomy = await account(5)
    const tight = await account(2)
    // Two targets each, on both accounts: the tighter one decides, and its lock is taken with the other's.
    const body = aPost(server, [image], {
      targets: [{ account_id: roomy.id }, { account_id: tight.id }],
      approval: { mode: "none" }
    })
    const keys = Array.from({ length: 8 }, (_, i) => `quota-race-${Date.now()}-${i}`)
    const send = (key: string) =>
      call(server.baseUrl, "POST", "/v1/posts", { key: server.testKey, body, ...(withKeys ? { headers: { "idempotency-key": key } } : {}) })
    const replies = await Promise.all(keys.map(send))
    const statuses = replies.map((reply) => reply.status).sort()
    expect(statuses, JSON.stringify(replies.filter((r) => r.status !== 201 && r.status !== 422).map((r) => r.body))).toEqual([201, 201, 422, 422, 422, 422, 422, 422])
    for (const refused of replies.filter((reply) => reply.status === 422)) {
      expect(errorOf(refused)).toMatchObject({ code: "quota_exceeded", field: "targets[1].account_id" })
    }
    // The refused creates' posts were rolled back: only the two created are listed for the accounts.
    const listed = await call(server.baseUrl, "GET", "/v1/posts?limit=100", { key: server.testKey })
    const onTight = (listed.body as { data: ReadonlyArray<{ id: string; targets: ReadonlyArray<{ account_id: string }> }> }).data
      .filter((post) => post.targets.some((target) => target.account_id === tight.id))
      .map((post) => post.id)
      .sort()
    expect(onTight).toEqual(replies.filter((r) => r.status === 201).map((r) => (r.body as { id: string }).id).sort())
    for (const [id, used, limit] of [[roomy.id, 2, 5], [tight.id, 2, 2]] as const) {
      const shown = await call(server.baseUrl, "GET", `/v1/accounts/${id}`, { key: server.testKey })
      expect(shown.body.quota).toMatchObject({ used, limit })
    }
    if (withKeys) {
      // A refused request's key was released, not stored: sent again, it is decided again (still full).
      const again = await send(keys[replies.findIndex((r) => r.status === 422)]!)
      expect(again.status).toBe(422)
      expect(again.headers.get("idempotent-replayed")).toBeNull()
    }
  })
})
