/**
 * `postwire mcp`: the tool server over stdio, started as a child process exactly as an IDE or
 * desktop agent starts it, and driven by the official MCP TypeScript SDK's client.
 */
import { spawn } from "node:child_process"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { accountOf, anImage, aPost } from "../support/Builders.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { approvalLinkMailed, callTool, connectStdio, postwireBin, postwireMcpBin, resultOf, toolErrorOf } from "./McpClients.ts"

/** What a finished command wrote and how it exited. */
interface Finished {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `postwire mcp` with these lines on stdin, then closes stdin and waits for the exit. */
const runMcp = (args: ReadonlyArray<string>, env: Readonly<Record<string, string>>, lines: ReadonlyArray<unknown> = []) =>
  new Promise<Finished>((resolve, reject) => {
    const child = spawn(process.execPath, [postwireBin, "mcp", ...args], {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8")
      // Close stdin once every request has its answer, as a client ending the session does.
      const answers = stdout.split("\n").filter((line) => line.includes('"id"')).length
      if (answers >= lines.filter((line) => typeof line === "object" && line !== null && "id" in line).length) child.stdin.end()
    })
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
    })
    child.on("error", reject)
    child.on("exit", (code) => resolve({ code, stdout, stderr }))
    for (const line of lines) child.stdin.write(`${JSON.stringify(line)}\n`)
    if (lines.length === 0) child.stdin.end()
  })

