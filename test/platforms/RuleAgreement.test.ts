/**
 * Validate and publish agree on every platform rule (`TargetRules`): each case goes through
 * `POST /v1/posts/validate` (`Posts.validatePost`, on the in-memory engine with real uploaded
 * media) and through the platform's adapter (the real adapters, and the simulated platform for a
 * sandbox account), and both must refuse it with the same code and message, or both let it
 * through. A Meta adapter that lets a target through goes on to call its platform, which is not
 * there here (a refused connection); TikTok asks the fake its creator's options first.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  BlobStore,
  CredentialsCipher,
  defaultSettings,
  EngineConfig,
  Ids,
  Media,
  type MediaRecord,
  MemoryPublishingStore,
  MemoryStore,
  PlatformClient,
  type PlatformFailure,
  Posts,
  Store,
  Workspaces
} from "@postwire/core"
import { type Platform, type Post, PostwireError, renderError, renderMessage } from "@postwire/domain"
import { Credentials, facebook, instagram, Registry, threads, tiktok } from "@postwire/platforms"
import { Ids as Id } from "@postwire/domain"
import { Effect, Layer, Result } from "effect"
import { aJpeg, anMp4 } from "../support/Media.ts"
import { aRouter } from "./adapterConformance.ts"
import { aConsent, anAccount, aPost, aPublishInput, aTarget } from "./builders.ts"
import * as TikTokFake from "./tiktok/TikTokFake.ts"

const settings = defaultSettings("https://postwire.test", "test-secret-of-at-least-thirty-two-bytes", Registry.catalog())

/** Nothing listens there: a Meta adapter that passed the rules fails to connect. */
const nowhere = "http://127.0.0.1:9"

/** The codes of the platform rules; any other failure means the rules let the target through. */
const ruleCodes = new Set(["media_invalid", "media_too_long", "privacy_level_mismatch"])

type Item = { readonly kind: "image" } | { readonly kind: "video"; readonly seconds: number }

/** One rule case: a target on `platform` with these media (and consent, for a TikTok direct post). */
interface RuleCase {
  readonly name: string
  readonly platform: Platform
  readonly media: ReadonlyArray<Item>
  readonly photo?: Post.PhotoType
  readonly consent?: Partial<Post.Consent>
  /** What validate must say: the code, or `null` when it accepts. */
  readonly expected: string | null
}

const image: Item = { kind: "image" }
const video = (seconds: number): Item => ({ kind: "video", seconds })
const images = (n: number) => Array.from({ length: n }, () => image)

const cases: ReadonlyArray<RuleCase> = [
  { name: "a TikTok video", platform: "shortvideo", media: [video(30)], expected: null },
  { name: "two TikTok videos", platform: "shortvideo", media: [video(30), video(30)], expected: "media_invalid" },
  { name: "a TikTok photo post of one image", platform: "shortvideo", media: [image], expected: null },
  { name: "a TikTok photo post of 35 images", platform: "shortvideo", media: images(35), expected: null },
  { name: "a TikTok video with an image", platform: "shortvideo", media: [video(30), image], expected: "media_invalid" },
  { name: "a TikTok video over 600 s", platform: "shortvideo", media: [video(601)], expected: "media_too_long" },
  { name: "a TikTok video of 600.4 s", platform: "shortvideo", media: [video(600.4)], expected: "media_too_long" },
  {
    name: "branded content posted privately",
    platform: "shortvideo",
    media: [video(30)],
    consent: { privacy_level: "SELF_ONLY", branded_content: true },
    expected: "privacy_level_mismatch"
  },
  { name: "branded content posted publicly", platform: "shortvideo", media: [video(30)], consent: { branded_content: true }, expected: null },
  { name: "an Instagram reel", platform: "photo", media: [video(30)], expected: null },
  { name: "an Instagram reel of an image", platform: "photo", media: [image], photo: "reel", expected: "media_invalid" },
  { name: "an Instagram story of two items", platform: "photo", media: [image, image], photo: "story", expected: "media_invalid" },
  { name: "an Instagram story", platform: "photo", media: [video(10)], photo: "story", expected: null },
  { name: "an Instagram carousel of 10", platform: "photo", media: images(10), expected: null },
  { name: "a Page post of 10 images", platform: "pages", media: images(10), expected: null },
  { name: "a Page video with an image", platform: "pages", media: [video(30), image], expected: "media_invalid" },
  { name: "a Page reel of 60 s", platform: "pages", media: [video(60)], expected: null },
  { name: "a Page reel of 90 s", platform: "pages", media: [video(90)], expected: null },
  // Not a reel (too long, too short or not 9:16): a Page video, up to 20 minutes by address.
  { name: "a Page video of 120 s", platform: "pages", media: [video(120)], expected: null },
  { name: "a Page video of 2 s", platform: "pages", media: [video(2)], expected: null },
  { name: "a Page video of 1200.5 s", platform: "pages", media: [video(1200.5)], expected: "media_too_long" },
  { name: "a Threads carousel of 10", platform: "textpost", media: images(10), expected: null },
  { name: "a Threads video", platform: "textpost", media: [video(300)], expected: null }
]

/** The engine in memory; the platform is never called by validate. */
const engine = Layer.mergeAll(
  Ids.layerTest,
  BlobStore.layerMemory,
  EngineConfig.layer(settings),
  CredentialsCipher.layer.pipe(Layer.provide(EngineConfig.layer(settings))),
  Layer.succeed(PlatformClient)(
    PlatformClient.of({ publish: () => Effect.die("not used"), creatorInfo: () => Effect.die("not used") })
  )
).pipe(Layer.provideMerge(MemoryPublishingStore.layer), Layer.provideMerge(MemoryStore.layer))

