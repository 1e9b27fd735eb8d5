import { assert, describe, it } from "@effect/vitest"
import { Credentials, TikTok, tiktok } from "@postwire/platforms"
import { renderMessage } from "@postwire/domain"
import { Clock, Effect } from "effect"
import { adapterConformance, aRouter, drive, type FailureScenario } from "../adapterConformance.ts"
import { aConsent, anAccount, aPost, aPublishInput, aTarget, aVideo } from "../builders.ts"
import * as TikTokFake from "./TikTokFake.ts"

type Fake = TikTokFake.TikTokFake

const credentialsFor = (fake: Fake, overrides: Partial<Credentials.Stored<typeof tiktok>> = {}) =>
  Credentials.encode(tiktok, { access_token: fake.accessToken, refresh_token: fake.refreshToken, ...overrides })

const options = (fake: Fake) => ({
  shortvideo: { baseUrl: fake.url, clientKey: fake.clientKey, clientSecret: fake.clientSecret }
})

/** A direct post with consent, as the publisher hands it over. */
const aDirectPost = (
  fake: Fake,
  options: {
    readonly credentials?: string
    readonly consent?: Parameters<typeof aConsent>[0] | null
    readonly duration?: number
    readonly aiGenerated?: boolean
    readonly mode?: "direct" | "inbox"
  } = {}
) => {
  const account = anAccount("shortvideo", { credentials: options.credentials ?? credentialsFor(fake), externalId: "open-id-1" })
  return aPublishInput({
    account,
    post: aPost({ aiGenerated: options.aiGenerated ?? false }),
    target: aTarget(account, {
      options: { shortvideo: { mode: options.mode ?? "direct" } },
      consent: options.consent === null ? null : aConsent(options.consent ?? {})
    }),
    media: [aVideo({ durationSeconds: options.duration ?? 42 })]
  })
}

const initFails = (status: number, code: string, times = 1) => (fake: Fake) =>
  fake.faults.inject("init", TikTokFake.tiktokError(status, code), times)

const processingFails = (reason: string) => (fake: Fake) => {
  fake.failReason = reason
}

