/**
 * TikTok's documented rules, each walked through `POST /v1/posts/validate` (real HTTP, the
 * embedded database, a sandbox TikTok account) and through publishing against the fake, which
 * refuses what TikTok refuses. Sources: the photo post reference
 * (developers.tiktok.com/doc/content-posting-api-reference-photo-post), the direct post reference
 * (…/content-posting-api-reference-direct-post) and the media transfer guide
 * (…/content-posting-api-media-transfer-guide).
 */
import { assert, describe as effectDescribe, it as effectIt } from "@effect/vitest"
import { Credentials, tiktok, type TikTok } from "@postwire/platforms"
import { resolveSettings } from "@postwire/server"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aJpeg, anMp4, aPng, aWebp } from "../../support/Media.ts"
import { accountOf } from "../../support/Builders.ts"
import { call } from "../../support/Http.ts"
import { backends, startServer, type TestServer } from "../../support/TestServer.ts"
import { aRouter, drive } from "../adapterConformance.ts"
import { aConsent, anAccount, anImage, aPost, aPublishInput, aTarget, aVideo } from "../builders.ts"
import * as TikTokFake from "./TikTokFake.ts"

describe.each(backends())("TikTok's official rules at validate on %s", (backend) => {
  let server: TestServer
  const media: Record<string, string> = {}

  const upload = async (bytes: Uint8Array, filename?: string): Promise<string> => {
    const reply = await call(server.baseUrl, "POST", "/v1/media", {
      key: server.testKey,
      body: { data: Buffer.from(bytes).toString("base64"), ...(filename === undefined ? {} : { filename }) }
    })
    if (reply.status !== 201) throw new Error(`upload failed: ${reply.status} ${JSON.stringify(reply.body)}`)
    return reply.body.id as string
  }

  const validate = (ids: ReadonlyArray<string>, overrides: Record<string, unknown> = {}) =>
    call(server.baseUrl, "POST", "/v1/posts/validate", {
      key: server.testKey,
      body: {
        profile_id: server.profileId,
        caption: "Sourdough, step by step",
        media: ids,
        targets: [{ account_id: accountOf(server, "shortvideo") }],
        ...overrides
      }
    })

  const issuesOf = (reply: Awaited<ReturnType<typeof validate>>) =>
    reply.body.issues as Array<{ code: string; field?: string; message: string; message_id: string }>

  beforeAll(async () => {
    server = await startServer(backend)
    media.jpeg1 = await upload(aJpeg({ width: 1080, height: 1350 }), "one.jpg")
    media.jpeg2 = await upload(aJpeg({ width: 1080, height: 1080 }), "two.jpg")
    media.webp = await upload(aWebp({ width: 1080, height: 1920 }), "three.webp")
    media.png = await upload(aPng({ width: 1080, height: 1350 }), "four.png")
    media.video = await upload(anMp4({ durationSeconds: 20, width: 1080, height: 1920, codec: "avc1" }))
    media.smallVideo = await upload(anMp4({ durationSeconds: 20, width: 320, height: 240, codec: "avc1" }))
    media.av1Video = await upload(anMp4({ durationSeconds: 20, width: 1080, height: 1920, codec: "av01" }))
    media.longVideo = await upload(anMp4({ durationSeconds: 601, width: 1080, height: 1920, codec: "avc1" }))
  })
  afterAll(() => server?.stop())

  it("takes 1 to 35 JPEG or WebP images as a photo post", async () => {
    const reply = await validate([media.jpeg1!, media.jpeg2!, media.webp!])
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({ issues: [] })
  })

  it("takes one video of an accepted format, size and length", async () => {
    const reply = await validate([media.video!])
    expect(reply.body).toEqual({ issues: [] })
  })

  it("refuses a PNG in a photo post, naming the formats TikTok takes", async () => {
    const [issue, ...rest] = issuesOf(await validate([media.jpeg1!, media.png!]))
    expect(rest).toEqual([])
    expect(issue).toMatchObject({ code: "media_invalid", field: "media[1]" })
    expect(issue!.message).toContain("TikTok photo posts take JPEG or WebP images only; this one is image/png")
    expect(issue!.message_id).toContain("JPEG atau WebP")
  })

  it("refuses a video and images together", async () => {
    const [issue] = issuesOf(await validate([media.video!, media.jpeg1!]))
    expect(issue).toMatchObject({ code: "media_invalid" })
    expect(issue!.message).toContain("one video, or 1 to 35 images, never both")
  })

  it("refuses two videos", async () => {
    const second = await upload(anMp4({ durationSeconds: 21, width: 1080, height: 1920, codec: "avc1" }))
    const [issue] = issuesOf(await validate([media.video!, second]))
    expect(issue).toMatchObject({ code: "media_invalid" })
    expect(issue!.message).toContain("exactly one video")
  })

  it("refuses a video under 360 pixels wide or high, naming the limits", async () => {
    const [issue] = issuesOf(await validate([media.smallVideo!]))
    expect(issue).toMatchObject({ code: "media_invalid", field: "media[0]" })
    expect(issue!.message).toContain("360 to 4096 pixels wide and high; this one is 320×240")
  })

  it("refuses a video codec TikTok does not take", async () => {
    const [issue] = issuesOf(await validate([media.av1Video!]))
    expect(issue).toMatchObject({ code: "media_invalid", field: "media[0]" })
    expect(issue!.message).toContain("H.264, H.265, VP8 or VP9 video only; this one is av01")
  })

  it("refuses a video longer than 10 minutes when the creator's limit is not known", async () => {
    const [issue] = issuesOf(await validate([media.longVideo!]))
    expect(issue).toMatchObject({ code: "media_too_long" })
    expect(issue!.message).toContain("600")
  })

  it("refuses a caption over 2,200 UTF-16 runes for photo posts too", async () => {
    const [issue] = issuesOf(await validate([media.jpeg1!], { caption: "🍞".repeat(1101) }))
    expect(issue).toMatchObject({ code: "caption_too_long" })
    expect(issue!.message).toContain("2200")
  })

  it("asks consent for a direct photo post exactly like a video", async () => {
    const [issue] = issuesOf(
      await validate([media.jpeg1!], {
        targets: [{ account_id: accountOf(server, "shortvideo"), shortvideo: { mode: "direct" } }],
        approval: { mode: "none" }
      })
    )
    expect(issue).toMatchObject({ code: "consent_required" })
  })
})

