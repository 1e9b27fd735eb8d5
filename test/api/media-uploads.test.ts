/**
 * Media that real videos fit through, black-box over HTTP: resumable uploads in parts (sent in
 * any order, an interrupted part sent again, a 1 GB file streamed with the process's memory
 * staying flat), form uploads for curl users, the media list, deletion refused while a post
 * needs the item, and a post whose media is still processing waiting until it is ready. The
 * suite runs on each database with the local media directory, and on the embedded database with
 * an S3-compatible bucket (s3rver, started here).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aGif, anMp4, aPng } from "../support/Media.ts"
import { accountOf, anImage, aPost } from "../support/Builders.ts"
import { eventually } from "../support/Eventually.ts"
import { call, errorOf, type Reply } from "../support/Http.ts"
import { aLargeMp4, type LargeFile, partRange, sendPart, sendPartAndDropConnection } from "../support/LargeMedia.ts"
import { startS3Server, type TestS3Server } from "../support/S3Server.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"

const MiB = 1024 * 1024

/** A small file as a `LargeFile`. */
const fileOf = (bytes: Uint8Array): LargeFile => ({ size: bytes.length, bytesAt: (start, length) => bytes.subarray(start, start + length) })

type Storage = "directory" | "S3"
const setups: ReadonlyArray<readonly [string, ReturnType<typeof backends>[number], Storage]> = [
  ...backends().map((backend) => [`${backend} with the media directory`, backend, "directory"] as const),
  ["embedded with an S3 bucket", "embedded", "S3"]
]

