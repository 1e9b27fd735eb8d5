/**
 * Which instance publishes, and how publishing is configured: `--role api` never publishes,
 * `--role worker` publishes and serves only its health, and bad publishing or platform settings
 * stop the start naming the setting.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ConfigProblem, resolveSettings } from "@postwire/server"
import { aPost, anImage } from "../support/Builders.ts"
import { call } from "../support/Http.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

describe("roles", () => {
  let api: TestServer
  let worker: TestServer

  beforeAll(async () => {
    ;[api, worker] = await Promise.all([
      startServer("embedded", { POSTWIRE_ROLE: "api", POSTWIRE_PUBLISH_POLL_MS: "50" }),
      startServer("embedded", { POSTWIRE_ROLE: "worker" })
    ])
  })
  afterAll(() => Promise.all([api?.stop(), worker?.stop()]))

  it("publishes nothing on an instance with role api", async () => {
    const image = await anImage(api)
    const created = await call(api.baseUrl, "POST", "/v1/posts", {
      key: api.testKey,
      body: aPost(api, [image], { approval: { mode: "none" } })
    })
    expect(created.body.status).toBe("queued")
    // The instance runs no background loop at all, where a worker runs its publisher: the post
    // waits for one.
    const ready = await call(api.baseUrl, "GET", "/ready")
    expect(ready.body).toEqual({ status: "ready", loops: {} })
    expect((await call(worker.baseUrl, "GET", "/ready")).body.loops).toMatchObject({ publisher: "running" })
    const later = await call(api.baseUrl, "GET", `/v1/posts/${created.body.id}`, { key: api.testKey })
    expect(later.body.status).toBe("queued")
  })

  it("serves only its health on an instance with role worker", async () => {
    expect((await call(worker.baseUrl, "GET", "/health")).body).toEqual({ status: "ok" })
    expect((await call(worker.baseUrl, "GET", "/v1/accounts", { key: worker.testKey })).status).toBe(404)
    expect((await call(worker.baseUrl, "GET", "/docs")).status).toBe(404)
  })
})

describe("publishing settings", () => {
  it("uses the documented defaults and the platforms' own addresses", () => {
    const settings = resolveSettings({}, {})
    expect(settings.publishing).toEqual({
      concurrency: 128,
      accountConcurrency: 4,
      leaseMs: 60_000,
      pollMs: 1_000,
      shutdownGraceMs: 10_000,
      stepTimeoutMs: 300_000
    })
    expect(settings.platforms.textpost).toEqual({})
  })

  it("points a platform at another address and turns its token refresh off", () => {
    const settings = resolveSettings(
      {},
      {
        POSTWIRE_THREADS_BASE_URL: "http://127.0.0.1:4010/v1.0/",
        POSTWIRE_THREADS_REFRESH_URL: "none",
        POSTWIRE_TIKTOK_CLIENT_KEY: "aw41",
        POSTWIRE_PLATFORM_RETRY_ATTEMPTS: "5"
      }
    )
    expect(settings.platforms.textpost).toEqual({ baseUrl: "http://127.0.0.1:4010/v1.0", refreshUrl: null })
    expect((settings.platforms.shortvideo as Record<string, unknown>).clientKey).toBe("aw41")
    expect(settings.platforms.retry).toEqual({ attempts: 5 })
  })

  it.each([
    ["POSTWIRE_THREADS_BASE_URL", "graph.threads.net"],
    ["POSTWIRE_INSTAGRAM_REFRESH_URL", "ftp://example.com"],
    ["POSTWIRE_PUBLISH_CONCURRENCY", "0"],
    ["POSTWIRE_PUBLISH_LEASE_MS", "500"],
    ["POSTWIRE_PLATFORM_TIMEOUT_MS", "soon"]
  ])("stops the start naming %s when it is %j", (setting, value) => {
    expect(() => resolveSettings({}, { [setting]: value })).toThrow(ConfigProblem)
    expect(() => resolveSettings({}, { [setting]: value })).toThrow(setting)
  })
})
