/**
 * Logs without content (issue #37, F8): a real `postwire serve` process at debug level, in each
 * log format, goes through a full run with planted values (a post with a caption, its approval
 * e-mail to an address, an account with a platform token, a webhook delivered, the admin token,
 * API keys, a wrong key, the approval token), and its whole output is searched for every one of
 * them.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aPng } from "../support/Media.ts"
import { eventually } from "../support/Eventually.ts"
import { call } from "../support/Http.ts"
import { aReceiver, type Receiver } from "../webhooks/Receiver.ts"

const main = join(import.meta.dirname, "../../packages/server/src/cli/main.ts")

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })

describe.each(["text", "json"] as const)("the %s logs of a full run at debug level", (format) => {
  const dataDir = mkdtempSync(join(tmpdir(), "postwire-log-scan-"))
  const planted: Record<string, string> = {
    adminToken: "pwadm_planted_admin_token_0123456789abcdef",
    caption: "Planted caption for the log scan 5e81c2",
    email: "boss.planted@acme-logscan.example",
    wrongKey: "svc_test_planted-wrong-key-0123456789abcdef",
    platformToken: "planted-platform-access-token-9d0b1f"
  }
  let child: ChildProcess
  let output = ""
  let baseUrl: string
  let receiver: Receiver

  beforeAll(async () => {
    receiver = await aReceiver()
    const port = await freePort()
    baseUrl = `http://127.0.0.1:${port}`
    child = spawn(process.execPath, ["--conditions=@postwire/source", "--import", "tsx", main, "serve", "--host", "127.0.0.1"], {
      env: {
        ...process.env,
        DATABASE_URL: "",
        PORT: String(port),
        POSTWIRE_DATA_DIR: dataDir,
        POSTWIRE_LOG_FORMAT: format,
        POSTWIRE_LOG_LEVEL: "debug",
        POSTWIRE_LOG_REQUESTS: "1",
        POSTWIRE_ADMIN_TOKEN: planted.adminToken!,
        POSTWIRE_PUBLISH_POLL_MS: "50",
        POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS: "1",
        POSTWIRE_PUBLIC_URL: baseUrl
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
    child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()))
    // Started through tsx: on a loaded machine this takes most of the hook's time.
    await eventually(() => output.includes("Postwire is listening"), "the server to listen", { withinMs: 85_000 })
  }, 90_000)

  afterAll(async () => {
    if (child.exitCode === null) {
      await new Promise<void>((resolve) => {
        child.on("exit", () => resolve())
        child.kill("SIGTERM")
      })
    }
    await receiver?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it("never writes a caption, an e-mail address, a token, a key or a credential", async () => {
    const admin = (method: string, path: string, body?: unknown) =>
      call(baseUrl, method, `/admin/v1${path}`, { key: planted.adminToken, ...(body === undefined ? {} : { body }) })
    const workspaceId = (await admin("GET", "/workspaces")).body.data[0].id as string
    const created = await admin("POST", `/workspaces/${workspaceId}/keys`, {
      kind: "test",
      scopes: ["posts:read", "posts:write", "webhooks:write", "accounts:write"]
    })
    expect(created.status).toBe(201)
    const apiKey = created.body.key as string
    planted.apiKey = apiKey

    const endpoint = await call(baseUrl, "POST", "/v1/webhooks", { key: apiKey, body: { url: receiver.url, events: ["post.published"] } })
    expect(endpoint.status).toBe(201)
    planted.webhookSecret = endpoint.body.secret
    receiver.secret = endpoint.body.secret

    const profileId = (await call(baseUrl, "GET", "/v1/accounts", { key: apiKey })).body.data[0].profile_id as string
    // An account holding a platform token, which the publisher opens to publish.
    const account = await admin("POST", `/workspaces/${workspaceId}/accounts`, {
      profile_id: profileId,
      platform: "textpost",
      sandbox: true,
      handle: "log_scan_account",
      credentials: { access_token: planted.platformToken }
    })
    expect(account.status, JSON.stringify(account.body)).toBe(201)

    const media = await call(baseUrl, "POST", "/v1/media", {
      key: apiKey,
      body: { data: Buffer.from(aPng({ width: 4, height: 4 })).toString("base64"), filename: "pixel.png" }
    })
    expect(media.status).toBe(201)
    const post = await call(baseUrl, "POST", "/v1/posts", {
      key: apiKey,
      body: {
        profile_id: profileId,
        caption: planted.caption,
        media: [media.body.id],
        targets: [{ account_id: account.body.id }],
        approval: { mode: "link", notify: { email: planted.email } }
      }
    })
    expect(post.status, JSON.stringify(post.body)).toBe(201)
    const approvalToken = new URL(post.body.approval.url as string).pathname.split("/approve/")[1]!
    planted.approvalToken = approvalToken

    // The approval e-mail was sent (to a file, with no SMTP server).
    await eventually(() => {
      try {
        return readdirSync(join(dataDir, "mail")).some((name) => name.endsWith(".eml"))
      } catch {
        return false
      }
    }, "the approval e-mail")
    const mail = readdirSync(join(dataDir, "mail")).find((name) => name.endsWith(".eml"))!
    expect(readFileSync(join(dataDir, "mail", mail), "utf8")).toContain(planted.email)

    expect((await fetch(`${baseUrl}/approve/${approvalToken}`)).status).toBe(200)
    const decided = await call(baseUrl, "POST", `/v1/approvals/${approvalToken}/decision`, { body: { decision: "approve" } })
    expect(decided.status).toBe(200)
    expect((await call(baseUrl, "GET", "/v1/posts", { key: planted.wrongKey })).status).toBe(401)
    // A refused body carrying the caption.
    expect((await call(baseUrl, "POST", "/v1/posts", { key: apiKey, body: { caption: planted.caption, targets: 42 } })).status).toBe(400)

    await eventually(async () => {
      const read = await call(baseUrl, "GET", `/v1/posts/${post.body.id}`, { key: apiKey })
      return read.body.status === "published"
    }, "the post to be published")
    await receiver.waitUntil(() => receiver.events.some((event) => event.type === "post.published"), "post.published", 30_000)

    await new Promise<void>((resolve) => {
      child.on("exit", () => resolve())
      child.kill("SIGTERM")
    })

    // The run was logged, at debug level, in the format asked for.
    expect(output).toContain("written to")
    expect(output).toContain("target published")
    if (format === "json") expect(output).toMatch(/"level":"debug"/)
    else expect(output).toMatch(/\] DEBUG /)
    for (const [name, value] of Object.entries(planted)) {
      expect(value.length, name).toBeGreaterThan(8)
      expect(output.includes(value), `${name} appears in the ${format} output`).toBe(false)
    }
    expect(output.includes("boss.planted"), "the e-mail's local part appears").toBe(false)
  }, 150_000)
})
