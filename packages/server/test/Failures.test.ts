/**
 * The answers written before a request reaches the router (a request Node's parser refuses, a
 * request during the start) come from the same module as every other error answer: the shared
 * shape, the catalog's status on the status line, the right language, the request id twice.
 * Checked on raw sockets against a bare Node server with only these answers installed.
 */
import { createServer, type Server } from "node:http"
import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { answerClientErrors, answerWhileStarting, maxHeaderBytes } from "../src/http/Failures.ts"

const publicUrl = "https://postwire.example/base"

interface RawAnswer {
  readonly statusLine: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/** Writes the bytes as they are and reads the whole answer, up to the connection's close. */
const raw = (port: number, bytes: string) =>
  new Promise<RawAnswer>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(bytes))
    let text = ""
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString()
    })
    socket.on("error", reject)
    socket.on("close", () => {
      const end = text.indexOf("\r\n\r\n")
      if (end < 0) return reject(new Error(`closed before an answer: ${JSON.stringify(text)}`))
      const [statusLine = "", ...lines] = text.slice(0, end).split("\r\n")
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()])
      )
      resolve({ statusLine, headers, body: text.slice(end + 4) })
    })
  })

describe("error answers below the router", () => {
  let server: Server
  let port: number
  beforeAll(async () => {
    server = answerWhileStarting(answerClientErrors(createServer({ maxHeaderSize: maxHeaderBytes }), publicUrl), publicUrl)
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    port = (server.address() as { port: number }).port
  })
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve))
  })

  it("answers a request during the start with 503 not_ready in the caller's language, Retry-After and its request id", async () => {
    const answer = await raw(
      port,
      "GET /v1/posts HTTP/1.1\r\nHost: x\r\nAccept-Language: id\r\nX-Request-Id: lb-7\r\nConnection: close\r\n\r\n"
    )
    expect(answer.statusLine).toBe("HTTP/1.1 503 Service Unavailable")
    expect(answer.headers["retry-after"]).toBe("1")
    expect(answer.headers["x-request-id"]).toBe("lb-7")
    expect(JSON.parse(answer.body)).toEqual({
      error: {
        code: "not_ready",
        message: "Instans ini belum siap: instans ini masih dalam proses mulai.",
        message_id: "Instans ini belum siap: instans ini masih dalam proses mulai.",
        retryable: true,
        docs: `${publicUrl}/docs/errors#not_ready`,
        request_id: "lb-7"
      }
    })
  })

  it("answers /health under the public path with 200 during the start", async () => {
    const answer = await raw(port, "GET /base/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    expect(answer.statusLine).toBe("HTTP/1.1 200 OK")
    expect(JSON.parse(answer.body)).toEqual({ status: "ok" })
  })

  it("answers headers beyond the limit with 431 headers_too_large in English whatever the caller asks, with a new request id, then closes", async () => {
    const answer = await raw(
      port,
      `GET /v1/posts HTTP/1.1\r\nHost: x\r\nAccept-Language: id\r\nX-Request-Id: mine\r\nX-Big: ${"a".repeat(maxHeaderBytes)}\r\n\r\n`
    )
    expect(answer.statusLine).toBe("HTTP/1.1 431 Request Header Fields Too Large")
    expect(answer.headers.connection).toBe("close")
    const requestId = answer.headers["x-request-id"]
    expect(requestId).not.toBe("mine")
    expect(JSON.parse(answer.body)).toEqual({
      error: {
        code: "headers_too_large",
        field: "headers",
        message: "The request's headers are larger than the limit of 65536 bytes.",
        message_id: "Header permintaan melebihi batas 65536 byte.",
        retryable: false,
        docs: `${publicUrl}/docs/errors#headers_too_large`,
        request_id: requestId
      }
    })
  })

  it("answers an unknown method with 400 invalid_request naming the method", async () => {
    const answer = await raw(port, "BREW /v1/posts HTTP/1.1\r\nHost: x\r\n\r\n")
    expect(answer.statusLine).toBe("HTTP/1.1 400 Bad Request")
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: "invalid_request", field: "method", retryable: false } })
  })
})
