/**
 * LinkedIn's documented rules (packages/platforms/src/linkedin/Rules.ts names each page), each
 * broken once through `POST /v1/posts/validate` and create over the real HTTP API, on the
 * embedded database and on PostgreSQL, against the seeded sandbox LinkedIn account.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aJpeg, aMov, anMp4, aPng, aWebp } from "../../support/Media.ts"
import { accountOf, aPost } from "../../support/Builders.ts"
import { call, errorOf } from "../../support/Http.ts"
import { backends, startServer, type TestServer } from "../../support/TestServer.ts"

/** Enough `mdat` payload for a video of more than LinkedIn's 75 KB minimum. */
const bigEnough = 80 * 1024

describe.each(backends())("LinkedIn's official rules at validate and create on %s", (backend) => {
  let server: TestServer
  const media: Record<string, string> = {}
  /** 21 distinct images (a post names each media item once). */
  const many: Array<string> = []

  const upload = async (bytes: Uint8Array) => {
    const reply = await call(server.baseUrl, "POST", "/v1/media", { key: server.testKey, body: { data: Buffer.from(bytes).toString("base64") } })
    if (reply.status !== 201) throw new Error(`upload failed: ${reply.status} ${JSON.stringify(reply.body)}`)
    return reply.body.id as string
  }
  const body = (caption: string, ids: ReadonlyArray<string>) =>
    aPost(server, ids, { caption, targets: [{ account_id: accountOf(server, "professional") }] })
  const validate = (caption: string, ids: ReadonlyArray<string>) =>
    call(server.baseUrl, "POST", "/v1/posts/validate", { key: server.testKey, body: body(caption, ids) })
  const create = (caption: string, ids: ReadonlyArray<string>) => call(server.baseUrl, "POST", "/v1/posts", { key: server.testKey, body: body(caption, ids) })
  const issuesOf = async (caption: string, ids: ReadonlyArray<string>) => {
    const reply = await validate(caption, ids)
    if (reply.status !== 200) throw new Error(`validate answered ${reply.status}: ${JSON.stringify(reply.body)}`)
    return reply.body.issues as Array<{ code: string; field?: string; message: string; message_id: string }>
  }

  beforeAll(async () => {
    server = await startServer(backend)
    media.png = await upload(aPng({ width: 1200, height: 627 }))
    for (let i = 0; i < 21; i++) many.push(await upload(aPng({ width: 200 + i, height: 200 })))
    media.jpeg = await upload(aJpeg({ width: 1080, height: 1080 }))
    media.webp = await upload(aWebp({ width: 1080, height: 1080 }))
    media.huge = await upload(aPng({ width: 7000, height: 5200 }))
    media.mp4 = await upload(anMp4({ durationSeconds: 30, width: 1920, height: 1080, mdatBytes: bigEnough }))
    media.tiny = await upload(anMp4({ durationSeconds: 30, width: 1920, height: 1080 }))
    media.short = await upload(anMp4({ durationSeconds: 2, width: 1920, height: 1080, mdatBytes: bigEnough }))
    media.long = await upload(anMp4({ durationSeconds: 30 * 60 + 1, width: 1920, height: 1080, mdatBytes: bigEnough }))
    media.mov = await upload(aMov({ durationSeconds: 30, width: 1920, height: 1080, mdatBytes: bigEnough }))
  }, 120_000)
  afterAll(() => server?.stop())

  it("takes a text post, one image, 20 images, and one MP4 video of 3 s to 30 min", async () => {
    expect(await issuesOf("Hello LinkedIn", [media.png!])).toEqual([])
    expect(await issuesOf("JPG and PNG", [media.jpeg!, media.png!])).toEqual([])
    expect(await issuesOf("Twenty", many.slice(0, 20))).toEqual([])
    expect(await issuesOf("A video", [media.mp4!])).toEqual([])
  })

  it("counts the commentary after little-text escaping: 3,000 characters, each reserved one two", async () => {
    expect(await issuesOf("a".repeat(3_000), [media.png!])).toEqual([])
    expect(await issuesOf(`${"a".repeat(2_998)}()`.slice(0, 2_999), [media.png!])).toEqual([])
    const over = await issuesOf(`${"a".repeat(2_999)}(`, [media.png!])
    expect(over).toEqual([expect.objectContaining({ code: "caption_too_long", field: "caption" })])
    expect(over[0]!.message).toContain("3000")
    const created = await create(`${"a".repeat(2_999)}(`, [media.png!])
    expect(created.status).toBe(422)
    expect(errorOf(created)).toMatchObject({ code: "caption_too_long", field: "caption" })
  })

  it("refuses more than 20 images", async () => {
    const issues = await issuesOf("Too many", many)
    expect(issues.map((i) => i.code)).toEqual(["media_invalid"])
    expect(issues[0]!.message).toContain("at most 20 images")
  })

  it("refuses a video with images", async () => {
    const issues = await issuesOf("Mixed", [media.png!, media.mp4!])
    expect(issues).toEqual([expect.objectContaining({ code: "media_invalid" })])
    expect(issues[0]!.message).toContain("one video, or 1 to 20 images")
    expect(issues[0]!.message_id).toContain("tidak keduanya")
  })

  it("refuses an image that is not JPG, PNG or GIF", async () => {
    const issues = await issuesOf("WebP", [media.webp!])
    expect(issues).toEqual([expect.objectContaining({ code: "media_invalid", field: "media[0]" })])
    expect(issues[0]!.message).toContain("image/webp")
  })

  it("refuses an image of 36,152,320 pixels or more", async () => {
    const issues = await issuesOf("Huge", [media.png!, media.huge!])
    expect(issues).toEqual([expect.objectContaining({ code: "media_invalid", field: "media[1]" })])
    expect(issues[0]!.message).toContain("36400000")
  })

  it("refuses a video that is not MP4", async () => {
    const issues = await issuesOf("MOV", [media.mov!])
    expect(issues).toEqual([expect.objectContaining({ code: "media_invalid", field: "media[0]" })])
    expect(issues[0]!.message).toContain("video/quicktime")
  })

  it("refuses a video under 75 KB", async () => {
    const issues = await issuesOf("Tiny", [media.tiny!])
    expect(issues).toEqual([expect.objectContaining({ code: "media_invalid", field: "media[0]" })])
    expect(issues[0]!.message).toContain("75 KB to 500 MB")
  })

  it("refuses a video shorter than 3 seconds", async () => {
    const issues = await issuesOf("Short", [media.short!])
    expect(issues).toEqual([expect.objectContaining({ code: "media_invalid", field: "media[0]" })])
    expect(issues[0]!.message).toContain("at least 3 seconds")
  })

  describe("the target's options (targets[].professional)", () => {
    const createWith = (professional: unknown, ids: ReadonlyArray<string>) =>
      call(server.baseUrl, "POST", "/v1/posts", {
        key: server.testKey,
        body: aPost(server, ids, { caption: "Options", targets: [{ account_id: accountOf(server, "professional"), professional }] })
      })

    it("stores PUBLIC by default and the visibility and article asked for", async () => {
      const plain = await create("Plain", [media.png!])
      expect(plain.status).toBe(201)
      expect(plain.body.targets[0].options).toEqual({ professional: { visibility: "PUBLIC" } })
      const link = { url: "https://example.com/launch", title: "Our launch" }
      const asked = await createWith({ visibility: "CONNECTIONS", link }, [media.png!])
      expect(asked.status).toBe(201)
      expect(asked.body.targets[0].options).toEqual({ professional: { visibility: "CONNECTIONS", link } })
    })

    it("refuses a visibility LinkedIn does not have, naming the field", async () => {
      const reply = await createWith({ visibility: "FRIENDS" }, [media.png!])
      expect(reply.status).toBe(400)
      expect(errorOf(reply)).toMatchObject({ code: "invalid_request", field: "targets[0].professional.visibility" })
    })

    it("refuses an article link with a video or with more than one image", async () => {
      const link = { url: "https://example.com/launch" }
      const withVideo = await createWith({ link }, [media.mp4!])
      expect(withVideo.status).toBe(422)
      expect(errorOf(withVideo)).toMatchObject({ code: "media_invalid" })
      expect(errorOf(withVideo).message).toContain("one image at most")
      const withTwo = await createWith({ link }, [media.png!, media.jpeg!])
      expect(withTwo.status).toBe(422)
    })
  })

  it("refuses a video longer than 30 minutes", async () => {
    const issues = await issuesOf("Long", [media.long!])
    expect(issues).toEqual([expect.objectContaining({ code: "media_too_long", field: "media[0]" })])
    expect(issues[0]!.message).toContain("1800")
  })
})
