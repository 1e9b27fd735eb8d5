/**
 * The SDK's media resource against the real server: `media.upload` picks inline or resumable
 * parts by size, reports progress, and sends a part again when its connection is killed
 * (through a proxy that cuts the first part it sees); list, get, delete and URL import.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer, request, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Postwire, PostwireApiError } from "@postwire/client"
import { aPng } from "../support/Media.ts"
import { aLargeMp4 } from "../support/LargeMedia.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"

const MiB = 1024 * 1024

/** A proxy to `target` that kills the connection of the first part upload after 1 MiB of it. */
const aFlakyProxy = async (target: string): Promise<{ server: Server; base: string; killed: () => number }> => {
  const upstream = new URL(target)
  let killed = 0
  const server = createServer((req, res) => {
    if (killed === 0 && req.method === "PUT" && req.url?.startsWith("/v1/media/uploads/")) {
      let seen = 0
      req.on("data", (chunk: Buffer) => {
        seen += chunk.length
        if (seen > MiB && killed === 0) {
          killed++
          req.socket.destroy()
        }
      })
      return
    }
    const forward = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      }
    )
    forward.on("error", () => res.destroy())
    req.pipe(forward)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, killed: () => killed }
}

describe.each(backends())("the SDK's media on %s", (backend) => {
  let server: TestServer
  let client: Postwire
  let directory: string

  beforeAll(async () => {
    server = await startServer(backend)
    client = new Postwire({ apiKey: server.testKey, baseUrl: server.baseUrl })
    directory = mkdtempSync(join(tmpdir(), "postwire-sdk-media-"))
  })
  afterAll(async () => {
    await server?.stop()
    rmSync(directory, { recursive: true, force: true })
  })

  it("uploads a small file inline and reports it done", async () => {
    const progress: Array<number> = []
    const media = await client.media.upload(
      { data: aPng({ width: 8, height: 6 }), filename: "tiny.png" },
      { onProgress: ({ sentBytes }) => progress.push(sentBytes) }
    )
    expect(media).toMatchObject({ status: "ready", kind: "image", width: 8, height: 6, filename: "tiny.png" })
    expect(progress).toEqual([media.size_bytes])
  })

  it("uploads a large file from disk in parts, with progress, resuming a part whose connection was killed", async () => {
    const file = aLargeMp4(40 * MiB, { durationSeconds: 48 })
    const path = join(directory, "launch.mp4")
    writeFileSync(path, file.bytesAt(0, file.size))
    const proxy = await aFlakyProxy(server.baseUrl)
    try {
      const viaProxy = new Postwire({ apiKey: server.testKey, baseUrl: proxy.base })
      const progress: Array<number> = []
      const media = await viaProxy.media.upload({ path }, { onProgress: ({ sentBytes }) => progress.push(sentBytes) })
      expect(proxy.killed()).toBe(1)
      expect(media).toMatchObject({ status: "ready", kind: "video", size_bytes: 40 * MiB, duration_seconds: 48, filename: "launch.mp4" })
      expect(progress).toEqual([16 * MiB, 32 * MiB, 40 * MiB])
    } finally {
      proxy.server.close()
    }
  })

  it("lists, gets and deletes media", async () => {
    const uploaded = await client.media.upload({ data: aPng({ width: 2, height: 2 }) })
    const page = await client.media.list({ limit: 1 })
    expect(page.data[0]?.id).toBe(uploaded.id)
    expect((await client.media.get(uploaded.id)).id).toBe(uploaded.id)
    expect(await client.media.delete(uploaded.id)).toEqual({ id: uploaded.id, deleted: true })
    const gone = await client.media.get(uploaded.id).catch((error: unknown) => error)
    expect(gone).toBeInstanceOf(PostwireApiError)
    expect((gone as PostwireApiError).status).toBe(404)
  })

  it("refuses an import from an address that is not public, in the shared shape", async () => {
    const refused = await client.media.import({ url: "https://192.168.1.10/clip.mp4" }).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(PostwireApiError)
    expect(refused).toMatchObject({ status: 400, code: "invalid_url", field: "url" })
  })
})
