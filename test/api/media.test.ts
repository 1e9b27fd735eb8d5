import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aGif, aJpeg, aMov, anMp4, aPng, aWebp } from "../support/Media.ts"
import { call, errorOf } from "../support/Http.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64")

describe.each(backends())("media on %s", (backend) => {
  let server: TestServer
  const upload = (body: unknown) => call(server.baseUrl, "POST", "/v1/media", { key: server.testKey, body })

  beforeAll(async () => {
    server = await startServer(backend)
  })
  afterAll(() => server?.stop())

  it.each([
    ["PNG", () => aPng({ width: 16, height: 9 }), "image/png", "image"],
    ["JPEG", () => aJpeg({ width: 16, height: 9 }), "image/jpeg", "image"],
    ["WebP", () => aWebp({ width: 16, height: 9, encoding: "lossless" }), "image/webp", "image"]
  ] as const)("accepts %s and reads its size from the bytes", async (_name, make, mime, kind) => {
    const reply = await upload({ data: b64(make()), filename: "misleading.mp4" })
    expect(reply.status).toBe(201)
    expect(reply.body).toMatchObject({ kind, mime, width: 16, height: 9, status: "ready", filename: "misleading.mp4" })
    expect(reply.body.id).toMatch(/^med_/)
    const fetched = await call(server.baseUrl, "GET", `/v1/media/${reply.body.id}`, { key: server.testKey })
    expect(fetched.body).toEqual(reply.body)
  })

  it("reads an MP4's duration from its container header", async () => {
    const reply = await upload({ data: b64(anMp4({ durationSeconds: 42.5, width: 1080, height: 1920 })) })
    expect(reply.status).toBe(201)
    expect(reply.body).toMatchObject({ kind: "video", mime: "video/mp4", duration_seconds: 42.5, width: 1080, height: 1920 })
  })

  it("accepts a QuickTime movie", async () => {
    const reply = await upload({ data: b64(aMov({ durationSeconds: 3 })) })
    expect(reply.status).toBe(201)
    expect(reply.body).toMatchObject({ mime: "video/quicktime", duration_seconds: 3 })
  })

  it("answers 400 unsupported_format for bytes of another format, whatever the file name says", async () => {
    const reply = await upload({ data: b64(aGif()), filename: "photo.png" })
    expect(reply.status).toBe(400)
    expect(errorOf(reply)).toMatchObject({ code: "unsupported_format", field: "data" })
  })

  it("answers 400 payload_too_large above 10 MiB", async () => {
    const big = new Uint8Array(10 * 1024 * 1024 + 16)
    big.set(aPng({ width: 1, height: 1 }))
    const reply = await upload({ data: b64(big) })
    expect(reply.status).toBe(400)
    expect(errorOf(reply)).toMatchObject({ code: "payload_too_large", field: "data" })
  })

  it("answers 400 invalid_request for data that is not base64", async () => {
    const reply = await upload({ data: "%%% not base64 %%%" })
    expect(reply.status).toBe(400)
    expect(errorOf(reply)).toMatchObject({ code: "invalid_request", field: "data" })
  })
})
