/**
 * Instagram's documented rules (packages/platforms/src/instagram/Rules.ts, each with its page),
 * walked through `POST /v1/posts/validate` over the real HTTP API on the embedded database (and
 * PostgreSQL when configured), and through publishing against the fake, which refuses what
 * Instagram refuses with Instagram's error bodies.
 */
import { assert as effectAssert, describe as effectDescribe, it as effectIt } from "@effect/vitest"
import { Credentials, instagram } from "@postwire/platforms"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aJpeg, anMp4, aPng, aWebp } from "../../support/Media.ts"
import { parseAppSecretProof, sendsProof } from "../../../packages/platforms/src/instagram/Instagram.ts"
import { notJpeg } from "../../../packages/platforms/src/instagram/Rules.ts"
import { accountOf } from "../../support/Builders.ts"
import { call } from "../../support/Http.ts"
import { backends, startServer, type TestServer } from "../../support/TestServer.ts"
import { aRouter, drive } from "../adapterConformance.ts"
import { anAccount, anImage, aPost as aPostRecord, aPublishInput, aTarget, aVideo as aVideoItem } from "../builders.ts"
import * as InstagramFake from "./InstagramFake.ts"

const tags = (n: number, mark: "#" | "@") => Array.from({ length: n }, (_, i) => `${mark}tag_${i}`).join(" ")

type Issue = { code: string; field?: string; message: string; message_id: string; details?: Record<string, unknown> }