type Fake = TikTokFake.TikTokFake

const credentialsFor = (fake: Fake) =>
  Credentials.encode(tiktok, { access_token: fake.accessToken, refresh_token: fake.refreshToken })

const settings = (fake: Fake, extra: Partial<TikTok.Config> = {}) => ({
  shortvideo: { baseUrl: fake.url, clientKey: fake.clientKey, clientSecret: fake.clientSecret, ...extra }
})

/** A post of `media` to the fake's creator, direct with consent or to the inbox. */
const aTikTokPost = (fake: Fake, media: ReturnType<typeof anImage>[], mode: "direct" | "inbox" = "direct") => {
  const account = anAccount("shortvideo", { credentials: credentialsFor(fake), externalId: "open-id-1" })
  return aPublishInput({
    account,
    post: aPost({ caption: "Three loaves" }),
    target: aTarget(account, {
      options: { shortvideo: { mode } },
      consent: mode === "direct" ? aConsent({ privacy_level: "PUBLIC_TO_EVERYONE", disable_comment: true }) : null
    }),
    media
  })
}

/** Sends a raw request to the fake, as any client would. */
const raw = (fake: Fake, path: string, body: unknown) =>
  Effect.promise(async () => {
    const response = await fetch(`${fake.url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${fake.accessToken}`, "content-type": "application/json; charset=UTF-8" },
      body: JSON.stringify(body)
    })
    return { status: response.status, json: (await response.json()) as { error: { code: string; message: string; log_id: string } } }
  })

