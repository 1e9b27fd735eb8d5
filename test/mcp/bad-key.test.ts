/**
 * A key the API refuses is refused by the tool server at `/mcp` in HTTP, with 401 (issue #37,
 * F10), not as a JSON-RPC result with `isError`: with the official MCP client, a key revoked in
 * the middle of a session, and a session carried on with another, wrong key.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aKeyWithScopes } from "../support/Builders.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"
import { callTool, connectHttp, resultOf } from "./McpClients.ts"

describe.each(backends())("the tool server's answer to a refused key on %s", (backend) => {
  let server: TestServer

  beforeAll(async () => {
    server = await startServer(backend)
  })
  afterAll(() => server?.stop())

  it("is HTTP 401 once the session's key is revoked", async () => {
    const key = await aKeyWithScopes(server, ["posts:read", "posts:write"])
    const agent = await connectHttp(server.baseUrl, { key })
    try {
      expect(resultOf(await callTool(agent.client, "list_profiles"))).toBeDefined()
      const keys = await fetch(`${server.baseUrl}/admin/v1/workspaces/${server.workspaceId}/keys`, {
        headers: { authorization: `Bearer ${server.adminToken}` }
      }).then((r) => r.json() as Promise<{ data: Array<{ id: string; last4: string; revoked_at: string | null }> }>)
      const id = keys.data.find((k) => k.last4 === key.slice(-4) && k.revoked_at === null)!.id
      await server.admin(`/workspaces/${server.workspaceId}/keys/${id}/revoke`, {})

      await expect(agent.client.callTool({ name: "list_profiles", arguments: {} })).rejects.toThrow(/401|unauthorized/)
    } finally {
      await agent.close().catch(() => undefined)
    }
  })

  it("is HTTP 401, in the API's error shape, when a session goes on with a wrong key", async () => {
    const agent = await connectHttp(server.baseUrl, { key: server.testKey })
    try {
      const session = agent.transport.sessionId!
      const reply = await fetch(`${server.baseUrl}/mcp`, {
        method: "POST",
        headers: {
          authorization: "Bearer svc_test_thisKeyDoesNotExist000000000000",
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": session,
          "mcp-protocol-version": agent.transport.protocolVersion ?? "2025-11-25"
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "list_profiles", arguments: {} } })
      })
      expect(reply.status).toBe(401)
      expect(reply.headers.get("www-authenticate")).toMatch(/^Bearer/)
      expect(((await reply.json()) as { error: { code: string } }).error.code).toBe("unauthorized")
    } finally {
      await agent.close().catch(() => undefined)
    }
  })
})
