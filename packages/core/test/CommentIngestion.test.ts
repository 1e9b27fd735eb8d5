import { assert, describe, it } from "@effect/vitest"
import { Comment } from "@postwire/domain"
import { Registry } from "@postwire/platforms"
import { Effect, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import {
  accountContext,
  BlobStore,
  CommentIngestion,
  CommentPlatform,
  CommentSchedule,
  CommentStore,
  CredentialsCipher,
  defaultSettings,
  EngineConfig,
  Ids,
  Media,
  MemoryCommentStore,
  MemoryPublishingStore,
  MemoryStore,
  PlatformClient,
  type PlatformComment,
  PlatformFailure,
  Posts,
  Publisher,
  Store,
  Workspaces
} from "../src/index.ts"
import { aPng } from "../../../test/support/Media.ts"

const secret = "test-secret-of-at-least-thirty-two-bytes"
const engineSettings = defaultSettings("https://postwire.test", secret, Registry.catalog())
const minute = 60_000
const hour = 60 * minute
const day = 24 * hour

/**
 * A platform's comment thread as its API serves it: comments people wrote, a cursor (how many
 * were read), a call counter, failures to answer, and a token refresh to hand back once.
 */
const aThread = () => {
  const thread = {
    comments: [] as Array<PlatformComment>,
    polls: [] as Array<number>,
    calls: [] as Array<number>,
    callsPerPoll: 1,
    failures: [] as Array<PlatformFailure>,
    refresh: undefined as string | undefined
  }
  const platform: CommentPlatform["Service"] = {
    // The Instagram account of these tests can do everything with comments (its plugin's rules).
    capabilities: (_platform, sandbox) => (sandbox ? Comment.sandboxCommentCapabilities : { read: true, reply: true, hide: true, delete: true, push: true }),
    poll: (input) =>
      Effect.gen(function* () {
        const at = yield* Effect.clockWith((c) => c.currentTimeMillis)
        thread.polls.push(at)
        for (let i = 0; i < thread.callsPerPoll; i++) thread.calls.push(at)
        const credentials = thread.refresh === undefined ? undefined : { accountId: input.account.id, credentials: thread.refresh }
        thread.refresh = undefined
        const failure = thread.failures.shift()
        if (failure !== undefined) return yield* Effect.fail(new PlatformFailure({ ...failure, credentials }))
        const read = typeof input.cursor === "number" ? input.cursor : 0
        return { comments: thread.comments.slice(read), cursor: thread.comments.length, calls: thread.callsPerPoll, credentials }
      }),
    reply: () => Effect.die("not used"),
    setHidden: () => Effect.die("not used"),
    remove: () => Effect.die("not used")
  }
  const say = (id: string, at: number, text = "Mantap!"): PlatformComment => {
    const comment: PlatformComment = {
      platformCommentId: id,
      parentPlatformCommentId: null,
      authorHandle: "rina.eats",
      authorDisplayName: null,
      authorPlatformId: null,
      text,
      createdAt: at,
      hidden: false,
      likeCount: null,
      fromOwner: false,
      permalink: null
    }
    thread.comments.push(comment)
    return comment
  }
  return { thread, platform, say }
}

/** The engine in memory, publishing to the simulated-like platform, reading comments from `comments`. */
const engineWith = (comments: CommentPlatform["Service"]) =>
  Layer.mergeAll(
    Ids.layerTest,
    BlobStore.layerMemory,
    EngineConfig.layer(engineSettings),
    CredentialsCipher.layer.pipe(Layer.provide(EngineConfig.layer(engineSettings))),
    Layer.succeed(CommentPlatform)(comments),
    Layer.succeed(PlatformClient)({
      publish: (input) =>
        Effect.succeed({ _tag: "Published" as const, platformPostId: `media-${input.target.id}`, permalink: null, state: null }),
      creatorInfo: () => Effect.die("not used")
    })
  ).pipe(
    Layer.provideMerge(MemoryPublishingStore.layer),
    Layer.provideMerge(MemoryCommentStore.layer),
    Layer.provideMerge(MemoryStore.layer)
  )

const settings = { ...CommentIngestion.defaults("w1"), hourlyCallBudget: 1_000 }

/** A live Instagram account with one post published now; returns what a test reads. */
const aPublishedPost = Effect.gen(function* () {
  const ws = yield* Workspaces.createWorkspace({ name: "Kopi Senja" })
  const key = yield* Workspaces.createKey(ws.id, { kind: "live", scopes: ["posts:read", "posts:write"] })
  const profile = yield* Workspaces.createProfile(ws.id, { name: "Kopi" })
  const account = yield* Workspaces.createAccount(ws.id, {
    profileId: profile.id,
    platform: "photo",
    sandbox: false,
    handle: "kopi.senja",
    credentials: '{"access_token":"first"}',
    externalId: "17841400000000001"
  })
  const caller = { workspaceId: ws.id, keyId: key.id, kind: "live" as const }
  const image = yield* Media.uploadMedia(caller, { data: Buffer.from(aPng({ width: 4, height: 4 })).toString("base64") })
  const post = yield* Posts.createPost(
    caller,
    { profile_id: profile.id, caption: "Kopi susu", media: [image.id], targets: [{ account_id: account.id }], approval: { mode: "none" } } as never
  )
  yield* Publisher.publishDueTargets(Publisher.defaults("w1"))
  const published = yield* Posts.getPost(caller, post.post.id)
  assert.strictEqual(published.post.status, "published")
  const stored = (yield* Store.use((s) => s.listEvents(ws.id))).filter((e) => e.type === "comment.created")
  assert.deepStrictEqual(stored, [])
  const createdEvents = Effect.map(Store.use((s) => s.listEvents(ws.id)), (events) => events.filter((e) => e.type === "comment.created"))
  const listed = Effect.map(CommentStore.use((s) => s.listComments(ws.id, {}, undefined, 100)), (rows) => rows.map((c) => c.platformCommentId))
  return { ws, account, caller, targetId: published.targets[0]!.id, createdEvents, listed }
})

describe("CommentIngestion", () => {
  it.effect("polls on the schedule of the post's age, and stops 30 days after publishing", () => {
    const { platform, thread } = aThread()
    return Effect.gen(function* () {
      const start = yield* Effect.clockWith((c) => c.currentTimeMillis)
      yield* aPublishedPost
      // Minute steps through the first day, hour steps after: every poll falls on a step.
      for (let t = 0; t < day; t += minute) {
        yield* TestClock.adjust(minute)
        yield* CommentIngestion.pollDueTargets(settings)
      }
      for (let t = day; t < 40 * day; t += hour) {
        yield* TestClock.adjust(hour)
        yield* CommentIngestion.pollDueTargets(settings)
      }
      assert.strictEqual(thread.polls[0], start + CommentSchedule.firstPollAfterMs)
      for (let i = 1; i < thread.polls.length; i++) {
        const previous = thread.polls[i - 1]!
        assert.strictEqual(thread.polls[i]! - previous, CommentSchedule.intervalFor(previous - start), `poll ${i}`)
      }
      const last = thread.polls[thread.polls.length - 1]!
      assert.isAtMost(last, start + CommentSchedule.stopAfterMs)
      assert.isAbove(last, start + CommentSchedule.stopAfterMs - 6 * hour - 1)
      // Every band was used: 1 minute, 5 minutes, 1 hour, 6 hours.
      const gaps = new Set(thread.polls.slice(1).map((at, i) => at - thread.polls[i]!))
      assert.deepStrictEqual([...gaps].sort((a, b) => a - b), [minute, 5 * minute, hour, 6 * hour])
    }).pipe(Effect.provide(engineWith(platform)))
  })

  it.effect("stores each new comment once with one comment.created, across repeated and pushed sightings", () => {
    const { platform, say } = aThread()
    return Effect.gen(function* () {
      const { createdEvents, listed, targetId } = yield* aPublishedPost
      const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
      say("c1", now)
      const c2 = say("c2", now + 1)
      // Meta's webhook delivers c2 before the poll sees it.
      const pushed = yield* CommentIngestion.ingestPushedComments([
        { platform: "photo", accountExternalId: "17841400000000001", platformPostId: "unknown-media", change: "added", comment: c2 }
      ])
      assert.strictEqual(pushed, 0)
      const media = `media-${targetId}`
      assert.strictEqual((yield* CommentStore.use((s) => s.findPolledTargets("photo", "17841400000000001", media))).length, 1)
      assert.strictEqual(
        yield* CommentIngestion.ingestPushedComments([
          { platform: "photo", accountExternalId: "17841400000000001", platformPostId: media, change: "added", comment: c2 }
        ]),
        1
      )
      yield* TestClock.adjust(minute)
      assert.deepStrictEqual(yield* CommentIngestion.pollDueTargets(settings), ["polled"])
      // The first poll read both; a repeated poll from the old cursor (a crash before saving) reads both again.
      yield* TestClock.adjust(minute)
      yield* CommentIngestion.pollDueTargets(settings)
      assert.deepStrictEqual((yield* listed).sort(), ["c1", "c2"])
      assert.strictEqual((yield* createdEvents).length, 2)
      assert.strictEqual(
        yield* CommentIngestion.ingestPushedComments([
          { platform: "photo", accountExternalId: "17841400000000001", platformPostId: media, change: "added", comment: c2 }
        ]),
        0
      )
      assert.strictEqual((yield* createdEvents).length, 2)
    }).pipe(Effect.provide(engineWith(platform)))
  })

  it.effect("takes over the poll of a worker that died holding it, once its lease has run out", () => {
    const { platform, say, thread } = aThread()
    return Effect.gen(function* () {
      const { createdEvents, listed } = yield* aPublishedPost
      const start = yield* Effect.clockWith((c) => c.currentTimeMillis)
      say("c1", start)
      yield* TestClock.adjust(minute)
      // w1 claims the due poll and dies before asking the platform.
      const claimed = yield* CommentStore.use((s) =>
        s.claimDuePolls({ owner: "w1", at: start + minute, leaseUntil: start + minute + settings.leaseMs, limit: 10 })
      )
      assert.strictEqual(claimed.length, 1)
      const w2 = { ...settings, owner: "w2" }
      assert.deepStrictEqual(yield* CommentIngestion.pollDueTargets(w2), [])
      assert.strictEqual(thread.polls.length, 0)
      yield* TestClock.adjust(settings.leaseMs)
      assert.deepStrictEqual(yield* CommentIngestion.pollDueTargets(w2), ["polled"])
      // w1 comes back and finishes its poll late: the comment is stored once, its cursor is not saved.
      assert.deepStrictEqual(yield* CommentIngestion.pollTarget(settings, claimed[0]!), "lost")
      assert.deepStrictEqual(yield* listed, ["c1"])
      assert.strictEqual((yield* createdEvents).length, 1)
    }).pipe(Effect.provide(engineWith(platform)))
  })

  it.effect("spends at most the account's hourly call budget, and goes on in the next hour", () => {
    const { platform, say, thread } = aThread()
    thread.callsPerPoll = 2
    const budget = { ...settings, hourlyCallBudget: 5 }
    return Effect.gen(function* () {
      const { listed } = yield* aPublishedPost
      const start = yield* Effect.clockWith((c) => c.currentTimeMillis)
      for (let m = 1; m <= 30; m++) {
        say(`c${m}`, start + m * minute)
        yield* TestClock.adjust(minute)
        yield* CommentIngestion.pollDueTargets(budget)
      }
      const window = CommentSchedule.budgetWindow(start + minute)
      const inWindow = thread.calls.filter((at) => CommentSchedule.budgetWindow(at) === window)
      // A poll takes one call up front and adds its second after: at most one poll's extra call over.
      assert.isAtMost(inWindow.length, budget.hourlyCallBudget + thread.callsPerPoll - 1)
      assert.isAtLeast(inWindow.length, budget.hourlyCallBudget)
      const readSoFar = (yield* listed).length
      assert.isBelow(readSoFar, 30)
      yield* TestClock.adjust(CommentSchedule.budgetWindowEnd(start + 30 * minute) - (start + 30 * minute))
      yield* CommentIngestion.pollDueTargets(budget)
      assert.strictEqual((yield* listed).length, 30)
    }).pipe(Effect.provide(engineWith(platform)))
  })

  it.effect("backs off while the platform is unavailable, and keeps the tokens it refreshed", () => {
    const { platform, say, thread } = aThread()
    const unavailable = new PlatformFailure({ code: "platform_unavailable", platformCode: "500", retryable: true })
    thread.failures.push(unavailable, unavailable, unavailable)
    thread.refresh = '{"access_token":"second"}'
    return Effect.gen(function* () {
      const { account, listed, ws } = yield* aPublishedPost
      const start = yield* Effect.clockWith((c) => c.currentTimeMillis)
      say("c1", start)
      for (let m = 0; m < 20; m++) {
        yield* TestClock.adjust(minute)
        yield* CommentIngestion.pollDueTargets(settings)
      }
      const gaps = thread.polls.slice(1).map((at, i) => (at - thread.polls[i]!) / minute)
      assert.deepStrictEqual(gaps.slice(0, 4), [1, 2, 4, 1])
      assert.deepStrictEqual(yield* listed, ["c1"])
      const stored = Option.getOrThrow(yield* Store.use((s) => s.getAccount(ws.id, account.id))).credentials!
      const opened = (yield* CredentialsCipher).open(stored, accountContext(ws.id, account.id))
      assert.deepStrictEqual(opened, Option.some('{"access_token":"second"}'))
    }).pipe(Effect.provide(engineWith(platform)))
  })

  it.effect("does not poll again before the time a platform's rate limit named (Meta's Business Use Case throttle)", () => {
    const { platform, say, thread } = aThread()
    return Effect.gen(function* () {
      const { listed } = yield* aPublishedPost
      const start = yield* Effect.clockWith((c) => c.currentTimeMillis)
      say("c1", start)
      thread.failures.push(
        new PlatformFailure({ code: "platform_unavailable", platformCode: "80002", retryable: true, retryAt: start + 45 * minute })
      )
      for (let m = 0; m < 60; m++) {
        yield* TestClock.adjust(minute)
        yield* CommentIngestion.pollDueTargets(settings)
      }
      assert.strictEqual(thread.polls[0], start + minute)
      // Not the first backoff step (1 minute later): the time the platform gave.
      assert.strictEqual(thread.polls[1], start + 45 * minute)
      assert.deepStrictEqual(yield* listed, ["c1"])
    }).pipe(Effect.provide(engineWith(platform)))
  })

  it.effect("marks the account needs_reconnect once when the platform refuses its token, and polls again after", () => {
    const { platform, say, thread } = aThread()
    const refused = new PlatformFailure({ code: "token_expired", platformCode: "190", retryable: false, needsReconnect: true })
    thread.failures.push(refused, refused)
    return Effect.gen(function* () {
      const { account, listed, ws } = yield* aPublishedPost
      say("c1", yield* Effect.clockWith((c) => c.currentTimeMillis))
      const reconnectEvents = Effect.map(Store.use((s) => s.listEvents(ws.id)), (events) =>
        events.filter((e) => e.type === "account.needs_reconnect")
      )
      yield* TestClock.adjust(minute)
      assert.deepStrictEqual(yield* CommentIngestion.pollDueTargets(settings), ["failed"])
      const marked = Option.getOrThrow(yield* Store.use((s) => s.getAccount(ws.id, account.id)))
      assert.strictEqual(marked.status, "needs_reconnect")
      const [event] = yield* reconnectEvents
      assert.deepStrictEqual(event?.data, {
        account_id: account.id,
        profile_id: marked.profileId,
        platform: "photo",
        handle: "kopi.senja",
        reason: "token_expired"
      })
      // A second refusal while it waits for the person changes nothing more.
      for (let m = 0; m < 3 && thread.failures.length > 0; m++) {
        yield* TestClock.adjust(2 * minute)
        yield* CommentIngestion.pollDueTargets(settings)
      }
      assert.strictEqual(thread.failures.length, 0)
      assert.strictEqual((yield* reconnectEvents).length, 1)
      // Once the platform answers again (the person reconnected), the comments come in.
      for (let m = 0; m < 10; m++) {
        yield* TestClock.adjust(minute)
        yield* CommentIngestion.pollDueTargets(settings)
      }
      assert.deepStrictEqual(yield* listed, ["c1"])
    }).pipe(Effect.provide(engineWith(platform)))
  })
})
