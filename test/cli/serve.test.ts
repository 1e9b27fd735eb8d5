import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "../support/Eventually.ts"
import { builtinPlatforms } from "@postwire/domain"

const bin = join(import.meta.dirname, "../../packages/server/bin/postwire.js")

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })

interface Running {
  readonly child: ChildProcess
  readonly output: () => string
}

/** Starts `postwire serve` and waits until it says it listens. */
const serve = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  new Promise<Running>((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "serve", ...args], {
      env: { ...process.env, DATABASE_URL: "", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    const onData = (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes("Try it:") || (out.includes("listening") && out.includes("OpenAPI"))) resolve({ child, output: () => out })
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", (c: Buffer) => (out += c.toString()))
    child.on("exit", (code) => reject(new Error(`exited with ${code}: ${out}`)))
  })

const stop = (running: Running) =>
  new Promise<void>((resolve) => {
    running.child.removeAllListeners("exit")
    running.child.on("exit", () => resolve())
    running.child.kill("SIGTERM")
  })

const run = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    child.stdout.on("data", (c: Buffer) => (out += c.toString()))
    child.stderr.on("data", (c: Buffer) => (out += c.toString()))
    child.on("exit", (code) => resolve({ code, out }))
  })

describe("postwire serve", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "postwire-cli-"))
  let port: number
  let running: Running
  /** The test key the first start printed. */
  let key: string | undefined

  beforeAll(async () => {
    port = await freePort()
    running = await serve(["--port", String(port), "--data-dir", dataDir])
    key = running.output().match(/svc_test_[A-Za-z0-9_-]+/)?.[0]
  })
  afterAll(async () => {
    if (running) await stop(running)
    rmSync(dataDir, { recursive: true, force: true })
  })

  it("prints a working test key, the docs address and an admin token on the first start", async () => {
    const out = running.output()
    const key = out.match(/svc_test_[A-Za-z0-9_-]+/)?.[0]
    expect(key).toBeDefined()
    expect(out).toContain(`http://localhost:${port}/docs`)
    const reply = await fetch(`http://127.0.0.1:${port}/v1/accounts`, { headers: { authorization: `Bearer ${key}` } })
    expect(reply.status).toBe(200)
    const body = (await reply.json()) as { data: Array<{ platform: string; sandbox: boolean }> }
    expect(body.data.map((a) => a.platform).sort()).toEqual([...builtinPlatforms].sort())
    expect(body.data.every((a) => a.sandbox)).toBe(true)
  })

  it("creates a workspace and a key through `postwire admin`", async () => {
    const token = running.output().match(/pwadm_[A-Za-z0-9_-]+/)?.[0]
    expect(token).toBeDefined()
    const env = { POSTWIRE_ADMIN_TOKEN: token!, PORT: String(port) }
    const ws = await run(["admin", "workspace", "create", "--name", "acme", "--json"], env)
    expect(ws.code).toBe(0)
    const { id } = JSON.parse(ws.out) as { id: string }
    expect(id).toMatch(/^ws_/)
    const key = await run(["admin", "key", "create", "--workspace", id, "--kind", "live", "--scopes", "posts:read"], env)
    expect(key.code).toBe(0)
    expect(key.out).toMatch(/key: svc_live_/)
    const bad = await run(["admin", "key", "create", "--workspace", id, "--kind", "gold", "--scopes", "posts:read"], env)
    expect(bad.code).toBe(1)
    expect(bad.out).toContain("invalid_request")
    expect(bad.out).toContain("kind")
    const wrongToken = await run(["admin", "workspace", "create", "--name", "x"], { ...env, POSTWIRE_ADMIN_TOKEN: "nope" })
    expect(wrongToken.code).toBe(1)
    expect(wrongToken.out).toContain("unauthorized")
  })

  it("keeps its data across a restart, does not seed again, and is ready", async () => {
    const key = running.output().match(/svc_test_[A-Za-z0-9_-]+/)?.[0]
    const headers = { authorization: `Bearer ${key}` }
    const profiles = async () => {
      const reply = await fetch(`http://127.0.0.1:${port}/v1/profiles`, { headers })
      expect(reply.status).toBe(200)
      return ((await reply.json()) as { data: Array<{ id: string }> }).data.map((profile) => profile.id)
    }
    const before = await profiles()
    expect(before.length).toBeGreaterThan(0)
    await stop(running)
    // The second start opens the same database.
    running = await serve(["--port", String(port), "--data-dir", dataDir])
    // The start prints its lines in one go, so by the time it answers a request all of them are in.
    const after = await profiles()
    expect(running.output()).not.toContain("First start")
    expect(running.output()).not.toContain("pwadm_")
    expect(running.output()).not.toContain("initdb")
    expect(after).toEqual(before)
    const ready = await fetch(`http://127.0.0.1:${port}/ready`)
    expect(ready.status).toBe(200)
    expect(((await ready.json()) as { status: string }).status).toBe("ready")
  })

  it("writes each log event on one line of text by default, its values as key=value", async () => {
    await stop(running)
    running = await serve(["--port", String(port), "--data-dir", dataDir], { POSTWIRE_LOG_REQUESTS: "1" })
    const reply = await fetch(`http://127.0.0.1:${port}/v1/posts/post_missing`, { headers: { authorization: `Bearer ${key}` } })
    expect(reply.status).toBe(404)
    const requestId = reply.headers.get("x-request-id")
    await eventually(() => running.output().includes(`request_id=${requestId}`), "the request's log line")
    const line = running
      .output()
      .split("\n")
      .find((l) => l.includes(`request_id=${requestId}`))
    expect(line).toMatch(
      new RegExp(
        `^\\[\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z\\] INFO Sent HTTP response request_id=${requestId} method=GET route=\\S+ path=/v1/posts/post_missing status=404 duration_ms=[\\d.]+$`
      )
    )
  })

  it("refuses a bad flag with a message naming it", async () => {
    const result = await run(["serve", "--port", "nope"])
    expect(result.code).toBe(2)
    expect(result.out).toContain("--port")
  })
})
