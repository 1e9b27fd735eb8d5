/**
 * Threads' documented rules (packages/platforms/src/threads/Rules.ts names each page), walked
 * through `POST /v1/posts/validate` and create over the real HTTP API on the embedded database,
 * and through publishing against the Threads fake (which refuses what Threads refuses).
 */
import { createHmac } from "node:crypto"
import { it as effect } from "@effect/vitest"
import type { PublishMedia } from "@postwire/core"
import { Credentials, threads } from "@postwire/platforms"
import { Effect, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aJpeg, aMov, anMp4, aPng, aWebp } from "../../support/Media.ts"
import { aPostRecord } from "../../support/Records.ts"
import { aRouter, drive } from "../adapterConformance.ts"
import { anAccount, anImage, aPublishInput, aTarget, aVideo } from "../builders.ts"
import * as ThreadsFake from "./ThreadsFake.ts"
import { accountOf, aPost } from "../../support/Builders.ts"
import { call, errorOf } from "../../support/Http.ts"
import { backends, startServer, type TestServer } from "../../support/TestServer.ts"

const emoji = "😀" // 4 UTF-8 bytes, 2 UTF-16 units, 1 code point

describe.each(backends())("Threads' official rules at validate and create on %s", (backend) => {
  let server: TestServer
  const media: Record<string, string> = {}

  const upload = async (bytes: Uint8Array) => {
    const reply = await call(server.baseUrl, "POST", "/v1/media", {
      key: server.testKey,
      body: { data: Buffer.from(bytes).toString("base64") }
    })
    if (reply.status !== 201) throw new Error(`upload failed: ${reply.status} ${JSON.stringify(reply.body)}`)
    return reply.body.id as string
  }

  const validate = (caption: string, ids: ReadonlyArray<string>) =>
    call(server.baseUrl, "POST", "/v1/posts/validate", {
      key: server.testKey,
      body: aPost(server, ids, { caption, targets: [{ account_id: accountOf(server, "textpost") }] })
    })
  const create = (caption: string, ids: ReadonlyArray<string>) =>
    call(server.baseUrl, "POST", "/v1/posts", {
      key: server.testKey,
      body: aPost(server, ids, { caption, targets: [{ account_id: accountOf(server, "textpost") }] })
    })
  const issuesOf = (reply: { status: number; body: { issues: Array<{ code: string; field?: string; message: string; message_id: string }> } }) => {
    if (reply.status !== 200) throw new Error(`validate answered ${reply.status}: ${JSON.stringify(reply.body)}`)
    return reply.body.issues
  }

  beforeAll(async () => {
    server = await startServer(backend)
    media.png = await upload(aPng({ width: 1080, height: 1350 }))
    media.jpeg = await upload(aJpeg({ width: 1080, height: 1080 }))
    media.webp = await upload(aWebp({ width: 1080, height: 1080 }))
    media.banner = await upload(aPng({ width: 1100, height: 100 }))
    media.tenToOne = await upload(aPng({ width: 1000, height: 100 }))
    media.mp4 = await upload(anMp4({ durationSeconds: 30, width: 1080, height: 1920 }))
    media.mov = await upload(aMov({ durationSeconds: 30, width: 1080, height: 1920 }))
    media.longVideo = await upload(anMp4({ durationSeconds: 301, width: 1080, height: 1920 }))
    media.fiveMinutes = await upload(anMp4({ durationSeconds: 300, width: 1080, height: 1920 }))
    media.wideVideo = await upload(anMp4({ durationSeconds: 30, width: 3840, height: 2160 }))
    media.stripVideo = await upload(anMp4({ durationSeconds: 30, width: 1900, height: 100 }))
  }, 120_000)
  afterAll(() => server?.stop())

  describe("500 characters, each emoji counted as its UTF-8 bytes", () => {
    it("takes 125 emoji (500 bytes) and refuses one more character", async () => {
      // 125 emoji are 500 bytes: at the limit. One more character is over it.
      const atLimit = await validate(emoji.repeat(125), [media.png!])
      expect(issuesOf(atLimit)).toEqual([])
      const over = await validate(`${emoji.repeat(125)}!`, [media.png!])
      expect(issuesOf(over)).toHaveLength(1)
      expect(issuesOf(over)[0]).toMatchObject({ code: "caption_too_long", field: "caption" })
      expect(issuesOf(over)[0]!.message).toContain("500")
    })

    it("refuses 130 emoji, which JavaScript counts as 260 and Threads as 520", async () => {
      const reply = await validate(emoji.repeat(130), [media.png!])
      expect(issuesOf(reply).map((i) => i.code)).toEqual(["caption_too_long"])
      const created = await create(emoji.repeat(130), [media.png!])
      expect(created.status).toBe(422)
      expect(errorOf(created)).toMatchObject({ code: "caption_too_long", field: "caption" })
    })

    it("counts an emoji with a skin tone as all its bytes (8), a flag as 8, a keycap as 7", async () => {
      // 👍🏽 is 8 bytes: 62 of them are 496, with 4 letters 500; a 5th letter is over.
      expect(issuesOf(await validate(`${"👍🏽".repeat(62)}abcd`, [media.png!]))).toEqual([])
      expect(issuesOf(await validate(`${"👍🏽".repeat(62)}abcde`, [media.png!]))[0]).toMatchObject({ code: "caption_too_long" })
      expect(issuesOf(await validate(`${"🇮🇩".repeat(62)}abcd`, [media.png!]))).toEqual([])
      expect(issuesOf(await validate(`${"🇮🇩".repeat(62)}abcde`, [media.png!]))[0]).toMatchObject({ code: "caption_too_long" })
      // 1️⃣ is "1" + U+FE0F + U+20E3: 1 + 3 + 3 bytes.
      expect(issuesOf(await validate(`${"1️⃣".repeat(71)}abc`, [media.png!]))).toEqual([])
      expect(issuesOf(await validate(`${"1️⃣".repeat(71)}abcd`, [media.png!]))[0]).toMatchObject({ code: "caption_too_long" })
    })

    it("counts other characters one per code point: 500 CJK characters or accented letters fit", async () => {
      expect(issuesOf(await validate("語".repeat(500), [media.png!]))).toEqual([])
      expect(issuesOf(await validate("é".repeat(500), [media.png!]))).toEqual([])
      // A character outside the BMP that is not an emoji (𝒜, 2 UTF-16 units) counts once.
      expect(issuesOf(await validate("𝒜".repeat(500), [media.png!]))).toEqual([])
      expect(issuesOf(await validate("語".repeat(501), [media.png!]))[0]).toMatchObject({ code: "caption_too_long" })
    })
  })

  describe("at most 5 links (THREADS_API__LINK_LIMIT_EXCEEDED)", () => {
    const six = "https://a.example.com www.b.example.com c.example.com/x http://d.example.com/y?z=1 https://e.example.com/ f.example.com"

    it("refuses 6 unique links, naming the rule and the limit in both languages", async () => {
      const reply = await validate(`See ${six}.`, [media.png!])
      expect(issuesOf(reply)).toHaveLength(1)
      const issue = issuesOf(reply)[0]!
      expect(issue).toMatchObject({ code: "caption_invalid", field: "caption" })
      expect(issue.message).toContain("at most 5 links")
      expect(issue.message).toContain("this one has 6")
      expect(issue.message_id).toContain("paling banyak 5 tautan")
      const created = await create(`See ${six}.`, [media.png!])
      expect(created.status).toBe(422)
      expect(errorOf(created)).toMatchObject({ code: "caption_invalid" })
    })

    it("counts one URL written twice (or with another scheme, case or trailing slash) once", async () => {
      const caption = "https://a.example.com/ a.example.com A.EXAMPLE.COM http://a.example.com, b.example.com c.example.com d.example.com e.example.com"
      expect(issuesOf(await validate(caption, [media.png!]))).toEqual([])
    })

    it("takes exactly 5 links, and does not count e-mail addresses or words with a dot", async () => {
      const caption = "a.example.com b.example.com c.example.com d.example.com e.example.com mail me at maya@bakes.com, v1.2 e.g. Node.js"
      expect(issuesOf(await validate(caption, [media.png!]))).toEqual([])
    })
  })

  describe("a carousel takes 2 to 20 items", () => {
    it("takes 20 images (Instagram stops at 10) and refuses 21", async () => {
      const ids = []
      for (let i = 0; i < 21; i++) ids.push(await upload(aPng({ width: 1080 + i, height: 1080 })))
      expect(issuesOf(await validate("twenty", ids.slice(0, 20)))).toEqual([])
      const over = issuesOf(await validate("twenty-one", ids))
      expect(over).toHaveLength(1)
      expect(over[0]).toMatchObject({ code: "media_invalid", field: "media" })
      expect(over[0]!.message).toContain("at most 20")
    }, 120_000)

    it("takes a mix of images and videos", async () => {
      expect(issuesOf(await validate("mix", [media.png!, media.jpeg!, media.mp4!, media.mov!]))).toEqual([])
    })
  })

  describe("media specifications", () => {
    it("refuses a WebP image (Threads takes JPEG and PNG), naming the item", async () => {
      const reply = issuesOf(await validate("webp", [media.png!, media.webp!]))
      expect(reply).toHaveLength(1)
      expect(reply[0]).toMatchObject({ code: "media_invalid", field: "media[1]" })
      expect(reply[0]!.message).toContain("image/webp")
      expect(reply[0]!.message).toContain("JPEG or PNG")
    })

    it("refuses an image wider than 10:1 and takes one of exactly 10:1", async () => {
      const reply = issuesOf(await validate("banner", [media.banner!]))
      expect(reply[0]).toMatchObject({ code: "media_invalid", field: "media[0]" })
      expect(reply[0]!.message).toContain("10:1")
      expect(issuesOf(await validate("ten", [media.tenToOne!]))).toEqual([])
    })

    it("refuses a video over 300 seconds, in a carousel too, and takes one of 300", async () => {
      expect(issuesOf(await validate("five minutes", [media.fiveMinutes!]))).toEqual([])
      const alone = issuesOf(await validate("long", [media.longVideo!]))
      expect(alone[0]).toMatchObject({ code: "media_too_long", field: "media[0]" })
      const second = issuesOf(await validate("long in a carousel", [media.mp4!, media.longVideo!]))
      expect(second[0]).toMatchObject({ code: "media_too_long", field: "media[1]" })
      expect(second[0]!.message).toContain("300")
    })

    it("refuses a video wider than 1920 pixels", async () => {
      const reply = issuesOf(await validate("4k", [media.wideVideo!]))
      expect(reply[0]).toMatchObject({ code: "media_invalid", field: "media[0]" })
      expect(reply[0]!.message).toContain("1920")
    })

    it("refuses a video whose aspect ratio is beyond 10:1", async () => {
      const reply = issuesOf(await validate("strip", [media.stripVideo!]))
      expect(reply[0]).toMatchObject({ code: "media_invalid", field: "media[0]" })
      expect(reply[0]!.message).toContain("0.01:1 and 10:1")
    })
  })
})

