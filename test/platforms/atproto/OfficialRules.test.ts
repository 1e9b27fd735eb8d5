/**
 * Bluesky's documented rules (packages/platforms/src/atproto/Rules.ts cites each source) through
 * `POST /v1/posts/validate` and create over the real HTTP API, its options (`targets[].atproto`),
 * and a sandbox Bluesky account publishing to the simulated platform.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aJpeg, anMp4, aPng } from "../../support/Media.ts"
import { accountOf, aPost } from "../../support/Builders.ts"
import { eventually } from "../../support/Eventually.ts"
import { call } from "../../support/Http.ts"
import { backends, startServer, type TestServer } from "../../support/TestServer.ts"

describe.each(backends())("Bluesky's rules at validate, create and publish on %s", (backend) => {
  let server: TestServer
  const media: Record<string, string> = {}

  const upload = async (bytes: Uint8Array) => {
    const reply = await call(server.baseUrl, "POST", "/v1/media", { key: server.testKey, body: { data: Buffer.from(bytes).toString("base64") } })
    if (reply.status !== 201) throw new Error(`upload failed: ${reply.status} ${JSON.stringify(reply.body)}`)
    return reply.body.id as string
  }
  const body = (caption: string, ids: ReadonlyArray<string>, options?: unknown) =>
    aPost(server, ids, { caption, targets: [{ account_id: accountOf(server, "atproto"), ...(options === undefined ? {} : { atproto: options }) }] })
  const issuesOf = async (caption: string, ids: ReadonlyArray<string>) => {
    const reply = await call(server.baseUrl, "POST", "/v1/posts/validate", { key: server.testKey, body: body(caption, ids) })
    if (reply.status !== 200) throw new Error(`validate answered ${reply.status}: ${JSON.stringify(reply.body)}`)
    return reply.body.issues as Array<{ code: string; field?: string; message: string }>
  }

  beforeAll(async () => {
    server = await startServer(backend, { POSTWIRE_PUBLISH_POLL_MS: "100", POSTWIRE_RATE_LIMIT_PER_KEY: "100000" })
    media.png = await upload(aPng({ width: 1200, height: 900 }))
    media.jpeg = await upload(aJpeg({ width: 900, height: 1200 }))
    media.mp4 = await upload(anMp4({ durationSeconds: 30, width: 1080, height: 1920 }))
    media.long = await upload(anMp4({ durationSeconds: 181, width: 1080, height: 1920 }))
    for (let i = 0; i < 5; i++) media[`image${i}`] = await upload(aPng({ width: 400 + i, height: 300 }))
  })
  afterAll(() => server?.stop())

  it("counts 300 graphemes, not UTF-16 units: 300 emoji fit, one more character does not", async () => {
    expect(await issuesOf("👍🏽".repeat(300), [media.png!])).toEqual([])
    const over = await issuesOf(`${"👍🏽".repeat(300)}!`, [media.png!])
    expect(over.map((i) => [i.code, i.field])).toEqual([["caption_too_long", "caption"]])
    expect(over[0]!.message).toContain("300")
  })

  it("refuses a text over 3,000 UTF-8 bytes within 300 graphemes, naming the bytes", async () => {
    // A family emoji is one grapheme of 18 bytes: 200 of them are 3,600 bytes.
    const issues = await issuesOf("👩‍👩‍👧".repeat(200), [media.png!])
    expect(issues.map((i) => [i.code, i.field])).toEqual([["caption_invalid", "caption"]])
    expect(issues[0]!.message).toContain("3000")
    expect(issues[0]!.message).toContain("3600")
  })

  it("takes up to 4 images and refuses a fifth", async () => {
    const images = [0, 1, 2, 3, 4].map((i) => media[`image${i}`]!)
    expect(await issuesOf("four", images.slice(0, 4))).toEqual([])
    const five = await issuesOf("five", images)
    expect(five.map((i) => i.code)).toContain("media_invalid")
  })

  it("refuses images with a video, and a video over 180 seconds", async () => {
    const mixed = await issuesOf("mixed", [media.png!, media.mp4!])
    expect(mixed.map((i) => i.code)).toEqual(["media_invalid"])
    expect(mixed[0]!.message).toContain("4 images or one video")
    expect(await issuesOf("one video", [media.mp4!])).toEqual([])
    const long = await issuesOf("long video", [media.long!])
    expect(long.map((i) => i.code)).toEqual(["media_too_long"])
  })

  it("refuses bad options by name and stores good ones", async () => {
    const bad = await call(server.baseUrl, "POST", "/v1/posts/validate", {
      key: server.testKey,
      body: body("alt", [media.png!], { alt: ["a", "b", "c", "d", "e"] })
    })
    expect(bad.status).toBe(200)
    expect(bad.body.issues.map((i: { code: string; field: string }) => [i.code, i.field])).toEqual([["invalid_request", "targets[0].atproto.alt"]])
    const refused = await call(server.baseUrl, "POST", "/v1/posts", {
      key: server.testKey,
      body: body("langs", [media.png!], { langs: ["not a language"] })
    })
    expect(refused.status).toBe(400)
    expect(refused.body.error.field).toBe("targets[0].atproto.langs[0]")
    const created = await call(server.baseUrl, "POST", "/v1/posts", {
      key: server.testKey,
      body: { ...body("Fresh rye 🍞 #bread https://bakery.example", [media.png!], { alt: ["A rye loaf"], langs: ["en"] }), approval: { mode: "none" } }
    })
    expect(created.status).toBe(201)
    expect(created.body.targets[0].options.atproto).toEqual({ alt: ["A rye loaf"], langs: ["en"] })
    const post = await eventually(
      () => call(server.baseUrl, "GET", `/v1/posts/${created.body.id}`, { key: server.testKey }),
      (reply) => reply.body.status === "published" || reply.body.status === "failed",
      "the sandbox Bluesky post to publish",
      { intervalMs: 250 }
    )
    expect(post.body.status, JSON.stringify(post.body.targets[0])).toBe("published")
    // A sandbox target's permalink is its page on the server.
    expect(post.body.targets[0].permalink).toContain(`/sandbox/`)
  })
})
