/**
 * Facebook Pages' documented rules, each walked through `POST /v1/posts/validate` (the real HTTP
 * API on the embedded database, and PostgreSQL when configured) and through publishing against
 * the fake, which refuses what Meta documents it refuses:
 *
 * - reels: 3 to 90 s, 9:16, at least 540 × 960; 30 a Page in 24 hours
 *   (https://developers.facebook.com/docs/video-api/guides/reels-publishing);
 * - every other video: a Page video (`POST /{page-id}/videos`, `file_url`), up to 20 minutes and
 *   1 GB by address (https://developers.facebook.com/docs/graph-api/reference/page/videos);
 * - photos: JPEG, BMP, PNG, GIF or TIFF, at most 10 MB; at most 10 in a post
 *   (https://developers.facebook.com/docs/page-stories-api, https://developers.facebook.com/docs/pages-api/posts);
 * - Facebook Login for Business: the login dialog with the app's `config_id`
 *   (https://developers.facebook.com/docs/facebook-login/facebook-login-for-business).
 */
import { assert, describe, it } from "@effect/vitest"
import type { PublishMedia } from "@postwire/core"
import { Credentials, facebook, Registry } from "@postwire/platforms"
import { Effect } from "effect"
import { afterAll, beforeAll, expect } from "vitest"
import { aJpeg, anMp4, aWebp } from "../../support/Media.ts"
import { accountOf } from "../../support/Builders.ts"
import { call } from "../../support/Http.ts"
import { backends, startServer, type TestServer } from "../../support/TestServer.ts"
import { aRouter, drive } from "../adapterConformance.ts"
import { anAccount, anImage, aPost, aPublishInput, aTarget, aVideo } from "../builders.ts"
import { aConnector, callbackOf, connect, state, verifier } from "../connect/connectHarness.ts"
import * as FacebookOAuthFake from "./FacebookOAuthFake.ts"
import * as FacebookPagesFake from "./FacebookPagesFake.ts"

type Fake = FacebookPagesFake.FacebookPagesFake

interface Issue {
  readonly code: string
  readonly field?: string
  readonly message: string
}

