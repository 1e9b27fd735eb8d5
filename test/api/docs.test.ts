import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ErrorCatalog, errorCodes } from "@postwire/domain"
import { call } from "../support/Http.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

describe("health, OpenAPI and docs", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer("embedded")
  })
  afterAll(() => server?.stop())

  it("answers GET /health without a key", async () => {
    const reply = await call(server.baseUrl, "GET", "/health")
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({ status: "ok" })
  })

  it("serves the OpenAPI document derived from the contract", async () => {
    const reply = await call(server.baseUrl, "GET", "/v1/openapi.json")
    expect(reply.status).toBe(200)
    expect(reply.body.openapi).toMatch(/^3\./)
    for (const path of ["/v1/posts", "/v1/posts/validate", "/v1/posts/{id}", "/v1/posts/{id}/cancel", "/v1/posts/{id}/retry", "/v1/media", "/v1/accounts/{id}"]) {
      expect(reply.body.paths).toHaveProperty([path])
    }
    expect(reply.body.paths["/v1/posts"].post.responses).toHaveProperty("201")
    expect(reply.body.paths["/v1/posts"].post.responses).toHaveProperty("422")
    // Its one server is the instance's public address.
    expect(reply.body.servers).toEqual([{ url: expect.stringMatching(/^http:\/\/localhost:\d+$/) }])
  })

  it("serves the API reference page", async () => {
    const response = await fetch(`${server.baseUrl}/docs`)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toContain("text/html")
  })

  it("serves /docs and /docs/errors whole from this server: nothing named on another host, a policy that allows this server only", async () => {
    for (const path of ["/docs", "/docs/errors"]) {
      const response = await fetch(`${server.baseUrl}${path}`)
      const html = await response.text()
      const csp = response.headers.get("content-security-policy") ?? ""
      // Every source of every directive is this server, inline code, data: or blob: (a download).
      for (const directive of csp.split(";").map((d) => d.trim())) {
        const [, ...sources] = directive.split(/\s+/)
        for (const source of sources) expect(["'self'", "'unsafe-inline'", "'none'", "data:", "blob:"], `${path}: ${directive}`).toContain(source)
      }
      // No script, style sheet, font or image is fetched from an address in the page itself.
      expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)="?(https?:)?\/\//i)
      expect(html).not.toMatch(/@import\s+url\(["']?https?:/i)
    }
    // Scalar's own fonts (fonts.scalar.com) are turned off: the page uses the system's fonts.
    const page = await (await fetch(`${server.baseUrl}/docs`)).text()
    expect(page).toContain('"withDefaultFonts":false')
  })

  it("serves the error reference with an anchor and both texts for every code", async () => {
    const response = await fetch(`${server.baseUrl}/docs/errors`)
    const html = await response.text()
    expect(response.status).toBe(200)
    for (const code of errorCodes) {
      expect(html).toContain(`id="${code}"`)
      expect(html).toContain(ErrorCatalog[code].indonesian.replace(/"/g, "&quot;"))
    }
  })
})
