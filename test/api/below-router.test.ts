/**
 * Answers to requests the router never sees (refused by Node's HTTP parser) or sees in an odd
 * form: still the shared error shape, checked on raw sockets against a real server.
 */
import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startServer, type TestServer } from "../support/TestServer.ts"

interface RawAnswer {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: string
}

/** Writes the bytes as they are and reads the first answer. */
const raw = (baseUrl: string, bytes: string) =>
  new Promise<RawAnswer>((resolve, reject) => {
    const { hostname, port } = new URL(baseUrl)
    const socket = connect(Number(port), hostname, () => socket.write(bytes))
    let text = ""
    const parse = () => {
      const end = text.indexOf("\r\n\r\n")
      if (end < 0) return undefined
      const [statusLine = "", ...lines] = text.slice(0, end).split("\r\n")
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()])
      )
      const length = Number(headers["content-length"] ?? -1)
      const body = text.slice(end + 4)
      if (length < 0 || Buffer.byteLength(body) < length) return undefined
      return { status: Number(statusLine.split(" ")[1]), headers, body }
    }
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString()
      const answer = parse()
      if (answer !== undefined) {
        socket.destroy()
        resolve(answer)
      }
    })
    socket.on("error", reject)
    socket.on("close", () => reject(new Error(`closed before a whole answer: ${JSON.stringify(text)}`)))
  })

const errorOf = (answer: RawAnswer) => {
  expect(answer.headers["content-type"]).toContain("application/json")
  const body = JSON.parse(answer.body) as { error: { code: string; field?: string; message: string; retryable: boolean } }
  expect(Object.keys(body)).toEqual(["error"])
  return body.error
}

describe("answers below the router", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer("embedded")
  })
  afterAll(async () => {
    await server?.stop()
  })

  it("answers an unknown method with 400 invalid_request naming the method, then closes", async () => {
    const answer = await raw(server.baseUrl, "BREW /v1/posts HTTP/1.1\r\nHost: x\r\n\r\n")
    expect(answer.status).toBe(400)
    expect(answer.headers.connection).toBe("close")
    const error = errorOf(answer)
    expect(error.code).toBe("invalid_request")
    expect(error.field).toBe("method")
    expect(error.message).toBe("The request is invalid at method.")
  })

  it("answers a malformed request line with 400 invalid_request", async () => {
    const answer = await raw(server.baseUrl, "GET /v1/posts HTTP/1.1 extra\r\nHost: x\r\n\r\n")
    expect(answer.status).toBe(400)
    expect(errorOf(answer)).toMatchObject({ code: "invalid_request", field: "request", retryable: false })
  })

  it.each([
    ["POST", "/v1/posts", true],
    ["POST", "/v1/posts/validate", true],
    ["POST", "/v1/media/uploads", false]
  ])("answers %s %s with a bad chunk size with 400 invalid_request naming the body, then closes (key sent: %s)", async (method, path, withKey) => {
    const key = withKey ? `Authorization: Bearer ${server.testKey}\r\n` : ""
    const answer = await raw(
      server.baseUrl,
      `${method} ${path} HTTP/1.1\r\nHost: x\r\n${key}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`
    )
    expect(answer.status).toBe(400)
    expect(answer.headers.connection).toBe("close")
    expect(errorOf(answer)).toMatchObject({
      code: "invalid_request",
      field: "body",
      message: "The request is invalid at body: is not valid chunked transfer encoding (each chunk starts with its size in hexadecimal)",
      retryable: false
    })
  })

  it("answers headers beyond 64 KiB with 431 headers_too_large naming the limit", async () => {
    const answer = await raw(server.baseUrl, `GET /v1/posts HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(70 * 1024)}\r\n\r\n`)
    expect(answer.status).toBe(431)
    expect(errorOf(answer)).toMatchObject({
      code: "headers_too_large",
      field: "headers",
      message: "The request's headers are larger than the limit of 65536 bytes."
    })
  })

  it("accepts a DELETE with a chunked body and ignores the body", async () => {
    const created = await fetch(`${server.baseUrl}/v1/profiles`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.testKey}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Below the router" })
    })
    expect(created.status).toBe(201)
    const { id } = (await created.json()) as { id: string }
    const answer = await raw(
      server.baseUrl,
      `DELETE /v1/profiles/${id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.testKey}\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n`
    )
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.body)).toMatchObject({ id, deleted: true })
    const gone = await fetch(`${server.baseUrl}/v1/profiles/${id}`, { headers: { authorization: `Bearer ${server.testKey}` } })
    expect(gone.status).toBe(404)
  })

  it("serves a path with doubled slashes like the single-slash path", async () => {
    const answer = await raw(server.baseUrl, `GET //v1//posts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.testKey}\r\n\r\n`)
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.body)).toEqual({ data: [], cursor: { next: null, has_more: false } })
    const unknown = await raw(server.baseUrl, "GET //v1//nothing-here HTTP/1.1\r\nHost: x\r\n\r\n")
    expect(unknown.status).toBe(404)
    expect(errorOf(unknown).code).toBe("route_not_found")
  })
})
