import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import type { Approval, Post, PostwireError } from "@postwire/domain"
import {
  Approvals,
  ApprovalToken,
  type AccountRecord,
  accountContext,
  BlobStore,
  CredentialsCipher,
  type CreatorInfo,
  defaultSettings,
  EngineConfig,
  Ids,
  Mailer,
  Media,
  MemoryPublishingStore,
  PlatformClient,
  PlatformFailure,
  Posts,
  type PostView,
  SentMail,
  Store,
  Workspaces
} from "../src/index.ts"
import { MemoryStore } from "../src/index.ts"
import { anMp4, aPng } from "../../../test/support/Media.ts"
import { Ids as Id } from "@postwire/domain"
import { Registry } from "@postwire/platforms"

const allLevels = ["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "FOLLOWER_OF_CREATOR", "SELF_ONLY"] as const

/** A platform whose creators follow their sandbox account's `simulate` options; `error` makes creator_info fail. */
const TestPlatform = Layer.succeed(PlatformClient)({
  publish: () => Effect.die(new Error("publishing is not part of these tests")),
  creatorInfo: (account: AccountRecord) =>
    account.simulate?.error === "quota_exceeded"
      ? Effect.fail(
          new PlatformFailure({
            code: "quota_exceeded",
            platformCode: "spam_risk_too_many_posts",
            retryable: true,
            details: { limit: 15, resets_at: "tomorrow" }
          })
        )
      : Effect.succeed<CreatorInfo>({
          nickname: `Creator ${account.handle}`,
          username: account.handle,
          privacyLevelOptions: account.simulate?.privacy_level_options ?? allLevels,
          commentDisabled: account.handle.includes("nocomment"),
          duetDisabled: false,
          stitchDisabled: false,
          maxVideoPostDurationSec: account.simulate?.max_video_duration_sec ?? 600
        })
})

const settings = defaultSettings("https://postwire.test", "test-secret-of-at-least-thirty-two-bytes", Registry.catalog())

const Engine = Layer.mergeAll(Ids.layerTest, BlobStore.layerMemory, EngineConfig.layer(settings), TestPlatform).pipe(
  Layer.provideMerge(MemoryStore.layer)
)
const WithMailbox = Layer.merge(Engine, Mailer.layerMemory)

const hours = (n: number) => `${n} hours` as const

interface Fixture {
  readonly caller: { readonly workspaceId: Id.WorkspaceId; readonly keyId: Id.KeyId; readonly kind: "test" }
  readonly profileId: string
  readonly photo: string
  readonly shortvideo: string
  readonly image: string
  readonly video: string
}

/** A workspace that allows redirects to example.com, with sandbox photo and shortvideo accounts, an image and a video. */
const aWorkspace = (shortvideo: { handle?: string; simulate?: AccountRecord["simulate"] } = {}) =>
  Effect.gen(function* () {
    const ws = yield* Workspaces.createWorkspace({ name: "acme", allowedRedirectDomains: ["example.com"] })
    const key = yield* Workspaces.createKey(ws.id, { kind: "test", scopes: ["posts:read", "posts:write"] })
    const profile = yield* Workspaces.createProfile(ws.id, { name: "Acme" })
    const photo = yield* Workspaces.createAccount(ws.id, { profileId: profile.id, platform: "photo", sandbox: true, handle: "acme" })
    const sv = yield* Workspaces.createAccount(ws.id, {
      profileId: profile.id,
      platform: "shortvideo",
      sandbox: true,
      handle: shortvideo.handle ?? "acme.tok",
      ...(shortvideo.simulate ? { simulate: shortvideo.simulate } : {})
    })
    const caller = { workspaceId: ws.id, keyId: key.id, kind: "test" as const }
    const image = yield* Media.uploadMedia(caller, { data: Buffer.from(aPng({ width: 2, height: 2 })).toString("base64") })
    const video = yield* Media.uploadMedia(caller, {
      data: Buffer.from(anMp4({ durationSeconds: 30, width: 1080, height: 1920 })).toString("base64")
    })
    return { caller, profileId: profile.id, photo: photo.id, shortvideo: sv.id, image: image.id, video: video.id } satisfies Fixture
  })

/** A photo post waiting for approval through a link. */
const aPhotoPost = (f: Fixture, extra: Record<string, unknown> = {}) =>
  Posts.createPost(
    f.caller,
    { profile_id: f.profileId, caption: "Launch day", media: [f.image], targets: [{ account_id: f.photo }], ...extra } as never
  )

/** A direct shortvideo post without consent, waiting for approval through a link. */
const aDirectVideoPost = (f: Fixture, extra: Record<string, unknown> = {}) =>
  Posts.createPost(
    f.caller,
    {
      profile_id: f.profileId,
      caption: "Behind the scenes",
      media: [f.video],
      targets: [{ account_id: f.shortvideo, shortvideo: { mode: "direct" } }],
      ...extra
    } as never
  )

const tokenOf = (post: PostView.PostRead): string => {
  const token = post.approvalLink?.token
  if (token === undefined) throw new Error("the post has no approval link")
  return token
}

const decide = (token: string, request: Approval.DecisionRequest) => Approvals.decideApproval(token, request)

const failureOf = <A, R>(effect: Effect.Effect<A, unknown, R>) =>
  Effect.map(Effect.flip(effect), (e) => {
    const error = e as PostwireError
    return { code: error.code, status: error.httpStatus, field: error.field, targetId: error.targetId }
  })

const consent = (privacy: Post.Consent["privacy_level"], extra: Partial<Post.Consent> = {}): Post.Consent => ({
  privacy_level: privacy,
  music_usage_confirmed: true,
  ...extra
})

const postEvents = (workspaceId: string) =>
  Store.use((store) => store.listEvents(Id.unchecked("workspace", workspaceId))).pipe(
    Effect.map((events) => events.filter((e) => e.type.startsWith("post.")))
  )

describe("approval page", () => {
  it.effect("shows the post of a pending link with its media, targets and schedule", () =>
    Effect.gen(function* () {
      const f = yield* aWorkspace()
      const at = yield* Effect.clockWith((c) => c.currentTimeMillis)
      const post = yield* aPhotoPost(f, { scheduled_at: new Date(at + 3_600_000).toISOString() })
      const page = yield* Approvals.loadApprovalPage(tokenOf(post))
      assert.strictEqual(page._tag, "Pending")
      if (page._tag !== "Pending") return
      assert.strictEqual(page.summary.post.caption, "Launch day")
      assert.strictEqual(page.summary.post.scheduledAt, at + 3_600_000)
      assert.deepStrictEqual(
        page.summary.media.map((m) => m.id),
        [f.image]
      )
      assert.deepStrictEqual(
        page.summary.targets.map((t) => [t.account?.platform, t.account?.handle, t.consentForm]),
        [["photo", "acme", undefined]]
      )
    }).pipe(Effect.provide(Engine))
  )

  it.effect("asks the creator's current options for a direct shortvideo target that needs consent", () =>
    Effect.gen(function* () {
      const f = yield* aWorkspace({ handle: "nocomment.tok", simulate: { privacy_level_options: ["SELF_ONLY", "PUBLIC_TO_EVERYONE"] } })
      const post = yield* aDirectVideoPost(f)
      const page = yield* Approvals.loadApprovalPage(tokenOf(post))
      assert.strictEqual(page._tag, "Pending")
      if (page._tag !== "Pending") return
      const form = page.summary.targets[0]?.consentForm
      assert.strictEqual(form?._tag, "Ready")
      if (form?._tag !== "Ready") return
      assert.strictEqual(form.creator.nickname, "Creator nocomment.tok")
      assert.deepStrictEqual(form.creator.privacyLevelOptions, ["SELF_ONLY", "PUBLIC_TO_EVERYONE"])
      assert.isTrue(form.creator.commentDisabled)
    }).pipe(Effect.provide(Engine))
  )

  it.effect("says why the creator cannot post now instead of offering the consent form", () =>
    Effect.gen(function* () {
      const f = yield* aWorkspace({ simulate: { error: "quota_exceeded" } })
      const post = yield* aDirectVideoPost(f)
      const page = yield* Approvals.loadApprovalPage(tokenOf(post))
      const form = page._tag === "Pending" ? page.summary.targets[0]?.consentForm : undefined
      assert.strictEqual(form?._tag, "Unavailable")
      if (form?._tag === "Unavailable") assert.strictEqual(form.error.code, "quota_exceeded")
    }).pipe(Effect.provide(Engine))
  )

  it.effect("refuses the consent form when the video is longer than the creator may post", () =>
    Effect.gen(function* () {
      const f = yield* aWorkspace()
      const post = yield* aDirectVideoPost(f)
      // The creator's limit dropped below the video's 30 s after the post was created.
      const client = yield* PlatformClient
      const shorter = PlatformClient.of({
        ...client,
        creatorInfo: (a) =>
          Effect.map(client.creatorInfo(a), (info) => ({ ...info, maxVideoPostDurationSec: 15 }))
      })
      const page = yield* Approvals.loadApprovalPage(tokenOf(post)).pipe(Effect.provideService(PlatformClient, shorter))
      const form = page._tag === "Pending" ? page.summary.targets[0]?.consentForm : undefined
      assert.strictEqual(form?._tag, "Unavailable")
      if (form?._tag === "Unavailable") assert.strictEqual(form.error.code, "media_too_long")
    }).pipe(Effect.provide(Engine))
  )

  it.effect("tells unknown, expired, decided and cancelled links apart", () =>
    Effect.gen(function* () {
      const f = yield* aWorkspace()
      assert.strictEqual((yield* Approvals.loadApprovalPage("not-a-token"))._tag, "Unknown")
      assert.strictEqual((yield* Approvals.loadApprovalPage(""))._tag, "Unknown")

      const decided = yield* aPhotoPost(f)
      yield* decide(tokenOf(decided), { decision: "approve" })
      const decidedPage = yield* Approvals.loadApprovalPage(tokenOf(decided))
      assert.strictEqual(decidedPage._tag, "Decided")
      if (decidedPage._tag === "Decided") assert.strictEqual(decidedPage.summary.approval.status, "approved")

      const cancelled = yield* aPhotoPost(f)
      yield* Posts.cancelPost(f.caller, cancelled.post.id)
      assert.strictEqual((yield* Approvals.loadApprovalPage(tokenOf(cancelled)))._tag, "Closed")

      const expiring = yield* aPhotoPost(f)
      yield* TestClock.adjust(hours(7 * 24 + 1))
      assert.strictEqual((yield* Approvals.loadApprovalPage(tokenOf(expiring)))._tag, "Expired")
    }).pipe(Effect.provide(Engine))
  )

  it.effect("serves the bytes of the post's media while the link is pending, and nothing else", () =>
    Effect.gen(function* () {
      const f = yield* aWorkspace()
      const post = yield* aPhotoPost(f)
      const token = tokenOf(post)
      const served = yield* Approvals.loadApprovalMedia(token, Id.unchecked("media", f.image))
      assert.strictEqual(served.record.mime, "image/png")
      assert.deepStrictEqual(Array.from(served.bytes.subarray(1, 4)), [0x50, 0x4e, 0x47])
      assert.strictEqual((yield* failureOf(Approvals.loadApprovalMedia(token, Id.unchecked("media", f.video)))).code, "not_found")
      assert.strictEqual((yield* failureOf(Approvals.loadApprovalMedia("nope", Id.unchecked("media", f.image)))).code, "not_found")
      yield* decide(token, { decision: "reject" })
      assert.strictEqual((yield* failureOf(Approvals.loadApprovalMedia(token, Id.unchecked("media", f.image)))).code, "not_found")
    }).pipe(Effect.provide(Engine))
  )
})

describe("decideApproval", () => {
  it.effect("approving queues an unscheduled post at once and writes post.approved", () =>
    Effect.gen(function* () {
      const f = yield* aWorkspace()
      const post = yield* aPhotoPost(f)
      yield* TestClock.adjust("10 minutes")
      const answer = yield* decide(tokenOf(post), { decision: "approve" })
      assert.strictEqual(answer.decision, "approve")
      assert.strictEqual(answer.post.post.status, "queued")
      assert.strictEqual(answer.post.targets[0]?.status, "queued")
      assert.strictEqual(answer.post.approvalLink?.status, "approved")
      assert.isNumber(answer.post.approval?.decidedAt)
      assert.isNull(answer.redirect_url)

      const store = yield* Store
      const saved = Option.getOrThrow(yield* store.getPost(f.caller.workspaceId, post.post.id))
      // Due since it was created: the publisher claims it straight away.
      assert.strictEqual(saved.targets[0]?.dueAt, saved.post.publishAt)
      const events = yield* postEvents(f.caller.workspaceId)
      assert.deepStrictEqual(
        events.map((e) => e.type),
        ["post.awaiting_approval", "post.approved"]
      )
      assert.strictEqual(events[1]?.data.post_id, post.post.id)
      assert.strictEqual(events[1]?.data.approval_id, post.approval?.id)
    }).pipe(Effect.provide(Engine))
  )

  it.effect("approving a post scheduled for later schedules it and writes post.scheduled", () =>
    Effect.gen(function* () {
      const f = yield* aWorkspace()
      const at = yield* Effect.clockWith((c) => c.currentTimeMillis)
      const publishAt = at + 24 * 3_600_000
      const post = yield* aPhotoPost(f, { scheduled_at: new Date(publishAt).toISOString() })
      const answer = yield* decide(tokenOf(post), { decision: "approve" })
      assert.strictEqual(answer.post.post.status, "scheduled")
      const store = yield* Store
      const saved = Option.getOrThrow(yield* store.getPost(f.caller.workspaceId, post.post.id))
      assert.strictEqual(saved.targets[0]?.dueAt, publishAt)
      const events = yield* postEvents(f.caller.workspaceId)
      assert.deepStrictEqual(
        events.map((e) => e.type),
        ["post.awaiting_approval", "post.approved", "post.scheduled"]
      )
    }).pipe(Effect.provide(Engine))
  )

  it.effect("approving after the scheduled time has passed queues the post", () =>
    Effect.gen(function* () {
      const f = yield* aWorkspace()
      const at = yield* Effect.clockWith((c) => c.currentTimeMillis)
      const post = yield* aPhotoPost(f, { scheduled_at: new Date(at + 3_600_000).toISOString() })
      yield* TestClock.adjust(hours(2))
      const answer = yield* decide(tokenOf(post), { decision: "approve" })
      assert.strictEqual(answer.post.post.status, "queued")
    }).pipe(Effect.provide(Engine))
  )

  it.effect("rejecting moves every target to rejected and writes post.rejected with the reason", () =>
    Effect.gen(function* () {
      const f = yield* aWorkspace()
      const post = yield* aPhotoPost(f)
      const answer = yield* decide(tokenOf(post), { decision: "reject", reason: "  Wrong logo  " })
      assert.strictEqual(answer.post.post.status, "rejected")
      assert.strictEqual(answer.post.approvalLink?.status, "rejected")
      const events = yield* postEvents(f.caller.workspaceId)
      assert.strictEqual(events.at(-1)?.type, "post.rejected")
      assert.strictEqual(events.at(-1)?.data.reason, "Wrong logo")
    }).pipe(Effect.provide(Engine))
  )

  it.effect("allows one decision per link: the second is 409 already_decided", () =>
    Effect.gen(function* () {
      const f = yield* aWorkspace()
      const post = yield* aPhotoPost(f)
      yield* decide(tokenOf(post), { decision: "approve" })
      assert.deepStrictEqual(yield* failureOf(decide(tokenOf(post), { decision: "reject" })), {
        code: "already_decided",
        status: 409,
        field: undefined,
        targetId: undefined
      })
      const events = yield* postEvents(f.caller.workspaceId)
      assert.deepStrictEqual(
        events.map((e) => e.type),
        ["post.awaiting_approval", "post.approved"]
      )
    }).pipe(Effect.provide(Engine))
  )

  it.effect("lets exactly one of two concurrent decisions win; the other is already_decided", () =>
    Effect.gen(function* () {
      const f = yield* aWorkspace()
      const post = yield* aPhotoPost(f)
      const store = yield* Store
      // Both decisions read the post before either saves: the second save meets a newer version.
      const bothRead = yield* Deferred.make<void>()
      let saving = 0
      const racing = Store.of({
        ...store,
        savePost: (aggregate, events) =>
          Effect.gen(function* () {
            saving++
            if (saving === 2) yield* Deferred.succeed(bothRead, undefined)
            yield* Deferred.await(bothRead)
            return yield* store.savePost(aggregate, events)
          })
      })
      const token = tokenOf(post)
      const approve = yield* Effect.forkChild(decide(token, { decision: "approve" }).pipe(Effect.provideService(Store, racing)))
      const reject = yield* Effect.forkChild(decide(token, { decision: "reject" }).pipe(Effect.provideService(Store, racing)))
      const outcomes = [yield* Fiber.await(approve), yield* Fiber.await(reject)]
      const won = outcomes.filter(Exit.isSuccess)
      const lost = outcomes.flatMap((exit) =>
        Exit.isFailure(exit) ? [Option.getOrUndefined(Exit.findErrorOption(exit)) as PostwireError | undefined] : []
      )
      assert.strictEqual(won.length, 1)
      assert.deepStrictEqual(
        lost.map((e) => e?.code),
        ["already_decided"]
      )
      const events = yield* postEvents(f.caller.workspaceId)
      assert.strictEqual(events.filter((e) => e.type === "post.approved" || e.type === "post.rejected").length, 1)
    }).pipe(Effect.provide(Engine))
  )

  it.effect("answers 410 approval_expired after seven days, and the post keeps waiting", () =>
    Effect.gen(function* () {
      const f = yield* aWorkspace()
      const post = yield* aPhotoPost(f)
      yield* TestClock.adjust(hours(7 * 24 - 1))
      const token = tokenOf(post)
      const other = yield* aPhotoPost(f)
      yield* decide(tokenOf(other), { decision: "approve" })
      yield* TestClock.adjust(hours(2))
      const failure = yield* failureOf(decide(token, { decision: "approve" }))
      assert.deepStrictEqual([failure.code, failure.status], ["approval_expired", 410])
      assert.strictEqual((yield* Posts.getPost(f.caller, post.post.id)).post.status, "awaiting_approval")
    }).pipe(Effect.provide(Engine))
  )

  it.effect("answers not_found for an unknown token and for the token of a replaced approval", () =>
    Effect.gen(function* () {
      const f = yield* aWorkspace()
      assert.strictEqual((yield* failureOf(decide("x".repeat(43), { decision: "approve" }))).code, "not_found")
      const post = yield* aPhotoPost(f)
      const first = tokenOf(post)
      yield* decide(first, { decision: "approve" })
      const edited = yield* Posts.updatePost(f.caller, post.post.id, { caption: "Launch day, take two" })
      assert.strictEqual(edited.approvalLink?.status, "pending")
      assert.notStrictEqual(tokenOf(edited), first)
      assert.strictEqual((yield* failureOf(decide(first, { decision: "approve" }))).code, "not_found")
      assert.strictEqual((yield* decide(tokenOf(edited), { decision: "approve" })).post.post.status, "queued")
    }).pipe(Effect.provide(Engine))
  )

  it.effect("answers invalid_state when the post was cancelled before the decision", () =>
    Effect.gen(function* () {
      const f = yield* aWorkspace()
      const post = yield* aPhotoPost(f)
      yield* Posts.cancelPost(f.caller, post.post.id)
      const failure = yield* failureOf(decide(tokenOf(post), { decision: "approve" }))
      assert.deepStrictEqual([failure.code, failure.status], ["invalid_state", 409])
    }).pipe(Effect.provide(Engine))
  )

  describe("consent for a direct shortvideo target", () => {
    it.effect("refuses to approve without it: 409 consent_required naming the target", () =>
      Effect.gen(function* () {
        const f = yield* aWorkspace()
        const post = yield* aDirectVideoPost(f)
        const target = post.targets[0]!.id
        assert.deepStrictEqual(yield* failureOf(decide(tokenOf(post), { decision: "approve" })), {
          code: "consent_required",
          status: 409,
          field: `consent.${target}`,
          targetId: target
        })
        assert.strictEqual((yield* Posts.getPost(f.caller, post.post.id)).post.status, "awaiting_approval")
      }).pipe(Effect.provide(Engine))
    )

    it.effect("stores the consent given, as given by the approval", () =>
      Effect.gen(function* () {
        const f = yield* aWorkspace()
        const post = yield* aDirectVideoPost(f)
        const target = post.targets[0]!.id
        const given = consent("FOLLOWER_OF_CREATOR", { disable_duet: true, brand_organic: true })
        const answer = yield* decide(tokenOf(post), { decision: "approve", consent: { [target]: given } })
        assert.strictEqual(answer.post.targets[0]?.status, "queued")
        const store = yield* Store
        const saved = Option.getOrThrow(yield* store.getPost(f.caller.workspaceId, post.post.id))
        assert.deepStrictEqual(saved.targets[0]?.consent?.consent, given)
        assert.strictEqual(saved.targets[0]?.consent?.givenBy, `approval:${post.approval?.id}`)
      }).pipe(Effect.provide(Engine))
    )

    it.effect("rejects without asking for consent", () =>
      Effect.gen(function* () {
        const f = yield* aWorkspace()
        const post = yield* aDirectVideoPost(f)
        assert.strictEqual((yield* decide(tokenOf(post), { decision: "reject" })).post.post.status, "rejected")
      }).pipe(Effect.provide(Engine))
    )

    it.effect("refuses a privacy level the creator does not offer", () =>
      Effect.gen(function* () {
        const f = yield* aWorkspace({ simulate: { privacy_level_options: ["SELF_ONLY"] } })
        const post = yield* aDirectVideoPost(f)
        const target = post.targets[0]!.id
        const failure = yield* failureOf(
          decide(tokenOf(post), { decision: "approve", consent: { [target]: consent("PUBLIC_TO_EVERYONE") } })
        )
        assert.deepStrictEqual(
          [failure.code, failure.field, failure.targetId],
          ["privacy_level_mismatch", `consent.${target}.privacy_level`, target]
        )
      }).pipe(Effect.provide(Engine))
    )

    it.effect("refuses branded content that would be private", () =>
      Effect.gen(function* () {
        const f = yield* aWorkspace()
        const post = yield* aDirectVideoPost(f)
        const target = post.targets[0]!.id
        const failure = yield* failureOf(
          decide(tokenOf(post), {
            decision: "approve",
            consent: { [target]: consent("SELF_ONLY", { branded_content: true }) }
          })
        )
        assert.strictEqual(failure.code, "privacy_level_mismatch")
      }).pipe(Effect.provide(Engine))
    )

    it.effect("refuses consent for a target that does not need it, naming it", () =>
      Effect.gen(function* () {
        const f = yield* aWorkspace()
        const post = yield* aPhotoPost(f)
        const target = post.targets[0]!.id
        const failure = yield* failureOf(
          decide(tokenOf(post), { decision: "approve", consent: { [target]: consent("SELF_ONLY") } })
        )
        assert.deepStrictEqual([failure.code, failure.status, failure.field], ["invalid_request", 400, `consent.${target}`])
      }).pipe(Effect.provide(Engine))
    )

    it.effect("passes on the platform's answer when the creator cannot post now", () =>
      Effect.gen(function* () {
        const f = yield* aWorkspace({ simulate: { error: "quota_exceeded" } })
        const post = yield* aDirectVideoPost(f)
        const target = post.targets[0]!.id
        const failure = yield* failureOf(
          decide(tokenOf(post), { decision: "approve", consent: { [target]: consent("SELF_ONLY") } })
        )
        assert.deepStrictEqual([failure.code, failure.targetId], ["quota_exceeded", target])
      }).pipe(Effect.provide(Engine))
    )

    it.effect("asks again after the caption changed, since the consent was for the old content", () =>
      Effect.gen(function* () {
        const f = yield* aWorkspace()
        const post = yield* aDirectVideoPost(f)
        const target = post.targets[0]!.id
        yield* decide(tokenOf(post), { decision: "approve", consent: { [target]: consent("SELF_ONLY") } })
        const edited = yield* Posts.updatePost(f.caller, post.post.id, { caption: "A new caption" })
        const page = yield* Approvals.loadApprovalPage(tokenOf(edited))
        assert.strictEqual(page._tag === "Pending" ? page.summary.targets[0]?.consentForm?._tag : page._tag, "Ready")
        const failure = yield* failureOf(decide(tokenOf(edited), { decision: "approve" }))
        assert.strictEqual(failure.code, "consent_required")
      }).pipe(Effect.provide(Engine))
    )
  })

  describe("redirect_url", () => {
    const withRedirect = (redirect_url: string) =>
      Effect.gen(function* () {
        const f = yield* aWorkspace()
        const post = yield* aPhotoPost(f)
        return yield* decide(tokenOf(post), { decision: "approve", redirect_url }).pipe(
          Effect.map((answer) => answer.redirect_url),
          Effect.catch((e) => Effect.succeed(`${(e as PostwireError).code} ${(e as PostwireError).field}`))
        )
      }).pipe(Effect.provide(Engine))

    it.effect("accepts https on an allowed domain or a subdomain of one", () =>
      Effect.gen(function* () {
        assert.strictEqual(yield* withRedirect("https://example.com/thanks"), "https://example.com/thanks")
        assert.strictEqual(yield* withRedirect("https://app.example.com/done?x=1"), "https://app.example.com/done?x=1")
      })
    )

    it.effect("refuses http, other domains, look-alikes and credentials with 400 invalid_redirect_url", () =>
      Effect.gen(function* () {
        for (const url of [
          "http://example.com/thanks",
          "https://evil.com/",
          "https://badexample.com/",
          "https://example.com.evil.com/",
          "https://user:pw@example.com/",
          "javascript:alert(1)",
          "//example.com/",
          "not a url"
        ]) {
          assert.strictEqual(yield* withRedirect(url), "invalid_redirect_url redirect_url", url)
        }
      })
    )

    it("isAllowedRedirect ignores case and a trailing dot", () => {
      assert.isTrue(Approvals.isAllowedRedirect("https://WWW.Example.COM./x", ["example.com"]))
      assert.isFalse(Approvals.isAllowedRedirect("https://example.com/x", []))
    })
  })
})

describe("approval e-mail", () => {
  it.effect("sends the link to notify.email in notify.locale once the post is saved", () =>
    Effect.gen(function* () {
      const f = yield* aWorkspace()
      const post = yield* aPhotoPost(f, { approval: { mode: "link", notify: { email: "boss@example.com", locale: "id" } } })
      const sent = yield* SentMail.use((m) => m.messages)
      assert.strictEqual(sent.length, 1)
      // What to say, as data: the server words it (server/src/approvals/ApprovalEmail.ts).
      const mail = sent[0]!
      assert.deepStrictEqual(mail, {
        _tag: "ApprovalRequest",
        to: "boss@example.com",
        locale: "id",
        postId: post.post.id,
        caption: post.post.caption,
        destinations: [{ platform: "photo", handle: "acme" }],
        scheduledAt: null,
        url: ApprovalToken.approvalUrl(settings.publicBaseUrl, post.approvalLink!.token),
        expiresAt: post.approval!.expiresAt
      })
      assert.include(mail.caption, "Launch day")
    }).pipe(Effect.provide(WithMailbox))
  )

  it.effect("writes English by default, and nothing without notify.email", () =>
    Effect.gen(function* () {
      const f = yield* aWorkspace()
      yield* aPhotoPost(f)
      yield* aPhotoPost(f, { approval: { notify: { email: "boss@example.com" } } })
      const sent = yield* SentMail.use((m) => m.messages)
      assert.strictEqual(sent.length, 1)
      assert.strictEqual(sent[0]!.locale, "en")
    }).pipe(Effect.provide(WithMailbox))
  )

  it.effect("sends the new link when an approved post's caption changes", () =>
    Effect.gen(function* () {
      const f = yield* aWorkspace()
      const post = yield* aPhotoPost(f, { approval: { notify: { email: "boss@example.com" } } })
      yield* decide(tokenOf(post), { decision: "approve" })
      const edited = yield* Posts.updatePost(f.caller, post.post.id, { caption: "Launch day, take two" })
      const sent = yield* SentMail.use((m) => m.messages)
      assert.strictEqual(sent.length, 2)
      assert.strictEqual(sent[1]!.url, ApprovalToken.approvalUrl(settings.publicBaseUrl, edited.approvalLink!.token))
      assert.include(sent[1]!.caption, "take two")
    }).pipe(Effect.provide(WithMailbox))
  )

  it.effect("creates the post even when the mail server fails", () =>
    Effect.gen(function* () {
      const f = yield* aWorkspace()
      const post = yield* aPhotoPost(f, { approval: { notify: { email: "boss@example.com" } } })
      assert.strictEqual((yield* Posts.getPost(f.caller, post.post.id)).post.status, "awaiting_approval")
    }).pipe(Effect.provide(Layer.merge(Engine, Mailer.layerFailing)))
  )
})

describe("a live TikTok account", () => {
  it.effect("is asked for its creator info with its credentials opened, and keeps the tokens a refresh rotated", () => {
    const seen: Array<string | null> = []
    const RotatingPlatform = Layer.succeed(PlatformClient)({
      publish: () => Effect.die(new Error("not used")),
      creatorInfo: (account) =>
        Effect.sync(() => {
          seen.push(account.credentials)
          return {
            nickname: "Live creator",
            username: "live",
            privacyLevelOptions: allLevels,
            commentDisabled: false,
            duetDisabled: false,
            stitchDisabled: false,
            maxVideoPostDurationSec: 600,
            credentials: { accountId: account.id, credentials: '{"access_token":"rotated"}' }
          }
        })
    })
    const Live = Layer.mergeAll(
      Ids.layerTest,
      BlobStore.layerMemory,
      EngineConfig.layer(settings),
      RotatingPlatform,
      CredentialsCipher.layer.pipe(Layer.provide(EngineConfig.layer(settings))),
      MemoryPublishingStore.layer
    ).pipe(Layer.provideMerge(MemoryStore.layer))
    return Effect.gen(function* () {
      const ws = yield* Workspaces.createWorkspace({ name: "live" })
      const key = yield* Workspaces.createKey(ws.id, { kind: "live", scopes: ["posts:write"] })
      const profile = yield* Workspaces.createProfile(ws.id, { name: "Live" })
      const account = yield* Workspaces.createAccount(ws.id, {
        profileId: profile.id,
        platform: "shortvideo",
        sandbox: false,
        handle: "live",
        credentials: '{"access_token":"original"}'
      })
      const caller = { workspaceId: ws.id, keyId: key.id, kind: "live" as const }
      const video = yield* Media.uploadMedia(caller, {
        data: Buffer.from(anMp4({ durationSeconds: 10, width: 1080, height: 1920 })).toString("base64")
      })
      const post = yield* Posts.createPost(
        caller,
        {
          profile_id: profile.id,
          caption: "live",
          media: [video.id],
          targets: [{ account_id: account.id, shortvideo: { mode: "direct" } }]
        } as never
      )
      const page = yield* Approvals.loadApprovalPage(tokenOf(post))
      assert.strictEqual(page._tag === "Pending" ? page.summary.targets[0]?.consentForm?._tag : page._tag, "Ready")
      assert.deepStrictEqual(seen, ['{"access_token":"original"}'])
      const store = yield* Store
      const cipher = yield* CredentialsCipher
      const stored = Option.getOrThrow(yield* store.getAccount(ws.id, account.id)).credentials!
      assert.notInclude(stored, "rotated")
      assert.strictEqual(Option.getOrThrow(cipher.open(stored, accountContext(ws.id, account.id))), '{"access_token":"rotated"}')
    }).pipe(Effect.provide(Live))
  })
})