describe.each(backends())("Instagram's official rules through validate on %s", (backend) => {
  let server: TestServer
  const media: Record<string, string> = {}
  const squares: Array<string> = []

  const upload = async (name: string, bytes: Uint8Array) => {
    const reply = await call(server.baseUrl, "POST", "/v1/media", {
      key: server.testKey,
      body: { data: Buffer.from(bytes).toString("base64"), filename: name }
    })
    if (reply.status !== 201) throw new Error(`upload failed: ${reply.status} ${JSON.stringify(reply.body)}`)
    return reply.body.id as string
  }

  /** The issues validate finds in a post to the sandbox Instagram account. */
  const issues = async (body: { caption?: string; media: ReadonlyArray<string>; photo?: { type: string } }): Promise<Array<Issue>> => {
    const reply = await call(server.baseUrl, "POST", "/v1/posts/validate", {
      key: server.testKey,
      body: {
        profile_id: server.profileId,
        caption: body.caption ?? "Fresh from the oven",
        media: body.media,
        targets: [{ account_id: accountOf(server, "photo"), ...(body.photo === undefined ? {} : { photo: body.photo }) }]
      }
    })
    expect(reply.status).toBe(200)
    return reply.body.issues
  }

  beforeAll(async () => {
    server = await startServer(backend)
    squares.push(
      ...(await Promise.all(
        Array.from({ length: 11 }, (_, i) => upload(`square-${i}.jpg`, aJpeg({ width: 1080 + i, height: 1080 + i })))
      ))
    )
    media.square = squares[0]!
    const video = (seconds: number) => anMp4({ durationSeconds: seconds, width: 1080, height: 1920 })
    const [tall, wide, tooWide, short, clip, minute, long] = await Promise.all([
      upload("tall.jpg", aJpeg({ width: 1080, height: 1920 })),
      upload("wide.jpg", aJpeg({ width: 1080, height: 566 })),
      upload("too-wide.jpg", aJpeg({ width: 1080, height: 500 })),
      upload("short.mp4", video(2)),
      upload("clip.mp4", video(12)),
      upload("minute.mp4", video(61)),
      upload("long.mp4", video(15 * 60 + 1))
    ])
    Object.assign(media, { tall, wide, tooWide, short, clip, minute, long })
  })
  afterAll(() => server?.stop())

  describe("caption: at most 30 hashtags and 20 @mentions (IG User Media reference, caption)", () => {
    it("takes 30 hashtags and refuses the 31st with caption_invalid naming the limit", async () => {
      expect(await issues({ caption: `Bake day ${tags(30, "#")}`, media: [media.square!] })).toEqual([])
      const [issue, ...more] = await issues({ caption: `Bake day ${tags(31, "#")}`, media: [media.square!] })
      expect(more).toEqual([])
      expect(issue).toMatchObject({ code: "caption_invalid", field: "caption" })
      expect(issue!.message).toContain("at most 30 hashtags; this one has 31")
    })

    it("takes 20 @mentions and refuses the 21st, not counting e-mail addresses", async () => {
      const emails = "write to order@warung.id or sari@warung.id"
      expect(await issues({ caption: `${tags(20, "@")} ${emails}`, media: [media.square!] })).toEqual([])
      const [issue] = await issues({ caption: tags(21, "@"), media: [media.square!] })
      expect(issue).toMatchObject({ code: "caption_invalid", field: "caption" })
      expect(issue!.message).toContain("at most 20 @mentions; this one has 21")
    })

    it("does not count a story's hashtags or mentions: a story is published without its caption", async () => {
      const crowded = `${tags(31, "#")} ${tags(21, "@")}`
      expect(await issues({ caption: crowded, media: [media.tall!], photo: { type: "story" } })).toEqual([])
      // The same caption on a feed post of the same image is refused.
      const [issue] = await issues({ caption: crowded, media: [media.square!], photo: { type: "feed" } })
      expect(issue).toMatchObject({ code: "caption_invalid", field: "caption" })
    })

    it("says it in Indonesian too", async () => {
      const reply = await call(server.baseUrl, "POST", "/v1/posts/validate", {
        key: server.testKey,
        headers: { "accept-language": "id" },
        body: {
          profile_id: server.profileId,
          caption: tags(31, "#"),
          media: [media.square!],
          targets: [{ account_id: accountOf(server, "photo") }]
        }
      })
      expect(reply.body.issues[0].message).toContain("paling banyak 30 tagar; caption ini berisi 31")
    })
  })

  describe("images: 4:5 to 1.91:1 in the feed and in carousels (IG User Media reference, image specifications)", () => {
    it("takes a square and a 1.91:1 image, refuses a wider or a 9:16 one in the feed, and takes 9:16 in a story", async () => {
      expect(await issues({ media: [media.square!, media.wide!] })).toEqual([])
      const [wide] = await issues({ media: [media.tooWide!] })
      expect(wide).toMatchObject({ code: "media_invalid", field: "media[0]" })
      expect(wide!.message).toContain("between 4:5 and 1.91:1; this one is 1080 x 500")
      const [tall] = await issues({ media: [media.square!, media.tall!] })
      expect(tall).toMatchObject({ code: "media_invalid", field: "media[1]" })
      expect(await issues({ media: [media.tall!], photo: { type: "story" } })).toEqual([])
    })
  })

  describe("carousel: 2 to 10 items (content-publishing, carousel posts)", () => {
    it("takes 10 items and refuses 11", async () => {
      expect(await issues({ media: squares.slice(0, 10) })).toEqual([])
      const [issue] = await issues({ media: squares })
      expect(issue!.code).toBe("media_invalid")
      expect(issue!.message).toContain("1 to 10 images or videos")
    })

    it("refuses a carousel video longer than 60 seconds or shorter than 3", async () => {
      expect(await issues({ media: [media.square!, media.clip!] })).toEqual([])
      const [long] = await issues({ media: [media.square!, media.minute!] })
      expect(long).toMatchObject({ code: "media_too_long", field: "media[1]" })
      expect(long!.message).toContain("61 seconds long; this account allows at most 60 seconds")
      const [short] = await issues({ media: [media.short!, media.square!] })
      expect(short).toMatchObject({ code: "media_invalid", field: "media[0]" })
      expect(short!.message).toContain("at least 3 seconds")
    })
  })

  describe("reel: one video of 3 seconds to 15 minutes (IG User Media reference, reels specifications)", () => {
    it("takes 12 seconds and refuses 2 seconds and 15 minutes 1 second", async () => {
      expect(await issues({ media: [media.clip!], photo: { type: "reel" } })).toEqual([])
      const [short] = await issues({ media: [media.short!], photo: { type: "reel" } })
      expect(short!.message).toContain("at least 3 seconds")
      const [long] = await issues({ media: [media.long!], photo: { type: "reel" } })
      expect(long!.message).toContain("901 seconds long; this account allows at most 900 seconds")
      // A single feed video is published as a reel: the reel's rules apply.
      const [feed] = await issues({ media: [media.long!], photo: { type: "feed" } })
      expect(feed!.code).toBe("media_too_long")
    })
  })

  describe("story: one image or one video of 3 to 60 seconds (IG User Media reference, story video)", () => {
    it("takes a 12-second video and refuses a 61-second one", async () => {
      expect(await issues({ media: [media.clip!], photo: { type: "story" } })).toEqual([])
      const [long] = await issues({ media: [media.minute!], photo: { type: "story" } })
      expect(long!.message).toContain("61 seconds long; this account allows at most 60 seconds")
    })
  })
})