effectDescribe("TikTok's official rules when publishing", () => {
  effectIt.live("publishes 1 to 35 images as a direct photo post through content/init, the first the cover", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      const client = yield* aRouter(settings(fake))
      const images = [anImage(), anImage({ mime: "image/webp" }), anImage()]
      const input = aTikTokPost(fake, images)
      const result = yield* drive(client, input)
      assert.strictEqual(fake.count("content_init"), 1)
      assert.strictEqual(fake.count("init"), 0)
      assert.deepStrictEqual(fake.publishes[0]!.body, {
        media_type: "PHOTO",
        post_mode: "DIRECT_POST",
        post_info: {
          description: "Three loaves",
          privacy_level: "PUBLIC_TO_EVERYONE",
          disable_comment: true,
          auto_add_music: true,
          brand_content_toggle: false,
          brand_organic_toggle: false
        },
        source_info: { source: "PULL_FROM_URL", photo_cover_index: 0, photo_images: images.map((i) => i.url) }
      })
      const postId = fake.publishes[0]!.postId
      assert.strictEqual(result.published?.platformPostId, postId)
      assert.strictEqual(result.published?.permalink, `https://www.tiktok.com/@maya.bakes/photo/${postId}`)
    })
  )

  effectIt.live("sends a photo post to the creator's inbox as MEDIA_UPLOAD without creator_info", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      const client = yield* aRouter(settings(fake))
      const images = [anImage(), anImage()]
      const result = yield* drive(client, aTikTokPost(fake, images, "inbox"))
      assert.strictEqual(fake.count("creator_info"), 0)
      assert.deepStrictEqual(fake.publishes[0]!.body, {
        media_type: "PHOTO",
        post_mode: "MEDIA_UPLOAD",
        post_info: { description: "Three loaves" },
        source_info: { source: "PULL_FROM_URL", photo_cover_index: 0, photo_images: images.map((i) => i.url) }
      })
      assert.strictEqual(result.published?.permalink, null)
    })
  )

  effectIt.live("refuses a PNG before anything is sent", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      const client = yield* aRouter(settings(fake))
      const result = yield* drive(client, aTikTokPost(fake, [anImage(), anImage({ mime: "image/png" })]))
      assert.strictEqual(result.failure?.code, "media_invalid")
      assert.strictEqual(result.failure?.notPublished, true)
      assert.strictEqual(fake.count("content_init"), 0)
      assert.strictEqual(fake.count("creator_info"), 0)
    })
  )

  effectIt.live("fails as TikTok does when a pulled image turns out not to be JPEG or WebP (file_format_check_failed)", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      // The record says JPEG; the address serves a PNG.
      fake.contentTypeOf = () => "image/png"
      const client = yield* aRouter(settings(fake))
      const result = yield* drive(client, aTikTokPost(fake, [anImage()]))
      assert.strictEqual(result.failure?.code, "media_invalid")
      assert.strictEqual(result.failure?.platformCode, "file_format_check_failed")
      const detail = (result.failure?.details as { detail?: { en?: string } } | undefined)?.detail
      assert.include(detail?.en ?? "", "image")
    })
  )

  effectIt.live("refuses a mix of a video and images before anything is sent", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      const client = yield* aRouter(settings(fake))
      const result = yield* drive(client, aTikTokPost(fake, [aVideo(), anImage()]))
      assert.strictEqual(result.failure?.code, "media_invalid")
      assert.strictEqual(fake.count("content_init") + fake.count("init"), 0)
    })
  )

  effectIt.live("the fake refuses what the photo post reference refuses, with TikTok's error body", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      const photo = (sourceInfo: Record<string, unknown>, postInfo: Record<string, unknown> = {}) => ({
        media_type: "PHOTO",
        post_mode: "MEDIA_UPLOAD",
        post_info: postInfo,
        source_info: { source: "PULL_FROM_URL", photo_cover_index: 0, photo_images: ["https://m.test/a.jpg"], ...sourceInfo }
      })
      const tooMany = yield* raw(fake, "/v2/post/publish/content/init/", photo({ photo_images: Array.from({ length: 36 }, (_, i) => `https://m.test/${i}.jpg`) }))
      const cover = yield* raw(fake, "/v2/post/publish/content/init/", photo({ photo_cover_index: 1 }))
      const upload = yield* raw(fake, "/v2/post/publish/content/init/", photo({ source: "FILE_UPLOAD" }))
      const title = yield* raw(fake, "/v2/post/publish/content/init/", photo({}, { title: "t".repeat(91) }))
      const description = yield* raw(fake, "/v2/post/publish/content/init/", photo({}, { description: "d".repeat(4001) }))
      const videoTitle = yield* raw(fake, "/v2/post/publish/inbox/video/init/", {
        post_info: { title: "v".repeat(2201) },
        source_info: { source: "PULL_FROM_URL", video_url: "https://m.test/v.mp4" }
      })
      for (const reply of [tooMany, cover, upload, title, description, videoTitle]) {
        assert.strictEqual(reply.status, 400)
        assert.strictEqual(reply.json.error.code, "invalid_param")
        assert.match(reply.json.error.log_id, /^\d+$/)
      }
      assert.strictEqual(fake.publishes.length, 0)
    })
  )
})

effectDescribe("the TikTok app's verified URL prefixes", () => {
  effectIt.live("a media address outside them fails media_url_unverified before any init, naming the address", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      const client = yield* aRouter(settings(fake, { verifiedUrlPrefixes: ["https://cdn.verified.test/"] }))
      const result = yield* drive(client, aTikTokPost(fake, [aVideo()]))
      assert.strictEqual(result.failure?.code, "media_url_unverified")
      assert.strictEqual(result.failure?.details?.url, "https://media.postwire.test/")
      assert.strictEqual(result.failure?.notPublished, true)
      assert.strictEqual(fake.count("creator_info") + fake.count("init"), 0)
    })
  )

  effectIt.live("an address under a verified domain publishes", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      const client = yield* aRouter(settings(fake, { verifiedUrlPrefixes: ["postwire.test"] }))
      const result = yield* drive(client, aTikTokPost(fake, [anImage()]))
      assert.isDefined(result.published)
    })
  )

  it("stops the start with one line when POSTWIRE_PUBLIC_URL's media addresses fall under none of them", () => {
    const env = {
      POSTWIRE_TIKTOK_VERIFIED_URL_PREFIXES: "https://cdn.verified.test/",
      POSTWIRE_PUBLIC_URL: "https://postwire.example.com"
    }
    expect(() => resolveSettings({}, env)).toThrow(
      /^Invalid configuration POSTWIRE_TIKTOK_VERIFIED_URL_PREFIXES: media addresses start with https:\/\/postwire\.example\.com\/media-files\/, outside the TikTok app's verified prefixes \(https:\/\/cdn\.verified\.test\/\)/
    )
    let message = ""
    try {
      resolveSettings({}, env)
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).not.toContain("\n")
  })

  it("starts, and hands the prefixes to the adapter, when the media addresses fall under one", () => {
    const settings = resolveSettings(
      {},
      { POSTWIRE_TIKTOK_VERIFIED_URL_PREFIXES: "https://postwire.example.com/media-files/, cdn.example.com", POSTWIRE_PUBLIC_URL: "https://postwire.example.com" }
    )
    expect(JSON.stringify(settings)).toContain("cdn.example.com")
    expect(tiktok.name).toBe("shortvideo")
  })
})
