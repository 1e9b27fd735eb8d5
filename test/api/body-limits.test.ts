/**
 * Request body limits: a body larger than its address accepts is answered 413
 * `request_too_large` in the shared shape (with its request id), and the connection is closed
 * instead of reading the rest, whether the body declared its length or came chunked. Each address
 * has its own limit: `POST /v1/media` takes more than a JSON body, and the resumable upload
 * routes opt out. Checked on raw sockets against a real server with small limits.
 */
import { randomBytes } from "node:crypto"
import { connect, type Socket } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call } from "../support/Http.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

interface RawAnswer {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: string
  /** Resolves once the server closed the connection. */
  readonly closed: Promise<void>
}

/** Sends `head`, then `chunks` one by one (while the server lets it), and reads the first answer. */
const send = (baseUrl: string, head: string, chunks: ReadonlyArray<string>) =>
  new Promise<RawAnswer>((resolve, reject) => {
    const { hostname, port } = new URL(baseUrl)
    let text = ""
    let answered = false
    let onClose: () => void = () => {}
    const closed = new Promise<void>((resolveClosed) => (onClose = resolveClosed))
    const socket: Socket = connect(Number(port), hostname, async () => {
      socket.write(head)
      for (const chunk of chunks) {
        if (answered || socket.destroyed) return
        socket.write(chunk)
        await new Promise((r) => setTimeout(r, 5))
      }
    })
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString()
      const end = text.indexOf("\r\n\r\n")
      if (answered || end < 0) return
      const [statusLine = "", ...lines] = text.slice(0, end).split("\r\n")
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()])
      )
      const length = Number(headers["content-length"] ?? -1)
      const body = text.slice(end + 4)
      if (length < 0 || Buffer.byteLength(body) < length) return
      answered = true
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body, closed })
    })
    // The client may see a reset while it still writes: what matters is the answer before it.
    socket.on("error", () => {})
    socket.on("close", () => {
      onClose()
      if (!answered) reject(new Error(`closed before a whole answer: ${JSON.stringify(text)}`))
    })
  })

describe("request body limits", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer("embedded", { POSTWIRE_MAX_BODY_BYTES: "2048", POSTWIRE_MAX_MEDIA_BODY_BYTES: "8192" })
  })
  afterAll(async () => {
    await server?.stop()
  })

  const host = () => new URL(server.baseUrl).host

  const expectTooLarge = async (answer: RawAnswer, limit: number) => {
    expect(answer.status).toBe(413)
    expect(answer.headers.connection).toBe("close")
    const body = JSON.parse(answer.body) as { error: { code: string; field: string; message: string; request_id: string } }
    expect(Object.keys(body)).toEqual(["error"])
    expect(body.error).toMatchObject({ code: "request_too_large", field: "body" })
    expect(body.error.message).toContain(String(limit))
    expect(body.error.request_id).toBe(answer.headers["x-request-id"])
    await answer.closed
  }

  it("answers a declared length over the limit with 413 before reading the body, then closes", async () => {
    const head =
      `POST /v1/posts HTTP/1.1\r\nHost: ${host()}\r\nAuthorization: Bearer ${server.testKey}\r\n` +
      "Content-Type: application/json\r\nContent-Length: 5000000\r\n\r\n"
    const answer = await send(server.baseUrl, head, Array.from({ length: 50 }, () => "x".repeat(1024)))
    await expectTooLarge(answer, 2048)
  })

  it("answers a chunked body that grows over the limit with 413, then closes", async () => {
    const head =
      `POST /v1/posts HTTP/1.1\r\nHost: ${host()}\r\nAuthorization: Bearer ${server.testKey}\r\n` +
      "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    const chunk = `400\r\n${"x".repeat(1024)}\r\n`
    const answer = await send(server.baseUrl, head, Array.from({ length: 50 }, () => chunk))
    await expectTooLarge(answer, 2048)
  })

  it("lets POST /v1/media take more than a JSON body, up to its own limit", async () => {
    // Over the JSON limit, under the media limit: read and judged on its content (not an image).
    const notAnImage = randomBytes(3000).toString("base64")
    const read = await call(server.baseUrl, "POST", "/v1/media", { key: server.testKey, body: { data: notAnImage, filename: "x.png" } })
    expect(read.status).toBe(400)
    expect(read.body.error.code).toBe("unsupported_format")

    const tooLarge = randomBytes(9000).toString("base64")
    const refused = await call(server.baseUrl, "POST", "/v1/media", { key: server.testKey, body: { data: tooLarge, filename: "x.png" } })
    expect(refused.status).toBe(413)
    expect(refused.body.error.code).toBe("request_too_large")
  })

  it("leaves the resumable upload routes to bound their own bodies", async () => {
    const large = "x".repeat(10_000)
    const reply = await call(server.baseUrl, "PUT", "/v1/media/uploads/upl_01JD0000000000000000000000", {
      key: server.testKey,
      body: large
    })
    expect(reply.status).not.toBe(413)
  })
})