const failures: ReadonlyArray<FailureScenario<Fake>> = [
  { name: "init 403 spam_risk_too_many_posts", arrange: initFails(403, "spam_risk_too_many_posts"), code: "quota_exceeded", platformCode: "spam_risk_too_many_posts", retryable: true },
  {
    name: "creator_info's HTTP 200 spam_risk_user_banned_from_posting",
    arrange: (fake) => {
      fake.creatorCannotPost = "spam_risk_user_banned_from_posting"
    },
    code: "account_restricted",
    platformCode: "spam_risk_user_banned_from_posting",
    retryable: false
  },
  {
    name: "creator_info's HTTP 200 reached_active_user_cap",
    arrange: (fake) => {
      fake.creatorCannotPost = "reached_active_user_cap"
    },
    code: "quota_exceeded",
    platformCode: "reached_active_user_cap",
    retryable: true
  },
  { name: "init 403 spam_risk_user_banned_from_posting", arrange: initFails(403, "spam_risk_user_banned_from_posting"), code: "account_restricted", platformCode: "spam_risk_user_banned_from_posting", retryable: false },
  { name: "init 403 privacy_level_option_mismatch", arrange: initFails(403, "privacy_level_option_mismatch"), code: "privacy_level_mismatch", platformCode: "privacy_level_option_mismatch", retryable: false },
  {
    name: "init 403 unaudited_client_can_only_post_to_private_accounts",
    arrange: initFails(403, "unaudited_client_can_only_post_to_private_accounts"),
    code: "privacy_level_mismatch",
    platformCode: "unaudited_client_can_only_post_to_private_accounts",
    retryable: false
  },
  {
    name: "init 403 url_ownership_unverified (the media address is outside the app's verified URL prefixes)",
    arrange: (fake) => {
      fake.verifiedUrlPrefixes = ["https://cdn.other.test/"]
    },
    code: "media_url_unverified",
    platformCode: "url_ownership_unverified",
    retryable: true
  },
  { name: "init 400 invalid_param", arrange: initFails(400, "invalid_param"), code: "media_invalid", platformCode: "invalid_param", retryable: false },
  { name: "init 401 scope_not_authorized", arrange: initFails(401, "scope_not_authorized"), code: "permission_missing", platformCode: "scope_not_authorized", retryable: false, needsReconnect: true },
  {
    name: "creator_info 401 scope_permission_missed",
    arrange: (fake) => fake.faults.inject("creator_info", TikTokFake.tiktokError(401, "scope_permission_missed")),
    code: "permission_missing",
    platformCode: "scope_permission_missed",
    retryable: false,
    needsReconnect: true
  },
  { name: "init 429 rate_limit_exceeded on every attempt", arrange: initFails(429, "rate_limit_exceeded", 3), code: "platform_unavailable", platformCode: "rate_limit_exceeded", retryable: true },
  { name: "init 500 internal_error on every attempt", arrange: initFails(500, "internal_error", 3), code: "platform_unavailable", platformCode: "internal_error", retryable: true },
  {
    name: "inbox 403 spam_risk_too_many_pending_share",
    arrange: (fake) => fake.faults.inject("inbox_init", TikTokFake.tiktokError(403, "spam_risk_too_many_pending_share")),
    input: (fake) => aDirectPost(fake, { mode: "inbox", consent: null }),
    code: "too_many_pending",
    platformCode: "spam_risk_too_many_pending_share",
    retryable: false
  },
  {
    name: "a video longer than max_video_post_duration_sec",
    arrange: () => {},
    input: (fake) => aDirectPost(fake, { duration: 301 }),
    code: "media_too_long",
    platformCode: "max_video_post_duration_sec",
    retryable: false
  },
  {
    name: "a privacy level the creator does not offer",
    arrange: () => {},
    input: (fake) => aDirectPost(fake, { consent: { privacy_level: "FOLLOWER_OF_CREATOR" } }),
    code: "privacy_level_mismatch",
    platformCode: "privacy_level_option_mismatch",
    retryable: false
  },
  {
    name: "branded content made private",
    arrange: () => {},
    input: (fake) => aDirectPost(fake, { consent: { privacy_level: "SELF_ONLY", branded_content: true } }),
    code: "privacy_level_mismatch",
    platformCode: "branded_content_private",
    retryable: false
  },
  {
    name: "a direct post without consent",
    arrange: () => {},
    input: (fake) => aDirectPost(fake, { consent: null }),
    code: "consent_required",
    platformCode: "consent_missing",
    retryable: false
  },
  { name: "fail_reason file_format_check_failed", arrange: processingFails("file_format_check_failed"), code: "media_invalid", platformCode: "file_format_check_failed", retryable: false },
  { name: "fail_reason duration_check_failed", arrange: processingFails("duration_check_failed"), code: "media_too_long", platformCode: "duration_check_failed", retryable: false },
  { name: "fail_reason frame_rate_check_failed", arrange: processingFails("frame_rate_check_failed"), code: "media_invalid", platformCode: "frame_rate_check_failed", retryable: false },
  { name: "fail_reason picture_size_check_failed", arrange: processingFails("picture_size_check_failed"), code: "media_invalid", platformCode: "picture_size_check_failed", retryable: false },
  { name: "fail_reason internal", arrange: processingFails("internal"), code: "platform_unavailable", platformCode: "internal", retryable: true },
  { name: "fail_reason video_pull_failed", arrange: processingFails("video_pull_failed"), code: "media_fetch_failed", platformCode: "video_pull_failed", retryable: true },
  { name: "fail_reason photo_pull_failed", arrange: processingFails("photo_pull_failed"), code: "media_fetch_failed", platformCode: "photo_pull_failed", retryable: true },
  { name: "fail_reason spam_risk_user_banned_from_posting", arrange: processingFails("spam_risk_user_banned_from_posting"), code: "account_restricted", platformCode: "spam_risk_user_banned_from_posting", retryable: false },
  { name: "fail_reason spam_risk_text", arrange: processingFails("spam_risk_text"), code: "content_rejected", platformCode: "spam_risk_text", retryable: false },
  { name: "fail_reason spam_risk", arrange: processingFails("spam_risk"), code: "content_rejected", platformCode: "spam_risk", retryable: false },
  { name: "fail_reason publish_cancelled", arrange: processingFails("publish_cancelled"), code: "media_invalid", platformCode: "publish_cancelled", retryable: false },
  { name: "fail_reason spam_risk_too_many_posts", arrange: processingFails("spam_risk_too_many_posts"), code: "quota_exceeded", platformCode: "spam_risk_too_many_posts", retryable: true },
  { name: "fail_reason auth_removed", arrange: processingFails("auth_removed"), code: "permission_missing", platformCode: "auth_removed", retryable: false, needsReconnect: true }
]

