/**
 * Every bad media input is a 4xx in the shared error shape (issue #37, F9), over real HTTP:
 * malformed `multipart/form-data` to `POST /v1/media`, a part of a resumable upload longer than
 * its range, and a video file that holds no video.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { anMp4 } from "../support/Media.ts"
import { call, errorOf, type Reply } from "../support/Http.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"

/** Sends exactly these bytes with exactly these headers. */
const send = async (server: TestServer, method: string, path: string, body: Uint8Array | string, headers: Record<string, string>): Promise<Reply> => {
  const bytes = typeof body === "string" ? Buffer.from(body, "latin1") : Buffer.from(body)
  const response = await fetch(server.baseUrl + path, { method, headers: { authorization: `Bearer ${server.testKey}`, ...headers }, body: bytes })
  const text = await response.text()
  let parsed: unknown = text
  try {
    parsed = JSON.parse(text)
  } catch {
    // not JSON: the assertion on the shape says so
  }
  return { status: response.status, headers: response.headers, body: parsed }
}

const boundary = "----postwire-test-boundary"
const filePart = (headers: string, content: string) => `--${boundary}\r\n${headers}\r\n\r\n${content}\r\n`

/** A 49-byte MP4: an `ftyp` box and an empty `moov`, no track, no sample. */
const headerOnlyMp4 = (): Uint8Array => {
  const ftyp = Buffer.alloc(32)
  ftyp.writeUInt32BE(32, 0)
  ftyp.write("ftypisom", 4, "latin1")
  ftyp.writeUInt32BE(0x200, 12)
  ftyp.write("isomiso2avc1mp41", 16, "latin1")
  const moov = Buffer.alloc(17)
  moov.writeUInt32BE(17, 0)
  moov.write("moov", 4, "latin1")
  // a 9-byte free box inside, so the file is the 49 bytes the report names
  moov.writeUInt32BE(9, 8)
  moov.write("free", 12, "latin1")
  return new Uint8Array(Buffer.concat([ftyp, moov]))
}

describe.each(backends())("bad media input on %s", (backend) => {
  let server: TestServer

  beforeAll(async () => {
    server = await startServer(backend, { POSTWIRE_RATE_LIMIT_PER_KEY: "100000" })
  })
  afterAll(() => server?.stop())

  const expectClientError = (reply: Reply, what: string) => {
    expect(reply.status, `${what}: ${JSON.stringify(reply.body)}`).toBeGreaterThanOrEqual(400)
    expect(reply.status, `${what}: ${JSON.stringify(reply.body)}`).toBeLessThan(500)
    const error = errorOf(reply)
    expect(error.code).toMatch(/^[a-z_]+$/)
    expect(error.retryable).toBe(false)
    expect(error.message.length).toBeGreaterThan(0)
  }

  it.each([
    ["without a boundary", { "content-type": "multipart/form-data" }, filePart('Content-Disposition: form-data; name="file"; filename="a.png"', "x")],
    [
      "cut off before its closing boundary",
      { "content-type": `multipart/form-data; boundary=${boundary}` },
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\x89PNG partial`
    ],
    [
      "with a part whose headers are not headers",
      { "content-type": `multipart/form-data; boundary=${boundary}` },
      `--${boundary}\r\nthis is not a header line\r\n\r\nx\r\n--${boundary}--\r\n`
    ],
    [
      "with no file part",
      { "content-type": `multipart/form-data; boundary=${boundary}` },
      `${filePart('Content-Disposition: form-data; name="other"', "x")}--${boundary}--\r\n`
    ],
    ["with an empty body", { "content-type": `multipart/form-data; boundary=${boundary}` }, ""]
  ])("answers a form %s with a 4xx in the shared shape", async (what, headers, body) => {
    expectClientError(await send(server, "POST", "/v1/media", body, headers), what)
  })

  it("answers a part longer than its range with a 4xx in the shared shape, and the upload still takes the right part", async () => {
    const video = anMp4({ durationSeconds: 2, width: 320, height: 240 })
    const started = await call(server.baseUrl, "POST", "/v1/media/uploads", {
      key: server.testKey,
      body: { filename: "clip.mp4", size: video.length, content_type: "video/mp4" }
    })
    expect(started.status).toBe(201)
    const path = new URL(started.body.upload_url).pathname
    const range = { "content-range": `bytes 0-${video.length - 1}/${video.length}`, "content-type": "application/octet-stream" }
    const oversized = await send(server, "PUT", path, Buffer.concat([Buffer.from(video), Buffer.alloc(4096, 7)]), range)
    expectClientError(oversized, "an oversized part")
    // Longer than any part may be.
    const huge = await send(server, "PUT", path, Buffer.alloc(17 * 1024 * 1024, 7), range)
    expectClientError(huge, "a part longer than the part size")
    expect(errorOf(huge).code).toBe("request_too_large")
    // The same without a declared length: sent in chunks until it passes the part size.
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 17; i++) controller.enqueue(new Uint8Array(1024 * 1024).fill(7))
        controller.close()
      }
    })
    const streamed = await fetch(server.baseUrl + path, {
      method: "PUT",
      headers: { authorization: `Bearer ${server.testKey}`, ...range },
      body: chunks,
      duplex: "half"
    } as RequestInit)
    const streamedReply = { status: streamed.status, headers: streamed.headers, body: JSON.parse((await streamed.text()) || "null") }
    expectClientError(streamedReply, "a chunked part longer than the part size")

    const right = await send(server, "PUT", path, video, range)
    expect(right.status).toBe(200)
    const completed = await call(server.baseUrl, "POST", `${path}/complete`, { key: server.testKey })
    expect(completed.status).toBe(200)
    expect(completed.body.status).toBe("ready")
  })

  it("does not accept an MP4 with no video track as a ready video, inline or uploaded in parts", async () => {
    const bytes = headerOnlyMp4()
    expect(bytes.length).toBe(49)
    const inline = await call(server.baseUrl, "POST", "/v1/media", {
      key: server.testKey,
      body: { data: Buffer.from(bytes).toString("base64"), filename: "empty.mp4" }
    })
    expectClientError(inline, "an inline header-only MP4")
    expect(errorOf(inline).code).toBe("unsupported_format")

    const started = await call(server.baseUrl, "POST", "/v1/media/uploads", {
      key: server.testKey,
      body: { filename: "empty.mp4", size: bytes.length, content_type: "video/mp4" }
    })
    const path = new URL(started.body.upload_url).pathname
    const part = await send(server, "PUT", path, bytes, {
      "content-range": `bytes 0-${bytes.length - 1}/${bytes.length}`,
      "content-type": "application/octet-stream"
    })
    expect(part.status).toBe(200)
    const completed = await call(server.baseUrl, "POST", `${path}/complete`, { key: server.testKey })
    expectClientError(completed, "a completed header-only MP4")
    const item = await call(server.baseUrl, "GET", `/v1/media/${started.body.id}`, { key: server.testKey })
    expect(item.body.status).not.toBe("ready")
  })
})