describe("Instagram's JPEG-only rule", () => {
  it("names JPEG and the item for a PNG or a WebP, and passes a JPEG or an unknown type", () => {
    const png = notJpeg("photo", [{ kind: "image", durationSeconds: null, mime: "image/jpeg" }, { kind: "image", durationSeconds: null, mime: "image/png" }])
    expect(png).toMatchObject({ code: "media_invalid", rule: "ig_image_jpeg_only", field: "media[1]" })
    expect((png!.details.detail as { en: string }).en).toBe("images must be JPEG; this one is PNG (convert it to JPEG before uploading)")
    expect(notJpeg("photo", [{ kind: "image", durationSeconds: null, mime: "image/webp" }])?.field).toBe("media[0]")
    expect(notJpeg("photo", [{ kind: "image", durationSeconds: null, mime: "image/jpeg" }])).toBeUndefined()
    expect(notJpeg("photo", [{ kind: "image", durationSeconds: null }])).toBeUndefined()
  })
})

describe("appsecret_proof on Instagram (POSTWIRE_INSTAGRAM_APPSECRET_PROOF)", () => {
  it("auto sends it only to graph.facebook.com, where Meta documents it; on and off are obeyed", () => {
    expect(sendsProof("auto", "https://graph.instagram.com/v23.0")).toBe(false)
    expect(sendsProof(undefined, "https://graph.instagram.com/v23.0")).toBe(false)
    expect(sendsProof("auto", "https://graph.facebook.com/v23.0")).toBe(true)
    expect(sendsProof("on", "https://graph.instagram.com/v23.0")).toBe(true)
    expect(sendsProof("off", "https://graph.facebook.com/v23.0")).toBe(false)
  })

  it("reads on, off and auto in any case, and stops on another value naming the variable", () => {
    expect(parseAppSecretProof("POSTWIRE_INSTAGRAM_APPSECRET_PROOF", "ON")).toBe("on")
    expect(parseAppSecretProof("POSTWIRE_INSTAGRAM_APPSECRET_PROOF", undefined)).toBeUndefined()
    expect(() => parseAppSecretProof("POSTWIRE_INSTAGRAM_APPSECRET_PROOF", "yes")).toThrow(
      'POSTWIRE_INSTAGRAM_APPSECRET_PROOF: expected on, off or auto, got "yes"'
    )
  })
})

