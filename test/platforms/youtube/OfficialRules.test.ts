/**
 * YouTube's documented rules (packages/platforms/src/youtube/Rules.ts names each page): the
 * media and caption rules walked through `POST /v1/posts/validate` over the real HTTP API, and
 * the per-target options' rules (title, tags, made_for_kids) through their resolution.
 */
import { YouTubeOptions, YouTubeRules } from "@postwire/platforms"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aJpeg, anMp4 } from "../../support/Media.ts"
import { accountOf, aPost } from "../../support/Builders.ts"
import { eventually } from "../../support/Eventually.ts"
import { call } from "../../support/Http.ts"
import { backends, startServer, type TestServer } from "../../support/TestServer.ts"

const emoji = "😀" // 4 UTF-8 bytes

const waitForPost = async (server: TestServer, id: string, done: (post: any) => boolean): Promise<any> =>
  (
    await eventually(
      () => call(server.baseUrl, "GET", `/v1/posts/${id}`, { key: server.testKey }),
      (reply) => reply.status === 200 && done(reply.body),
      `post ${id} to settle`
    )
  ).body

const settled = (post: any) => post.status !== "queued" && post.status !== "publishing" && post.status !== "scheduled"

describe.each(backends())("YouTube's official rules at validate on %s", (backend) => {
  let server: TestServer
  const media: Record<string, string> = {}

  const upload = async (bytes: Uint8Array) => {
    const reply = await call(server.baseUrl, "POST", "/v1/media", { key: server.testKey, body: { data: Buffer.from(bytes).toString("base64") } })
    if (reply.status !== 201) throw new Error(`upload failed: ${reply.status} ${JSON.stringify(reply.body)}`)
    return reply.body.id as string
  }
  const validate = (caption: string, ids: ReadonlyArray<string>, video: unknown = { made_for_kids: false }) =>
    call(server.baseUrl, "POST", "/v1/posts/validate", {
      key: server.testKey,
      body: aPost(server, ids, { caption, targets: [{ account_id: accountOf(server, "video"), ...(video === undefined ? {} : { video }) }] })
    })
  const issues = async (caption: string, ids: ReadonlyArray<string>, video?: unknown) => {
    const reply = await validate(caption, ids, ...(video === undefined ? [] : [video]))
    if (reply.status !== 200) throw new Error(`validate answered ${reply.status}: ${JSON.stringify(reply.body)}`)
    return reply.body.issues as Array<{ code: string; field?: string; message: string; message_id: string }>
  }

  beforeAll(async () => {
    server = await startServer(backend, { POSTWIRE_PUBLISH_POLL_MS: "50", POSTWIRE_RATE_LIMIT_PER_KEY: "100000" })
    media.landscape = await upload(anMp4({ durationSeconds: 300, width: 1920, height: 1080 }))
    media.vertical = await upload(anMp4({ durationSeconds: 50, width: 1080, height: 1920 }))
    media.jpeg = await upload(aJpeg({ width: 1280, height: 720 }))
    media.twelveHours = await upload(anMp4({ durationSeconds: 12 * 3600 + 1, width: 1920, height: 1080 }))
  }, 120_000)
  afterAll(() => server?.stop())

  it("takes one video, landscape or vertical", async () => {
    expect(await issues("Sourdough in 10 steps", [media.landscape!])).toEqual([])
    expect(await issues("Sourdough in 10 steps", [media.vertical!])).toEqual([])
  })

  it("refuses an image, and a video with an image", async () => {
    const image = await issues("A photo", [media.jpeg!])
    expect(image.map((i) => i.code)).toContain("media_invalid")
    expect(image.find((i) => i.code === "media_invalid")!.message).toContain("exactly one video")
    expect(image.find((i) => i.code === "media_invalid")!.message_id).toContain("tepat satu video")
    const both = await issues("Both", [media.landscape!, media.jpeg!])
    expect(both.length).toBeGreaterThan(0)
  })

  it("refuses a video longer than 12 hours", async () => {
    const long = await issues("Livestream replay", [media.twelveHours!])
    expect(long).toMatchObject([{ code: "media_too_long", field: "media[0]" }])
  })

  it("counts the description in UTF-8 bytes: 1,250 emoji (5,000 bytes) pass, one more character does not", async () => {
    expect(await issues(emoji.repeat(1250), [media.landscape!])).toEqual([])
    const over = await issues(`${emoji.repeat(1250)}!`, [media.landscape!])
    expect(over).toMatchObject([{ code: "caption_too_long", field: "caption" }])
    expect(over[0]!.message).toContain("5000")
  })

  it("a sandbox channel publishes a video (its permalink the server's sandbox page)", async () => {
    const created = await call(server.baseUrl, "POST", "/v1/posts", {
      key: server.testKey,
      body: aPost(server, [media.vertical!], {
        caption: "Proofing shots",
        approval: { mode: "none" },
        targets: [{ account_id: accountOf(server, "video"), video: { made_for_kids: false } }]
      })
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const done = await waitForPost(server, created.body.id as string, settled)
    expect(done.targets[0]).toMatchObject({ status: "published", error: null })
    expect(done.targets[0].permalink).toContain(`/sandbox/`)
  })

  it("made_for_kids is required: 422 option_required naming targets[0].video.made_for_kids, in both languages", async () => {
    const without = await call(server.baseUrl, "POST", "/v1/posts/validate", {
      key: server.testKey,
      body: aPost(server, [media.landscape!], { caption: "Bread", targets: [{ account_id: accountOf(server, "video") }] })
    })
    expect(without.status).toBe(200)
    const [issue] = without.body.issues as Array<{ code: string; field: string; message: string; message_id: string }>
    expect(issue).toMatchObject({ code: "option_required", field: "targets[0].video.made_for_kids" })
    expect(issue!.message).toContain("video.made_for_kids")
    expect(issue!.message_id).toContain("anak-anak")
    const created = await call(server.baseUrl, "POST", "/v1/posts", {
      key: server.testKey,
      body: aPost(server, [media.landscape!], { caption: "Bread", targets: [{ account_id: accountOf(server, "video") }] })
    })
    expect(created.status).toBe(422)
    expect(created.body.error).toMatchObject({ code: "option_required", field: "targets[0].video.made_for_kids" })
  })

  it("options: a title over 100 characters, tags over 500, an unknown privacy or key are refused by name", async () => {
    expect(await issues("Bread", [media.landscape!], { made_for_kids: false, title: "x".repeat(101) })).toMatchObject([
      { code: "caption_invalid", field: "targets[0].video.title" }
    ])
    const tags = Array.from({ length: 60 }, (_, i) => `sourdough${i}`)
    expect(await issues("Bread", [media.landscape!], { made_for_kids: false, tags })).toMatchObject([
      { code: "caption_invalid", field: "targets[0].video.tags" }
    ])
    expect(await issues("Bread", [media.landscape!], { made_for_kids: false, privacy_status: "friends" })).toMatchObject([
      { code: "invalid_request", field: "targets[0].video.privacy_status" }
    ])
    expect(await issues("Bread", [media.landscape!], { made_for_kids: false, playlist: "PL1" })).toMatchObject([
      { code: "invalid_request", field: "targets[0].video.playlist" }
    ])
  })

  it("a created target shows what it publishes with under targets[].options.video (title from the caption, public)", async () => {
    const created = await call(server.baseUrl, "POST", "/v1/posts", {
      key: server.testKey,
      body: aPost(server, [media.landscape!], {
        caption: "Rye starter, day 3\nNotes inside.",
        targets: [{ account_id: accountOf(server, "video"), video: { made_for_kids: true } }]
      })
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    expect(created.body.targets[0].options).toEqual({
      video: { made_for_kids: true, title: "Rye starter, day 3", privacy_status: "public", tags: [] }
    })
  })

  it("refuses < and > in the description, and in a title taken from it", async () => {
    expect(await issues("Best <bread> ever", [media.landscape!])).toMatchObject(
      expect.arrayContaining([expect.objectContaining({ code: "caption_invalid", field: "targets[0].video.title" })])
    )
    const angle = await issues("Best bread ever\nMade with <3", [media.landscape!])
    expect(angle).toMatchObject([{ code: "caption_invalid", field: "caption" }])
    expect(angle[0]!.message).toContain("< or >")
  })
})

describe("YouTube's per-target options", () => {
  const caption = "Sourdough in 10 steps\nEverything I learned."

  it("made_for_kids is required, with no default", () => {
    const refused = YouTubeOptions.resolve({ title: "Bread" }, caption)
    expect(refused).toMatchObject({ _tag: "Refused", refusal: { code: "option_required", field: "made_for_kids" } })
    expect(YouTubeOptions.resolve(undefined, caption)._tag).toBe("Refused")
    expect(YouTubeOptions.resolve({ made_for_kids: true }, caption)).toMatchObject({
      _tag: "Ok",
      value: { title: "Sourdough in 10 steps", made_for_kids: true, privacy_status: "public", tags: [] }
    })
  })

  it("the title: 1 to 100 characters, no < or >; from the caption's first line, cut to 100", () => {
    expect(YouTubeOptions.resolve({ made_for_kids: false, title: "x".repeat(100) }, caption)._tag).toBe("Ok")
    expect(YouTubeOptions.resolve({ made_for_kids: false, title: "x".repeat(101) }, caption)).toMatchObject({
      _tag: "Refused",
      refusal: { code: "caption_invalid", field: "title" }
    })
    expect(YouTubeOptions.resolve({ made_for_kids: false, title: "a <b>" }, caption)._tag).toBe("Refused")
    expect(YouTubeOptions.resolve({ made_for_kids: false }, "")).toMatchObject({ _tag: "Refused", refusal: { field: "title" } })
    const cut = YouTubeOptions.resolve({ made_for_kids: false }, `${"word ".repeat(30)}\nsecond line`)
    expect(cut._tag).toBe("Ok")
    if (cut._tag === "Ok") {
      expect(Array.from(cut.value.title).length).toBeLessThanOrEqual(100)
      expect(cut.value.title.endsWith("…")).toBe(true)
    }
  })

  it("tags: at most 500 characters, commas and the quotes of a tag with a space counted", () => {
    // 50 tags of 9 characters and 49 commas: 499.
    const fits = Array.from({ length: 50 }, (_, i) => `tag${String(i).padStart(6, "0")}`)
    expect(YouTubeRules.tagsLength(fits)).toBe(499)
    expect(YouTubeOptions.resolve({ made_for_kids: false, tags: fits }, caption)._tag).toBe("Ok")
    const over = [...fits.slice(0, 49), "tag 00049"]
    expect(YouTubeRules.tagsLength(over)).toBe(501)
    expect(YouTubeOptions.resolve({ made_for_kids: false, tags: over }, caption)).toMatchObject({
      _tag: "Refused",
      refusal: { field: "tags" }
    })
  })

  it("a Short: square or vertical, at most three minutes", () => {
    expect(YouTubeRules.isShort({ width: 1080, height: 1920, durationSeconds: 180 })).toBe(true)
    expect(YouTubeRules.isShort({ width: 1080, height: 1080, durationSeconds: 60 })).toBe(true)
    expect(YouTubeRules.isShort({ width: 1080, height: 1920, durationSeconds: 181 })).toBe(false)
    expect(YouTubeRules.isShort({ width: 1920, height: 1080, durationSeconds: 30 })).toBe(false)
  })
})