describe.each(setups)("media uploads on %s", (_name, backend, storage) => {
  let server: TestServer
  let s3: TestS3Server | undefined
  const api = (method: string, path: string, body?: unknown) => call(server.baseUrl, method, path, { key: server.testKey, body })
  /** The upload's address on this server (the public URL of a test server is not its port). */
  const local = (uploadUrl: string) => server.baseUrl + new URL(uploadUrl).pathname
  const startUpload = async (file: LargeFile, filename = "clip.mp4"): Promise<Reply> => {
    const reply = await api("POST", "/v1/media/uploads", { filename, size: file.size, content_type: "video/mp4" })
    expect(reply.status).toBe(201)
    return reply
  }
  beforeAll(async () => {
    s3 = storage === "S3" ? await startS3Server() : undefined
    server = await startServer(backend, {
      POSTWIRE_PUBLISH_POLL_MS: "100",
      POSTWIRE_RATE_LIMIT_PER_KEY: "100000",
      ...(s3 === undefined ? {} : { POSTWIRE_MEDIA_S3_URL: s3.url })
    })
  })
  afterAll(async () => {
    await server?.stop()
    await s3?.stop()
  })

  describe("POST /v1/media/uploads", () => {
    it("answers the parts to send, with a media item processing until the upload completes", async () => {
      const file = aLargeMp4(40 * MiB)
      const started = await startUpload(file)
      expect(started.body).toMatchObject({
        size: 40 * MiB,
        part_size: 16 * MiB,
        part_count: 3,
        parts_received: [],
        bytes_received: 0,
        status: "receiving"
      })
      expect(started.body.id).toMatch(/^med_/)
      expect(started.body.upload_url).toMatch(new RegExp(`/v1/media/uploads/${started.body.id}$`))
      expect(Date.parse(started.body.expires_at) - Date.now()).toBeGreaterThan(23 * 3600_000)
      const item = await api("GET", `/v1/media/${started.body.id}`)
      expect(item.body).toMatchObject({ id: started.body.id, status: "processing", kind: null, mime: null, size_bytes: 40 * MiB, filename: "clip.mp4" })
    })

    it("takes parts in any order, tells which arrived, and completes into a ready video probed from its bytes", async () => {
      const file = aLargeMp4(40 * MiB, { durationSeconds: 95.5, width: 1920, height: 1080, codec: "hvc1" })
      const started = await startUpload(file)
      const url = local(started.body.upload_url)
      expect((await sendPart(url, server.testKey, file, started.body.part_size, 2)).body.parts_received).toEqual([2])
      const afterTwo = await sendPart(url, server.testKey, file, started.body.part_size, 0)
      expect(afterTwo.body).toMatchObject({ parts_received: [0, 2], bytes_received: 16 * MiB + (40 - 32) * MiB })

      const early = await api("POST", `/v1/media/uploads/${started.body.id}/complete`)
      expect(early.status).toBe(409)
      expect(errorOf(early).code).toBe("invalid_state")
      expect(errorOf(early).message).toContain("part 1")

      await sendPart(url, server.testKey, file, started.body.part_size, 1)
      const asked = await api("GET", `/v1/media/uploads/${started.body.id}`)
      expect(asked.body).toMatchObject({ parts_received: [0, 1, 2], bytes_received: 40 * MiB, status: "receiving" })

      const completed = await api("POST", `/v1/media/uploads/${started.body.id}/complete`)
      expect(completed.status).toBe(200)
      expect(completed.body).toMatchObject({
        id: started.body.id,
        status: "ready",
        kind: "video",
        mime: "video/mp4",
        size_bytes: 40 * MiB,
        width: 1920,
        height: 1080,
        duration_seconds: 95.5,
        codec: "hvc1",
        error: null,
        expires_at: null
      })
      const again = await api("POST", `/v1/media/uploads/${started.body.id}/complete`)
      expect(again.body).toEqual(completed.body)
      const late = await sendPart(url, server.testKey, file, started.body.part_size, 0)
      expect(late.status).toBe(409)
      expect(errorOf(late).code).toBe("invalid_state")
    })

    it("refuses a part whose Content-Range is not one whole part, naming the header", async () => {
      const file = aLargeMp4(20 * MiB)
      const started = await startUpload(file)
      const url = local(started.body.upload_url)
      for (const range of [`bytes 0-99/${file.size}`, `bytes 1-${16 * MiB}/${file.size}`, `bytes 0-${16 * MiB - 1}/123`, "pages 1-2"]) {
        const response = await fetch(url, {
          method: "PUT",
          headers: { authorization: `Bearer ${server.testKey}`, "content-range": range },
          body: new Uint8Array(100)
        })
        const reply = { status: response.status, headers: response.headers, body: await response.json() }
        expect(reply.status).toBe(400)
        expect(errorOf(reply)).toMatchObject({ code: "invalid_request", field: "content-range" })
      }
      expect((await api("GET", `/v1/media/uploads/${started.body.id}`)).body.parts_received).toEqual([])
    })

    it("keeps nothing of a part whose connection dropped, and takes it whole when sent again", async () => {
      const file = aLargeMp4(20 * MiB, { durationSeconds: 7 })
      const started = await startUpload(file)
      const url = local(started.body.upload_url)
      await sendPart(url, server.testKey, file, started.body.part_size, 1)
      await sendPartAndDropConnection(url, server.testKey, file, started.body.part_size, 0, 5 * MiB)
      const afterDrop = await api("GET", `/v1/media/uploads/${started.body.id}`)
      expect(afterDrop.body.parts_received).toEqual([1])
      expect((await sendPart(url, server.testKey, file, started.body.part_size, 0)).status).toBe(200)
      const completed = await api("POST", `/v1/media/uploads/${started.body.id}/complete`)
      expect(completed.body).toMatchObject({ status: "ready", duration_seconds: 7, size_bytes: 20 * MiB })
    })

    it("fails the item with unsupported_format when the completed file is not an accepted format", async () => {
      const gif = aGif()
      const started = await startUpload(fileOf(gif), "animation.mp4")
      await sendPart(local(started.body.upload_url), server.testKey, fileOf(gif), started.body.part_size, 0)
      const completed = await api("POST", `/v1/media/uploads/${started.body.id}/complete`)
      expect(completed.status).toBe(400)
      expect(errorOf(completed).code).toBe("unsupported_format")
      const item = await api("GET", `/v1/media/${started.body.id}`)
      expect(item.body).toMatchObject({ status: "failed", kind: null, error: { code: "unsupported_format", retryable: false } })
      expect(item.body.error.message).toMatch(/not an accepted format/)
    })

    it("answers 400 naming size for a file over 4 GiB", async () => {
      const reply = await api("POST", "/v1/media/uploads", { filename: "huge.mp4", size: 4 * 1024 * MiB + 1 })
      expect(reply.status).toBe(400)
      expect(errorOf(reply)).toMatchObject({ code: "invalid_request", field: "size" })
    })
  })

  describe("POST /v1/media as multipart/form-data", () => {
    it("stores a form's file like an inline upload, its type read from the bytes", async () => {
      const form = new FormData()
      form.append("file", new Blob([Buffer.from(aPng({ width: 30, height: 20 }))]), "photo.jpg")
      const response = await fetch(`${server.baseUrl}/v1/media`, {
        method: "POST",
        headers: { authorization: `Bearer ${server.testKey}` },
        body: form
      })
      expect(response.status).toBe(201)
      expect(await response.json()).toMatchObject({ status: "ready", kind: "image", mime: "image/png", width: 30, height: 20, filename: "photo.jpg" })
    })

    it("answers 400 unsupported_format naming file for another format", async () => {
      const form = new FormData()
      form.append("file", new Blob([Buffer.from(aGif())]), "a.png")
      const response = await fetch(`${server.baseUrl}/v1/media`, {
        method: "POST",
        headers: { authorization: `Bearer ${server.testKey}` },
        body: form
      })
      const reply = { status: response.status, headers: response.headers, body: await response.json() }
      expect(reply.status).toBe(400)
      expect(errorOf(reply)).toMatchObject({ code: "unsupported_format", field: "file" })
    })
  })

  describe("GET /v1/media and DELETE /v1/media/{id}", () => {
    it("lists media newest first, page by page", async () => {
      const ids = [await anImage(server), await anImage(server), await anImage(server)]
      const first = await api("GET", "/v1/media?limit=2")
      expect(first.status).toBe(200)
      expect(first.body.data.map((m: any) => m.id)).toEqual([ids[2], ids[1]])
      expect(first.body.cursor.has_more).toBe(true)
      const second = await api("GET", `/v1/media?limit=2&cursor=${encodeURIComponent(first.body.cursor.next)}`)
      expect(second.body.data[0].id).toBe(ids[0])
    })

    it("refuses to delete media a post still needs, and deletes it once the post finished", async () => {
      const image = await anImage(server)
      const created = await api("POST", "/v1/posts", aPost(server, [image]))
      expect(created.status).toBe(201)
      const refused = await api("DELETE", `/v1/media/${image}`)
      expect(refused.status).toBe(409)
      expect(errorOf(refused).code).toBe("invalid_state")
      expect(errorOf(refused).message).toContain(created.body.id)
      expect((await api("POST", `/v1/posts/${created.body.id}/cancel`)).status).toBe(200)
      const deleted = await api("DELETE", `/v1/media/${image}`)
      expect(deleted.status).toBe(200)
      expect(deleted.body).toEqual({ id: image, deleted: true })
      expect((await api("GET", `/v1/media/${image}`)).status).toBe(404)
    })

    it("deletes an unfinished upload with its parts", async () => {
      const file = aLargeMp4(20 * MiB)
      const started = await startUpload(file)
      await sendPart(local(started.body.upload_url), server.testKey, file, started.body.part_size, 0)
      expect((await api("DELETE", `/v1/media/${started.body.id}`)).status).toBe(200)
      expect((await api("GET", `/v1/media/uploads/${started.body.id}`)).status).toBe(404)
    })
  })

  describe("a post naming media still processing", () => {
    it("holds its targets until the media is ready, then publishes", async () => {
      const file = fileOf(anMp4({ durationSeconds: 20 }))
      const started = await startUpload(file)
      const waiting = await api(
        "POST",
        "/v1/posts",
        aPost(server, [started.body.id], { approval: { mode: "none" }, targets: [{ account_id: accountOf(server, "photo") }] })
      )
      expect(waiting.status).toBe(201)
      // Another post, queued after it, publishes: the publisher is running and passed the first by.
      const other = await api("POST", "/v1/posts", aPost(server, [await anImage(server)], { approval: { mode: "none" } }))
      await eventually(() => api("GET", `/v1/posts/${other.body.id}`), (r) => r.body.status === "published", "other post")
      const held = await api("GET", `/v1/posts/${waiting.body.id}`)
      expect(held.body.targets[0].status).toBe("queued")

      await sendPart(local(started.body.upload_url), server.testKey, file, started.body.part_size, 0)
      expect((await api("POST", `/v1/media/uploads/${started.body.id}/complete`)).body.status).toBe("ready")
      const published = await eventually(
        () => api("GET", `/v1/posts/${waiting.body.id}`),
        (r) => r.body.status !== "queued" && r.body.status !== "publishing",
        "held post"
      )
      expect(published.body.status).toBe("published")
    })

    it("fails its targets with the media's error when the media fails", async () => {
      const gif = fileOf(aGif())
      const started = await startUpload(gif, "not-a-video.mp4")
      const waiting = await api("POST", "/v1/posts", aPost(server, [started.body.id], { approval: { mode: "none" } }))
      expect(waiting.status).toBe(201)
      await sendPart(local(started.body.upload_url), server.testKey, gif, started.body.part_size, 0)
      expect((await api("POST", `/v1/media/uploads/${started.body.id}/complete`)).status).toBe(400)
      const failed = await eventually(
        () => api("GET", `/v1/posts/${waiting.body.id}`),
        (r) => r.body.status !== "queued" && r.body.status !== "publishing",
        "post of failed media"
      )
      expect(failed.body.targets[0]).toMatchObject({ status: "failed", error: { code: "unsupported_format", retryable: false } })
    })
  })

  // The memory check is registered once (the first setup): it is about streaming, not the database.
  const streamingSetup = backend === backends()[0] && storage === "directory"
  if (streamingSetup) it(
    "streams a 1 GB upload in parts, one dropped and resumed, with the process's memory staying flat",
    async () => {
      const file = aLargeMp4(1024 * MiB, { durationSeconds: 600, width: 3840, height: 2160 })
      global.gc?.()
      const before = process.memoryUsage().rss
      let peak = before
      const sample = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss)
      }, 50)
      try {
        const started = await startUpload(file, "long-take.mp4")
        const url = local(started.body.upload_url)
        const { part_size: partSize, part_count: count } = started.body
        expect(count).toBe(64)
        await sendPartAndDropConnection(url, server.testKey, file, partSize, 5, 8 * MiB)
        // Four parts at a time, like a client with a few connections.
        const numbers = Array.from({ length: count }, (_, n) => n)
        const workers = Array.from({ length: 4 }, async () => {
          for (let n = numbers.shift(); n !== undefined; n = numbers.shift()) {
            if (n === 5) continue
            const sent = await sendPart(url, server.testKey, file, partSize, n)
            expect(sent.status).toBe(200)
          }
        })
        await Promise.all(workers)
        const resumed = await api("GET", `/v1/media/uploads/${started.body.id}`)
        expect(resumed.body.parts_received).not.toContain(5)
        expect(resumed.body.parts_received).toHaveLength(63)
        expect(partRange(file, partSize, 5).start).toBe(5 * partSize)
        expect((await sendPart(url, server.testKey, file, partSize, 5)).status).toBe(200)
        const completed = await api("POST", `/v1/media/uploads/${started.body.id}/complete`)
        expect(completed.body).toMatchObject({ status: "ready", size_bytes: 1024 * MiB, duration_seconds: 600, width: 3840, height: 2160 })
      } finally {
        clearInterval(sample)
      }
      expect(peak - before).toBeLessThan(200 * MiB)
    }
  )
})
