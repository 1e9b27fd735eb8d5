/**
 * `postwire serve --plugin FILE` and `POSTWIRE_PLUGINS`: a platform plugin in a JavaScript file,
 * served by the real command and published to end to end (its settings read from the
 * environment by its `env`); each file that cannot be served stops the start with one line
 * naming the file and what is wrong, exit code 2 like every other configuration problem.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as BlogService from "../platforms/plugin/BlogService.ts"
import { eventually } from "../support/Eventually.ts"

const bin = join(import.meta.dirname, "../../packages/server/bin/postwire.js")
const plugins = join(import.meta.dirname, "plugins")
const adminToken = "pwadm_plugin_cli_test_0123456789abcdef"
/** A 1×1 PNG: a post takes at least one media item. */
const PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })

/** Runs `postwire serve` to its end (a start that fails), from the directory `cwd`. */
const run = (args: ReadonlyArray<string>, env: Record<string, string> = {}, cwd = plugins) =>
  new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, [bin, "serve", ...args], {
      cwd,
      env: { ...process.env, DATABASE_URL: "", POSTWIRE_PLUGINS: "", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    child.stdout.on("data", (c: Buffer) => (out += c.toString()))
    child.stderr.on("data", (c: Buffer) => (out += c.toString()))
    child.on("exit", (code) => resolve({ code, out }))
  })

describe("postwire serve --plugin", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "postwire-cli-plugin-"))
  let blog: BlogService.BlogService
  let child: ChildProcess
  let out = ""
  let base: string

  beforeAll(async () => {
    blog = await BlogService.start()
    const port = await freePort()
    base = `http://127.0.0.1:${port}`
    child = spawn(process.execPath, [bin, "serve", "--port", String(port), "--data-dir", dataDir, "--plugin", "./blog.mjs"], {
      cwd: plugins,
      env: { ...process.env, DATABASE_URL: "", POSTWIRE_ADMIN_TOKEN: adminToken, BLOG_URL: blog.url, POSTWIRE_PLATFORM_POLL_INTERVAL_MS: "100" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    await new Promise<void>((resolve, reject) => {
      child.stdout?.on("data", (chunk: Buffer) => {
        out += chunk.toString()
        if (out.includes("Try it:")) resolve()
      })
      child.stderr?.on("data", (chunk: Buffer) => (out += chunk.toString()))
      child.on("exit", (code) => reject(new Error(`exited with ${code}: ${out}`)))
    })
  })

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.removeAllListeners("exit")
      await new Promise<void>((resolve) => {
        child.on("exit", () => resolve())
        child.kill("SIGTERM")
      })
    }
    await blog?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it("publishes a post to the plugin's own service, at the address its env read, exactly once", async () => {
    const workspace = out.match(/Workspace: (\S+)/)?.[1]
    const profile = out.match(/Profile: (\S+)/)?.[1]
    expect(workspace && profile).toBeTruthy()
    const admin = async (path: string, body: unknown) => {
      const reply = await fetch(`${base}/admin/v1/workspaces/${workspace}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
        body: JSON.stringify(body)
      })
      expect(reply.status).toBe(201)
      return (await reply.json()) as { id: string; key?: string }
    }
    // The plugin has no connect flow: its live account is created with its credentials.
    const account = (
      await admin("/accounts", { profile_id: profile, platform: "blog", sandbox: false, handle: "team", credentials: { token: blog.token } })
    ).id
    const { key } = await admin("/keys", { kind: "live", scopes: ["posts:read", "posts:write", "accounts:write"] })
    const api = (method: string, path: string, body?: unknown) =>
      fetch(`${base}/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, any> }))

    const listed = await api("GET", `/accounts/${account}`)
    expect(listed.body).toMatchObject({ platform: "blog", quota: { limit: 20 } })

    const media = await api("POST", "/media", { data: PIXEL_PNG, filename: "pixel.png" })
    expect(media.status).toBe(201)
    // The answer to the one publishing call is lost: the plugin finds the post by its marker.
    blog.loseAnswers = 1
    const post = await api("POST", "/posts", {
      profile_id: profile,
      caption: "Hello from a plugin file",
      media: [media.body.id],
      targets: [{ account_id: account }],
      approval: { mode: "none" }
    })
    expect(post.status).toBe(201)
    const read = await eventually(
      () => api("GET", `/posts/${post.body.id}`),
      (reply) => reply.body.status === "published" || reply.body.status === "failed",
      "the plugin's post to publish or fail"
    )
    expect(read.body.status).toBe("published")
    expect(blog.posts.map((p) => p.text)).toEqual(["Hello from a plugin file"])
    expect(read.body.targets[0]).toMatchObject({ status: "published", permalink: blog.posts[0]!.url })
  })
})

describe("postwire serve with a plugin file it cannot serve", () => {
  it.each([
    [["--plugin", "./missing.mjs"], {}, "Invalid platform plugin ./missing.mjs: no such file"],
    [
      ["--plugin", "./no-export.mjs"],
      {},
      "Invalid platform plugin ./no-export.mjs: exports no plugin (export a PlatformPlugin, or an array of them, as default or as `plugin`)"
    ],
    [["--plugin", "./invalid.mjs"], {}, 'Invalid platform plugin ./invalid.mjs: the plugin "broken" has no `rules`'],
    [
      ["--plugin", "./builtin-name.mjs"],
      {},
      'Invalid platform plugin ./builtin-name.mjs: the platform "photo" is a built-in platform; choose another name'
    ],
    [
      ["--plugin", "./blog.mjs", "--plugin", "./blog-again.mjs"],
      {},
      'Invalid platform plugin ./blog-again.mjs: the platform "blog" is already served by ./blog.mjs'
    ],
    [[], { POSTWIRE_PLUGINS: "./blog.mjs, ./missing.mjs" }, "Invalid platform plugin ./missing.mjs: no such file"]
  ] as const)("%j %j: one line naming the file, exit code 2", async (args, env, line) => {
    const dataDir = mkdtempSync(join(tmpdir(), "postwire-cli-plugin-bad-"))
    try {
      const result = await run([...args, "--data-dir", dataDir, "--port", "0"], env)
      expect(result.out.trim()).toBe(line)
      expect(result.code).toBe(2)
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
