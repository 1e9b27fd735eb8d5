/**
 * Instagram takes JPEG images only (IG User Media reference, "Image Specifications": "Format:
 * JPEG"; https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/media):
 * through the real server on both databases, a PNG posted to an Instagram account is published as
 * a JPEG rendition made from it. The fake Instagram downloads the address it is given, as
 * Instagram does, and refuses anything but a JPEG with Instagram's 2207005, so these tests fail
 * without the conversion. A corrupt PNG is refused at upload, before any post names it.
 */
import { existsSync } from "node:fs"
import { createServer } from "node:http"
import { join } from "node:path"
import { Effect, Exit, Scope } from "effect"
import sharp from "sharp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aPublicAddress } from "../../support/Builders.ts"
import { eventually } from "../../support/Eventually.ts"
import { call } from "../../support/Http.ts"
import { aPng } from "../../support/Media.ts"
import { startS3Server, type TestS3Server } from "../../support/S3Server.ts"
import { backends, startServer, type TestServer } from "../../support/TestServer.ts"
import * as InstagramFake from "./InstagramFake.ts"

// Each database with media files on disk, and the embedded database with media in an S3 bucket
// (the rendition is stored in the bucket and Instagram follows the signed redirect to it).
const setups = [...backends().map((backend) => ({ backend, storage: "directory" as const })), { backend: "embedded" as const, storage: "bucket" as const }]