describe("postwire mcp (stdio)", () => {
  let server: TestServer
  let env: Record<string, string>

  beforeAll(async () => {
    server = await startServer("embedded")
    env = { POSTWIRE_API_KEY: server.testKey, POSTWIRE_BASE_URL: server.baseUrl }
  })
  afterAll(() => server?.stop())

  it("serves the official client over stdio, with the key and base URL from the environment", async () => {
    const agent = await connectStdio(["mcp"], env)
    try {
      expect(agent.client.getServerVersion()).toEqual({ name: "postwire", version: "0.1.0" })
      const { tools } = await agent.client.listTools()
      expect(tools).toHaveLength(17)
      const accounts = resultOf(await callTool(agent.client, "list_accounts"))
      expect(accounts.data.find((a: any) => a.platform === "photo").quota.remaining).toBeGreaterThan(0)
      const image = await anImage(server)
      const args = aPost(server, [image], { caption: "From a desktop agent", approval: { notify: { email: "approver@example.com" } } })
      const answer = await callTool(agent.client, "create_post", args)
      const created = resultOf(answer)
      expect(created.status).toBe("awaiting_approval")
      // The agent never holds the link that approves its post: the approver gets it by e-mail.
      expect(created.approval).toMatchObject({ status: "pending", url: null })
      const again = await callTool(agent.client, "create_post", args)
      expect(resultOf(again).id).toBe(created.id)
      const read = await callTool(agent.client, "get_post", { id: created.id })
      for (const seen of [answer, again, read]) expect(JSON.stringify(seen)).not.toMatch(/\/approve\//)
      expect(approvalLinkMailed(server, "From a desktop agent")).toMatch(/\/approve\/[A-Za-z0-9_-]{43}$/)
      expect(toolErrorOf(await callTool(agent.client, "create_post", aPost(server, [image], { approval: { mode: "none" } })))).toMatchObject({
        code: "approval_required"
      })
      const rules = await agent.client.readResource({ uri: "postwire://platform-rules" })
      expect(rules.contents).toHaveLength(1)
    } finally {
      await agent.close()
    }
  })

  it("takes --api-key, --base-url and --lang id, and answers errors in Indonesian", async () => {
    const agent = await connectStdio(["mcp", "--api-key", server.testKey, "--base-url", `${server.baseUrl}/`, "--lang", "id"], {})
    try {
      const error = toolErrorOf(await callTool(agent.client, "get_post", { id: "post_01JD0000000000000000000000" }))
      expect(error).toMatchObject({ code: "not_found", status: 404 })
      expect(error.message).toBe(error.message_id)
      expect(error.message).toMatch(/^Tidak ada unggahan/)
    } finally {
      await agent.close()
    }
  })

  it("accepts approval mode none only when started with --allow-skip-approval", async () => {
    const agent = await connectStdio(["mcp", "--allow-skip-approval"], env)
    try {
      const image = await anImage(server)
      const created = resultOf(await callTool(agent.client, "create_post", aPost(server, [image], { approval: { mode: "none" } })))
      expect(created.status).toBe("queued")
      expect(created.targets[0]).toMatchObject({ account_id: accountOf(server, "photo"), status: "queued" })
    } finally {
      await agent.close()
    }
  })

  it("writes nothing but protocol messages on stdout, and exits 0 when stdin closes", async () => {
    const finished = await runMcp([], env, [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "ide", version: "1" } } },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_profiles", arguments: {} } }
    ])
    expect(finished.code).toBe(0)
    const lines = finished.stdout.trim().split("\n")
    const messages = lines.map((line) => JSON.parse(line))
    expect(messages.every((m) => m.jsonrpc === "2.0")).toBe(true)
    expect(messages.find((m) => m.id === 1).result).toMatchObject({ protocolVersion: "2025-06-18", serverInfo: { name: "postwire" } })
    expect(messages.find((m) => m.id === 2).result.structuredContent.data[0].id).toBe(server.profileId)
  })

  it("exits 2 with one line on stderr when no key is given", async () => {
    const finished = await runMcp([], { POSTWIRE_BASE_URL: server.baseUrl })
    expect(finished).toEqual({
      code: 2,
      stdout: "",
      stderr: "postwire mcp: no API key: set POSTWIRE_API_KEY or pass --api-key\n"
    })
  })

  it("exits 2 on a wrong option or language", async () => {
    const wrongLang = await runMcp(["--lang", "fr"], env)
    expect(wrongLang).toEqual({ code: 2, stdout: "", stderr: 'postwire mcp: --lang must be en or id, got "fr"\n' })
    const spaced = await runMcp(["--api-key", "svc_test_with space"], env)
    expect(spaced).toEqual({
      code: 2,
      stdout: "",
      stderr: "postwire mcp: --api-key must be an API key (svc_live_… or svc_test_…) of visible ASCII characters\n"
    })
    const unknown = await runMcp(["--verbose"], env)
    expect(unknown.code).toBe(2)
    expect(unknown.stdout).toBe("")
    expect(unknown.stderr.trim().split("\n")).toHaveLength(1)
  })

  it("exits 1 with one line on stderr when the API rejects the key", async () => {
    const finished = await runMcp([], { ...env, POSTWIRE_API_KEY: "svc_test_revokedOrNeverIssued0000000000" })
    expect(finished.code).toBe(1)
    expect(finished.stdout).toBe("")
    expect(finished.stderr).toBe(
      `postwire mcp: ${server.baseUrl} rejected the API key (401 unauthorized): The API key is missing or invalid.\n`
    )
  })

  it("exits 1 with one line on stderr when the API cannot be reached", async () => {
    const finished = await runMcp([], { ...env, POSTWIRE_BASE_URL: "http://127.0.0.1:9" })
    expect(finished).toEqual({ code: 1, stdout: "", stderr: "postwire mcp: cannot reach the Postwire API at http://127.0.0.1:9\n" })
  })

  it("runs the same server as postwire-mcp, the bin of @postwire/mcp", async () => {
    const agent = await connectStdio([], env, postwireMcpBin)
    try {
      expect(resultOf(await callTool(agent.client, "explain_error", { code: "token_expired" }))).toMatchObject({
        code: "token_expired",
        retryable: false,
        what_to_do: expect.stringMatching(/reconnect/)
      })
    } finally {
      await agent.close()
    }
  })
})
