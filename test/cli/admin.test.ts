/**
 * `postwire admin`: lists, key revocation and live accounts from a credentials file, against
 * the real server; and `--help` answering with exit code 0 at every level of the command.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runAdmin, UsageError } from "../../packages/server/src/cli/Admin.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

const bin = join(import.meta.dirname, "../../packages/server/bin/postwire.js")

const run = (args: ReadonlyArray<string>) =>
  new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, DATABASE_URL: "" }, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    child.stdout.on("data", (c: Buffer) => (out += c.toString()))
    child.stderr.on("data", (c: Buffer) => (out += c.toString()))
    child.on("exit", (code) => resolve({ code, out }))
  })

describe("postwire admin against the server", () => {
  let server: TestServer
  const files = mkdtempSync(join(tmpdir(), "postwire-admin-"))
  beforeAll(async () => {
    server = await startServer("embedded")
  })
  afterAll(async () => {
    await server?.stop()
    rmSync(files, { recursive: true, force: true })
  })

  const admin = async (...args: Array<string>) => {
    const lines: Array<string> = []
    const code = await runAdmin([...args, "--url", server.baseUrl, "--admin-token", server.adminToken], {}, (line) => lines.push(line))
    return { code, out: lines.join("\n") }
  }

  it("lists workspaces, and a workspace's keys with their last four characters, never the secret", async () => {
    const workspaces = await admin("workspace", "list")
    expect(workspaces.code).toBe(0)
    expect(workspaces.out.split("\n")[0]).toMatch(/^id\s+name\s+created_at$/)
    expect(workspaces.out).toContain(server.workspaceId)
    expect(workspaces.out).toContain("default")

    const keys = await admin("key", "list", "--workspace", server.workspaceId, "--json")
    expect(keys.code).toBe(0)
    const listed = JSON.parse(keys.out) as { data: Array<{ id: string; kind: string; last4: string; revoked_at: string | null }> }
    expect(listed.data).toEqual([expect.objectContaining({ kind: "test", last4: server.testKey.slice(-4), revoked_at: null })])
    expect(keys.out).not.toContain(server.testKey)
  })

  it("makes a key for an agent with --approval-links hidden, and lists it so; refuses another value", async () => {
    const created = await admin(
      "key", "create", "--workspace", server.workspaceId, "--kind", "test", "--scopes", "posts:read", "--approval-links", "hidden", "--json"
    )
    expect(created.code).toBe(0)
    const { id } = JSON.parse(created.out) as { id: string }
    const listed = await admin("key", "list", "--workspace", server.workspaceId)
    expect(listed.out.split("\n")[0]).toMatch(/^id\s+kind\s+last4\s+scopes\s+approval_links\s/)
    expect(listed.out.split("\n").find((line) => line.startsWith(id))).toMatch(/\shidden\s/)
    const bad = await admin("key", "create", "--workspace", server.workspaceId, "--kind", "test", "--scopes", "posts:read", "--approval-links", "maybe")
    expect(bad.code).toBe(1)
    expect(bad.out).toContain("approval_links")
  })

  it("revokes a key: the API refuses it once the server's 30-second key cache has let it go", async () => {
    const created = await admin("key", "create", "--workspace", server.workspaceId, "--kind", "test", "--scopes", "posts:read", "--json")
    const { id, key } = JSON.parse(created.out) as { id: string; key: string }
    const revoked = await admin("key", "revoke", "--workspace", server.workspaceId, "--key", id)
    expect(revoked.code).toBe(0)
    expect(revoked.out).toMatch(/revoked_at: \d{4}-\d\d-\d\dT/)
    // The key was never used, so no server holds it in its cache: it is refused at once.
    const refused = await fetch(`${server.baseUrl}/v1/posts`, { headers: { authorization: `Bearer ${key}` } })
    expect(refused.status).toBe(401)

    const again = await admin("key", "revoke", "--workspace", server.workspaceId, "--key", id)
    expect(again.out).toBe(revoked.out)
    const unknown = await admin("key", "revoke", "--workspace", server.workspaceId, "--key", "key_01JD0000000000000000000000")
    expect(unknown.code).toBe(1)
    expect(unknown.out).toContain("error 404 not_found")
  })

  it("creates a live account with credentials from a file and lists accounts with every page followed", async () => {
    const credentials = join(files, "threads.json")
    writeFileSync(credentials, JSON.stringify({ access_token: "THREADS-TOKEN", user_id: "1789" }))
    const created = await admin(
      "account", "create", "--workspace", server.workspaceId, "--profile", server.profileId,
      "--platform", "textpost", "--live", "--external-id", "1789", "--credentials-file", credentials, "--handle", "acme"
    )
    expect(created.code).toBe(0)
    const id = /id: (acc_\w+)/.exec(created.out)![1]!

    const listed = await admin("account", "list", "--workspace", server.workspaceId, "--platform", "textpost")
    expect(listed.code).toBe(0)
    const rows = listed.out.split("\n").slice(1)
    expect(rows).toHaveLength(2)
    expect(rows.find((row) => row.startsWith(id))).toMatch(/textpost\s+acme\s+false\s+connected/)
    expect(listed.out).not.toContain("THREADS-TOKEN")
  })

  it("names the problem with a credentials file, and refuses one for a sandbox account", async () => {
    const missing = join(files, "missing.json")
    await expect(
      admin("account", "create", "--workspace", server.workspaceId, "--profile", server.profileId, "--platform", "pages", "--live", "--credentials-file", missing)
    ).rejects.toThrow(new RegExp(`--credentials-file ${missing} cannot be read`))
    const notJson = join(files, "bad.json")
    writeFileSync(notJson, "token=abc")
    await expect(
      admin("account", "create", "--workspace", server.workspaceId, "--profile", server.profileId, "--platform", "pages", "--live", "--credentials-file", notJson)
    ).rejects.toThrow(/must hold a JSON object/)
    await expect(
      admin("account", "create", "--workspace", server.workspaceId, "--profile", server.profileId, "--platform", "pages", "--credentials-file", notJson)
    ).rejects.toThrow(UsageError)
  })
})

describe("postwire --help", () => {
  it("answers the command, serve and admin with their help and exit code 0, and a mistake with 2", async () => {
    const cases: Array<[ReadonlyArray<string>, string]> = [
      [["--help"], "postwire serve"],
      [["serve", "--help"], "--database-url"],
      [["admin", "--help"], "postwire admin key revoke"]
    ]
    for (const [args, expected] of cases) {
      const result = await run(args)
      expect(result.code, `postwire ${args.join(" ")}`).toBe(0)
      expect(result.out).toContain(expected)
    }
    const unknown = await run(["admin", "key", "rotate"])
    expect(unknown.code).toBe(2)
    expect(unknown.out).toContain('Unknown command "key rotate"')
  })

  it("answers every level below admin with that level's help and exit code 0", async () => {
    const cases: Array<[ReadonlyArray<string>, string, string]> = [
      [["key", "--help"], "postwire admin key list", "postwire admin workspace"],
      [["account", "-h"], "postwire admin account list", "postwire admin key"],
      [["account", "create", "--help"], "--credentials-file", "postwire admin account list"]
    ]
    for (const [args, expected, absent] of cases) {
      const lines: Array<string> = []
      expect(await runAdmin(args, {}, (line) => lines.push(line)), `admin ${args.join(" ")}`).toBe(0)
      expect(lines.join("\n")).toContain(expected)
      expect(lines.join("\n")).not.toContain(absent)
    }
  })
})
