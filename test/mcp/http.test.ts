/**
 * The tool server at `/mcp` of `postwire serve`, driven by the official MCP TypeScript SDK's
 * client over Streamable HTTP, against a real server on loopback.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { Ajv } from "ajv"
import addFormatsModule from "ajv-formats"
import { aPng } from "../support/Media.ts"
import { ErrorCatalog, errorCodes, platforms } from "@postwire/domain"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { accountOf, aKeyWithScopes, anImage, anotherWorkspace, aPost, aVideo } from "../support/Builders.ts"
import { eventually } from "../support/Eventually.ts"
import { call, inOneRateLimitWindow } from "../support/Http.ts"
import { aDatabase, backends, startServer, type TestServer } from "../support/TestServer.ts"
import { aMovableClock } from "../support/MovableClock.ts"
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { approvalLinkMailed, callTool, type Connected, connectHttp, resultOf, textOf, toolErrorOf } from "./McpClients.ts"

// A CommonJS module: under Node's ESM its default import is the plugin function itself.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

const toolNames = [
  "list_profiles",
  "list_accounts",
  "get_account",
  "upload_media",
  "validate_post",
  "create_post",
  "list_posts",
  "get_post",
  "update_post",
  "cancel_post",
  "retry_post",
  "list_comments",
  "reply_to_comment",
  "hide_comment",
  "get_post_metrics",
  "get_analytics",
  "explain_error"
]

const initializeBody = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "curl", version: "1" } }
}
const mcpHeaders = { accept: "application/json, text/event-stream" }

const settled = (post: any) => post.targets.every((t: any) => ["published", "failed", "cancelled", "rejected"].includes(t.status))

describe.each(backends())("tool server over Streamable HTTP on %s", (backend) => {
  let server: TestServer
  let agent: Connected & { transport: StreamableHTTPClientTransport }
  let image: string

  beforeAll(async () => {
    server = await startServer(backend)
    image = await anImage(server)
    agent = await connectHttp(server.baseUrl, { key: server.testKey })
  })
  afterAll(async () => {
    await agent?.close()
    await server?.stop()
  })

  describe("connecting", () => {
    it("initializes with the official client, negotiating 2025-11-25 with tools and resources", async () => {
      const { client, transport } = agent
      expect(client.getServerVersion()).toEqual({ name: "postwire", version: "0.1.0" })
      expect(transport.protocolVersion).toBe("2025-11-25")
      expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {} })
      expect(client.getInstructions()).toMatch(/approval/)
      // The session lives in its id, not in the instance that issued it.
      expect(transport.sessionId).toMatch(/^pw1\.[A-Za-z0-9_-]+$/)
    })

    it("answers 401 in the API's error shape to a request without a key", async () => {
      const reply = await call(server.baseUrl, "POST", "/mcp", { body: initializeBody, headers: mcpHeaders })
      expect(reply.status).toBe(401)
      expect(reply.headers.get("www-authenticate")).toMatch(/^Bearer/)
      expect(reply.body).toEqual({
        error: {
          code: "unauthorized",
          message: "The API key is missing or invalid.",
          message_id: "Kunci API tidak ada atau tidak valid.",
          retryable: false,
          docs: expect.stringMatching(/\/docs\/errors#unauthorized$/),
          request_id: reply.headers.get("x-request-id")
        }
      })
      await expect(connectHttp(server.baseUrl)).rejects.toThrow(/"code":"unauthorized"/)
      const notAKey = await call(server.baseUrl, "POST", "/mcp", {
        body: initializeBody,
        headers: { ...mcpHeaders, authorization: "Bearer kunci-rahasia-é" }
      })
      expect(notAKey.status).toBe(401)
      expect(notAKey.body.error.code).toBe("unauthorized")
    })

    it("refuses to initialize with a key the API rejects", async () => {
      const reply = await call(server.baseUrl, "POST", "/mcp", {
        key: "svc_test_thisKeyDoesNotExist000000000000",
        body: initializeBody,
        headers: mcpHeaders
      })
      expect(reply.status).toBe(401)
      expect(reply.body.error).toMatchObject({ code: "unauthorized", retryable: false })
    })

    it("answers 404 to a session id it did not issue, so the client initializes again", async () => {
      const reply = await call(server.baseUrl, "POST", "/mcp", {
        key: server.testKey,
        body: { jsonrpc: "2.0", id: 2, method: "tools/list" },
        headers: { ...mcpHeaders, "mcp-session-id": "0b5d7c1e-session-of-another-server", "mcp-protocol-version": "2025-11-25" }
      })
      expect(reply.status).toBe(404)
    })

    it("refuses requests from browser pages (an Origin header) with 403", async () => {
      const reply = await call(server.baseUrl, "POST", "/mcp", {
        key: server.testKey,
        body: initializeBody,
        headers: { ...mcpHeaders, origin: "https://evil.example.com" }
      })
      expect(reply.status).toBe(403)
    })

    it("ends a session when the client asks, with nothing kept to forget", async () => {
      const short = await connectHttp(server.baseUrl, { key: server.testKey })
      const id = short.transport.sessionId
      await short.transport.terminateSession()
      expect(short.transport.sessionId).toBeUndefined()
      await short.close()
      // The id still describes a session: any instance can serve it (nothing was stored).
      const reply = await call(server.baseUrl, "DELETE", "/mcp", {
        key: server.testKey,
        headers: { "mcp-session-id": String(id), "mcp-protocol-version": "2025-11-25" }
      })
      expect(reply.status).toBe(204)
    })

    it("has no server-initiated stream: GET is 405", async () => {
      const reply = await call(server.baseUrl, "GET", "/mcp", { key: server.testKey, headers: { accept: "text/event-stream" } })
      expect(reply.status).toBe(405)
      expect(reply.headers.get("allow")).toBe("POST, DELETE")
    })
  })

  describe("tools/list", () => {
    it("lists every tool with valid JSON Schemas for input and output, and honest hints", async () => {
      const { tools } = await agent.client.listTools()
      expect(tools.map((t) => t.name)).toEqual(toolNames)
      // docs/mcp.md's table lists exactly the tools the server has, in the same order.
      const documented = [...readFileSync(join(import.meta.dirname, "../../docs/mcp.md"), "utf8").matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1])
      expect(documented).toEqual(toolNames)
      // Strict, with the standard formats (`date-time`, `email`, `uri`): the MCP SDK's own
      // validator adds them too, and the schemas use them to tell agents what a string holds.
      const ajv = new Ajv({ strict: true, allErrors: true })
      addFormats(ajv)
      for (const tool of tools) {
        expect(tool.description?.length, tool.name).toBeGreaterThan(40)
        expect(tool.inputSchema.type).toBe("object")
        expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow()
        expect(tool.outputSchema?.type).toBe("object")
        expect(() => ajv.compile(tool.outputSchema ?? {}), tool.name).not.toThrow()
      }
      const hints = Object.fromEntries(tools.map((t) => [t.name, t.annotations]))
      for (const name of ["list_profiles", "list_accounts", "get_account", "validate_post", "list_posts", "get_post", "list_comments", "get_post_metrics", "get_analytics", "explain_error"]) {
        expect(hints[name], name).toMatchObject({ readOnlyHint: true, destructiveHint: false })
      }
      expect(hints.create_post).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true })
      expect(hints.cancel_post).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true })
      expect(hints.update_post).toMatchObject({ readOnlyHint: false, destructiveHint: true })
    })

    it("tells the model that a person approves, and that consent is never the agent's", async () => {
      const { tools } = await agent.client.listTools()
      const create = tools.find((t) => t.name === "create_post")!
      expect(create.description).toMatch(/person must approve/)
      expect(create.description).toMatch(/Never send `consent`/)
      const approvalMode = (create.inputSchema.properties as any).approval.properties.mode
      expect(approvalMode.enum ?? [approvalMode.const]).toEqual(["link"])
      expect(JSON.stringify(create.inputSchema)).not.toContain("privacy_level")
    })
  })

  describe("accounts, profiles and media", () => {
    it("lists profiles and accounts, each account with its status and remaining quota", async () => {
      const profiles = resultOf(await callTool(agent.client, "list_profiles"))
      expect(profiles.data.map((p: any) => p.id)).toContain(server.profileId)
      const accounts = resultOf(await callTool(agent.client, "list_accounts", { profile_id: server.profileId }))
      expect(accounts.data.map((a: any) => a.platform).sort()).toEqual([...platforms].sort())
      for (const account of accounts.data) {
        expect(account.status).toBe("connected")
        expect(account.quota.remaining).toBe(account.quota.limit - account.quota.used)
      }
      const one = resultOf(await callTool(agent.client, "get_account", { id: accountOf(server, "textpost") }))
      expect(one).toMatchObject({ platform: "textpost", quota: { limit: 250, remaining: 250 } })
    })

    it("uploads base64 media, and gives the same item back when the same upload is sent again", async () => {
      const png = Buffer.from(aPng({ width: 6, height: 6 })).toString("base64")
      const first = resultOf(await callTool(agent.client, "upload_media", { data: png, filename: "six.png" }))
      expect(first).toMatchObject({ kind: "image", mime: "image/png", width: 6, height: 6, filename: "six.png" })
      const again = resultOf(await callTool(agent.client, "upload_media", { data: png, filename: "six.png" }))
      expect(again.id).toBe(first.id)
    })

    it("refuses media that is not an image or video with the API's error", async () => {
      const error = toolErrorOf(await callTool(agent.client, "upload_media", { data: Buffer.from("plain text").toString("base64") }))
      expect(error).toMatchObject({ code: "unsupported_format", status: 400, retryable: false })
    })
  })

  describe("posts", () => {
    it("validates a post without creating it, naming each problem", async () => {
      const tooLong = "x".repeat(501)
      const result = resultOf(
        await callTool(agent.client, "validate_post", aPost(server, [image], { caption: tooLong, targets: [{ account_id: accountOf(server, "textpost") }] }))
      )
      expect(result.issues).toEqual([expect.objectContaining({ code: "caption_too_long", field: "caption" })])
      const fine = resultOf(await callTool(agent.client, "validate_post", aPost(server, [image])))
      expect(fine.issues).toEqual([])
    })

    it("creates a post that waits for a person's approval; the link reaches the approver by e-mail, never the agent", async () => {
      const caption = `Waits for a person ${Math.random()}`
      const args = aPost(server, [image], { caption, approval: { notify: { email: "approver@example.com" } } })
      const answer = await callTool(agent.client, "create_post", args)
      const created = resultOf(answer)
      expect(created.status).toBe("awaiting_approval")
      expect(created.targets[0].status).toBe("awaiting_approval")
      expect(created.approval).toMatchObject({ status: "pending", url: null })
      expect(created.warnings).toEqual([])
      // Nothing the agent reads holds the link: the answer, a replay, the post, the list.
      const reads = [
        answer,
        await callTool(agent.client, "create_post", args),
        await callTool(agent.client, "get_post", { id: created.id }),
        await callTool(agent.client, "list_posts", { status: "awaiting_approval", limit: 100 })
      ]
      for (const read of reads) expect(JSON.stringify(read)).not.toMatch(/\/approve\//)
      // The approver's e-mail holds the link, and it decides this very post.
      const link = approvalLinkMailed(server, caption)
      const decided = await call(server.baseUrl, "POST", `/v1/approvals/${link.split("/").pop()}/decision`, { body: { decision: "approve" } })
      expect(decided.status).toBe(200)
      expect(decided.body.post.id).toBe(created.id)
    })

    it("returns the same post when an agent sends the same create_post again", async () => {
      const args = aPost(server, [image], { caption: `Retried by an agent ${Math.random()}` })
      const first = resultOf(await callTool(agent.client, "create_post", args))
      const second = resultOf(await callTool(agent.client, "create_post", { ...args, targets: [...args.targets] }))
      expect(second.id).toBe(first.id)
      const listed = resultOf(await callTool(agent.client, "list_posts", { status: "awaiting_approval", limit: 100 }))
      expect(listed.data.filter((p: any) => p.caption === args.caption)).toHaveLength(1)
    })

    it("refuses approval mode none: only the operator can allow it", async () => {
      const error = toolErrorOf(await callTool(agent.client, "create_post", aPost(server, [image], { approval: { mode: "none" } })))
      expect(error).toMatchObject({ code: "approval_required", field: "approval.mode", retryable: false, status: 403 })
    })

    it("routes a shortvideo direct post to the approval page, setting the agent's consent aside", async () => {
      const video = await aVideo(server, 12)
      const created = resultOf(
        await callTool(
          agent.client,
          "create_post",
          aPost(server, [video], {
            targets: [
              {
                account_id: accountOf(server, "shortvideo"),
                shortvideo: { mode: "direct", consent: { privacy_level: "PUBLIC_TO_EVERYONE", music_usage_confirmed: true } }
              }
            ]
          })
        )
      )
      expect(created.targets[0]).toMatchObject({ status: "awaiting_approval", options: { shortvideo: { mode: "direct" } } })
      expect(created.targets[0].options.shortvideo.consent).toBeUndefined()
      expect(created.approval).toMatchObject({ status: "pending", url: null })
      expect(created.warnings).toEqual([
        expect.objectContaining({ code: "consent_by_person", field: "targets[0].shortvideo.consent" })
      ])
    })

    it("pages through posts with the opaque cursor", async () => {
      const caption = `Paged ${Math.random()}`
      const ids: Array<string> = []
      for (let i = 0; i < 3; i++) {
        ids.push(resultOf(await callTool(agent.client, "create_post", aPost(server, [image], { caption: `${caption} ${i}` }))).id)
      }
      const seen: Array<string> = []
      let cursor: string | undefined
      for (;;) {
        const page = resultOf(await callTool(agent.client, "list_posts", { limit: 2, ...(cursor === undefined ? {} : { cursor }) }))
        expect(page.data.length).toBeLessThanOrEqual(2)
        seen.push(...page.data.map((p: any) => p.id))
        if (!page.cursor.has_more) break
        cursor = page.cursor.next
      }
      expect(seen).toEqual(expect.arrayContaining(ids))
      expect(new Set(seen).size).toBe(seen.length)
    })

    it("gets, updates and cancels a post; an agent's repeated cancel gets the first answer", async () => {
      const created = resultOf(await callTool(agent.client, "create_post", aPost(server, [image], { caption: "To edit" })))
      const when = new Date(Date.now() + 86_400_000).toISOString()
      const updated = resultOf(await callTool(agent.client, "update_post", { id: created.id, caption: "Edited", scheduled_at: when }))
      expect(updated).toMatchObject({ id: created.id, caption: "Edited", scheduled_at: when })
      expect(resultOf(await callTool(agent.client, "get_post", { id: created.id })).caption).toBe("Edited")
      const cancelled = resultOf(await callTool(agent.client, "cancel_post", { id: created.id }))
      expect(cancelled.status).toBe("cancelled")
      const again = resultOf(await callTool(agent.client, "cancel_post", { id: created.id }))
      expect(again).toEqual(cancelled)
      const edit = toolErrorOf(await callTool(agent.client, "update_post", { id: created.id, caption: "Too late" }))
      expect(edit).toMatchObject({ code: "invalid_state", status: 409 })
    })

    it("refuses a retry when no target failed, with the API's error", async () => {
      const created = resultOf(await callTool(agent.client, "create_post", aPost(server, [image], { caption: "Nothing failed" })))
      expect(toolErrorOf(await callTool(agent.client, "retry_post", { id: created.id }))).toMatchObject({ code: "invalid_state" })
    })

    it("names the field of a bad argument, as a tool error the model can correct", async () => {
      const missing = toolErrorOf(await callTool(agent.client, "get_post", {}))
      expect(missing).toMatchObject({ code: "invalid_request", field: "id", status: 400 })
      const wrong = toolErrorOf(await callTool(agent.client, "create_post", { ...aPost(server, [image]), media: [] }))
      expect(wrong).toMatchObject({ code: "invalid_request", field: "media" })
    })
  })

  describe("errors an agent can act on", () => {
    it("answers a key without the tool's scope with insufficient_scope", async () => {
      const readOnlyKey = await aKeyWithScopes(server, ["posts:read"])
      const reader = await connectHttp(server.baseUrl, { key: readOnlyKey })
      try {
        const error = toolErrorOf(await callTool(reader.client, "create_post", aPost(server, [image])))
        expect(error).toMatchObject({ code: "insufficient_scope", status: 403, retryable: false })
        expect(error.message).toContain("posts:write")
        expect(resultOf(await callTool(reader.client, "list_profiles")).data).toHaveLength(1)
      } finally {
        await reader.close()
      }
    })

    it("does not show another workspace's post", async () => {
      const other = await anotherWorkspace(server)
      const theirs = await call(server.baseUrl, "POST", "/v1/posts", {
        key: other.key,
        body: { profile_id: other.profileId, caption: "Theirs", media: [await anImage(server, other.key)], targets: [{ account_id: other.accountId }] }
      })
      expect(theirs.status).toBe(201)
      const error = toolErrorOf(await callTool(agent.client, "get_post", { id: theirs.body.id }))
      expect(error).toMatchObject({ code: "not_found", status: 404 })
      expect(toolErrorOf(await callTool(agent.client, "cancel_post", { id: theirs.body.id }))).toMatchObject({ code: "not_found" })
    })

    it("answers in Indonesian when the request asks for it", async () => {
      const indonesian = await connectHttp(server.baseUrl, { key: server.testKey, language: "id" })
      try {
        const error = toolErrorOf(await callTool(indonesian.client, "get_post", { id: "post_01JD0000000000000000000000" }))
        expect(error.code).toBe("not_found")
        expect(error.message).toBe(error.message_id)
        expect(error.message).toMatch(/Tidak ada unggahan/)
        const refused = toolErrorOf(await callTool(indonesian.client, "create_post", aPost(server, [image], { approval: { mode: "none" } })))
        expect(refused.message).toMatch(/^Server alat ini/)
      } finally {
        await indonesian.close()
      }
    })

    it("explains an error code in both languages, with what to do", async () => {
      const explained = resultOf(await callTool(agent.client, "explain_error", { code: "quota_exceeded" }))
      expect(explained).toMatchObject({ code: "quota_exceeded", status: 422, retryable: true })
      expect(explained.message_en).toMatch(/daily posting limit/)
      expect(explained.message_id).toMatch(/batas unggahan harian/)
      expect(explained.what_to_do).toMatch(/quota resets/)
      expect(explained.docs).toMatch(/\/docs\/errors#quota_exceeded$/)
      expect(toolErrorOf(await callTool(agent.client, "explain_error", { code: "no_such_code" }))).toMatchObject({
        code: "unknown_error_code",
        field: "code"
      })
    })
  })

  describe("resources", () => {
    it("lists and reads the error catalog and the platform rules", async () => {
      const { resources } = await agent.client.listResources()
      expect(resources.map((r) => r.uri).sort()).toEqual(["postwire://errors", "postwire://platform-rules"])
      const errors = await agent.client.readResource({ uri: "postwire://errors" })
      const catalog = JSON.parse(textOf(errors))
      expect(catalog.errors.map((e: any) => e.code)).toEqual(errorCodes)
      expect(catalog.errors.find((e: any) => e.code === "consent_required")).toMatchObject({
        status: ErrorCatalog.consent_required.status,
        retryable: false,
        message_id: ErrorCatalog.consent_required.indonesian
      })
      const rules = JSON.parse(textOf(await agent.client.readResource({ uri: "postwire://platform-rules" })))
      expect(rules.platforms.find((p: any) => p.platform === "textpost")).toMatchObject({ caption_max_characters: 500, default_daily_quota: 250 })
    })
  })
})

describe.each(backends())("tool server over Streamable HTTP, operator options and limits, on %s", (backend) => {
  it("lets agents skip approval only when the operator allows it, and still never takes their consent", async () => {
    const server = await startServer(backend, { POSTWIRE_MCP_ALLOW_SKIP_APPROVAL: "1" })
    const agent = await connectHttp(server.baseUrl, { key: server.testKey })
    try {
      const image = await anImage(server)
      const direct = resultOf(await callTool(agent.client, "create_post", aPost(server, [image], { approval: { mode: "none" } })))
      expect(direct.status).toBe("queued")
      expect(direct.approval).toBeUndefined()
      // Whoever reads the post sees that no person approved it.
      const read = await call(server.baseUrl, "GET", `/v1/posts/${direct.id}`, { key: server.testKey })
      expect(read.body).toMatchObject({ status: "queued", approval: null })
      const video = await aVideo(server, 12)
      const shortvideo = resultOf(
        await callTool(
          agent.client,
          "create_post",
          aPost(server, [video], {
            approval: { mode: "none" },
            targets: [{ account_id: accountOf(server, "shortvideo"), shortvideo: { mode: "direct" } }]
          })
        )
      )
      expect(shortvideo.targets[0].status).toBe("awaiting_approval")
      expect(shortvideo.approval).toMatchObject({ status: "pending", url: null })
      expect(shortvideo.warnings).toEqual([expect.objectContaining({ code: "consent_by_person", field: "approval.mode" })])
    } finally {
      await agent.close()
      await server.stop()
    }
  })

  it("answers quota_exceeded, retryable, once an account's daily limit is used", async () => {
    const server = await startServer(backend, { POSTWIRE_MCP_ALLOW_SKIP_APPROVAL: "1" })
    const agent = await connectHttp(server.baseUrl, { key: server.testKey })
    try {
      const image = await anImage(server)
      const limited = await server.admin(`/workspaces/${server.workspaceId}/accounts`, {
        profile_id: server.profileId,
        platform: "photo",
        sandbox: true,
        daily_quota: 1
      })
      const post = (caption: string) =>
        callTool(agent.client, "create_post", aPost(server, [image], { caption, targets: [{ account_id: limited.id }], approval: { mode: "none" } }))
      resultOf(await post("first"))
      const error = toolErrorOf(await post("second"))
      expect(error).toMatchObject({ code: "quota_exceeded", status: 422, retryable: true, field: "targets[0].account_id" })
      const account = resultOf(await callTool(agent.client, "get_account", { id: limited.id }))
      expect(account.quota).toMatchObject({ used: 1, limit: 1, remaining: 0 })
    } finally {
      await agent.close()
      await server.stop()
    }
  })

  it("queues a failed retryable target again with retry_post", async () => {
    const server = await startServer(backend, { POSTWIRE_MCP_ALLOW_SKIP_APPROVAL: "1", POSTWIRE_PUBLISH_POLL_MS: "50", POSTWIRE_RATE_LIMIT_PER_KEY: "100000" })
    const agent = await connectHttp(server.baseUrl, { key: server.testKey })
    try {
      const image = await anImage(server)
      const flaky = await server.admin(`/workspaces/${server.workspaceId}/accounts`, {
        profile_id: server.profileId,
        platform: "textpost",
        sandbox: true,
        simulate: { error: "platform_unavailable", times: 1 }
      })
      const created = resultOf(
        await callTool(agent.client, "create_post", aPost(server, [image], { targets: [{ account_id: flaky.id }], approval: { mode: "none" } }))
      )
      const post = await eventually(async () => resultOf(await callTool(agent.client, "get_post", { id: created.id })), settled, "the post to settle")
      expect(post.targets[0]).toMatchObject({ status: "failed", error: { code: "platform_unavailable", retryable: true } })
      const retried = resultOf(await callTool(agent.client, "retry_post", { id: created.id }))
      expect(retried.data.map((t: any) => [t.id, t.status])).toEqual([[post.targets[0].id, "queued"]])
    } finally {
      await agent.close()
      await server.stop()
    }
  })

  it("answers 429 as a tool error with the seconds to wait", async () => {
    const time = aMovableClock()
    const server = await startServer(backend, { POSTWIRE_RATE_LIMIT_PER_KEY: "3" }, { clock: time.clock })
    inOneRateLimitWindow(time)
    // initialize checks the key with one API call; each list_profiles is one more.
    const agent = await connectHttp(server.baseUrl, { key: server.testKey })
    try {
      resultOf(await callTool(agent.client, "list_profiles"))
      resultOf(await callTool(agent.client, "list_profiles"))
      const error = toolErrorOf(await callTool(agent.client, "list_profiles"))
      expect(error).toMatchObject({ code: "rate_limited", status: 429, retryable: true })
      expect(error.retry_after_seconds).toBeGreaterThan(0)
    } finally {
      await agent.close()
      await server.stop()
    }
  })

  it("continues a session on another instance, as behind a load balancer", async () => {
    const database = await aDatabase(backend)
    const first = await startServer(backend, {}, { database })
    let target = first.baseUrl
    // The load balancer: every request goes to whichever instance `target` names.
    const balanced: typeof fetch = (input, init) => fetch(String(input).replace(/^http:\/\/127\.0\.0\.1:\d+/, target), init)
    const agent = await connectHttp(first.baseUrl, { key: first.testKey, fetch: balanced })
    let second: TestServer | undefined
    try {
      const before = resultOf(await callTool(agent.client, "list_profiles"))
      await first.stop()
      second = await startServer(backend, {}, { database })
      target = second.baseUrl
      const after = resultOf(await callTool(agent.client, "list_profiles"))
      expect(after.data).toEqual(before.data)
      const { tools } = await agent.client.listTools()
      expect(tools).toHaveLength(toolNames.length)
    } finally {
      await agent.close()
      await second?.stop()
      await database.drop()
    }
  })
})
