/**
 * `POST /v1/media {url}`: a file fetched in the background under the SSRF rules of webhook
 * endpoints, from a real HTTP server on loopback (reachable only with the loopback setting the
 * webhook tests use): answered 202 `processing`, then `ready` or `failed` in the shared shape.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aGif, anMp4 } from "../support/Media.ts"
import { eventually } from "../support/Eventually.ts"
import { call, errorOf, type Reply } from "../support/Http.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"

const video = anMp4({ durationSeconds: 33, width: 720, height: 1280, codec: "avc1" })

/** A file host on loopback, with redirects to itself and to a private address. */
const startFileHost = async (): Promise<{ server: Server; base: string; requests: Array<string> }> => {
  const requests: Array<string> = []
  const server = createServer((req, res) => {
    requests.push(req.url ?? "")
    switch (req.url) {
      case "/videos/launch.mp4":
        res.writeHead(200, { "content-type": "video/mp4", "content-length": String(video.length) })
        return res.end(video)
      case "/animation.gif":
        res.writeHead(200, { "content-type": "image/gif" })
        return res.end(aGif())
      case "/short-link":
        res.writeHead(302, { location: "/videos/launch.mp4" })
        return res.end()
      case "/to-private":
        res.writeHead(302, { location: "http://10.20.30.40/secret.mp4" })
        return res.end()
      default:
        res.writeHead(404)
        return res.end()
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests }
}

const settle = (server: TestServer, id: string): Promise<Reply> =>
  eventually(
    () => call(server.baseUrl, "GET", `/v1/media/${id}`, { key: server.testKey }),
    (reply) => reply.body.status !== "processing",
    `media ${id} to finish processing`,
    { intervalMs: 100 }
  )

describe.each(backends())("URL imports on %s", (backend) => {
  let server: TestServer
  let host: Awaited<ReturnType<typeof startFileHost>>
  const importUrl = (url: string) => call(server.baseUrl, "POST", "/v1/media", { key: server.testKey, body: { url } })

  beforeAll(async () => {
    host = await startFileHost()
    server = await startServer(backend, { POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS: "1", POSTWIRE_RATE_LIMIT_PER_KEY: "100000" })
  })
  afterAll(async () => {
    await server?.stop()
    host?.server.close()
  })

  it("answers 202 processing, then the fetched file is ready, probed from its bytes", async () => {
    const accepted = await importUrl(`${host.base}/videos/launch.mp4`)
    expect(accepted.status).toBe(202)
    expect(accepted.body).toMatchObject({ status: "processing", kind: null, source_url: `${host.base}/videos/launch.mp4`, filename: "launch.mp4" })
    const ready = await settle(server, accepted.body.id)
    expect(ready.body).toMatchObject({
      status: "ready",
      kind: "video",
      mime: "video/mp4",
      size_bytes: video.length,
      duration_seconds: 33,
      width: 720,
      height: 1280,
      codec: "avc1",
      error: null
    })
  })

  it("follows a redirect it checked", async () => {
    const accepted = await importUrl(`${host.base}/short-link`)
    expect((await settle(server, accepted.body.id)).body).toMatchObject({ status: "ready", duration_seconds: 33 })
  })

  it("refuses a redirect to a private address, failing the item with invalid_url", async () => {
    const accepted = await importUrl(`${host.base}/to-private`)
    expect(accepted.status).toBe(202)
    const failed = await settle(server, accepted.body.id)
    expect(failed.body).toMatchObject({ status: "failed", error: { code: "invalid_url", field: "url", retryable: false } })
    expect(failed.body.error.message).toMatch(/private/)
    expect(host.requests).not.toContain("/secret.mp4")
  })

  it("fails the item when the address answers an error", async () => {
    const failed = await settle(server, (await importUrl(`${host.base}/gone.mp4`)).body.id)
    expect(failed.body.error).toMatchObject({ code: "invalid_url" })
    expect(failed.body.error.message).toContain("404")
  })

  it("fails the item with unsupported_format when the file is not an accepted format", async () => {
    const failed = await settle(server, (await importUrl(`${host.base}/animation.gif`)).body.id)
    expect(failed.body).toMatchObject({ status: "failed", error: { code: "unsupported_format" } })
  })

  it("answers 400 invalid_url at once for an address that is visibly not public", async () => {
    const reply = await importUrl("https://10.0.0.8/video.mp4")
    expect(reply.status).toBe(400)
    expect(errorOf(reply)).toMatchObject({ code: "invalid_url", field: "url" })
  })
})

describe("URL imports without the loopback setting", () => {
  it("refuses a loopback address with 400 invalid_url", async () => {
    const server = await startServer("embedded")
    try {
      const reply = await call(server.baseUrl, "POST", "/v1/media", { key: server.testKey, body: { url: "http://127.0.0.1:9/video.mp4" } })
      expect(reply.status).toBe(400)
      expect(errorOf(reply)).toMatchObject({ code: "invalid_url", field: "url" })
    } finally {
      await server.stop()
    }
  })
})
