import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Option, Scope } from "effect"
import { TestClock } from "effect/testing"
import { ErrorDetail } from "@postwire/domain"
import {
  type CredentialsUpdate,
  CredentialsCipher,
  Media,
  MediaUrls,
  PlatformClient,
  PlatformFailure,
  Posts,
  type PostView,
  Publisher,
  PublishingStore,
  type PublishInput,
  type PublishStep,
  Store,
  TargetErrors,
  Workspaces
} from "../src/index.ts"
import { memoryEngine, memoryEngineSettings } from "../../../test/support/MemoryEngine.ts"
import { aPng } from "../../../test/support/Media.ts"
import { Ids as Id } from "@postwire/domain"

/** What the fake platform holds: containers made, items published, and who asked for what. */
interface FakeState {
  readonly containers: Map<string, { readonly targetId: string; published: string | null }>
  readonly published: Array<{ readonly id: string; readonly targetId: string; readonly caption: string }>
  readonly calls: Array<{ readonly targetId: string; readonly state: unknown; readonly credentials: string | null }>
  readonly mediaUrls: Array<string>
  /** Failures to answer, per account, in order. */
  readonly failures: Map<string, Array<PlatformFailure>>
  /** Credentials to hand back (a refresh), per account, once. */
  readonly refreshes: Map<string, string>
  /** Targets whose next call does its work on the platform and then never answers (a crash). */
  readonly vanish: Map<string, "after_container" | "after_publish">
  /** Per account: calls running now, and the most ever at once. */
  readonly inFlight: Map<string, number>
  readonly maxInFlight: Map<string, number>
  /** How long each call takes (by the Clock, so tests move it with TestClock). */
  latencyMs: number
}

/**
 * A platform that behaves like Meta's container flow: the first step creates a container and
 * answers "in progress" with its id; a later step given that id looks it up first, and publishes
 * it only if it was not published already.
 */
const makeFakePlatform = () => {
  const fake: FakeState = {
    containers: new Map(),
    published: [],
    calls: [],
    mediaUrls: [],
    failures: new Map(),
    refreshes: new Map(),
    vanish: new Map(),
    inFlight: new Map(),
    maxInFlight: new Map(),
    latencyMs: 0
  }
  const step = (input: PublishInput): Effect.Effect<PublishStep & { credentials?: CredentialsUpdate }, PlatformFailure> =>
    Effect.gen(function* () {
      fake.calls.push({ targetId: input.target.id, state: input.state, credentials: input.account.credentials })
      for (const m of input.media) fake.mediaUrls.push(m.url)
      if (fake.latencyMs > 0) yield* Effect.sleep(fake.latencyMs)
      const scripted = fake.failures.get(input.account.id)?.shift()
      if (scripted !== undefined) return yield* Effect.fail(scripted)
      const refreshed = fake.refreshes.get(input.account.id)
      fake.refreshes.delete(input.account.id)
      const credentials = refreshed === undefined ? {} : { credentials: { accountId: input.account.id, credentials: refreshed } }
      const state = input.state as { container: string } | null
      if (state === null) {
        const container = `c${fake.containers.size + 1}`
        fake.containers.set(container, { targetId: input.target.id, published: null })
        if (fake.vanish.get(input.target.id) === "after_container") {
          fake.vanish.delete(input.target.id)
          return yield* Effect.never
        }
        return { _tag: "InProgress", state: { container }, pollAfterMs: 5_000, ...credentials } as const
      }
      const container = fake.containers.get(state.container)!
      if (container.published === null) {
        container.published = `media-${fake.published.length + 1}`
        fake.published.push({ id: container.published, targetId: input.target.id, caption: input.post.caption })
        if (fake.vanish.get(input.target.id) === "after_publish") {
          fake.vanish.delete(input.target.id)
          return yield* Effect.never
        }
      }
      return {
        _tag: "Published",
        platformPostId: container.published,
        permalink: `https://social.test/p/${container.published}`,
        state,
        ...credentials
      } as const
    })
  const service = PlatformClient.of({
    publish: (input) =>
      Effect.acquireUseRelease(
        Effect.sync(() => {
          const n = (fake.inFlight.get(input.account.id) ?? 0) + 1
          fake.inFlight.set(input.account.id, n)
          fake.maxInFlight.set(input.account.id, Math.max(n, fake.maxInFlight.get(input.account.id) ?? 0))
        }),
        () => step(input),
        () => Effect.sync(() => fake.inFlight.set(input.account.id, fake.inFlight.get(input.account.id)! - 1))
      ),
    creatorInfo: () => Effect.die(new Error("not used by the publisher"))
  })
  return { fake, service }
}