// Every adapter behaves the same over fetch (the library default) and over the server's node:http sender.
for (const transport of ["fetch", "node"] as const) adapterConformance<Fake>({
  transport,
  name: "TikTok (shortvideo)",
  start: TikTokFake.make(),
  options,
  input: (fake, credentials) => aDirectPost(fake, credentials === undefined ? {} : { credentials }),
  permalink: /^https:\/\/www\.tiktok\.com\/@maya\.bakes\/video\/\d{19}$/,
  publishCount: (fake) => fake.publishes.length,
  processFor: (fake, polls) => {
    fake.pollsBeforeComplete = polls
  },
  firstRoute: "creator_info",
  unavailable: TikTokFake.tiktokError(500, "internal_error"),
  publishRoute: "init",
  lostPublishAnswer: "looked-up",
  failures,
  refresh: {
    arrange: (fake) => credentialsFor(fake, { access_token: "act.revoked" }),
    assertRefreshed: (fake, credentials) => {
      const stored = JSON.parse(credentials) as Credentials.Stored<typeof tiktok>
      assert.strictEqual(stored.access_token, fake.accessToken)
      // Refresh tokens rotate: the new one must be kept, the old one no longer works.
      assert.strictEqual(stored.refresh_token, fake.refreshToken)
      assert.notStrictEqual(stored.refresh_token, "rft.initial")
      assert.isAbove(stored.expires_at ?? 0, Date.now())
    },
    arrangeFailure: (fake) => {
      fake.refreshRevoked = true
      return credentialsFor(fake, { access_token: "act.revoked" })
    },
    failurePlatformCode: "invalid_grant"
  },
  quota: {
    arrange: (fake) => {
      fake.creatorCannotPost = "spam_risk_too_many_posts"
    },
    platformCode: "spam_risk_too_many_posts"
  }
})

