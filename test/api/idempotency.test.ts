import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aPost, anImage } from "../support/Builders.ts"
import { call, errorOf } from "../support/Http.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"

describe.each(backends())("Idempotency-Key on %s", (backend) => {
  let server: TestServer
  let image: string
  const create = (body: unknown, key: string, apiKey = server.testKey) =>
    call(server.baseUrl, "POST", "/v1/posts", { key: apiKey, body, headers: { "idempotency-key": key } })
  const count = async () => (await call(server.baseUrl, "GET", "/v1/posts?limit=100", { key: server.testKey })).body.data.length

  beforeAll(async () => {
    server = await startServer(backend)
    image = await anImage(server)
  })
  afterAll(() => server?.stop())

  it("replays the first response for the same key and body, creating one post", async () => {
    const before = await count()
    const first = await create(aPost(server, [image]), "same-body")
    const second = await create(aPost(server, [image]), "same-body")
    expect(first.status).toBe(201)
    expect(second.status).toBe(201)
    expect(second.body).toEqual(first.body)
    expect(second.headers.get("idempotent-replayed")).toBe("true")
    expect(first.headers.get("idempotent-replayed")).toBeNull()
    expect(await count()).toBe(before + 1)
  })

  it.each([
    ["an empty", ""],
    ["a blank", "   "]
  ])("refuses %s Idempotency-Key with a 400 naming the header, and creates nothing (it is never silently ignored)", async (_, key) => {
    const before = await count()
    const replies = [await create(aPost(server, [image]), key), await create(aPost(server, [image]), key)]
    for (const reply of replies) {
      expect(reply.status).toBe(400)
      expect(errorOf(reply)).toMatchObject({ code: "invalid_request", field: "Idempotency-Key", message: "The request is invalid at Idempotency-Key: must not be empty" })
    }
    expect(await count()).toBe(before)
  })

  it("treats bodies that differ only in key order as the same request", async () => {
    const body = aPost(server, [image])
    const reordered = Object.fromEntries(Object.entries(body).reverse())
    const first = await create(body, "key-order")
    const second = await create(reordered, "key-order")
    expect(second.status).toBe(201)
    expect(second.body.id).toBe(first.body.id)
  })

  it("answers 409 idempotency_conflict for the same key with another body", async () => {
    await create(aPost(server, [image]), "other-body")
    const reply = await create(aPost(server, [image], { caption: "different" }), "other-body")
    expect(reply.status).toBe(409)
    expect(errorOf(reply)).toMatchObject({ code: "idempotency_conflict", retryable: false })
  })

  it("scopes keys to the API key: another key may reuse the same Idempotency-Key", async () => {
    const otherKey = (await server.admin<{ key: string }>(`/workspaces/${server.workspaceId}/keys`, {
      kind: "test",
      scopes: ["posts:write"]
    })).key
    const mine = await create(aPost(server, [image]), "shared-name")
    const theirs = await create(aPost(server, [image]), "shared-name", otherKey)
    expect(theirs.status).toBe(201)
    expect(theirs.body.id).not.toBe(mine.body.id)
  })

  it("creates exactly one post under concurrent requests with one key", async () => {
    const before = await count()
    const replies = await Promise.all(Array.from({ length: 6 }, () => create(aPost(server, [image]), "concurrent")))
    const created = replies.filter((r) => r.status === 201)
    const inProgress = replies.filter((r) => r.status === 409)
    expect(created.length + inProgress.length).toBe(6)
    expect(created.length).toBeGreaterThanOrEqual(1)
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1)
    for (const r of inProgress) expect(errorOf(r).code).toBe("idempotency_in_progress")
    expect(await count()).toBe(before + 1)
  })

  it("does not store a failed request: the same key succeeds once the body is fixed", async () => {
    const bad = await create(aPost(server, ["med_00000000000000000000000000"]), "fix-and-retry")
    expect(bad.status).toBe(400)
    const again = await create(aPost(server, ["med_00000000000000000000000000"]), "fix-and-retry")
    expect(again.status).toBe(400)
    expect(again.headers.get("idempotent-replayed")).toBeNull()
  })
})
