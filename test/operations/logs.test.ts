/**
 * `POSTWIRE_LOG_FORMAT=json` on a real `postwire serve` process: traffic that uses every kind of
 * secret (the admin token, API keys, a wrong key, the metrics token, a webhook secret, an
 * approval token) and a caption, then the whole output is read: every stdout line is one JSON
 * object, the request log carries the request id, route, status and duration, the error body's
 * request id is the response's `X-Request-Id` and the log's, and no secret nor the caption
 * appears anywhere in stdout or stderr.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aPng } from "../support/Media.ts"
import { eventually } from "../support/Eventually.ts"
import { call, errorOf } from "../support/Http.ts"
import { aReceiver, type Receiver } from "../webhooks/Receiver.ts"

const main = join(import.meta.dirname, "../../packages/server/src/cli/main.ts")

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })

type Line = Record<string, unknown> & { time: string; level: string; message: string }

describe("JSON logs of a real process", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "postwire-logs-"))
  const adminToken = "pwadm_logs_test_0123456789abcdef"
  const metricsToken = "metrics_logs_test_0123456789"
  const caption = "A caption nobody may log 7f3c9a"
  const wrongKey = "svc_test_this-key-does-not-exist-0123456789"
  const secrets: Record<string, string> = {
    adminToken,
    metricsToken,
    wrongKey,
    caption
  }
  let child: ChildProcess
  let stdout = ""
  let stderr = ""
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
        POSTWIRE_LOG_FORMAT: "json",
        POSTWIRE_LOG_REQUESTS: "1",
        POSTWIRE_ADMIN_TOKEN: adminToken,
        POSTWIRE_METRICS_TOKEN: metricsToken,
        POSTWIRE_PUBLISH_POLL_MS: "50",
        POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS: "1",
        POSTWIRE_PUBLIC_URL: baseUrl
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
    child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    // Started through tsx: on a loaded machine this takes most of the hook's 90 s.
    await eventually(() => stdout.includes("Postwire is listening"), "the server to listen", { withinMs: 85_000 })
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

  it("writes one JSON object per line with request ids, and no secret or caption anywhere", async () => {
    // The first start's test key is in a file only the operator reads, not in the log.
    const secretsFile = join(dataDir, "first-start-secrets")
    expect(statSync(secretsFile).mode & 0o777).toBe(0o600)
    const testKey = /TEST_KEY=(\S+)/.exec(readFileSync(secretsFile, "utf8"))![1]!
    secrets.testKey = testKey

    const workspaces = await call(baseUrl, "GET", "/admin/v1/workspaces", { key: adminToken })
    expect(workspaces.status).toBe(200)
    const workspaceId = workspaces.body.data[0].id as string
    const created = await call(baseUrl, "POST", `/admin/v1/workspaces/${workspaceId}/keys`, {
      key: adminToken,
      body: { kind: "test", scopes: ["posts:read", "posts:write", "webhooks:write"] }
    })
    expect(created.status).toBe(201)
    const apiKey = created.body.key as string
    secrets.apiKey = apiKey

    const endpoint = await call(baseUrl, "POST", "/v1/webhooks", {
      key: apiKey,
      body: { url: receiver.url, events: ["post.published"] }
    })
    expect(endpoint.status).toBe(201)
    secrets.webhookSecret = endpoint.body.secret
    receiver.secret = endpoint.body.secret

    const accounts = await call(baseUrl, "GET", "/v1/accounts", { key: apiKey })
    const textpost = (accounts.body.data as Array<{ id: string; platform: string }>).find((a) => a.platform === "textpost")!
    const media = await call(baseUrl, "POST", "/v1/media", {
      key: apiKey,
      body: { data: Buffer.from(aPng({ width: 4, height: 4 })).toString("base64"), filename: "pixel.png" }
    })
    expect(media.status).toBe(201)
    const post = await call(baseUrl, "POST", "/v1/posts", {
      key: apiKey,
      body: { profile_id: accounts.body.data[0].profile_id, caption, media: [media.body.id], targets: [{ account_id: textpost.id }] }
    })
    expect(post.status, JSON.stringify(post.body)).toBe(201)
    const approvalToken = (post.body.approval.url as string).split("/approve/")[1]!
    secrets.approvalToken = approvalToken
    expect((await fetch(`${baseUrl}/approve/${approvalToken}`)).status).toBe(200)
    const decided = await call(baseUrl, "POST", `/v1/approvals/${approvalToken}/decision`, { body: { decision: "approve" } })
    expect(decided.status).toBe(200)

    // Refusals: a wrong key, and a bad body carrying the caption.
    const refused = await call(baseUrl, "GET", "/v1/posts", { key: wrongKey })
    expect(refused.status).toBe(401)
    const invalid = await call(baseUrl, "POST", "/v1/posts", {
      key: apiKey,
      body: { caption, media: [], targets: [{ account_id: 42 }] }
    })
    expect(invalid.status).toBe(400)

    // A caller's sane request id is kept; an insane one is replaced.
    const own = await call(baseUrl, "GET", "/v1/posts/post_01JD0000000000000000000000", {
      key: apiKey,
      headers: { "x-request-id": "client-req:42.a_b-c" }
    })
    expect(own.status).toBe(404)
    expect(own.headers.get("x-request-id")).toBe("client-req:42.a_b-c")
    expect(errorOf(own)).toMatchObject({ request_id: "client-req:42.a_b-c" })
    const generated = await call(baseUrl, "GET", "/v1/posts/post_01JD0000000000000000000001", {
      key: apiKey,
      headers: { "x-request-id": "not sane, has spaces" }
    })
    const generatedId = generated.headers.get("x-request-id")!
    expect(generatedId).toMatch(/^req_[0-9a-z]{26}$/)
    expect(errorOf(generated)).toMatchObject({ request_id: generatedId })
    const ok = await call(baseUrl, "GET", "/v1/accounts", { key: apiKey })
    expect(ok.headers.get("x-request-id")).toMatch(/^req_/)

    expect((await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })).status).toBe(200)

    await eventually(async () => {
      const read = await call(baseUrl, "GET", `/v1/posts/${post.body.id}`, { key: apiKey })
      return read.body.status === "published"
    }, "the post to be published")
    await receiver.waitUntil(() => receiver.events.some((event) => event.type === "post.published"), "post.published", 30_000)
    // The worker's own line about the publish.
    await eventually(() => stdout.includes('"message":"target published"'), "the publisher's log line")

    await new Promise<void>((resolve) => {
      child.on("exit", () => resolve())
      child.kill("SIGTERM")
    })

    const lines = stdout.split("\n").filter((line) => line !== "")
    const parsed = lines.map((line) => {
      const value = JSON.parse(line) as Line
      expect(typeof value.time).toBe("string")
      expect(Number.isNaN(Date.parse(value.time))).toBe(false)
      expect(["trace", "debug", "info", "warn", "error", "fatal"]).toContain(value.level)
      expect(typeof value.message).toBe("string")
      return value
    })
    const responses = parsed.filter((line) => line.message === "Sent HTTP response")
    const ownLine = responses.find((line) => line.request_id === "client-req:42.a_b-c")
    expect(ownLine).toMatchObject({ route: "/v1/posts/:id", status: 404, method: "GET" })
    expect(typeof ownLine?.duration_ms).toBe("number")
    expect(responses.find((line) => line.request_id === generatedId)).toMatchObject({ status: 404 })
    expect(responses.find((line) => line.path === "/approve/{token}")).toMatchObject({ route: "/approve/:token", status: 200 })
    const published = parsed.find((line) => line.message === "target published")
    expect(published).toMatchObject({ post_id: post.body.id, target_id: post.body.targets[0].id })

    const output = stdout + stderr
    for (const [name, secret] of Object.entries(secrets)) {
      expect(secret.length, name).toBeGreaterThan(8)
      expect(output.includes(secret), `${name} appears in the output`).toBe(false)
    }
  }, 120_000)
})