/** What validate says about the case: its first platform-rule issue as code and message, or null. */
const validate = (ruleCase: RuleCase, sandbox: boolean) =>
  Effect.gen(function* () {
    const ws = yield* Workspaces.createWorkspace({ name: "Maya Bakes" })
    const key = yield* Workspaces.createKey(ws.id, { kind: sandbox ? "test" : "live", scopes: ["posts:write"] })
    const profile = yield* Workspaces.createProfile(ws.id, { name: "Maya" })
    const account = yield* Workspaces.createAccount(ws.id, {
      profileId: profile.id,
      platform: ruleCase.platform,
      sandbox,
      handle: "maya.bakes",
      ...(sandbox ? {} : { credentials: JSON.stringify({ access_token: "t", refresh_token: "r" }), externalId: "1789" })
    })
    const caller = { workspaceId: ws.id, keyId: key.id, kind: sandbox ? ("test" as const) : ("live" as const) }
    const uploaded: Array<string> = []
    for (const item of ruleCase.media) {
      const bytes = item.kind === "image" ? aJpeg({ width: 1080, height: 1350 }) : anMp4({ durationSeconds: item.seconds })
      uploaded.push((yield* Media.uploadMedia(caller, { data: Buffer.from(bytes).toString("base64") })).id)
    }
    const target =
      ruleCase.platform === "shortvideo"
        ? { account_id: account.id, shortvideo: { mode: "direct", consent: aConsent(ruleCase.consent) } }
        : ruleCase.photo !== undefined
          ? { account_id: account.id, photo: { type: ruleCase.photo } }
          : { account_id: account.id }
    const answer = yield* Posts.validatePost(
      caller,
      { profile_id: profile.id, caption: "Crumb shot", media: uploaded, targets: [target], approval: { mode: "none" } } as never
    )
    const records = yield* Store.use((store) => store.getMediaItems(ws.id, uploaded.map((id) => Id.unchecked("media", id))))
    const issue = answer.problems.find((i) => ruleCodes.has(i.code))
    return { said: issue === undefined ? null : { code: issue.code, message: renderMessage(issue.code, "en", { ...issue.details, field: issue.field }) }, records }
  })

/** What the adapter says about the same target and media: a rule failure as code and message, or null. */
const publish = (ruleCase: RuleCase, records: ReadonlyArray<MediaRecord>, sandbox: boolean) =>
  Effect.gen(function* () {
    const fake = yield* TikTokFake.make()
    const client = yield* aRouter({
      shortvideo: { baseUrl: fake.url, clientKey: fake.clientKey, clientSecret: fake.clientSecret },
      photo: { baseUrl: nowhere, refreshUrl: null },
      pages: { baseUrl: nowhere },
      textpost: { baseUrl: nowhere, refreshUrl: null },
      retry: { attempts: 1 }
    })
    const credentials =
      ruleCase.platform === "shortvideo"
        ? Credentials.encode(tiktok, { access_token: fake.accessToken, refresh_token: fake.refreshToken })
        : ruleCase.platform === "pages"
          ? Credentials.encode(facebook, { page_access_token: "page-token" })
          : Credentials.encode(ruleCase.platform === "photo" ? instagram : threads, { access_token: "token" })
    const account = anAccount(ruleCase.platform, { sandbox, credentials, externalId: "1789" })
    // The options create stores: the photo type is resolved once media are known.
    const photoType =
      ruleCase.platform !== "photo"
        ? undefined
        : (ruleCase.photo ?? (records.length === 1 && records[0]!.kind === "video" ? "reel" : "feed"))
    const target = aTarget(account, {
      options:
        ruleCase.platform === "shortvideo"
          ? { shortvideo: { mode: "direct" } }
          : photoType === undefined
            ? {}
            : { photo: { type: photoType } },
      consent: ruleCase.platform === "shortvideo" ? aConsent(ruleCase.consent) : null
    })
    const media = records.map((record) => ({ record, url: `https://media.postwire.test/${record.id}`, read: Effect.succeed(new Uint8Array(16)) }))
    const result = yield* Effect.result(client.publish(aPublishInput({ account, target, post: aPost({ caption: "Crumb shot" }), media })))
    if (Result.isSuccess(result) || !ruleCodes.has(result.failure.code)) return null
    const failure: PlatformFailure = result.failure
    const rendered = renderError(new PostwireError({ code: failure.code, details: failure.details }), "en", settings.publicBaseUrl)
    return { code: rendered.code, message: rendered.message }
  })

describe.each([
  { kind: "live", sandbox: false },
  { kind: "sandbox", sandbox: true }
])("platform rules on a $kind account: validate and publish agree", ({ sandbox }) => {
  for (const ruleCase of cases) {
    it.live(`${ruleCase.name}: ${ruleCase.expected ?? "accepted"} by both`, () =>
      Effect.gen(function* () {
        const { records, said } = yield* validate(ruleCase, sandbox)
        assert.strictEqual(said?.code ?? null, ruleCase.expected, said?.message)
        const done = yield* publish(ruleCase, records, sandbox)
        assert.deepStrictEqual(done, said)
      }).pipe(Effect.provide(engine))
    )
  }

  it.live("says why a Page video of 1300 s is refused, in numbers", () =>
    Effect.gen(function* () {
      const { said } = yield* validate({ name: "", platform: "pages", media: [video(1300)], expected: null }, sandbox)
      assert.deepStrictEqual(said, {
        code: "media_too_long",
        message: "The video is 1300 seconds long; this account allows at most 1200 seconds."
      })
    }).pipe(Effect.provide(engine))
  )
})