effectDescribe("Instagram's rules when publishing against the fake", () => {
  const routerOf = (fake: InstagramFake.InstagramFake) => aRouter({ photo: { baseUrl: fake.url, refreshUrl: `${fake.origin}/refresh_access_token` } })
  const aFeedPost = (fake: InstagramFake.InstagramFake, caption: string, items = [anImage()]) => {
    const account = anAccount("photo", {
      externalId: InstagramFake.igUserId,
      credentials: Credentials.encode(instagram, { access_token: fake.accessToken })
    })
    return aPublishInput({
      account,
      post: aPostRecord({ caption }),
      target: aTarget(account, { options: { photo: { type: "feed" } } }),
      media: items
    })
  }

  effectIt.live("the fake refuses a caption with 31 hashtags with Instagram's 36004/2207010 body; 30 publish", () =>
    Effect.gen(function* () {
      const fake = yield* InstagramFake.make()
      const client = yield* routerOf(fake)
      const refused = yield* drive(client, aFeedPost(fake, tags(31, "#")))
      effectAssert.strictEqual(refused.failure?.platformCode, "36004/2207010")
      effectAssert.lengthOf(fake.media, 0)
      const reply = fake.requests.find((r) => r.route === "create_refused")
      effectAssert.isDefined(reply)
      const published = yield* drive(client, aFeedPost(fake, tags(30, "#")))
      effectAssert.isDefined(published.published)
      effectAssert.lengthOf(fake.media, 1)
    })
  )

  effectIt.live("the fake refuses 21 @mentions, and the body is Graph's error object", () =>
    Effect.gen(function* () {
      const fake = yield* InstagramFake.make()
      const response = yield* Effect.promise(() =>
        fetch(`${fake.url}/${InstagramFake.igUserId}/media`, {
          method: "POST",
          body: new URLSearchParams({ image_url: "https://media.example/a.jpg", caption: tags(21, "@"), access_token: fake.accessToken })
        })
      )
      effectAssert.strictEqual(response.status, 400)
      const body = (yield* Effect.promise(() => response.json())) as { error: Record<string, unknown> }
      effectAssert.deepInclude(body.error, { code: 36004, error_subcode: 2207010, type: "OAuthException", is_transient: false })
      effectAssert.isString(body.error.message)
      effectAssert.isString(body.error.error_user_title)
      effectAssert.isString(body.error.error_user_msg)
      effectAssert.isString(body.error.fbtrace_id)
    })
  )

  effectIt.live("the fake refuses an image address that serves a PNG or a WebP (36001/2207005), and takes a JPEG", () =>
    Effect.gen(function* () {
      const fake = yield* InstagramFake.make()
      const client = yield* routerOf(fake)
      const png = anImage({ mime: "image/png" })
      fake.images.set(png.url, aPng({ width: 1080, height: 1080 }))
      const refused = yield* drive(client, aFeedPost(fake, "Bake day", [png]))
      effectAssert.strictEqual(refused.failure?.code, "media_invalid")
      effectAssert.strictEqual(refused.failure?.platformCode, "36001/2207005")
      const webp = anImage({ mime: "image/webp" })
      fake.images.set(webp.url, aWebp({ width: 1080, height: 1080 }))
      effectAssert.strictEqual((yield* drive(client, aFeedPost(fake, "Bake day", [webp]))).failure?.platformCode, "36001/2207005")
      const jpeg = anImage({ mime: "image/jpeg" })
      fake.images.set(jpeg.url, aJpeg({ width: 1080, height: 1080 }))
      effectAssert.isDefined((yield* drive(client, aFeedPost(fake, "Bake day", [jpeg]))).published)
    })
  )

  effectIt.live("the fake refuses a feed image outside 4:5 to 1.91:1 (36003/2207009)", () =>
    Effect.gen(function* () {
      const fake = yield* InstagramFake.make()
      const client = yield* routerOf(fake)
      // The record says nothing of its size (an import): only Instagram can tell.
      const tall = anImage({ mime: "image/jpeg", width: null, height: null })
      fake.images.set(tall.url, aJpeg({ width: 1080, height: 1920 }))
      const refused = yield* drive(client, aFeedPost(fake, "Bake day", [tall]))
      effectAssert.strictEqual(refused.failure?.platformCode, "36003/2207009")
    })
  )

  effectIt.live("the adapter refuses a reel shorter than 3 seconds before creating anything", () =>
    Effect.gen(function* () {
      const fake = yield* InstagramFake.make()
      const client = yield* routerOf(fake)
      const account = anAccount("photo", {
        externalId: InstagramFake.igUserId,
        credentials: Credentials.encode(instagram, { access_token: fake.accessToken })
      })
      const input = aPublishInput({
        account,
        post: aPostRecord(),
        target: aTarget(account, { options: { photo: { type: "reel" } } }),
        media: [aVideoItem({ durationSeconds: 2 })]
      })
      const { failure } = yield* drive(client, input)
      effectAssert.strictEqual(failure?.code, "media_invalid")
      effectAssert.lengthOf(fake.containers, 0)
    })
  )
})