describe("TikTok: after a lost init answer", () => {
  /** Drives a publish whose init answer is lost, remembering every state it saved. */
  const publishLosingInit = (fake: Fake, input = aDirectPost(fake), overrides: Parameters<typeof aRouter>[0] = {}) =>
    Effect.gen(function* () {
      const client = yield* aRouter({ ...options(fake), ...overrides })
      const checkpoints: Array<unknown> = []
      fake.loseInitAnswers()
      const result = yield* drive(client, { ...input, checkpoint: (state) => Effect.sync(() => void checkpoints.push(state)) })
      return { result, checkpoints, client, input }
    })

  it.live("saves that the init is sent before sending it, then finds the post among the creator's videos", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      const { checkpoints, result } = yield* publishLosingInit(fake)
      const postId = fake.publishes[0]!.postId
      assert.strictEqual(fake.count("init"), 1)
      assert.strictEqual(fake.count("status"), 0)
      assert.lengthOf(checkpoints, 1)
      assert.containsAllKeys(checkpoints[0], ["init_sent_at"])
      assert.notProperty(checkpoints[0], "publish_id")
      assert.strictEqual(result.published?.platformPostId, postId)
      assert.strictEqual(result.published?.permalink, `https://www.tiktok.com/@maya.bakes/video/${postId}`)
      const lists = fake.requests.filter((r) => r.route === "video_list")
      assert.isNotEmpty(lists)
      assert.strictEqual(lists[0]!.query.get("fields"), "id,create_time,title,video_description,share_url")
    }))

  it.live("pages back through 45 newer videos with TikTok's cursor, and skips the same caption posted yesterday", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      const input = aDirectPost(fake)
      fake.postElsewhere(1, () => input.post.caption, Date.now() - 24 * 60 * 60_000)
      fake.postElsewhere(45, undefined, Date.now() + 60_000)
      const { result } = yield* publishLosingInit(fake, input)
      assert.strictEqual(result.published?.platformPostId, fake.publishes[0]!.postId)
      const lists = fake.requests.filter((r) => r.route === "video_list")
      assert.isAtLeast(lists.length, 3)
      assert.isTrue(lists.slice(1).every((r) => r.params.cursor !== undefined))
      assert.strictEqual(fake.count("init"), 1)
    }))

  it.live("keeps asking, doubling the wait up to 10 minutes, while TikTok has not listed the video yet", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      fake.listHiddenFor = 12
      const { result } = yield* publishLosingInit(fake, aDirectPost(fake), { shortvideo: { ...options(fake).shortvideo, pollIntervalMs: 1_000 } })
      assert.isDefined(result.published, result.failure?.platformCode)
      const waits = result.steps.flatMap((s) => (s._tag === "InProgress" ? [s.pollAfterMs] : []))
      assert.deepStrictEqual(waits.slice(0, 4), [2_000, 4_000, 8_000, 16_000])
      assert.strictEqual(Math.max(...waits), 600_000)
      assert.strictEqual(fake.count("init"), 1)
    }))

  it.live("waits instead of failing while the video list cannot be read", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      fake.faults.inject("video_list", TikTokFake.tiktokError(500, "internal_error"), 12)
      const { result } = yield* publishLosingInit(fake)
      assert.isDefined(result.published, result.failure?.platformCode)
      assert.isAtLeast(result.steps.filter((s) => s._tag === "InProgress").length, 4)
      assert.strictEqual(fake.count("init"), 1)
    }))

  it.live("resumes from the saved state after a crash by looking the post up, never by sending the init again", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      const client = yield* aRouter(options(fake))
      const input = aDirectPost(fake)
      let saved: unknown
      fake.postIdHeld = true
      fake.loseInitAnswers()
      // The worker dies after sending the init: what its step returned is lost, the checkpoint is kept.
      const keep = (state: unknown) =>
        Effect.sync(() => {
          saved = state
        })
      yield* Effect.result(client.publish({ ...input, checkpoint: keep }))
      assert.isDefined(saved)
      fake.postIdHeld = false
      const result = yield* drive(client, { ...input, state: saved })
      assert.strictEqual(result.published?.platformPostId, fake.publishes[0]!.postId)
      assert.strictEqual(fake.count("init"), 1)
      assert.lengthOf(fake.publishes, 1)
    }))

  it.live("fails publish_unconfirmed, never retried, when the video is still not listed after the window", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      fake.postIdHeld = true
      const { result } = yield* publishLosingInit(fake, aDirectPost(fake), {
        shortvideo: { ...options(fake).shortvideo, lostInitWindowMs: 0 }
      })
      // TikTok may hold it (an inbox draft, a post to friends only are never listed): not retried.
      assert.strictEqual(result.failure?.code, "publish_unconfirmed")
      assert.strictEqual(result.failure?.platformCode, "video_not_listed_after_lost_answer")
      assert.strictEqual(result.failure?.retryable, false)
      assert.notStrictEqual(result.failure?.notPublished, true)
      assert.strictEqual(result.failure?.gaveUp, true)
      assert.strictEqual(fake.count("init"), 1)
    }))

  it.live("says the video list could not be read when the scope video.list is missing at the end of the window", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      fake.videoListScope = false
      const { result } = yield* publishLosingInit(fake, aDirectPost(fake), {
        shortvideo: { ...options(fake).shortvideo, lostInitWindowMs: 0 }
      })
      assert.strictEqual(result.failure?.platformCode, "video_list_unavailable_after_lost_answer")
      assert.strictEqual(fake.count("init"), 1)
    }))

  it.live("marks a refused init as not published: TikTok answered", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      const client = yield* aRouter(options(fake))
      fake.faults.inject("init", TikTokFake.tiktokError(403, "spam_risk_too_many_posts"))
      const result = yield* drive(client, { ...aDirectPost(fake), checkpoint: () => Effect.void })
      assert.strictEqual(result.failure?.code, "quota_exceeded")
      assert.strictEqual(result.failure?.notPublished, true)
      assert.strictEqual(result.failure?.state, null)
    }))
})