describe.each(setups)("Instagram JPEG renditions on $backend with media in a $storage", ({ backend, storage }) => {
  let s3: TestS3Server | undefined
  let scope: Scope.Closeable
  let fake: InstagramFake.InstagramFake
  let server: TestServer
  let liveKey: string
  let accountId: string
  let made = 0

  beforeAll(async () => {
    scope = Effect.runSync(Scope.make())
    fake = await Effect.runPromise(InstagramFake.make().pipe(Scope.provide(scope)))
    // Instagram downloads the signed address: it must be this server's own.
    const address = await aPublicAddress()
    s3 = storage === "bucket" ? await startS3Server() : undefined
    server = await startServer(backend, {
      ...(s3 === undefined ? {} : { POSTWIRE_MEDIA_S3_URL: s3.url }),
      ...address.env,
      POSTWIRE_INSTAGRAM_BASE_URL: fake.url,
      POSTWIRE_INSTAGRAM_REFRESH_URL: "none",
      POSTWIRE_PLATFORM_POLL_INTERVAL_MS: "1",
      POSTWIRE_PLATFORM_RETRY_DELAY_MS: "5",
      POSTWIRE_PUBLISH_POLL_MS: "20",
      POSTWIRE_RATE_LIMIT_PER_KEY: "100000",
      // The corrupt image imported below is served from this machine.
      POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS: "1"
    }, { port: address.port })
    const key = await server.admin<{ key: string }>(`/workspaces/${server.workspaceId}/keys`, {
      kind: "live",
      scopes: ["posts:read", "posts:write"]
    })
    liveKey = key.key
    const account = await server.admin(`/workspaces/${server.workspaceId}/accounts`, {
      profile_id: server.profileId,
      platform: "photo",
      sandbox: false,
      handle: InstagramFake.username,
      credentials: { access_token: fake.accessToken },
      external_id: InstagramFake.igUserId
    })
    accountId = account.id
  })
  afterAll(async () => {
    await server?.stop()
    await s3?.stop()
    if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  const upload = (bytes: Uint8Array, filename: string) =>
    call(server.baseUrl, "POST", "/v1/media", { key: liveKey, body: { data: Buffer.from(bytes).toString("base64"), filename } })

  /** Posts `media` to the Instagram account and waits for its target to end. */
  const publish = async (media: ReadonlyArray<string>) => {
    const caption = `Sourdough, batch ${++made}`
    const created = await call(server.baseUrl, "POST", "/v1/posts", {
      key: liveKey,
      body: { profile_id: server.profileId, caption, media, targets: [{ account_id: accountId }], approval: { mode: "none" } }
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const ended = await eventually(
      () => call(server.baseUrl, "GET", `/v1/posts/${created.body.id}`, { key: liveKey }),
      (reply) => ["published", "failed"].includes(reply.body.targets?.[0]?.status),
      `post ${created.body.id}'s target to end`,
      { intervalMs: 20 }
    )
    return { caption, target: ended.body.targets[0] }
  }

  /** The image addresses the fake was given by the creations of the post with `caption`. */
  const imageUrlsOf = (caption: string) => {
    const parent = fake.containers.find((c) => c.params.caption === caption)
    const children = (parent?.params.children ?? "").split(",").filter((id) => id !== "")
    const containers = children.length === 0 ? [parent] : children.map((id) => fake.containers.find((c) => c.id === id))
    return containers.map((c) => c?.params.image_url ?? "")
  }

  /** Checks bytes are a whole JPEG (SOI first, EOI last) of the given size. */
  const expectJpeg = async (bytes: Uint8Array | null | undefined, width: number, height: number) => {
    expect(bytes).toBeInstanceOf(Uint8Array)
    const jpeg = bytes!
    expect([jpeg[0], jpeg[1], jpeg[2]]).toEqual([0xff, 0xd8, 0xff])
    expect([jpeg.at(-2), jpeg.at(-1)]).toEqual([0xff, 0xd9])
    const metadata = await sharp(jpeg).metadata()
    expect({ format: metadata.format, width: metadata.width, height: metadata.height, space: metadata.space }).toEqual({
      format: "jpeg",
      width,
      height,
      space: "srgb"
    })
    // The rendition carries no metadata of the original (no EXIF, no ICC profile).
    expect(metadata.exif).toBeUndefined()
  }

  it("publishes a PNG as a JPEG of the same size: Instagram downloads a real JPEG from the signed address", async () => {
    const png = await upload(aPng({ width: 1080, height: 1350 }), "loaf.png")
    expect(png.status, JSON.stringify(png.body)).toBe(201)
    expect(png.body.mime).toBe("image/png")
    const { caption, target } = await publish([png.body.id])
    expect(target, JSON.stringify(target)).toMatchObject({ status: "published", error: null })
    // The target says what was sent instead of the original.
    expect(target.details).toEqual({ converted: [{ media_id: png.body.id, from: "image/png", to: "image/jpeg" }] })
    expect(fake.media.find((m) => m.caption === caption)).toBeDefined()
    const [address] = imageUrlsOf(caption)
    expect(address).toMatch(new RegExp(`/media-files/${server.workspaceId}/${png.body.id}\\.jpg\\?exp=\\d+&sig=`))
    await expectJpeg(fake.downloads.get(address!), 1080, 1350)
    // The item itself is still the PNG the user uploaded.
    const item = await call(server.baseUrl, "GET", `/v1/media/${png.body.id}`, { key: liveKey })
    expect(item.body).toMatchObject({ mime: "image/png", width: 1080, height: 1350 })
  })

  it("publishes a carousel mixing a JPEG and a PNG, converting only the PNG, once", async () => {
    const jpegBytes = await sharp({ create: { width: 1080, height: 1080, channels: 3, background: "#c08040" } }).jpeg().toBuffer()
    const jpeg = await upload(jpegBytes, "crumb.jpg")
    const png = await upload(aPng({ width: 1080, height: 1080 }), "crust.png")
    const { caption, target } = await publish([jpeg.body.id, png.body.id])
    expect(target, JSON.stringify(target)).toMatchObject({ status: "published" })
    // Through the carousel's steps (children, then the carousel, then the publish), the details stay.
    expect(target.details).toEqual({ converted: [{ media_id: png.body.id, from: "image/png", to: "image/jpeg" }] })
    const [first, second] = imageUrlsOf(caption)
    expect(first).toContain(`/${jpeg.body.id}?`)
    expect(second).toContain(`/${png.body.id}.jpg?`)
    await expectJpeg(fake.downloads.get(first!), 1080, 1080)
    await expectJpeg(fake.downloads.get(second!), 1080, 1080)
    // The same PNG posted again reuses its rendition: the same bytes.
    const again = await publish([png.body.id])
    expect(again.target.status).toBe("published")
    const [third] = imageUrlsOf(again.caption)
    expect(Buffer.from(fake.downloads.get(third!)!).equals(Buffer.from(fake.downloads.get(second!)!))).toBe(true)
  })

  it("publishes a WebP with transparency as a JPEG on white, named in the details", async () => {
    const webpBytes = await sharp({ create: { width: 800, height: 800, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .webp()
      .toBuffer()
    const webp = await upload(webpBytes, "glaze.webp")
    expect(webp.body.mime).toBe("image/webp")
    const { caption, target } = await publish([webp.body.id])
    expect(target, JSON.stringify(target)).toMatchObject({
      status: "published",
      details: { converted: [{ media_id: webp.body.id, from: "image/webp", to: "image/jpeg" }] }
    })
    const [address] = imageUrlsOf(caption)
    const jpeg = fake.downloads.get(address!)
    await expectJpeg(jpeg, 800, 800)
    // Transparent pixels became white, not black.
    const { data } = await sharp(jpeg!).raw().toBuffer({ resolveWithObject: true })
    expect(Math.min(data[0]!, data[1]!, data[2]!)).toBeGreaterThan(245)
  })

  it("a JPEG alone is sent as it is, and its target has no details", async () => {
    const bytes = await sharp({ create: { width: 1080, height: 1080, channels: 3, background: "#804020" } }).jpeg().toBuffer()
    const jpeg = await upload(bytes, "plain.jpg")
    const { caption, target } = await publish([jpeg.body.id])
    expect(target.status).toBe("published")
    expect(target).not.toHaveProperty("details")
    const [address] = imageUrlsOf(caption)
    expect(Buffer.from(fake.downloads.get(address!)!).equals(bytes)).toBe(true)
  })

  it("a signed rendition address is refused once tampered with, like the original's", async () => {
    const png = await upload(aPng({ width: 1080, height: 1080 }), "tamper.png")
    const { caption } = await publish([png.body.id])
    const [address] = imageUrlsOf(caption)
    const served = await fetch(address!)
    expect(served.status).toBe(200)
    expect(served.headers.get("content-type")).toBe("image/jpeg")
    if (s3 !== undefined) expect(served.url.startsWith(s3.endpoint)).toBe(true)
    const other = address!.replace(`${png.body.id}.jpg`, `${png.body.id}`)
    expect((await fetch(other)).status).toBe(404)
    // Deleting the item deletes its rendition from the storage too.
    const stored = join(server.dataDir, "media", server.workspaceId, `${png.body.id}.jpg`)
    if (s3 === undefined) expect(existsSync(stored)).toBe(true)
    const deleted = await call(server.baseUrl, "DELETE", `/v1/media/${png.body.id}`, { key: liveKey })
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200)
    expect((await fetch(address!)).status).toBe(404)
    if (s3 === undefined) expect(existsSync(stored)).toBe(false)
    else expect((await fetch(served.url)).status).toBe(404)
  })

  it("refuses a corrupt PNG however it arrives (whole, in parts, imported), before a post can name it", async () => {
    const good = aPng({ width: 64, height: 64 })
    // The header is intact (it sniffs as a PNG) but the image data is cut off.
    const corrupt = good.slice(0, good.length - 40)
    const reply = await upload(corrupt, "broken.png")
    expect(reply.status, JSON.stringify(reply.body)).toBe(400)
    expect(reply.body.error).toMatchObject({ code: "unsupported_format" })

    // Sent in parts: refused when the upload completes, the item failed.
    const started = await call(server.baseUrl, "POST", "/v1/media/uploads", { key: liveKey, body: { filename: "broken.png", size: corrupt.length } })
    expect(started.status, JSON.stringify(started.body)).toBe(201)
    const part = await fetch(started.body.upload_url, {
      method: "PUT",
      headers: { authorization: `Bearer ${liveKey}`, "content-range": `bytes 0-${corrupt.length - 1}/${corrupt.length}` },
      body: corrupt
    })
    expect(part.status).toBeLessThan(300)
    const completed = await call(server.baseUrl, "POST", `/v1/media/uploads/${started.body.id}/complete`, { key: liveKey })
    expect(completed.status, JSON.stringify(completed.body)).toBe(400)
    expect(completed.body.error).toMatchObject({ code: "unsupported_format" })
    const item = await call(server.baseUrl, "GET", `/v1/media/${started.body.id}`, { key: liveKey })
    expect(item.body).toMatchObject({ status: "failed", error: { code: "unsupported_format" } })

    // Imported from an address: the item fails.
    const host = createServer((_, res) => res.writeHead(200, { "content-type": "image/png" }).end(corrupt))
    await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", () => resolve()))
    try {
      const imported = await call(server.baseUrl, "POST", "/v1/media", {
        key: liveKey,
        body: { url: `http://127.0.0.1:${(host.address() as { port: number }).port}/broken.png` }
      })
      expect(imported.status, JSON.stringify(imported.body)).toBe(202)
      const settled = await eventually(
        () => call(server.baseUrl, "GET", `/v1/media/${imported.body.id}`, { key: liveKey }),
        (r) => r.body.status !== "processing",
        "the import to end",
        { intervalMs: 20 }
      )
      expect(settled.body).toMatchObject({ status: "failed", error: { code: "unsupported_format" } })
    } finally {
      await new Promise<void>((resolve) => host.close(() => resolve()))
    }
  })
})

describe("the fake Instagram without conversion", () => {
  it("refuses a PNG it downloads with Instagram's 2207005 in the container's status", async () => {
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const fake = yield* InstagramFake.make()
          const bytes = aPng({ width: 1080, height: 1080 })
          const host = createServer((_, res) => res.writeHead(200, { "content-type": "image/png" }).end(bytes))
          yield* Effect.acquireRelease(
            Effect.promise(() => new Promise<void>((resolve) => host.listen(0, "127.0.0.1", () => resolve()))),
            () => Effect.promise(() => new Promise<void>((resolve) => host.close(() => resolve())))
          )
          const address = `http://127.0.0.1:${(host.address() as { port: number }).port}/loaf.png`
          const created = yield* Effect.promise(() =>
            fetch(`${fake.url}/${InstagramFake.igUserId}/media`, {
              method: "POST",
              body: new URLSearchParams({ image_url: address, caption: "Loaf", access_token: fake.accessToken })
            }).then((r) => r.json() as Promise<{ id: string }>)
          )
          const status = yield* Effect.promise(() =>
            eventually(
              () =>
                fetch(`${fake.url}/${created.id}?fields=status_code,status&access_token=${fake.accessToken}`).then(
                  (r) => r.json() as Promise<{ status_code: string; status?: string }>
                ),
              (body) => body.status_code !== "IN_PROGRESS",
              "the container to end",
              { intervalMs: 5 }
            )
          )
          expect(status).toMatchObject({ status_code: "ERROR" })
          expect(status.status).toContain("2207005")
          expect(fake.downloads.get(address)).toEqual(bytes)
        })
      )
    )
  })
})