const worker = (owner: string, overrides: Partial<Publisher.PublisherSettings> = {}): Publisher.PublisherSettings => ({
  ...Publisher.defaults(owner),
  idlePollMs: 1_000,
  ...overrides
})

/** A workspace with a live key, a profile, an image and `accounts` live accounts with tokens. */
const aWorkspace = (options: { readonly accounts?: number; readonly dailyQuota?: number } = {}) =>
  Effect.gen(function* () {
    const ws = yield* Workspaces.createWorkspace({ name: "acme" })
    const key = yield* Workspaces.createKey(ws.id, { kind: "live", scopes: ["posts:read", "posts:write"] })
    const profile = yield* Workspaces.createProfile(ws.id, { name: "Acme" })
    const accounts: Array<string> = []
    for (let i = 0; i < (options.accounts ?? 1); i++) {
      const account = yield* Workspaces.createAccount(ws.id, {
        profileId: profile.id,
        platform: "textpost",
        sandbox: false,
        handle: `acme${i}`,
        credentials: JSON.stringify({ access_token: `token-${i}` }),
        externalId: `2500000000000000${i}`,
        ...(options.dailyQuota === undefined ? {} : { dailyQuota: options.dailyQuota })
      })
      accounts.push(account.id)
    }
    const caller = { workspaceId: ws.id, keyId: key.id, kind: "live" as const }
    const media = yield* Media.uploadMedia(caller, { data: Buffer.from(aPng({ width: 2, height: 2 })).toString("base64") })
    const post = (fields: { caption?: string; accounts?: ReadonlyArray<string>; scheduledAt?: number } = {}) =>
      Effect.map(
        Posts.createPost(
        caller,
        {
          profile_id: profile.id,
          caption: fields.caption ?? "Fresh bread at 7",
          media: [media.id],
          targets: (fields.accounts ?? [accounts[0]!]).map((account_id) => ({ account_id })),
          approval: { mode: "none" },
          ...(fields.scheduledAt === undefined ? {} : { scheduled_at: new Date(fields.scheduledAt).toISOString() })
        } as never
        ),
        flat
      )
    return { caller, accounts, mediaId: media.id, post }
  })

/** A post as read, its id and status beside its target records. */
const flat = (read: PostView.PostRead) => ({
  id: read.post.id,
  status: read.post.status,
  caption: read.post.caption,
  targets: read.targets
})

const getPost = (caller: { workspaceId: Id.WorkspaceId; keyId: Id.KeyId; kind: "live" }, id: string) =>
  Effect.map(Posts.getPost(caller, Id.unchecked("post", id)), flat)

const eventTypes = (workspaceId: string) =>
  Effect.map(
    Store.use((store) => store.listEvents(Id.unchecked("workspace", workspaceId))),
    (events) => events.filter((e) => e.type.startsWith("post.")).map((e) => e.type)
  )

const now = Effect.clockWith((c) => c.currentTimeMillis)

/** A worker that claims, starts and calls the platform, then dies without a word (kill -9). */
const crashingWorker = (owner: string) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.forkChild(Publisher.publishDueTargets(worker(owner)))
    // Let it run up to the platform's answer that never comes.
    yield* TestClock.adjust("1 millis")
    yield* Fiber.interrupt(fiber)
  })

const failure = (code: PlatformFailure["code"], platformCode: string, extra: Partial<PlatformFailure> = {}) =>
  new PlatformFailure({ code, platformCode, retryable: code === "platform_unavailable" || code === "quota_exceeded", ...extra })

