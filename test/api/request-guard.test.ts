/**
 * What every request meets before its route, over real HTTP: JSON read whatever the
 * `Content-Type` says, NUL characters refused where they are, unknown addresses answered in the
 * shared error shape, overlong input refused by name, and the public approval routes limited per
 * client address.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { accountOf, anImage, aPost, aVideo } from "../support/Builders.ts"
import { call, errorOf, inOneRateLimitWindow } from "../support/Http.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"
import { aMovableClock } from "../support/MovableClock.ts"

/** Sends `body` as the exact text given, with the exact headers given. */
const raw = async (server: TestServer, method: string, path: string, body: string | undefined, headers: Record<string, string>) => {
  const response = await fetch(server.baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${server.testKey}`, ...headers },
    ...(body === undefined ? {} : { body })
  })
  const text = await response.text()
  let parsed: unknown = text
  try {
    parsed = JSON.parse(text)
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: parsed as any }
}

describe.each(backends())("request checks on %s", (backend) => {
  let server: TestServer
  let image: string

  beforeAll(async () => {
    server = await startServer(backend, { POSTWIRE_RATE_LIMIT_PER_KEY: "100000", POSTWIRE_RATE_LIMIT_POSTS_CREATE: "100000" })
    image = await anImage(server)
  })
  afterAll(() => server?.stop())

  describe("a JSON body under another Content-Type", () => {
    it.each([
      ["text/plain;charset=UTF-8", "fetch with a string body"],
      ["application/x-www-form-urlencoded", "curl -d"],
      ["application/octet-stream", "a generic client"]
    ])("is read as JSON when sent as %s (%s)", async (contentType) => {
      const reply = await raw(server, "POST", "/v1/posts", JSON.stringify(aPost(server, [image])), { "content-type": contentType })
      expect(reply.status).toBe(201)
      expect(reply.body.id).toMatch(/^post_/)
    })

    it("is answered with the shared error shape when it is not JSON at all", async () => {
      const reply = await raw(server, "POST", "/v1/posts", "caption=hello", { "content-type": "application/x-www-form-urlencoded" })
      expect(reply.status).toBe(400)
      expect(errorOf(reply)).toMatchObject({ code: "invalid_request", retryable: false })
    })
  })

  describe("the NUL character", () => {
    it("is refused in a body field, naming the field, and nothing is created", async () => {
      const before = await call(server.baseUrl, "GET", "/v1/posts?limit=100", { key: server.testKey })
      const reply = await call(server.baseUrl, "POST", "/v1/posts", {
        key: server.testKey,
        body: aPost(server, [image], { caption: "Hello\u0000world" })
      })
      expect(reply.status).toBe(400)
      const error = errorOf(reply)
      expect(error).toMatchObject({ code: "invalid_request", field: "caption" })
      expect(error.message).toBe("The request is invalid at caption: must not contain the NUL character")
      expect(error.message_id).toBe("Permintaan tidak valid pada caption: tidak boleh mengandung karakter NUL")
      const after = await call(server.baseUrl, "GET", "/v1/posts?limit=100", { key: server.testKey })
      expect(after.body.data.length).toBe(before.body.data.length)
    })

    it("is refused deep in a body, naming the path to it", async () => {
      const reply = await call(server.baseUrl, "POST", "/v1/posts/validate", {
        key: server.testKey,
        body: aPost(server, [image], { targets: [{ account_id: `${accountOf(server, "photo")}\u0000` }] })
      })
      expect(reply.status).toBe(400)
      expect(errorOf(reply)).toMatchObject({ code: "invalid_request", field: "targets[0].account_id" })
    })

    it("is refused in a query parameter, naming the parameter", async () => {
      const reply = await call(server.baseUrl, "GET", "/v1/posts?status=queued%00", { key: server.testKey })
      expect(reply.status).toBe(400)
      expect(errorOf(reply)).toMatchObject({ code: "invalid_request", field: "status" })
    })

    it("in an id of the path names nothing: 404 not_found", async () => {
      const reply = await call(server.baseUrl, "GET", "/v1/posts/post_%00abc", { key: server.testKey })
      expect(reply.status).toBe(404)
      expect(errorOf(reply)).toMatchObject({ code: "not_found", retryable: false })
    })
  })

  describe("an address no route serves", () => {
    it.each([
      ["GET", "/v2/posts"],
      ["GET", "/v1/nothing-here"],
      ["POST", "/v1/posts/batch/extra/segments"],
      ["GET", "/admin/v1/unknown"],
      ["GET", "/nothing"]
    ])("%s %s is a 404 route_not_found naming the method and path, in the shared shape", async (method, path) => {
      const reply = await raw(server, method, path, method === "POST" ? "{}" : undefined, { "content-type": "application/json" })
      expect(reply.status).toBe(404)
      expect(reply.headers.get("content-type")).toContain("application/json")
      const error = errorOf(reply)
      expect(error).toMatchObject({ code: "route_not_found", retryable: false })
      expect(error.message).toBe(`No route answers ${method} ${path}. The API reference at /docs lists every address.`)
      expect(error.message).not.toContain("with that id")
    })

    it.each([
      ["PUT", "/v1/posts", "GET, HEAD, POST"],
      ["DELETE", "/v1/posts", "GET, HEAD, POST"],
      ["POST", "/v1/posts/post_01JD0000000000000000000000", "GET, HEAD, PATCH"],
      ["POST", "/health", "GET, HEAD"],
      ["DELETE", "/docs", "GET, HEAD"]
    ])("%s %s, a path served with other methods, is a 405 method_not_allowed with Allow: %s", async (method, path, allow) => {
      const reply = await raw(server, method, path, method === "GET" ? undefined : "{}", {})
      expect(reply.status).toBe(405)
      expect(reply.headers.get("allow")).toBe(allow)
      expect(errorOf(reply)).toMatchObject({
        code: "method_not_allowed",
        message: `${path} does not accept ${method}; it accepts ${allow}.`,
        retryable: false
      })
    })

    it("says so in Indonesian for Accept-Language: id", async () => {
      const reply = await raw(server, "GET", "/v1/nothing-here", undefined, { "accept-language": "id" })
      expect(reply.status).toBe(404)
      const error = errorOf(reply)
      expect(error.message).toBe(error.message_id)
      expect(error.message_id).toBe("Tidak ada rute untuk GET /v1/nothing-here. Referensi API di /docs mencantumkan setiap alamat.")
      const wrongMethod = errorOf(await raw(server, "PUT", "/v1/posts", "{}", { "accept-language": "id" }))
      expect(wrongMethod.message_id).toBe("/v1/posts tidak menerima PUT; yang diterima: GET, HEAD, POST.")
    })

    it("quotes at most 200 characters of a long path and none of its query", async () => {
      const path = `/v9/${"x".repeat(1_000)}`
      const error = errorOf(await raw(server, "GET", `${path}?secret=1`, undefined, {}))
      expect(error.message).toContain(`GET ${path.slice(0, 200)}…. The API`)
      expect(error.message).not.toContain("secret")
    })
  })

  describe("overlong input", () => {
    it("a cursor of 20,000 characters is 400 invalid_cursor, not a refused header", async () => {
      const reply = await call(server.baseUrl, "GET", `/v1/posts?cursor=${"a".repeat(20_000)}`, { key: server.testKey })
      expect(reply.status).toBe(400)
      expect(errorOf(reply)).toMatchObject({ code: "invalid_cursor", field: "cursor" })
    })

    it("an id of 5,000 characters is 404 not_found", async () => {
      const reply = await call(server.baseUrl, "GET", `/v1/posts/post_${"a".repeat(5_000)}`, { key: server.testKey })
      expect(reply.status).toBe(404)
      expect(errorOf(reply).code).toBe("not_found")
    })
  })

  it("a 422 lists its problem in issues[] even when there is only one", async () => {
    const video = await aVideo(server, 12)
    const reply = await call(server.baseUrl, "POST", "/v1/posts", {
      key: server.testKey,
      body: aPost(server, [video], {
        approval: { mode: "none" },
        targets: [{ account_id: accountOf(server, "shortvideo"), shortvideo: { mode: "direct" } }]
      })
    })
    expect(reply.status).toBe(422)
    const error = errorOf(reply)
    expect(error.code).toBe("consent_required")
    expect(error.issues).toHaveLength(1)
    expect(error.issues?.[0]).toMatchObject({ code: "consent_required", message: error.message })
  })
})

describe.each(backends())("the public approval routes on %s", (backend) => {
  let server: TestServer
  const time = aMovableClock()

  beforeAll(async () => {
    server = await startServer(backend, { POSTWIRE_RATE_LIMIT_PUBLIC: "3" }, { clock: time.clock })
  })
  afterAll(() => server?.stop())

  it("are limited per client address, with the X-RateLimit headers, then 429 with Retry-After", async () => {
    const replies = []
    inOneRateLimitWindow(time)
    for (let i = 0; i < 4; i++) {
      replies.push(await call(server.baseUrl, "POST", "/v1/approvals/apr_unknown/decision", { body: { decision: "approve" } }))
    }
    for (const [i, reply] of replies.slice(0, 3).entries()) {
      expect(reply.status).toBe(404)
      expect(reply.headers.get("x-ratelimit-limit")).toBe("3")
      expect(reply.headers.get("x-ratelimit-remaining")).toBe(String(2 - i))
      expect(Number(reply.headers.get("x-ratelimit-reset"))).toBeGreaterThan(time.now() / 1000 - 1)
    }
    const limited = replies[3]!
    expect(limited.status).toBe(429)
    expect(errorOf(limited)).toMatchObject({ code: "rate_limited", retryable: true })
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)

    // The page shares the address's budget and says so in both languages.
    const page = await fetch(`${server.baseUrl}/approve/unknown-token`)
    expect(page.status).toBe(429)
    expect(page.headers.get("retry-after")).not.toBeNull()
    const text = await page.text()
    expect(text).toContain("Too many requests")
    expect(text).toContain("Terlalu banyak permintaan")
  })

  it("leave the health check and the keyed API to their own limits", async () => {
    const health = await fetch(`${server.baseUrl}/health`)
    expect(health.status).toBe(200)
    expect(health.headers.get("x-ratelimit-limit")).toBeNull()
    const posts = await call(server.baseUrl, "GET", "/v1/posts", { key: server.testKey })
    expect(posts.status).toBe(200)
    expect(posts.headers.get("x-ratelimit-limit")).not.toBe("3")
  })
})
