/**
 * `makeHandler`: the server mounted in a host app under a prefix, through the node:http
 * listener and the fetch handler, with the host starting and stopping background work.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { format } from "node:util"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { makeHandler, type PostwireHandler } from "@postwire/server"
import { eventually } from "../support/Eventually.ts"

const PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="

describe("makeHandler mounted under /postwire", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "postwire-handler-"))
  let server: Server
  let handler: PostwireHandler
  let base: string
  let key: string
  const logged: Array<string> = []

  beforeAll(async () => {
    server = createServer()
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    handler = await makeHandler({ publicUrl: `${base}/postwire`, database: "memory", dataDir, logRequests: true })
    server.on("request", handler.node)
    key = handler.firstRun!.testKey
    // Everything the process writes from here on, to check that no token reaches a log.
    const capture = (...args: Array<unknown>) => {
      logged.push(format(...args))
    }
    for (const method of ["log", "info", "warn", "error", "debug"] as const) vi.spyOn(console, method).mockImplementation(capture)
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      logged.push(String(chunk))
      return true
    })
  })
  afterAll(async () => {
    vi.restoreAllMocks()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await handler?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${base}/postwire${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...init.headers }
    })

  const aPost = async (approval: "link" | "none") => {
    const media = (await (await api("/v1/media", { method: "POST", body: JSON.stringify({ data: PIXEL_PNG }) })).json()) as { id: string }
    const account = handler.firstRun!.accounts.find((a) => a.platform === "pages")!
    const response = await api("/v1/posts", {
      method: "POST",
      body: JSON.stringify({
        profile_id: handler.firstRun!.profileId,
        caption: "Under a prefix",
        media: [media.id],
        targets: [{ account_id: account.id }],
        approval: { mode: approval }
      })
    })
    expect(response.status).toBe(201)
    return (await response.json()) as { id: string; status: string; approval?: { url: string } }
  }

  it("derives the prefix from the public address and sends / to the docs under it", async () => {
    expect(handler.prefix).toBe("/postwire")
    const root = await fetch(`${base}/postwire`, { redirect: "manual" })
    expect(root.status).toBe(302)
    expect(root.headers.get("location")).toBe("/postwire/docs")
    expect((await fetch(`${base}/postwire/docs`)).status).toBe(200)
    const errors = await api("/v1/posts/post_01JD0000000000000000000000")
    expect(((await errors.json()) as { error: { docs: string } }).error.docs).toBe(`${base}/postwire/docs/errors#not_found`)
  })

  it("names its public address under the prefix as the OpenAPI server, for the reference page and generated clients", async () => {
    const reply = await fetch(`${base}/postwire/v1/openapi.json`)
    expect(reply.status).toBe(200)
    const document = (await reply.json()) as { servers?: Array<{ url: string }>; paths: Record<string, unknown> }
    expect(document.servers).toEqual([{ url: `${base}/postwire` }])
    expect(document.paths).toHaveProperty(["/v1/posts"])
    // The reference page carries the same server, so its requests go under the prefix.
    expect(await (await fetch(`${base}/postwire/docs`)).text()).toContain(`${base}/postwire`)
  })

  it("links approval pages under the prefix, and their form posts back under it", async () => {
    const post = await aPost("link")
    expect(post.approval!.url.startsWith(`${base}/postwire/approve/`)).toBe(true)
    const page = await fetch(post.approval!.url)
    expect(page.status).toBe(200)
    const html = await page.text()
    const token = post.approval!.url.split("/").pop()!
    expect(html).toContain(`action="/postwire/approve/${token}"`)
    expect(html).toContain(`src="/postwire/approve/${token}/media/`)
  })

  it("never writes an approval token or a key into the request log", async () => {
    const post = await aPost("link")
    const token = post.approval!.url.split("/").pop()!
    await fetch(post.approval!.url)
    await fetch(`${base}/postwire/v1/approvals/${token}/decision`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ decision: "reject" })
    })
    // Both requests are logged (the decision's line last) before the log is searched.
    const all = await eventually(() => logged.join("\n"), (text) => text.includes("/approvals/{token}/decision"), "the decision's log line")
    expect(all).toContain("/approve/{token}")
    expect(all).not.toContain(token)
    expect(all).not.toContain(key)
  })

  it("answers through the fetch handler with or without the prefix in the URL", async () => {
    const headers = { authorization: `Bearer ${key}` }
    const prefixed = await handler.fetch(new Request("http://app.example/postwire/v1/accounts?limit=2", { headers }))
    expect(prefixed.status).toBe(200)
    expect(((await prefixed.json()) as { data: Array<unknown> }).data).toHaveLength(2)
    const bare = await handler.fetch(new Request("http://app.example/v1/accounts", { headers }))
    expect(bare.status).toBe(200)
    const posted = await handler.fetch(
      new Request("http://app.example/postwire/v1/posts/validate", {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ profile_id: handler.firstRun!.profileId, caption: "x", media: [], targetz: [] })
      })
    )
    expect(posted.status).toBe(400)
    expect(((await posted.json()) as { error: { field: string } }).error.field).toBeDefined()
  })

  it("publishes only while the host has the background work started", async () => {
    const statusOf = async (id: string) => ((await (await api(`/v1/posts/${id}`)).json()) as { status: string }).status
    // Whether the publisher runs, as /ready reports the instance's loops.
    const publisherRuns = async () => {
      const ready = (await (await fetch(`${base}/postwire/ready`)).json()) as { loops?: Record<string, string> }
      return ready.loops?.publisher === "running"
    }
    const waiting = await aPost("none")
    expect(await publisherRuns()).toBe(false)
    expect(await statusOf(waiting.id)).toBe("queued")

    await handler.start()
    expect(await publisherRuns()).toBe(true)
    const status = await eventually(() => statusOf(waiting.id), (s) => s === "published" || s === "failed", "the post to be published", {
      intervalMs: 200
    })
    expect(status).toBe("published")
    await handler.stop()

    expect(await publisherRuns()).toBe(false)
    const after = await aPost("none")
    expect(await statusOf(after.id)).toBe("queued")
  })
})