describe("Publisher", () => {
  it.effect("publishes a queued post: the container is made, polled, published, and the events say so", () => {
    const { fake, service } = makeFakePlatform()
    return Effect.gen(function* () {
      const { caller, post } = yield* aWorkspace()
      const created = yield* post()
      assert.strictEqual(created.status, "queued")
      yield* Publisher.start(worker("w1"))

      yield* TestClock.adjust("1 second")
      const inProgress = yield* getPost(caller, created.id)
      assert.strictEqual(inProgress.status, "publishing")
      assert.strictEqual(fake.containers.size, 1)

      yield* TestClock.adjust("6 seconds")
      const done = yield* getPost(caller, created.id)
      assert.strictEqual(done.status, "published")
      assert.strictEqual(done.targets[0]!.permalink, "https://social.test/p/media-1")
      assert.isNumber(done.targets[0]!.publishedAt)
      assert.strictEqual(done.targets[0]!.attempts, 1)
      assert.deepStrictEqual(yield* eventTypes(caller.workspaceId), ["post.publishing", "post.published"])
      // The second step resumed from the container the first one saved.
      assert.deepStrictEqual(
        fake.calls.map((c) => c.state),
        [null, { container: "c1" }]
      )
    }).pipe(Effect.provide(memoryEngine(service)))
  })

  it.effect("publishes every target of a post to many accounts at once, with one post.publishing", () => {
    const { fake, service } = makeFakePlatform()
    return Effect.gen(function* () {
      const { accounts, caller, post } = yield* aWorkspace({ accounts: 6 })
      const created = yield* post({ accounts })
      yield* Publisher.start(worker("w1"))
      yield* Publisher.start(worker("w2"))
      yield* TestClock.adjust("1 second")
      yield* TestClock.adjust("6 seconds")

      const done = yield* getPost(caller, created.id)
      assert.strictEqual(done.status, "published")
      assert.strictEqual(fake.published.length, 6)
      const types = yield* eventTypes(caller.workspaceId)
      assert.strictEqual(types.filter((t) => t === "post.publishing").length, 1)
      assert.strictEqual(types.filter((t) => t === "post.published").length, 6)
    }).pipe(Effect.provide(memoryEngine(service)))
  })

  it.effect("leaves a scheduled post alone until its scheduled_at, then publishes it", () => {
    const { fake, service } = makeFakePlatform()
    return Effect.gen(function* () {
      const { caller, post } = yield* aWorkspace()
      const created = yield* post({ scheduledAt: (yield* now) + 60 * 60_000 })
      assert.strictEqual(created.status, "scheduled")
      yield* Publisher.start(worker("w1", { idlePollMs: 10_000 }))

      yield* TestClock.adjust("59 minutes")
      assert.strictEqual((yield* getPost(caller, created.id)).status, "scheduled")
      assert.strictEqual(fake.calls.length, 0)

      yield* TestClock.adjust("2 minutes")
      yield* TestClock.adjust("20 seconds")
      const done = yield* getPost(caller, created.id)
      assert.strictEqual(done.status, "published")
      assert.strictEqual(fake.published.length, 1)
    }).pipe(Effect.provide(memoryEngine(service)))
  })

  it.effect("takes over a crashed worker's target only once its lease has run out, and publishes it once", () => {
    const { fake, service } = makeFakePlatform()
    return Effect.gen(function* () {
      const { caller, post } = yield* aWorkspace()
      const created = yield* post()
      const targetId = created.targets[0]!.id
      // The crashed worker saved the container, then published it and died before recording that.
      yield* Publisher.publishDueTargets(worker("crashed"))
      yield* TestClock.adjust("5 seconds")
      fake.vanish.set(targetId, "after_publish")
      yield* crashingWorker("crashed")
      assert.strictEqual(fake.published.length, 1)

      yield* Publisher.start(worker("w2"))
      yield* TestClock.adjust("50 seconds")
      // Still the crashed worker's: the lease (60 s) has not run out.
      assert.strictEqual((yield* getPost(caller, created.id)).status, "publishing")
      assert.strictEqual(fake.calls.length, 2)

      yield* TestClock.adjust("12 seconds")
      const done = yield* getPost(caller, created.id)
      assert.strictEqual(done.status, "published")
      // The new worker asked about the saved container instead of publishing again.
      assert.deepStrictEqual(fake.calls.at(-1)?.state, { container: "c1" })
      assert.strictEqual(fake.published.length, 1)
      assert.strictEqual(done.targets[0]!.permalink, "https://social.test/p/media-1")
      assert.deepStrictEqual(yield* eventTypes(caller.workspaceId), ["post.publishing", "post.published"])
    }).pipe(Effect.provide(memoryEngine(service)))
  })

  it.effect("starts over when a worker died before saving the platform's answer, and still publishes once", () => {
    const { fake, service } = makeFakePlatform()
    return Effect.gen(function* () {
      const { caller, post } = yield* aWorkspace()
      const created = yield* post()
      fake.vanish.set(created.targets[0]!.id, "after_container")
      yield* crashingWorker("crashed")
      assert.strictEqual(fake.containers.size, 1)

      yield* Publisher.start(worker("w2"))
      yield* TestClock.adjust("61 seconds")
      yield* TestClock.adjust("6 seconds")
      const done = yield* getPost(caller, created.id)
      assert.strictEqual(done.status, "published")
      // The unsaved container is abandoned (never published); a new one is published once.
      assert.strictEqual(fake.containers.size, 2)
      assert.strictEqual(fake.published.length, 1)
    }).pipe(Effect.provide(memoryEngine(service)))
  })

  it.effect("fails one target alone and records its error in the shared shape", () => {
    const { fake, service } = makeFakePlatform()
    return Effect.gen(function* () {
      const { accounts, caller, post } = yield* aWorkspace({ accounts: 2 })
      fake.failures.set(accounts[1]!, [failure("media_invalid", "352/2207026", { details: { platform: "textpost", detail: ErrorDetail.reason("unsupported_video_format") } })])
      const created = yield* post({ accounts })
      yield* Publisher.start(worker("w1"))
      yield* TestClock.adjust("1 second")
      yield* TestClock.adjust("6 seconds")

      const done = yield* getPost(caller, created.id)
      assert.strictEqual(done.status, "partially_published")
      const [ok, bad] = done.targets
      assert.strictEqual(ok!.status, "published")
      assert.strictEqual(bad!.status, "failed")
      // Stored as data; words and the docs address come when it is read.
      assert.deepStrictEqual(bad!.error, {
        code: "media_invalid",
        details: { platform: "textpost", detail: ErrorDetail.reason("unsupported_video_format") },
        platform_code: "352/2207026",
        retryable: false
      })
      const rendered = TargetErrors.renderTargetError(bad!.id, bad!.error!, "en", "https://postwire.test")
      assert.deepStrictEqual(rendered, {
        code: "media_invalid",
        message: "The media does not fit textpost: unsupported video format",
        message_id: "Media tidak sesuai untuk textpost: format video tidak didukung",
        target_id: bad!.id,
        retryable: false,
        docs: "https://postwire.test/docs/errors#media_invalid",
        platform_code: "352/2207026"
      })

      const events = yield* Store.use((store) => store.listEvents(caller.workspaceId))
      assert.deepStrictEqual(
        events.map((e) => e.type).sort(),
        ["account.connected", "account.connected", "post.failed", "post.published", "post.publishing"]
      )
      const failed = events.find((e) => e.type === "post.failed")!
      assert.deepStrictEqual(failed.data, { post_id: created.id, target_id: bad!.id, platform: "textpost", error: rendered })
      assert.isTrue(failed.livemode)
    }).pipe(Effect.provide(memoryEngine(service)))
  })

  it.effect("marks the account needs_reconnect when its token cannot be refreshed, and fails its later targets without calling", () => {
    const { fake, service } = makeFakePlatform()
    return Effect.gen(function* () {
      const { accounts, caller, post } = yield* aWorkspace()
      fake.failures.set(accounts[0]!, [failure("token_expired", "190/463", { needsReconnect: true })])
      const first = yield* post()
      yield* Publisher.start(worker("w1"))
      yield* TestClock.adjust("1 second")

      const failedPost = yield* getPost(caller, first.id)
      assert.strictEqual(failedPost.targets[0]!.error?.code, "token_expired")
      assert.isFalse(failedPost.targets[0]!.error?.retryable)
      const account = yield* Store.use((store) => store.getAccount(caller.workspaceId, Id.unchecked("account", accounts[0]!)))
      assert.strictEqual(Option.getOrThrow(account).status, "needs_reconnect")
      const events = yield* Store.use((store) => store.listEvents(caller.workspaceId))
      const reconnect = events.filter((e) => e.type === "account.needs_reconnect")
      assert.strictEqual(reconnect.length, 1)
      assert.strictEqual(reconnect[0]!.data.account_id, accounts[0])

      const calls = fake.calls.length
      const second = yield* post({ caption: "Second" })
      yield* TestClock.adjust("2 seconds")
      const refused = yield* getPost(caller, second.id)
      assert.strictEqual(refused.targets[0]!.error?.code, "token_expired")
      assert.strictEqual(refused.targets[0]!.error?.platform_code, "account_needs_reconnect")
      assert.strictEqual(fake.calls.length, calls)
    }).pipe(Effect.provide(memoryEngine(service)))
  })

  it.effect("keeps credentials encrypted at rest, hands them to the platform opened, and stores rotated ones", () => {
    const { fake, service } = makeFakePlatform()
    return Effect.gen(function* () {
      const { accounts, caller, post } = yield* aWorkspace()
      const stored = Option.getOrThrow(yield* Store.use((store) => store.getAccount(caller.workspaceId, Id.unchecked("account", accounts[0]!))))
      assert.notInclude(stored.credentials ?? "", "token-0")
      fake.refreshes.set(accounts[0]!, JSON.stringify({ access_token: "token-rotated" }))

      yield* post()
      yield* Publisher.start(worker("w1"))
      yield* TestClock.adjust("1 second")
      const rotated = Option.getOrThrow(yield* Store.use((store) => store.getAccount(caller.workspaceId, Id.unchecked("account", accounts[0]!))))
      assert.notInclude(rotated.credentials ?? "", "token-rotated")
      assert.notStrictEqual(rotated.credentials, stored.credentials)

      yield* TestClock.adjust("6 seconds")
      assert.deepStrictEqual(
        fake.calls.map((c) => c.credentials),
        [JSON.stringify({ access_token: "token-0" }), JSON.stringify({ access_token: "token-rotated" })]
      )
      // Sealed for this account: the value does not open as another account's.
      const cipher = yield* CredentialsCipher
      assert.isTrue(Option.isNone(cipher.open(rotated.credentials!, `${caller.workspaceId}/acc_other`)))
    }).pipe(Effect.provide(memoryEngine(service)))
  })

  it.effect("retries a re-queued target, and checks the account's quota again when it publishes", () => {
    const { fake, service } = makeFakePlatform()
    return Effect.gen(function* () {
      const { accounts, caller, post } = yield* aWorkspace({ dailyQuota: 1 })
      fake.failures.set(accounts[0]!, [failure("platform_unavailable", "http_503")])
      const first = yield* post({ caption: "First" })
      // Polling once a minute keeps the day below cheap to simulate.
      yield* Publisher.start(worker("w1", { idlePollMs: 60_000 }))
      yield* TestClock.adjust("1 minute")
      const failed = yield* getPost(caller, first.id)
      assert.strictEqual(failed.status, "failed")
      assert.isTrue(failed.targets[0]!.error?.retryable)

      // A failed target frees its slot, so another post fits and publishes.
      const second = yield* post({ caption: "Second" })
      yield* TestClock.adjust("1 minute")
      yield* TestClock.adjust("1 minute")
      assert.strictEqual((yield* getPost(caller, second.id)).status, "published")

      // Retrying the first within 24 hours: the quota is used up, so it fails again, retryable.
      const calls = fake.calls.length
      const retried = yield* Posts.retryPost(caller, first.id)
      assert.deepStrictEqual(retried.retried.map((t) => t.status), ["queued"])
      yield* TestClock.adjust("1 minute")
      const overQuota = yield* getPost(caller, first.id)
      assert.strictEqual(overQuota.targets[0]!.error?.code, "quota_exceeded")
      assert.isTrue(overQuota.targets[0]!.error?.retryable)
      assert.strictEqual(fake.calls.length, calls)

      // A day later the slot is free again and the retry publishes.
      yield* TestClock.adjust("24 hours")
      yield* Posts.retryPost(caller, first.id)
      yield* TestClock.adjust("1 minute")
      yield* TestClock.adjust("1 minute")
      const published = yield* getPost(caller, first.id)
      assert.strictEqual(published.status, "published")
      assert.strictEqual(published.targets[0]!.attempts, 3)
      assert.deepStrictEqual(
        fake.published.map((p) => p.caption),
        ["Second", "First"]
      )
      const types = yield* eventTypes(caller.workspaceId)
      assert.strictEqual(types.filter((t) => t === "post.publishing").length, 2)
    }).pipe(Effect.provide(memoryEngine(service)))
  })

  it.effect("publishes as many of one claim's targets as the account's quota has room for, and refuses the rest without calling", () => {
    const { fake, service } = makeFakePlatform()
    return Effect.gen(function* () {
      const { accounts, caller, post } = yield* aWorkspace({ dailyQuota: 2 })
      // A failed target frees its place in the quota, and a retry queues it again beyond it.
      fake.failures.set(accounts[0]!, [failure("platform_unavailable", "http_503")])
      const first = yield* post({ caption: "First" })
      assert.deepStrictEqual(yield* Publisher.publishDueTargets(worker("w1")), ["failed"])
      const created = [first.id, (yield* post({ caption: "Second" })).id, (yield* post({ caption: "Third" })).id]
      yield* Posts.retryPost(caller, first.id)

      // One claim takes all three: they start together, each counting the ones started before it.
      const queue = yield* PublishingStore
      const at = yield* now
      const claimed = yield* queue.claimDueTargets({ owner: "w1", at, leaseUntil: at + 60_000, limit: 10, perAccount: 4 })
      assert.deepStrictEqual(claimed.map((t) => t.postId).sort(), [...created].sort())
      assert.deepStrictEqual(yield* Publisher.publishClaimed(worker("w1"), claimed), ["in_progress", "in_progress", "failed"])
      const refused = yield* getPost(caller, claimed[2]!.postId)
      assert.strictEqual(refused.targets[0]!.error?.code, "quota_exceeded")
      assert.strictEqual(fake.calls.length, 3)

      yield* Publisher.start(worker("w1"))
      yield* TestClock.adjust("6 seconds")
      for (const target of claimed.slice(0, 2)) assert.strictEqual((yield* getPost(caller, target.postId)).status, "published")
      assert.strictEqual((yield* getPost(caller, claimed[2]!.postId)).status, "failed")
      assert.strictEqual(fake.published.length, 2)
    }).pipe(Effect.provide(memoryEngine(service)))
  })

  it.effect("refuses PATCH and cancel once a target is publishing, and a stale save of the post", () => {
    const { service } = makeFakePlatform()
    return Effect.gen(function* () {
      const { caller, post } = yield* aWorkspace()
      const created = yield* post()
      const stale = Option.getOrThrow(yield* Store.use((store) => store.getPost(caller.workspaceId, Id.unchecked("post", created.id))))
      yield* Publisher.start(worker("w1"))
      yield* TestClock.adjust("1 second")

      const patch = yield* Effect.flip(Posts.updatePost(caller, created.id, { caption: "Changed" } as never))
      assert.strictEqual(patch._tag === "PostwireError" ? patch.code : patch._tag, "invalid_state")
      const cancel = yield* Effect.flip(Posts.cancelPost(caller, created.id))
      assert.strictEqual(cancel._tag === "PostwireError" ? cancel.code : cancel._tag, "invalid_state")
      const save = yield* Effect.flip(
        Store.use((store) =>
          store.savePost({ ...stale, post: { ...stale.post, caption: "Changed", version: stale.post.version + 1 } }, [])
        )
      )
      assert.strictEqual(save._tag, "VersionConflict")

      yield* TestClock.adjust("6 seconds")
      const done = yield* getPost(caller, created.id)
      assert.strictEqual(done.status, "published")
      assert.strictEqual(done.caption, "Fresh bread at 7")
    }).pipe(Effect.provide(memoryEngine(service)))
  })

  it.effect("sends nothing when a cancel lands between the claim and the start", () => {
    const { fake, service } = makeFakePlatform()
    return Effect.gen(function* () {
      const { caller, post } = yield* aWorkspace()
      const created = yield* post()
      const queue = yield* PublishingStore
      const at = yield* now
      const claimed = yield* queue.claimDueTargets({ owner: "w1", at, leaseUntil: at + 60_000, limit: 10, perAccount: 4 })
      assert.deepStrictEqual(claimed.map((t) => t.id), [created.targets[0]!.id])

      const cancelled = flat(yield* Posts.cancelPost(caller, created.id))
      assert.strictEqual(cancelled.status, "cancelled")
      assert.deepStrictEqual(yield* Publisher.publishClaimed(worker("w1"), claimed), ["lost"])
      assert.strictEqual(fake.calls.length, 0)
      assert.strictEqual((yield* getPost(caller, created.id)).status, "cancelled")
    }).pipe(Effect.provide(memoryEngine(service)))
  })

  it.effect("keeps at most the configured number of one account's targets at the platform, across instances", () => {
    const { fake, service } = makeFakePlatform()
    return Effect.gen(function* () {
      const { accounts, caller, post } = yield* aWorkspace({ accounts: 2 })
      fake.latencyMs = 2_000
      const created: Array<string> = []
      for (let i = 0; i < 6; i++) {
        created.push((yield* post({ caption: `a${i}`, accounts: [accounts[0]!] })).id)
        created.push((yield* post({ caption: `b${i}`, accounts: [accounts[1]!] })).id)
      }
      yield* Publisher.start(worker("w1", { concurrency: 10, perAccountConcurrency: 2 }))
      yield* Publisher.start(worker("w2", { concurrency: 10, perAccountConcurrency: 2 }))
      for (let i = 0; i < 60; i++) yield* TestClock.adjust("1 second")

      for (const id of created) assert.strictEqual((yield* getPost(caller, id)).status, "published")
      assert.strictEqual(fake.published.length, 12)
      assert.strictEqual(fake.maxInFlight.get(accounts[0]!), 2)
      assert.strictEqual(fake.maxInFlight.get(accounts[1]!), 2)
    }).pipe(Effect.provide(memoryEngine(service)))
  })

  it.effect("hands the platform media addresses that the server accepts until they expire", () => {
    const { fake, service } = makeFakePlatform()
    return Effect.gen(function* () {
      const { caller, mediaId, post } = yield* aWorkspace()
      yield* post()
      yield* Publisher.start(worker("w1", { mediaUrlTtlMs: 60 * 60_000 }))
      yield* TestClock.adjust("1 second")
      const url = new URL(fake.mediaUrls[0]!)
      assert.strictEqual(url.origin + url.pathname, `https://postwire.test/media-files/${caller.workspaceId}/${mediaId}`)
      const check = (at: number, sig = url.searchParams.get("sig") ?? undefined) =>
        MediaUrls.verifyMediaUrl(memoryEngineSettings.keyring, caller.workspaceId, mediaId, url.searchParams.get("exp") ?? undefined, sig, at)
      const at = yield* now
      assert.isTrue(check(at))
      assert.isFalse(check(at, "x".repeat(43)))
      assert.isFalse(MediaUrls.verifyMediaUrl(memoryEngineSettings.keyring, caller.workspaceId, "med_other", url.searchParams.get("exp") ?? undefined, url.searchParams.get("sig") ?? undefined, at))
      assert.isFalse(check(at + 61 * 60_000))
    }).pipe(Effect.provide(memoryEngine(service)))
  })

  it.effect("stops renewing the lease of a step stuck on a call that never answers, so another instance publishes the target once", () => {
    const { fake, service } = makeFakePlatform()
    return Effect.gen(function* () {
      const { caller, post } = yield* aWorkspace()
      const created = yield* post()
      // The publish goes out, and its answer never comes back: the live worker's step hangs.
      fake.vanish.set(created.targets[0]!.id, "after_publish")
      yield* Publisher.start(worker("w1", { stepTimeoutMs: 30_000 }))
      yield* TestClock.adjust("1 second")
      yield* TestClock.adjust("6 seconds")
      assert.strictEqual(fake.published.length, 1)
      assert.strictEqual((yield* getPost(caller, created.id)).status, "publishing")

      yield* Publisher.start(worker("w2"))
      for (let i = 0; i < 12; i++) yield* TestClock.adjust("10 seconds")
      const done = yield* getPost(caller, created.id)
      assert.strictEqual(done.status, "published")
      // The other instance asked about the saved container instead of publishing again.
      assert.deepStrictEqual(fake.calls.at(-1)?.state, { container: "c1" })
      assert.strictEqual(fake.published.length, 1)
    }).pipe(Effect.provide(memoryEngine(service)))
  })

  it.effect("on shutdown lets the running step finish for the grace period, then gives the target up to another instance at once", () => {
    const { fake, service } = makeFakePlatform()
    return Effect.gen(function* () {
      const { caller, post } = yield* aWorkspace()
      fake.latencyMs = 120_000
      const created = yield* post()
      const scope = yield* Scope.make()
      yield* Publisher.start(worker("w1", { shutdownGraceMs: 10_000 })).pipe(Scope.provide(scope))
      yield* TestClock.adjust("1 second")
      assert.strictEqual(fake.calls.length, 1)

      const closing = yield* Effect.forkChild(Scope.close(scope, Exit.void))
      yield* TestClock.adjust("11 seconds")
      yield* Fiber.join(closing)
      fake.latencyMs = 0
      yield* Publisher.start(worker("w2"))
      yield* TestClock.adjust("1 second")
      yield* TestClock.adjust("6 seconds")
      // Well before w1's lease (60 s) would have run out.
      assert.strictEqual((yield* getPost(caller, created.id)).status, "published")
      assert.strictEqual(fake.published.length, 1)
    }).pipe(Effect.provide(memoryEngine(service)))
  })
})