describe("TikTok adapter", () => {
  it.live("says an unverified media address is the operator's TikTok app setting, naming the prefix, not the media", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      fake.verifiedUrlPrefixes = ["https://cdn.other.test/"]
      const client = yield* aRouter(options(fake))
      const result = yield* drive(client, aDirectPost(fake))
      assert.strictEqual(result.failure?.code, "media_url_unverified")
      assert.strictEqual(fake.publishes.length, 0)
      const message = renderMessage("media_url_unverified", "en", result.failure?.details)
      assert.include(message, "https://media.postwire.test/")
      assert.include(message, "POSTWIRE_PUBLIC_URL")
      assert.include(message, "The media is fine")
      assert.include(renderMessage("media_url_unverified", "id", result.failure?.details), "https://media.postwire.test/")
      // Once the operator verifies the prefix, the same target publishes.
      fake.verifiedUrlPrefixes = ["https://media.postwire.test/"]
      const again = yield* drive(client, aDirectPost(fake))
      assert.isDefined(again.published, again.failure?.platformCode)
    })
  )

  it.live("fails a target whose token refresh TikTok refuses as invalid_client without asking for a reconnect", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      const client = yield* aRouter({ shortvideo: { baseUrl: fake.url, clientKey: fake.clientKey, clientSecret: "a-wrong-secret" } })
      const result = yield* drive(client, aDirectPost(fake, { credentials: credentialsFor(fake, { access_token: "act.revoked" }) }))
      assert.strictEqual(result.failure?.code, "platform_app_rejected")
      assert.strictEqual(result.failure?.platformCode, "invalid_client")
      assert.notStrictEqual(result.failure?.needsReconnect, true)
      assert.strictEqual(result.failure?.retryable, true)
      const message = renderMessage("platform_app_rejected", "en", result.failure?.details)
      assert.include(message, "POSTWIRE_TIKTOK_CLIENT_KEY, POSTWIRE_TIKTOK_CLIENT_SECRET")
      assert.include(message, "does not need to be reconnected")
      assert.strictEqual(fake.publishes.length, 0)
    })
  )

  it.live("still asks for a reconnect when the refresh token itself is refused (invalid_grant)", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      fake.refreshRevoked = true
      const client = yield* aRouter(options(fake))
      const result = yield* drive(client, aDirectPost(fake, { credentials: credentialsFor(fake, { access_token: "act.revoked" }) }))
      assert.strictEqual(result.failure?.code, "token_expired")
      assert.strictEqual(result.failure?.platformCode, "invalid_grant")
      assert.strictEqual(result.failure?.needsReconnect, true)
    })
  )

  it.live("sends the consented post_info and pulls the video from its address", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      fake.creator.duet_disabled = true
      const client = yield* aRouter(options(fake))
      const input = aDirectPost(fake, {
        aiGenerated: true,
        consent: { privacy_level: "MUTUAL_FOLLOW_FRIENDS", disable_comment: true, branded_content: true }
      })
      yield* drive(client, input)
      assert.deepStrictEqual(fake.publishes[0]!.body, {
        post_info: {
          title: input.post.caption,
          privacy_level: "MUTUAL_FOLLOW_FRIENDS",
          disable_comment: true,
          disable_duet: true,
          disable_stitch: false,
          brand_content_toggle: true,
          brand_organic_toggle: false,
          is_aigc: true
        },
        source_info: { source: "PULL_FROM_URL", video_url: input.media[0]!.url }
      })
    })
  )

  it.live("reads the int64 post id digit for digit", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      const client = yield* aRouter(options(fake))
      const result = yield* drive(client, aDirectPost(fake))
      const postId = fake.publishes[0]!.postId
      assert.notStrictEqual(String(Number(postId)), postId, "the fixture id must not survive JSON numbers")
      assert.strictEqual(result.published?.platformPostId, postId)
      assert.strictEqual(result.published?.permalink, `https://www.tiktok.com/@maya.bakes/video/${postId}`)
    })
  )

  it.live("sends an inbox post to the creator's inbox without creator_info, and publishes it without a permalink", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      const client = yield* aRouter(options(fake))
      const input = aDirectPost(fake, { mode: "inbox", consent: null })
      const result = yield* drive(client, input)
      assert.strictEqual(fake.count("creator_info"), 0)
      assert.strictEqual(fake.count("inbox_init"), 1)
      assert.deepStrictEqual(fake.publishes[0]!.body, { source_info: { source: "PULL_FROM_URL", video_url: input.media[0]!.url } })
      assert.strictEqual(result.published?.permalink, null)
      assert.notStrictEqual(result.published?.permalinkPending, true, "an inbox post never gets a permalink to wait for")
      assert.strictEqual(result.published?.platformPostId, fake.publishes[0]!.id)
    })
  )

  describe("while moderation holds the public post id back", () => {
    /** Publishes a direct post to the end, and the lookup of its permalink as the backfill makes it. */
    const publishInModeration = (fake: Fake) =>
      Effect.gen(function* () {
        const client = yield* aRouter(options(fake))
        const input = aDirectPost(fake)
        const result = yield* drive(client, input)
        const lookUp = (account = result.account) =>
          client.permalink!({ target: input.target, account, state: result.published!.state })
        return { result, lookUp }
      })

    it.live("publishes at PUBLISH_COMPLETE without waiting, and says the permalink comes later", () =>
      Effect.gen(function* () {
        const fake = yield* TikTokFake.make()
        fake.postIdHeld = true
        const { result } = yield* publishInModeration(fake)
        assert.strictEqual(result.published?.permalink, null)
        assert.strictEqual(result.published?.permalinkPending, true)
        // One fetch while processing, one that saw PUBLISH_COMPLETE: no polling for the id.
        assert.strictEqual(fake.count("status"), 2)
      })
    )

    it.live("finds the permalink once moderation releases the post id, digit for digit", () =>
      Effect.gen(function* () {
        const fake = yield* TikTokFake.make()
        fake.postIdHeld = true
        const { lookUp } = yield* publishInModeration(fake)
        assert.deepStrictEqual({ ...(yield* lookUp()) }, { _tag: "NotYet" })
        fake.postIdHeld = false
        const found = yield* lookUp()
        const postId = fake.publishes[0]!.postId
        assert.deepInclude(found, {
          _tag: "Found",
          permalink: `https://www.tiktok.com/@maya.bakes/video/${postId}`,
          platformPostId: postId
        })
        assert.strictEqual(found._tag === "Found" ? (found.state as TikTok.State).post_id : undefined, postId)
      })
    )

    it.live("keeps saying NotYet for as many status fetches as moderation takes", () =>
      Effect.gen(function* () {
        const fake = yield* TikTokFake.make()
        fake.pollsBeforePostId = 3
        const { result, lookUp } = yield* publishInModeration(fake)
        assert.strictEqual(result.published?.permalinkPending, true)
        const tags = [(yield* lookUp())._tag, (yield* lookUp())._tag, (yield* lookUp())._tag]
        assert.deepStrictEqual(tags, ["NotYet", "NotYet", "Found"])
      })
    )

    it.live("shares the account's 30 status fetches a minute with publishing: without room it says NotYet, asking nothing", () =>
      Effect.gen(function* () {
        const fake = yield* TikTokFake.make()
        fake.postIdHeld = true
        const { lookUp } = yield* publishInModeration(fake)
        const tags: Array<string> = []
        for (let i = 0; i < 35; i++) tags.push((yield* lookUp())._tag)
        assert.deepStrictEqual(new Set(tags), new Set(["NotYet"]))
        // Publishing fetched twice; 28 asks filled the window; 7 asked nothing (TikTok never refused).
        assert.strictEqual(fake.count("status"), 30)
      })
    )

    it.live("says Never when moderation takes the post down", () =>
      Effect.gen(function* () {
        const fake = yield* TikTokFake.make()
        fake.postIdHeld = true
        const { lookUp } = yield* publishInModeration(fake)
        fake.failReason = "publish_cancelled"
        assert.strictEqual((yield* lookUp())._tag, "Never")
      })
    )

    it.live("refreshes an expired token to ask, and hands the rotated one back", () =>
      Effect.gen(function* () {
        const fake = yield* TikTokFake.make()
        fake.postIdHeld = true
        const { lookUp, result } = yield* publishInModeration(fake)
        fake.postIdHeld = false
        const stale = { ...result.account, credentials: credentialsFor(fake, { access_token: "act.revoked" }) }
        const found = yield* lookUp(stale)
        assert.strictEqual(found._tag, "Found")
        assert.strictEqual(JSON.parse(found.credentials!.credentials).refresh_token, fake.refreshToken)
        assert.strictEqual(fake.count("token"), 1)
      })
    )

    it.live("fails the lookup with platform_unavailable when the status endpoint is down", () =>
      Effect.gen(function* () {
        const fake = yield* TikTokFake.make()
        fake.postIdHeld = true
        const { lookUp } = yield* publishInModeration(fake)
        fake.faults.inject("status", TikTokFake.tiktokError(500, "internal_error"), 3)
        const failure = yield* Effect.flip(lookUp())
        assert.strictEqual(failure.code, "platform_unavailable")
        assert.strictEqual(failure.retryable, true)
      })
    )
  })

  it.live("refreshes a token whose expiry has passed before calling the API", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      const client = yield* aRouter(options(fake))
      const credentials = credentialsFor(fake, { access_token: "act.old", expires_at: Date.now() - 1_000 })
      const result = yield* drive(client, aDirectPost(fake, { credentials }))
      assert.isDefined(result.published)
      assert.strictEqual(fake.requests[0]!.route, "token")
      assert.strictEqual(fake.requests.filter((r) => r.headers.authorization === "Bearer act.old").length, 0)
    })
  )

  it.live("refreshes once when two targets of one account find the token expired together", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      const client = yield* aRouter(options(fake))
      const credentials = credentialsFor(fake, { access_token: "act.revoked" })
      const account = anAccount("shortvideo", { credentials })
      const both = [0, 1].map(() =>
        aPublishInput({
          account,
          target: aTarget(account, { options: { shortvideo: { mode: "direct" } }, consent: aConsent() }),
          media: [aVideo()]
        })
      )
      const results = yield* Effect.forEach(both, (input) => drive(client, input), { concurrency: 2 })
      for (const result of results) assert.isDefined(result.published, result.failure?.platformCode)
      assert.strictEqual(fake.count("token"), 1)
    })
  )

  it.live("answers TikTok's rate_limit_exceeded with a time to ask again, publishing nothing, without asking again within the step", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      fake.rateLimits.init = 1
      const client = yield* aRouter(options(fake))
      const input = aDirectPost(fake)
      const first = yield* drive(client, input)
      const now = yield* Clock.currentTimeMillis
      const second = yield* drive(client, input)
      assert.isDefined(first.published)
      assert.strictEqual(second.failure?.code, "platform_unavailable")
      assert.strictEqual(second.failure?.platformCode, "rate_limit_exceeded")
      assert.strictEqual(second.failure?.notPublished, true)
      assert.strictEqual(second.failure?.state, null)
      assert.isAtLeast(second.failure?.retryAt ?? 0, now + 60_000)
      assert.strictEqual(fake.count("init"), 2, "the refused init is not sent again within the step")
      // The account's window is closed for the minute: the next publish sends nothing.
      const third = yield* drive(client, input)
      assert.strictEqual(third.failure?.platformCode, "rate_limit_paced:init")
      assert.strictEqual(fake.count("init"), 2)
    })
  )

  it.live("paces an account's inits at TikTok's 6 a minute: the seventh is not sent and says when its turn comes", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      const client = yield* aRouter(options(fake))
      const input = aDirectPost(fake)
      const start = yield* Clock.currentTimeMillis
      for (let i = 0; i < 6; i++) assert.isDefined((yield* drive(client, input)).published)
      const seventh = yield* drive(client, input)
      assert.strictEqual(seventh.failure?.platformCode, "rate_limit_paced:init")
      assert.strictEqual(seventh.failure?.notPublished, true)
      const retryAt = seventh.failure?.retryAt ?? 0
      assert.isAtLeast(retryAt, start + 60_000)
      assert.isAtMost(retryAt, (yield* Clock.currentTimeMillis) + 61_000)
      assert.strictEqual(fake.count("init"), 6)
      assert.strictEqual(fake.count("creator_info"), 6, "creator_info waits with the init")
      // Another account has a window of its own.
      const other = anAccount("shortvideo", { credentials: credentialsFor(fake), externalId: "open-id-2" })
      const elsewhere = yield* drive(client, { ...input, account: other, target: { ...input.target, accountId: other.id } })
      assert.strictEqual(elsewhere.failure?.platformCode, "rate_limit_exceeded", "TikTok's own window is per token")
    })
  )

  it.live("ends a publish TikTok reports FAILED at once, final: not published, no state, the code its fail_reason maps to", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      fake.failReason = "spam_risk_text"
      const client = yield* aRouter(options(fake))
      const result = yield* drive(client, aDirectPost(fake))
      assert.deepInclude(
        { ...result.failure },
        { code: "content_rejected", platformCode: "spam_risk_text", retryable: false, notPublished: true, state: null }
      )
      assert.strictEqual(
        renderMessage("content_rejected", "id", result.failure?.details),
        "Platform menolak isi unggahan: caption ditandai sebagai berisiko spam"
      )
    })
  )

  it.live("looks a publish whose status never ends up among the creator's videos after the status window", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      fake.pollsBeforeComplete = 1_000_000
      // Not among the creator's public videos either (moderation holds it back).
      fake.postIdHeld = true
      const client = yield* aRouter({ shortvideo: { ...options(fake).shortvideo, pollIntervalMs: 1, statusWindowMs: 0 } })
      const result = yield* drive(client, aDirectPost(fake))
      assert.deepInclude(
        { ...result.failure },
        { code: "publish_unconfirmed", platformCode: "status_unfinished_after_window", gaveUp: true, retryable: false }
      )
      assert.isAbove(fake.count("video_list"), 0, "the creator's videos were looked through first")
      assert.strictEqual(fake.count("init"), 1)
    })
  )

  it.live("tells the consent form what the creator may do now", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      fake.creator.comment_disabled = true
      const client = yield* aRouter(options(fake))
      const info = yield* client.creatorInfo(anAccount("shortvideo", { credentials: credentialsFor(fake) }))
      assert.deepStrictEqual(
        { ...info },
        {
          nickname: "Maya Bakes",
          username: "maya.bakes",
          privacyLevelOptions: ["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "SELF_ONLY"],
          commentDisabled: true,
          duetDisabled: false,
          stitchDisabled: false,
          maxVideoPostDurationSec: 300
        }
      )
    })
  )

  it.live("creatorInfo reports a creator who cannot post now, and hands back refreshed credentials", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      const client = yield* aRouter(options(fake))
      const account = anAccount("shortvideo", { credentials: credentialsFor(fake, { access_token: "act.revoked" }) })
      const info = yield* client.creatorInfo(account)
      assert.strictEqual(JSON.parse(info.credentials!.credentials).refresh_token, fake.refreshToken)
      fake.creatorCannotPost = "spam_risk_too_many_posts"
      const refused = yield* Effect.flip(client.creatorInfo({ ...account, credentials: info.credentials!.credentials }))
      assert.strictEqual(refused.code, "quota_exceeded")
    })
  )

  it("builds the public address of a video", () => {
    assert.strictEqual(TikTok.permalink("maya.bakes", "7301234567890123456"), "https://www.tiktok.com/@maya.bakes/video/7301234567890123456")
  })
})