describe.each(backends())("Facebook Pages' official rules at validate, on %s", (backend) => {
  let server: TestServer
  const upload = async (bytes: Uint8Array, filename?: string): Promise<string> => {
    const reply = await call(server.baseUrl, "POST", "/v1/media", {
      key: server.testKey,
      body: { data: Buffer.from(bytes).toString("base64"), ...(filename === undefined ? {} : { filename }) }
    })
    if (reply.status !== 201) throw new Error(`upload failed: ${reply.status} ${JSON.stringify(reply.body)}`)
    return reply.body.id as string
  }
  const video = (durationSeconds: number, width: number, height: number) => upload(anMp4({ durationSeconds, width, height }))
  const validate = async (media: ReadonlyArray<string>, language = "en"): Promise<ReadonlyArray<Issue>> => {
    const reply = await call(server.baseUrl, "POST", "/v1/posts/validate", {
      key: server.testKey,
      headers: { "accept-language": language },
      body: {
        profile_id: server.profileId,
        caption: "Fresh sourdough today",
        media,
        targets: [{ account_id: accountOf(server, "pages") }]
      }
    })
    expect(reply.status).toBe(200)
    return reply.body.issues as ReadonlyArray<Issue>
  }

  beforeAll(async () => {
    // 31 creates of one Page in a row: above the default create rate, which is not what is tested.
    server = await startServer(backend, { POSTWIRE_RATE_LIMIT_POSTS_CREATE: "1000", POSTWIRE_RATE_LIMIT_PER_KEY: "1000" })
  })
  afterAll(() => server?.stop())

  it("takes a 9:16 video of 3 to 90 s (a reel) and any other video up to 20 minutes (a Page video)", async () => {
    expect(await validate([await video(30, 1080, 1920)])).toEqual([])
    // Not reels: too short, too long, landscape, too small. Each goes out as a Page video.
    expect(await validate([await video(2, 1080, 1920)])).toEqual([])
    expect(await validate([await video(120, 1080, 1920)])).toEqual([])
    expect(await validate([await video(60, 1920, 1080)])).toEqual([])
    expect(await validate([await video(30, 360, 640)])).toEqual([])
    expect(await validate([await video(1200, 1280, 720)])).toEqual([])
  })

  it("refuses a video longer than a Page video by address may be, naming the 20-minute limit", async () => {
    const issues = await validate([await video(1300, 1920, 1080)])
    expect(issues).toHaveLength(1)
    expect(issues[0]).toMatchObject({ code: "media_too_long", field: "media[0]" })
    expect(issues[0]!.message).toContain("1300 seconds")
    expect(issues[0]!.message).toContain("1200 seconds")
  })

  it("refuses a photo format a Page does not take, naming the formats it takes (EN and ID)", async () => {
    const webp = await upload(aWebp({ width: 1080, height: 1080 }), "crumb.webp")
    const [en] = await validate([webp])
    expect(en).toMatchObject({ code: "media_invalid", field: "media[0]" })
    expect(en!.message).toContain("a Facebook Page photo must be JPEG, PNG, GIF, BMP or TIFF, not image/webp")
    const [id] = await validate([webp], "id")
    expect(id!.message).toContain("foto Halaman Facebook harus berformat JPEG, PNG, GIF, BMP, atau TIFF, bukan image/webp")
    // JPEG and PNG are taken.
    expect(await validate([await upload(aJpeg({ width: 1080, height: 1350 }))])).toEqual([])
  })

  it("refuses more than 10 photos, and photos with a video", async () => {
    const photos: Array<string> = []
    for (let i = 0; i < 11; i++) photos.push(await upload(aJpeg({ width: 1080 + i, height: 1350 })))
    const photo = photos[0]!
    expect(await validate(photos.slice(0, 10))).toEqual([])
    const [tooMany] = await validate(photos)
    expect(tooMany).toMatchObject({ code: "media_invalid" })
    expect(tooMany!.message).toContain("at most 10 images")
    const [mixed] = await validate([photo, await video(30, 1080, 1920)])
    expect(mixed).toMatchObject({ code: "media_invalid" })
  })

  // "Pages are limited to 30 API-published reels within a 24-hour moving period"
  // (https://developers.facebook.com/docs/video-api/guides/reels-publishing, "Rate Limit"): counted
  // apart from the Page's 50 posts a day, and refused up front rather than by Meta at publish time.
  it("refuses the 31st reel of a Page in 24 hours at validate and create, naming the reels limit, and still takes other posts", async () => {
    const reel = await video(30, 1080, 1920)
    const body = (media: ReadonlyArray<string>) => ({
      profile_id: server.profileId,
      caption: "Fresh sourdough today",
      media,
      targets: [{ account_id: accountOf(server, "pages") }],
      approval: { mode: "none" }
    })
    for (let i = 0; i < 30; i++) {
      const created = await call(server.baseUrl, "POST", "/v1/posts", { key: server.testKey, body: body([reel]) })
      expect(created.status, JSON.stringify(created.body)).toBe(201)
    }
    const [full, ...rest] = await validate([reel])
    expect(rest).toEqual([])
    expect(full).toMatchObject({ code: "quota_exceeded", field: "targets[0].account_id" })
    expect(full!.message).toMatch(/^The account reached its daily posting limit of 30 reels\. It resets at \d{4}-\d\d-\d\dT/)
    const [id] = await validate([reel], "id")
    expect(id!.message).toContain("batas unggahan harian 30 reel.")
    const refused = await call(server.baseUrl, "POST", "/v1/posts", { key: server.testKey, body: body([reel]) })
    expect(refused.status).toBe(422)
    expect(refused.body.error).toMatchObject({ code: "quota_exceeded", field: "targets[0].account_id", retryable: true })
    expect(refused.body.error.message).toContain("limit of 30 reels")
    // A Page video (landscape) and photos count against the Page's own quota only.
    expect(await validate([await video(60, 1920, 1080)])).toEqual([])
    expect(await validate([await upload(aJpeg({ width: 1080, height: 1350 }))])).toEqual([])
  })
})

