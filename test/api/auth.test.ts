import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aKeyWithScopes, anotherWorkspace, aPost, anImage } from "../support/Builders.ts"
import { call, errorOf } from "../support/Http.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"

interface Endpoint {
  readonly method: string
  readonly path: (ids: Ids) => string
  readonly scope: string
  readonly body?: (ids: Ids) => unknown
  /** Whether the path names a resource that another workspace must not see. */
  readonly owned: boolean
}
interface Ids {
  readonly post: string
  readonly media: string
  readonly account: string
  readonly server: TestServer
}

const endpoints: ReadonlyArray<Endpoint> = [
  { method: "POST", path: () => "/v1/posts", scope: "posts:write", body: (i) => aPost(i.server, [i.media]), owned: false },
  { method: "POST", path: () => "/v1/posts/validate", scope: "posts:write", body: (i) => aPost(i.server, [i.media]), owned: false },
  { method: "GET", path: () => "/v1/posts", scope: "posts:read", owned: false },
  { method: "GET", path: (i) => `/v1/posts/${i.post}`, scope: "posts:read", owned: true },
  { method: "PATCH", path: (i) => `/v1/posts/${i.post}`, scope: "posts:write", body: () => ({ caption: "x" }), owned: true },
  { method: "POST", path: (i) => `/v1/posts/${i.post}/cancel`, scope: "posts:write", owned: true },
  { method: "POST", path: (i) => `/v1/posts/${i.post}/retry`, scope: "posts:write", owned: true },
  { method: "GET", path: () => "/v1/accounts", scope: "posts:read", owned: false },
  { method: "GET", path: (i) => `/v1/accounts/${i.account}`, scope: "posts:read", owned: true },
  { method: "GET", path: () => "/v1/profiles", scope: "posts:read", owned: false },
  { method: "GET", path: (i) => `/v1/media/${i.media}`, scope: "posts:read", owned: true },
  { method: "POST", path: () => "/v1/media", scope: "posts:write", body: () => ({ data: "AAAA" }), owned: false }
]

describe.each(backends())("authentication and scopes on %s", (backend) => {
  let server: TestServer
  let ids: Ids
  let readOnly: string
  let writeOnly: string
  let webhooksOnly: string
  let foreign: Awaited<ReturnType<typeof anotherWorkspace>>

  beforeAll(async () => {
    server = await startServer(backend)
    const media = await anImage(server)
    const created = await call(server.baseUrl, "POST", "/v1/posts", { key: server.testKey, body: aPost(server, [media]) })
    ids = { post: created.body.id, media, account: server.accounts[0]!.id, server }
    readOnly = await aKeyWithScopes(server, ["posts:read"])
    writeOnly = await aKeyWithScopes(server, ["posts:write"])
    webhooksOnly = await aKeyWithScopes(server, ["webhooks:write"])
    foreign = await anotherWorkspace(server)
  })
  afterAll(() => server?.stop())

  describe.each(endpoints)("$method $scope", (endpoint) => {
    const send = (key: string | undefined, headers?: Record<string, string>) =>
      call(server.baseUrl, endpoint.method, endpoint.path(ids), {
        key,
        ...(endpoint.body ? { body: endpoint.body(ids) } : {}),
        ...(headers ? { headers } : {})
      })

    it("answers 401 unauthorized without a key", async () => {
      const reply = await send(undefined)
      expect(reply.status).toBe(401)
      expect(errorOf(reply)).toMatchObject({ code: "unauthorized", retryable: false })
    })

    it("answers 401 unauthorized for an unknown key, in Indonesian when asked", async () => {
      const reply = await send("svc_test_notARealKey", { "accept-language": "id-ID,id;q=0.9" })
      expect(reply.status).toBe(401)
      const error = errorOf(reply)
      expect(error.code).toBe("unauthorized")
      expect(error.message).toBe(error.message_id)
      expect(error.message_id).toBe("Kunci API tidak ada atau tidak valid.")
    })

    it("answers 403 insufficient_scope for a key without the endpoint's scope", async () => {
      const lacking = endpoint.scope === "posts:read" ? writeOnly : readOnly
      for (const key of [lacking, webhooksOnly]) {
        const reply = await send(key)
        expect(reply.status).toBe(403)
        const error = errorOf(reply)
        expect(error.code).toBe("insufficient_scope")
        expect(error.message).toContain(endpoint.scope)
      }
    })
  })

  describe.each(endpoints.filter((e) => e.owned))("$method of another workspace's resource", (endpoint) => {
    it("answers 404 not_found", async () => {
      const reply = await call(server.baseUrl, endpoint.method, endpoint.path(ids), {
        key: foreign.key,
        ...(endpoint.body ? { body: endpoint.body(ids) } : {})
      })
      expect(reply.status).toBe(404)
      expect(errorOf(reply).code).toBe("not_found")
    })
  })
  it("refuses a key from the request right after the admin API revoked it, though it was just used", async () => {
    const created = await server.admin<{ id: string; key: string }>(`/workspaces/${server.workspaceId}/keys`, {
      kind: "test",
      scopes: ["posts:read"]
    })
    // Used once, so this instance has looked it up and holds it.
    expect((await call(server.baseUrl, "GET", "/v1/posts", { key: created.key })).status).toBe(200)
    const revoked = await server.admin<{ id: string; revoked_at: string | null }>(
      `/workspaces/${server.workspaceId}/keys/${created.id}/revoke`,
      {}
    )
    expect(revoked.revoked_at).not.toBeNull()
    const reply = await call(server.baseUrl, "GET", "/v1/posts", { key: created.key })
    expect(reply.status).toBe(401)
    expect(errorOf(reply).code).toBe("unauthorized")
    // The workspace's other keys are untouched.
    expect((await call(server.baseUrl, "GET", "/v1/posts", { key: readOnly })).status).toBe(200)
  })
})
