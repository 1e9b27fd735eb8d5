import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aPost, anImage } from "../support/Builders.ts"
import { call, errorOf, inOneRateLimitWindow } from "../support/Http.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"
import { aMovableClock } from "../support/MovableClock.ts"

describe.each(backends())("rate limits on %s", (backend) => {
  let server: TestServer
  let image: string
  const time = aMovableClock()

  beforeAll(async () => {
    server = await startServer(backend, { POSTWIRE_RATE_LIMIT_PER_KEY: "8", POSTWIRE_RATE_LIMIT_POSTS_CREATE: "3" }, { clock: time.clock })
    image = await anImage(server)
  })
  afterAll(() => server?.stop())

  it("puts X-RateLimit headers on successes and errors alike", async () => {
    inOneRateLimitWindow(time)
    const ok = await call(server.baseUrl, "GET", "/v1/profiles", { key: server.testKey })
    const notFound = await call(server.baseUrl, "GET", "/v1/posts/post_missing", { key: server.testKey })
    for (const reply of [ok, notFound]) {
      expect(reply.headers.get("x-ratelimit-limit")).toBe("8")
      expect(Number(reply.headers.get("x-ratelimit-remaining"))).toBeGreaterThanOrEqual(0)
      const reset = Number(reply.headers.get("x-ratelimit-reset"))
      expect(reset * 1000).toBeGreaterThan(time.now() - 1000)
      expect(reset * 1000).toBeLessThanOrEqual(time.now() + 61_000)
    }
    expect(notFound.status).toBe(404)
    expect(Number(notFound.headers.get("x-ratelimit-remaining"))).toBe(Number(ok.headers.get("x-ratelimit-remaining")) - 1)
  })

  it("limits POST /v1/posts separately, reports the tightest limit, and answers 429 with Retry-After", async () => {
    const key = (await server.admin<{ key: string }>(`/workspaces/${server.workspaceId}/keys`, {
      kind: "test",
      scopes: ["posts:write", "posts:read"]
    })).key
    const statuses: Array<number> = []
    inOneRateLimitWindow(time)
    let last = await call(server.baseUrl, "POST", "/v1/posts", { key, body: aPost(server, [image]) })
    statuses.push(last.status)
    expect(last.headers.get("x-ratelimit-limit")).toBe("3")
    expect(last.headers.get("x-ratelimit-remaining")).toBe("2")
    for (let i = 0; i < 3; i++) {
      last = await call(server.baseUrl, "POST", "/v1/posts", { key, body: aPost(server, [image]) })
      statuses.push(last.status)
    }
    expect(statuses).toEqual([201, 201, 201, 429])
    expect(errorOf(last)).toMatchObject({ code: "rate_limited", retryable: true })
    const retryAfter = Number(last.headers.get("retry-after"))
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
    expect(last.headers.get("x-ratelimit-remaining")).toBe("0")
    // Reads still work: the per-key limit is not used up.
    const read = await call(server.baseUrl, "GET", "/v1/posts", { key })
    expect(read.status).toBe(200)
  })

  it("answers 429 once the per-key limit is used up", async () => {
    const key = (await server.admin<{ key: string }>(`/workspaces/${server.workspaceId}/keys`, {
      kind: "test",
      scopes: ["posts:read"]
    })).key
    const statuses: Array<number> = []
    inOneRateLimitWindow(time)
    for (let i = 0; i < 9; i++) statuses.push((await call(server.baseUrl, "GET", "/v1/profiles", { key })).status)
    expect(statuses.slice(0, 8).every((s) => s === 200)).toBe(true)
    expect(statuses[8]).toBe(429)
  })
})