const options = (fake: Fake) => ({ pages: { baseUrl: fake.url, pollIntervalMs: 1 } })

const aPagePost = (fake: Fake, media: ReadonlyArray<PublishMedia>, caption = "Fresh sourdough today") => {
  const account = anAccount("pages", {
    externalId: FacebookPagesFake.pageId,
    credentials: Credentials.encode(facebook, { page_access_token: fake.pageAccessToken })
  })
  return aPublishInput({ account, post: aPost({ caption }), target: aTarget(account), media })
}

describe("Facebook Pages' official rules when publishing, against the fake", () => {
  it.live("publishes a video that meets the reel specification as a reel", () =>
    Effect.gen(function* () {
      const fake = yield* FacebookPagesFake.make()
      const client = yield* aRouter(options(fake))
      const result = yield* drive(client, aPagePost(fake, [aVideo({ durationSeconds: 30, width: 1080, height: 1920 })]))
      assert.strictEqual(fake.count("reel_start"), 1)
      assert.strictEqual(fake.count("video_upload"), 0)
      assert.match(result.published?.permalink ?? "", /^https:\/\/www\.facebook\.com\/reel\/\d+\/$/)
    })
  )

  for (const [name, facts] of [
    ["a landscape video", { durationSeconds: 60, width: 1920, height: 1080 }],
    ["a 9:16 video shorter than 3 s", { durationSeconds: 2, width: 1080, height: 1920 }],
    ["a 9:16 video longer than 90 s", { durationSeconds: 300, width: 1080, height: 1920 }],
    ["a 9:16 video smaller than 540 × 960", { durationSeconds: 30, width: 360, height: 640 }]
  ] as const) {
    it.live(`publishes ${name} as a Page video, not a reel Meta would refuse`, () =>
      Effect.gen(function* () {
        const fake = yield* FacebookPagesFake.make()
        const media = aVideo(facts)
        // What Meta reads from the file is what the media record says.
        fake.files.set(media.url, { ...facts, bytes: 40_000_000 })
        const client = yield* aRouter(options(fake))
        const result = yield* drive(client, aPagePost(fake, [media]))
        assert.isDefined(result.published, result.failure?.platformCode)
        assert.strictEqual(fake.count("reel_start"), 0)
        const upload = fake.requests.find((r) => r.route === "video_upload")!
        assert.deepInclude(upload.params, { file_url: media.url, description: "Fresh sourdough today", published: "true" })
        const videoId = fake.pageVideos[0]!.videoId
        assert.strictEqual(result.published?.platformPostId, videoId)
        assert.strictEqual(result.published?.permalink, `https://www.facebook.com/${FacebookPagesFake.pageId}/videos/${videoId}/`)
        // Published once its processing is over.
        assert.isAtLeast(fake.count("video_status"), 2)
      })
    )
  }

  it.live("the fake fails a reel whose file is outside the reel specification, as Meta's processing does", () =>
    Effect.gen(function* () {
      const fake = yield* FacebookPagesFake.make()
      const media = aVideo({ durationSeconds: 30, width: 1080, height: 1920 })
      // The record says 9:16; the file Meta fetches is landscape.
      fake.files.set(media.url, { durationSeconds: 30, width: 1920, height: 1080, bytes: 9_000_000 })
      const client = yield* aRouter(options(fake))
      const result = yield* drive(client, aPagePost(fake, [media]))
      assert.strictEqual(result.failure?.code, "media_invalid")
      assert.strictEqual(result.failure?.platformCode, "video_status_error")
      assert.isFalse(result.failure?.retryable)
      assert.lengthOf(fake.posts, 0)
    })
  )

  it.live("the fake refuses a Page video by address longer than 20 minutes with a Graph error body", () =>
    Effect.gen(function* () {
      const fake = yield* FacebookPagesFake.make()
      const media = aVideo({ durationSeconds: 600, width: 1920, height: 1080 })
      fake.files.set(media.url, { durationSeconds: 1500, width: 1920, height: 1080, bytes: 900_000_000 })
      const client = yield* aRouter(options(fake))
      const result = yield* drive(client, aPagePost(fake, [media]))
      assert.isDefined(result.failure)
      assert.strictEqual(result.failure?.platformCode, "6000/1363023")
      assert.isTrue(result.failure?.notPublished)
      assert.lengthOf(fake.posts, 0)
    })
  )

  it.live("refuses before calling the Page a video longer than 20 minutes, or larger than 1 GB", () =>
    Effect.gen(function* () {
      const fake = yield* FacebookPagesFake.make()
      const client = yield* aRouter(options(fake))
      const long = yield* drive(client, aPagePost(fake, [aVideo({ durationSeconds: 1201, width: 1920, height: 1080 })]))
      assert.strictEqual(long.failure?.code, "media_too_long")
      assert.deepInclude(long.failure?.details ?? {}, { duration: 1201, limit: 1200 })
      const large = yield* drive(
        client,
        aPagePost(fake, [aVideo({ durationSeconds: 300, width: 1920, height: 1080, sizeBytes: 1024 ** 3 + 1 })])
      )
      assert.strictEqual(large.failure?.code, "media_invalid")
      assert.strictEqual((large.failure?.details?.detail as { en: string } | undefined)?.en, "a Facebook Page video is at most 1024 MB when Meta fetches it by address")
      assert.lengthOf(fake.requests, 0)
    })
  )

  it.live("refuses before calling the Page a photo over 10 MB, or in a format a Page does not take", () =>
    Effect.gen(function* () {
      const fake = yield* FacebookPagesFake.make()
      const client = yield* aRouter(options(fake))
      const large = yield* drive(client, aPagePost(fake, [anImage({ mime: "image/jpeg", sizeBytes: 10 * 1024 * 1024 + 1 })]))
      assert.strictEqual(large.failure?.code, "media_invalid")
      assert.strictEqual((large.failure?.details?.detail as { en: string } | undefined)?.en, "a Facebook Page photo is at most 10 MB")
      const webp = yield* drive(client, aPagePost(fake, [anImage({ mime: "image/webp" })]))
      assert.strictEqual(webp.failure?.code, "media_invalid")
      assert.lengthOf(fake.requests, 0)
      // 10 MB exactly is taken.
      const fits = yield* drive(client, aPagePost(fake, [anImage({ mime: "image/png", sizeBytes: 10 * 1024 * 1024 })]))
      assert.isDefined(fits.published, fits.failure?.platformCode)
    })
  )

  it.live("the fake refuses a photo file Meta does not take, with a Graph error body, and nothing is posted", () =>
    Effect.gen(function* () {
      const fake = yield* FacebookPagesFake.make()
      const media = anImage({ mime: "image/jpeg" })
      // The record says JPEG; the file Meta fetches is WebP.
      fake.images.set(media.url, { mime: "image/webp", bytes: 200_000 })
      const client = yield* aRouter(options(fake))
      const result = yield* drive(client, aPagePost(fake, [media]))
      assert.strictEqual(result.failure?.platformCode, "324")
      assert.isFalse(result.failure?.retryable)
      assert.lengthOf(fake.posts, 0)
    })
  )

  it.live("finds a Page video whose upload answer was lost among the Page's videos, and never sends it twice", () =>
    Effect.gen(function* () {
      const fake = yield* FacebookPagesFake.make()
      fake.faults.injectAfter("video_upload", { lose: true })
      const client = yield* aRouter(options(fake))
      const result = yield* drive(client, aPagePost(fake, [aVideo({ durationSeconds: 60, width: 1920, height: 1080 })]))
      assert.strictEqual(fake.count("video_upload"), 1)
      assert.isAtLeast(fake.count("page_videos"), 1)
      assert.strictEqual(result.published?.platformPostId, fake.pageVideos[0]!.videoId)
    })
  )

  // Reels: 30 API-published reels a Page in 24 hours; Page videos are not reels.
  it.live("a Page whose 30 reels of the day are used still publishes a Page video", () =>
    Effect.gen(function* () {
      const fake = yield* FacebookPagesFake.make()
      fake.reelsUsedBefore = FacebookPagesFake.reelsPerDay
      const client = yield* aRouter(options(fake))
      const reel = yield* drive(client, aPagePost(fake, [aVideo({ durationSeconds: 30, width: 1080, height: 1920 })]))
      assert.strictEqual(reel.failure?.code, "quota_exceeded")
      assert.strictEqual(reel.failure?.details?.limit, 30)
      const landscape = yield* drive(client, aPagePost(fake, [aVideo({ durationSeconds: 30, width: 1920, height: 1080 })]))
      assert.isDefined(landscape.published, landscape.failure?.platformCode)
    })
  )
})

