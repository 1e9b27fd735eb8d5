/**
 * The analytics tools an agent calls, `get_post_metrics` and `get_analytics`, through the official
 * MCP client against a real server: what they are described as, the scope they need, how a bad
 * argument is refused, and the API's numbers passed through unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call } from "../support/Http.ts"
import { aKeyWithScopes } from "../support/Builders.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { callTool, type Connected, connectHttp, resultOf, toolErrorOf } from "./McpClients.ts"

describe("MCP analytics tools", () => {
  let server: TestServer
  let agent: Connected
  beforeAll(async () => {
    server = await startServer("embedded")
    agent = await connectHttp(server.baseUrl, { key: server.testKey })
  })
  afterAll(async () => {
    await agent?.close()
    await server?.stop()
  })

  it("lists both as read-only tools that name their scope, with the contract's filters as arguments", async () => {
    const { tools } = await agent.client.listTools()
    const metrics = tools.find((t) => t.name === "get_post_metrics")!
    const analytics = tools.find((t) => t.name === "get_analytics")!
    for (const tool of [metrics, analytics]) {
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, openWorldHint: false })
      expect(tool.description).toContain("Needs scope analytics:read")
    }
    expect(metrics.inputSchema.required).toEqual(["id"])
    expect(metrics.inputSchema.properties?.series).toMatchObject({ type: "boolean" })
    expect(Object.keys(analytics.inputSchema.properties ?? {}).sort()).toEqual(
      ["account_id", "cursor", "from", "limit", "platform", "profile_id", "time_zone", "to"].sort()
    )
    expect(analytics.description).toMatch(/time_zone/)
    expect(Object.keys(analytics.outputSchema?.properties ?? {})).toEqual(expect.arrayContaining(["totals", "series", "data", "cursor"]))
  })

  it("answers a key without analytics:read with insufficient_scope naming it", async () => {
    const reader = await connectHttp(server.baseUrl, { key: await aKeyWithScopes(server, ["posts:read"]) })
    try {
      for (const [tool, args] of [
        ["get_analytics", {}],
        ["get_post_metrics", { id: "post_01JD0000000000000000000000" }]
      ] as const) {
        const error = toolErrorOf(await callTool(reader.client, tool, args))
        expect(error, tool).toMatchObject({ code: "insufficient_scope", status: 403, retryable: false })
        expect(error.message).toContain("analytics:read")
      }
    } finally {
      await reader.close()
    }
  })

  it("names the argument an agent got wrong", async () => {
    expect(toolErrorOf(await callTool(agent.client, "get_post_metrics", {}))).toMatchObject({ code: "invalid_request", field: "id" })
    expect(toolErrorOf(await callTool(agent.client, "get_post_metrics", { id: "post_01JD0000000000000000000000", series: "yes" }))).toMatchObject({
      code: "invalid_request",
      field: "series"
    })
    expect(toolErrorOf(await callTool(agent.client, "get_analytics", { from: "2026-02-30" }))).toMatchObject({
      code: "invalid_request",
      field: "from"
    })
    expect(toolErrorOf(await callTool(agent.client, "get_analytics", { time_zone: "Mars/Olympus" }))).toMatchObject({
      code: "invalid_request",
      field: "time_zone"
    })
  })

  it("answers get_analytics with what GET /v1/analytics answers for the same filters", async () => {
    const query = { profile_id: server.profileId, time_zone: "Asia/Jakarta", from: "2026-11-01", to: "2026-11-30" }
    const api = await call(server.baseUrl, "GET", `/v1/analytics?${new URLSearchParams(query)}`, { key: server.testKey })
    expect(api.status).toBe(200)
    const tool = resultOf(await callTool(agent.client, "get_analytics", query))
    expect(tool).toEqual(api.body)
    expect(tool).toMatchObject({ from: "2026-11-01", to: "2026-11-30", time_zone: "Asia/Jakarta" })
    expect(tool.series).toHaveLength(30)
  })
})