/** The Threads adapter against the fake: it sends nothing Threads would refuse, and the fake refuses it too. */
describe("Threads' official rules when publishing", () => {
  const options = (fake: ThreadsFake.ThreadsFake, extra: Record<string, unknown> = {}) => ({
    textpost: { baseUrl: fake.url, refreshUrl: `${fake.origin}/refresh_access_token`, ...extra }
  })
  const aThreadsPost = (fake: ThreadsFake.ThreadsFake, caption: string, media: ReadonlyArray<PublishMedia> = []) => {
    const account = anAccount("textpost", {
      externalId: ThreadsFake.threadsUserId,
      credentials: Credentials.encode(threads, { access_token: fake.accessToken })
    })
    return aPublishInput({ account, post: aPostRecord({ caption }), target: aTarget(account), media })
  }
  /** A container created on the fake directly, as another client of Threads would. */
  const createDirectly = (fake: ThreadsFake.ThreadsFake, params: Record<string, string>) =>
    Effect.promise(async () => {
      const response = await fetch(`${fake.url}/${ThreadsFake.threadsUserId}/threads`, {
        method: "POST",
        body: new URLSearchParams({ access_token: fake.accessToken, ...params })
      })
      return { status: response.status, json: (await response.json()) as { error?: Record<string, unknown>; id?: string } }
    })

  effect.live("refuses a text of 130 emoji before creating anything; Threads refuses it with code 100", () =>
    Effect.gen(function* () {
      const fake = yield* ThreadsFake.make()
      const client = yield* aRouter(options(fake))
      const result = yield* drive(client, aThreadsPost(fake, emoji.repeat(130)))
      expect(result.failure).toMatchObject({ code: "caption_too_long", retryable: false })
      expect(fake.count("create")).toBe(0)
      const direct = yield* createDirectly(fake, { media_type: "TEXT", text: emoji.repeat(130) })
      expect(direct.status).toBe(400)
      expect(direct.json.error).toMatchObject({ code: 100, type: "OAuthException", fbtrace_id: expect.any(String) })
      // 125 emoji (500 bytes) publish.
      const fits = yield* drive(client, aThreadsPost(fake, emoji.repeat(125)))
      expect(fits.published).toBeDefined()
    })
  )

  effect.live("refuses 6 links before creating anything; Threads refuses them with THREADS_API__LINK_LIMIT_EXCEEDED", () =>
    Effect.gen(function* () {
      const fake = yield* ThreadsFake.make()
      const client = yield* aRouter(options(fake))
      const six = "a.example.com b.example.com c.example.com d.example.com e.example.com https://f.example.com"
      const result = yield* drive(client, aThreadsPost(fake, six))
      expect(result.failure).toMatchObject({ code: "caption_invalid", retryable: false })
      expect(fake.count("create")).toBe(0)
      const direct = yield* createDirectly(fake, { media_type: "TEXT", text: six })
      expect(direct.status).toBe(400)
      expect(direct.json.error).toMatchObject({ code: 100, error_user_title: "THREADS_API__LINK_LIMIT_EXCEEDED" })
      const five = yield* drive(client, aThreadsPost(fake, `${six.split(" ").slice(0, 5).join(" ")} a.example.com/`))
      expect(five.published).toBeDefined()
    })
  )

  effect.live("publishes a carousel of 20 images and refuses 21 before creating anything; Threads refuses 21 children", () =>
    Effect.gen(function* () {
      const fake = yield* ThreadsFake.make()
      const client = yield* aRouter(options(fake))
      const twenty = yield* drive(client, aThreadsPost(fake, "twenty", Array.from({ length: 20 }, () => anImage())), 60)
      expect(twenty.published).toBeDefined()
      const parent = fake.containers.at(-1)!
      expect(parent.params.media_type).toBe("CAROUSEL")
      expect(parent.params.children!.split(",")).toHaveLength(20)
      const created = fake.count("create")
      const over = yield* drive(client, aThreadsPost(fake, "twenty-one", Array.from({ length: 21 }, () => anImage())))
      expect(over.failure).toMatchObject({ code: "media_invalid", retryable: false })
      expect(fake.count("create")).toBe(created)
      const children = fake.containers.slice(0, 20).map((c) => c.id)
      const direct = yield* createDirectly(fake, { media_type: "CAROUSEL", children: [...children, children[0]!].join(","), text: "x" })
      expect(direct.status).toBe(400)
      expect(direct.json.error).toMatchObject({ code: 100 })
    })
  )

  effect.live("a link Threads counts and Postwire does not fails as a caption Threads refused, nothing published", () =>
    Effect.gen(function* () {
      const fake = yield* ThreadsFake.make()
      const client = yield* aRouter(options(fake))
      // Postwire does not count `Node.js` as a link; this fake (like Threads might) does: 6.
      const result = yield* drive(client, aThreadsPost(fake, "a.example.com b.example.com c.example.com d.example.com e.example.com Node.js"))
      expect(result.failure).toMatchObject({ code: "caption_invalid", platformCode: "THREADS_API__LINK_LIMIT_EXCEEDED", retryable: false })
      expect(result.failure?.details).toMatchObject({ platform: "textpost", detail: { en: expect.stringContaining("more than 5 links") } })
      expect(fake.media).toHaveLength(0)
    })
  )

  effect.live("refuses a video over 300 seconds and a WebP image before creating anything", () =>
    Effect.gen(function* () {
      const fake = yield* ThreadsFake.make()
      const client = yield* aRouter(options(fake))
      const long = yield* drive(client, aThreadsPost(fake, "long", [aVideo({ durationSeconds: 301 })]))
      expect(long.failure).toMatchObject({ code: "media_too_long" })
      const webp = yield* drive(client, aThreadsPost(fake, "webp", [anImage({ mime: "image/webp" })]))
      expect(webp.failure).toMatchObject({ code: "media_invalid" })
      const wide = yield* drive(client, aThreadsPost(fake, "4k", [aVideo({ width: 3840, height: 2160 })]))
      expect(wide.failure).toMatchObject({ code: "media_invalid" })
      expect(fake.count("create")).toBe(0)
    })
  )

  effect.live("media Threads finds too long or too narrow (unknown to Postwire) fail as Threads says: INVALID_DURATION, INVALID_ASPEC_RATIO", () =>
    Effect.gen(function* () {
      const fake = yield* ThreadsFake.make()
      const client = yield* aRouter(options(fake))
      const video = aVideo({ durationSeconds: null })
      fake.mediaFacts.set(video.url, { durationSeconds: 301, width: 1080, height: 1920 })
      const result = yield* drive(client, aThreadsPost(fake, "long", [video]))
      expect(result.failure).toMatchObject({ code: "media_invalid", platformCode: "INVALID_DURATION", retryable: false })
      const strip = anImage({ width: null, height: null })
      fake.mediaFacts.set(strip.url, { width: 2200, height: 200 })
      const ratio = yield* drive(client, aThreadsPost(fake, "strip", [strip]))
      expect(ratio.failure).toMatchObject({ code: "media_invalid", platformCode: "INVALID_ASPEC_RATIO", retryable: false })
    })
  )

  effect.live("sends no appsecret_proof by default, even with the app secret set, and sends it when asked", () =>
    Effect.gen(function* () {
      const fake = yield* ThreadsFake.make()
      const appSecret = Redacted.make("threads-app-secret")
      const plain = yield* aRouter(options(fake, { appSecret }))
      expect((yield* drive(plain, aThreadsPost(fake, "plain"))).published).toBeDefined()
      expect(fake.requests.length).toBeGreaterThan(0)
      expect(fake.requests.every((r) => r.params.appsecret_proof === undefined)).toBe(true)
      const seen = fake.requests.length
      const signed = yield* aRouter(options(fake, { appSecret, appSecretProof: true }))
      expect((yield* drive(signed, aThreadsPost(fake, "signed"))).published).toBeDefined()
      const proof = createHmac("sha256", "threads-app-secret").update(fake.accessToken).digest("hex")
      const later = fake.requests.slice(seen)
      expect(later.length).toBeGreaterThan(0)
      expect(later.every((r) => r.params.appsecret_proof === proof)).toBe(true)
    })
  )
})