describe("Facebook Login for Business (config_id)", () => {
  const withFake = <A, E>(
    configId: string | undefined,
    body: (fake: FacebookOAuthFake.FacebookOAuthFake, connector: Effect.Success<ReturnType<typeof aConnector>>) => Effect.Effect<A, E>
  ) =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FacebookOAuthFake.scoped()
        const connector = yield* aConnector({
          pages: {
            appId: fake.appId,
            appSecret: fake.appSecret,
            authorizeUrl: `${fake.url}/v23.0/dialog/oauth`,
            graphUrl: `${fake.url}/v23.0`,
            ...(configId === undefined ? {} : { configId })
          }
        })
        return yield* body(fake, connector)
      })
    )

  const pagesConfig = ["pages_show_list", "pages_manage_posts", "pages_read_engagement", "pages_manage_engagement"]

  it.live("sends the configuration id instead of scope, and connects with the configuration's permissions", () =>
    withFake("cfg_1234567890", (fake, connector) =>
      Effect.gen(function* () {
        fake.loginForBusiness = true
        fake.configurations.set("cfg_1234567890", pagesConfig)
        const url = new URL(
          yield* connector.authorizationUrl({ platform: "pages", sandbox: false, state, redirectUri: callbackOf("pages"), codeVerifier: verifier })
        )
        assert.strictEqual(url.searchParams.get("config_id"), "cfg_1234567890")
        assert.strictEqual(url.searchParams.get("response_type"), "code")
        assert.strictEqual(url.searchParams.get("override_default_response_type"), "true")
        assert.isNull(url.searchParams.get("scope"))
        const identities = yield* connect(connector, fake, "pages", { pageIds: ["101000000000001"] })
        assert.deepStrictEqual(identities.map((i) => i.platformAccountId), ["101000000000001"])
        assert.includeMembers([...identities[0]!.scopes], ["pages_manage_posts", "pages_read_engagement"])
      })
    )
  )

  it("reads the configuration id from POSTWIRE_FACEBOOK_CONFIG_ID", () => {
    const env: Record<string, string> = { POSTWIRE_FACEBOOK_CONFIG_ID: "cfg_987" }
    const read = {
      text: (name: string) => env[name],
      secret: () => undefined,
      url: () => undefined,
      exactUrl: () => undefined,
      refreshUrl: () => undefined,
      pollIntervalMs: undefined
    }
    const settings = Registry.plugin(Registry.make(), "pages").env?.(read)
    assert.deepInclude(settings?.connect ?? {}, { configId: "cfg_987" })
  })

  it.live("without the setting, a Login for Business app's dialog refuses the request (what the setting fixes)", () =>
    withFake(undefined, (fake, connector) =>
      Effect.gen(function* () {
        fake.loginForBusiness = true
        const url = yield* connector.authorizationUrl({ platform: "pages", sandbox: false, state, redirectUri: callbackOf("pages"), codeVerifier: verifier })
        if (!fake.redirectUris.includes(callbackOf("pages"))) fake.redirectUris.push(callbackOf("pages"))
        const reply = yield* Effect.promise(() => fetch(url, { redirect: "manual" }))
        assert.strictEqual(reply.status, 400)
        assert.include(yield* Effect.promise(() => reply.text()), "config_id")
      })
    )
  )
})
