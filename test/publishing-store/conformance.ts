/**
 * The one specification every `PublishingStore` passes: in memory, on PGlite and on PostgreSQL.
 * One store serves the whole suite. Claims look across workspaces, so each case lives in its own
 * era: a stretch of time earlier than every case before it. Whatever an earlier case left due
 * (or leased) lies in a later case's future, so no case ever claims another's targets.
 */
import { Ids as Id } from "@postwire/domain"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, type Layer, Option } from "effect"
import {
  type ClaimRequest,
  type Completion,
  type OutboxEvent,
  type PostAggregate,
  PublishingStore,
  type StepsRequest,
  Store,
  type TargetRecord,
  TargetStatus,
  targetKey
} from "@postwire/core"
import { aMedia, aPost, aTarget, aWorkspaceWithAccounts, anEvent, anId, t0 } from "../store-conformance/builders.ts"

const day = 24 * 60 * 60 * 1000
let eras = 0

/** The start of a fresh era, earlier than every era handed out before. */
const anEra = () => t0 - ++eras * 30 * day

/** A workspace with a profile and `n` accounts. */
const aSetup = (n = 1) =>
  Effect.gen(function* () {
    const store = yield* Store
    const queue = yield* PublishingStore
    const { accounts, profile, workspace } = yield* aWorkspaceWithAccounts(n)
    /** Stores a post whose targets go to `accounts[i]` as given, with a status derived from them. */
    const post = (targets: ReadonlyArray<Partial<TargetRecord> & { readonly account?: number }>) =>
      Effect.gen(function* () {
        const aggregate = aPost(workspace.id, {
          profileId: profile.id,
          status: targets[0]?.status ?? "queued",
          targets: targets.map(({ account, ...fields }) =>
            aTarget({ platform: "textpost", options: {}, accountId: accounts[account ?? 0]!.id, status: "queued", ...fields })
          )
        })
        yield* store.insertPost(aggregate, [])
        return aggregate
      })
    const reload = (aggregate: PostAggregate) =>
      Effect.map(store.getPost(workspace.id, aggregate.post.id), Option.getOrThrow)
    /** Starts (or resumes) one claimed target on its own: a claim of one. */
    const start = (target: TargetRecord, owner: string, at: number, events: ReadonlyArray<OutboxEvent> = []) =>
      Effect.map(startAll([target], owner, at, () => events), ([step]) => step!)
    return { store, queue, workspaceId: workspace.id, accounts, profileId: profile.id, post, reload, start }
  })

/** Starts the targets of one claim together, with the first-start events `events` gives. */
const startAll = (
  targets: ReadonlyArray<TargetRecord>,
  owner: string,
  at: number,
  events: StepsRequest["firstStartEvents"] = () => [],
  quotaWindow = { from: at - day + 1, to: at + 1 }
) => PublishingStore.use((queue) => queue.startSteps({ owner, at, targets, quotaWindow, firstStartEvents: events }))

const claim = (overrides: Partial<ClaimRequest> & { readonly owner: string; readonly at: number }) =>
  PublishingStore.use((queue) =>
    queue.claimDueTargets({ leaseUntil: overrides.at + 60_000, limit: 100, perAccount: 100, ...overrides })
  )

const ids = (targets: ReadonlyArray<{ readonly id: string }>) => targets.map((t) => t.id)

const sorted = (list: ReadonlyArray<string>) => [...list].sort()

const published = (at: number, events: ReadonlyArray<OutboxEvent> = []): Completion => ({
  at,
  outcome: { _tag: "Published", permalink: "https://www.threads.net/@acme/post/C1", publishedAt: at, platformState: { container_id: "c1" } },
  events,
  postStatus: TargetStatus.derivePostStatus
})

const tiktokLink = "https://www.tiktok.com/@maya.bakes/video/7301234567890123401"

/** A target published while its platform still kept the public address back. */
const aPublishedPending = (
  setup: Effect.Success<ReturnType<typeof aSetup>>,
  publishedAt: number,
  askAt: number,
  account = 0
) =>
  Effect.gen(function* () {
    const aggregate = yield* setup.post([{ dueAt: publishedAt - 10, account }])
    const target = aggregate.targets[0]!
    yield* claim({ owner: "w-pub", at: publishedAt - 10, perAccount: 1_000 })
    yield* setup.start(target, "w-pub", publishedAt - 5)
    const completed = yield* setup.queue.completeTarget(targetKey(target), "w-pub", {
      at: publishedAt,
      outcome: {
        _tag: "Published",
        permalink: null,
        publishedAt,
        platformState: { publish_id: "v_pub_url~v2-1.7300000001" },
        permalinkAskAt: askAt
      },
      events: [],
      postStatus: TargetStatus.derivePostStatus
    })
    assert.isTrue(completed)
    return aggregate
  })

const claimPermalinks = (owner: string, at: number, limit = 100) =>
  PublishingStore.use((queue) => queue.claimPendingPermalinks({ owner, at, leaseUntil: at + 300_000, limit }))

/**
 * Registers the conformance suite for one implementation.
 *
 * @param makeLayer builds the store under test (with the `Store` it shares tables with) once.
 */
export const publishingStoreConformance = <E>(
  name: string,
  makeLayer: () => Layer.Layer<Store | PublishingStore, E>
): void =>
  layer(makeLayer(), { excludeTestServices: true })(`PublishingStore conformance: ${name}`, (it) => {
    describe("claiming due targets", () => {
      it.effect("claims queued targets and scheduled ones whose time has come, earliest first, and nothing else", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { post } = yield* aSetup()
          const late = yield* post([{ status: "queued", dueAt: era + 2_000 }])
          const early = yield* post([{ status: "scheduled", dueAt: era + 1_000 }])
          const future = yield* post([{ status: "scheduled", dueAt: era + 60_000 }])
          yield* post([{ status: "awaiting_approval", dueAt: null }])
          yield* post([{ status: "published", dueAt: era }])
          yield* post([{ status: "cancelled", dueAt: era }])
          yield* post([{ status: "failed", dueAt: era }])

          const claimed = yield* claim({ owner: anId("w"), at: era + 5_000 })
          assert.deepStrictEqual(ids(claimed), [early.targets[0]!.id, late.targets[0]!.id])
          assert.isTrue(claimed.every((t) => t.leaseUntil === era + 65_000))
          // Claiming takes the lease only; the status changes when publishing starts.
          assert.deepStrictEqual(claimed.map((t) => t.status), ["scheduled", "queued"])

          const later = yield* claim({ owner: anId("w"), at: era + 60_000 })
          assert.deepStrictEqual(ids(later), [future.targets[0]!.id])
        }))

      it.effect("never hands a leased target to another worker until its lease has run out", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { post } = yield* aSetup()
          const queued = yield* post([{ dueAt: era }])
          const crashed = anId("w")
          assert.deepStrictEqual(ids(yield* claim({ owner: crashed, at: era })), ids(queued.targets))

          assert.deepStrictEqual(yield* claim({ owner: anId("w"), at: era + 59_999 }), [])
          const taken = yield* claim({ owner: "w-next", at: era + 60_000 })
          assert.deepStrictEqual(ids(taken), ids(queued.targets))
          assert.strictEqual(taken[0]!.leaseOwner, "w-next")
        }))

      it.effect("claims at most `limit` targets", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { post } = yield* aSetup()
          for (let i = 0; i < 5; i++) yield* post([{ dueAt: era + i }])
          const first = yield* claim({ owner: anId("w"), at: era + 10, limit: 2 })
          const second = yield* claim({ owner: anId("w"), at: era + 10, limit: 10 })
          assert.strictEqual(first.length, 2)
          assert.strictEqual(second.length, 3)
          assert.deepStrictEqual(sorted([...ids(first), ...ids(second)]).length, new Set([...ids(first), ...ids(second)]).size)
        }))

      it.effect("keeps at most `perAccount` of one account's targets leased, counting every worker's leases", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { post, queue, start } = yield* aSetup(2)
          for (let i = 0; i < 4; i++) yield* post([{ dueAt: era + i, account: 0 }])
          const other = yield* post([{ dueAt: era + 10, account: 1 }])

          const first = yield* claim({ owner: "w1", at: era + 100, perAccount: 2, limit: 3 })
          assert.strictEqual(first.filter((t) => t.id !== other.targets[0]!.id).length, 2)
          assert.include(ids(first), other.targets[0]!.id)
          assert.deepStrictEqual(yield* claim({ owner: "w2", at: era + 100, perAccount: 2 }), [])

          // One finishes: one more of that account may go.
          const done = first.find((t) => t.id !== other.targets[0]!.id)!
          yield* start(done, "w1", era + 101)
          assert.isTrue(yield* queue.completeTarget(targetKey(done), "w1", published(era + 102)))
          assert.strictEqual((yield* claim({ owner: "w2", at: era + 103, perAccount: 2 })).length, 1)
        }))

      it.effect("never claims the same target twice when two workers claim at the same moment", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { post } = yield* aSetup(20)
          for (let i = 0; i < 60; i++) yield* post([{ dueAt: era + i, account: i % 20 }])
          const worker = (owner: string) =>
            Effect.gen(function* () {
              const mine: Array<string> = []
              for (let round = 0; round < 8; round++) mine.push(...ids(yield* claim({ owner, at: era + 100, limit: 5 })))
              return mine
            })
          const [first, second] = yield* Effect.all([worker("w-a"), worker("w-b")], { concurrency: "unbounded" })
          const sweep = ids(yield* claim({ owner: "w-c", at: era + 100 }))
          const all = [...first!, ...second!, ...sweep]
          assert.strictEqual(new Set(all).size, all.length)
          assert.strictEqual(all.length, 60)
        }))
    })

    describe("publishing a target", () => {
      it.effect("moves the target to publishing, writes post.publishing for the post's first target only, and bumps the post", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { post, reload, start, store, workspaceId } = yield* aSetup(2)
          const aggregate = yield* post([
            { dueAt: era, account: 0 },
            { dueAt: era, account: 1 }
          ])
          yield* claim({ owner: "w1", at: era })
          const [a, b] = aggregate.targets
          const firstEvent = anEvent(workspaceId, { type: "post.publishing", createdAt: era })

          const started = Option.getOrThrow(yield* start(a!, "w1", era + 1, [firstEvent]))
          const afterFirst = yield* reload(aggregate)
          assert.deepStrictEqual(started.post, afterFirst.post)
          assert.deepStrictEqual(started.targets, afterFirst.targets)
          assert.isTrue(started.started)
          assert.deepStrictEqual(started.events, [firstEvent])
          assert.strictEqual(afterFirst.targets.find((t) => t.id === a!.id)!.status, "publishing")
          assert.strictEqual(afterFirst.post.status, "queued")
          assert.strictEqual(afterFirst.post.version, aggregate.post.version + 1)

          const second = Option.getOrThrow(yield* start(b!, "w1", era + 2, [anEvent(workspaceId, { type: "post.publishing" })]))
          assert.deepStrictEqual(second.events, [])
          // A target already publishing is not started again.
          assert.isTrue(Option.isNone(yield* start(a!, "w1", era + 3, [anEvent(workspaceId, { type: "post.publishing" })])))

          const now = yield* reload(aggregate)
          assert.strictEqual(now.post.status, "publishing")
          assert.strictEqual(now.post.version, aggregate.post.version + 2)
          assert.strictEqual(now.post.updatedAt, era + 2)
          assert.deepStrictEqual(yield* store.listEvents(workspaceId), [firstEvent])
        }))

      it.effect("hands the publisher the post as it is when the target starts, with an edit made after the claim", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { post, reload, start, store } = yield* aSetup()
          const aggregate = yield* post([{ dueAt: era }])
          yield* claim({ owner: "w1", at: era })
          const read = yield* reload(aggregate)
          yield* store.savePost({ ...read, post: { ...read.post, caption: "Edited", version: read.post.version + 1 } }, [])

          const started = Option.getOrThrow(yield* start(aggregate.targets[0]!, "w1", era + 1))
          assert.strictEqual(started.post.caption, "Edited")
          assert.strictEqual(started.post.version, read.post.version + 2)
        }))

      it.effect("starts nothing for a worker whose lease was taken over, or for a target cancelled since the claim", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { post, reload, start, store } = yield* aSetup()
          const taken = yield* post([{ dueAt: era }])
          yield* claim({ owner: "w-old", at: era })
          yield* claim({ owner: "w-new", at: era + 60_000 })
          assert.isTrue(Option.isNone(yield* start(taken.targets[0]!, "w-old", era + 60_001)))

          const cancelled = yield* post([{ dueAt: era + 70_000 }])
          yield* claim({ owner: "w1", at: era + 70_000 })
          const current = yield* reload(cancelled)
          yield* store.savePost(
            {
              ...current,
              post: { ...current.post, status: "cancelled", version: current.post.version + 1 },
              targets: current.targets.map((t) => ({ ...t, status: "cancelled" as const, leaseOwner: null, leaseUntil: null }))
            },
            []
          )
          assert.isTrue(Option.isNone(yield* start(cancelled.targets[0]!, "w1", era + 70_001)))
          assert.strictEqual((yield* reload(cancelled)).targets[0]!.status, "cancelled")
        }))

      it.effect("writes no post.publishing for a retried target: the post started before", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { post, start, store, workspaceId } = yield* aSetup()
          const retried = yield* post([{ dueAt: era, attempts: 1 }])
          yield* claim({ owner: "w1", at: era })
          const started = yield* start(retried.targets[0]!, "w1", era, [anEvent(workspaceId, { type: "post.publishing" })])
          assert.isTrue(Option.isSome(started) && started.value.started && started.value.events.length === 0)
          assert.deepStrictEqual(yield* store.listEvents(workspaceId), [])
        }))

      it.effect("starts a claim's targets together: each post's status derived once from all its targets, its version bumped once, one post.publishing per post", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { accounts, post, reload, store, workspaceId } = yield* aSetup(3)
          const both = yield* post([
            { dueAt: era, account: 0 },
            { dueAt: era, account: 1 }
          ])
          const half = yield* post([
            { status: "queued", dueAt: era, account: 2 },
            { status: "scheduled", dueAt: era + 60_000, account: 2 }
          ])
          const claimed = yield* claim({ owner: "w1", at: era })
          assert.deepStrictEqual(sorted(ids(claimed)), sorted([...ids(both.targets), half.targets[0]!.id]))
          const asked: Array<{ readonly target: string; readonly accounts: ReadonlyArray<string> }> = []
          const steps = yield* startAll(claimed, "w1", era + 1, (target, read) => {
            asked.push({ target: target.id, accounts: read.accounts.map((a) => a.id) })
            return [anEvent(workspaceId, { type: "post.publishing", createdAt: era + 1, data: { target_id: target.id } })]
          })

          const [afterBoth, afterHalf] = [yield* reload(both), yield* reload(half)]
          assert.strictEqual(afterBoth.post.status, "publishing")
          assert.strictEqual(afterBoth.post.version, both.post.version + 1)
          assert.strictEqual(afterBoth.post.updatedAt, era + 1)
          assert.deepStrictEqual(afterHalf.targets.map((t) => t.status), ["publishing", "scheduled"])
          assert.strictEqual(afterHalf.post.status, "scheduled")
          assert.strictEqual(afterHalf.post.version, half.post.version + 1)
          // Each step sees its post as the claim left it, with the accounts of all its targets.
          for (const [i, target] of claimed.entries()) {
            const step = Option.getOrThrow(steps[i]!)
            const after = target.postId === both.post.id ? afterBoth : afterHalf
            assert.deepStrictEqual(step.post, after.post)
            assert.deepStrictEqual(step.targets, after.targets)
            assert.isTrue(step.started)
            assert.deepStrictEqual(
              step.accounts.map((a) => a.id),
              target.postId === both.post.id ? [accounts[0]!.id, accounts[1]!.id] : [accounts[2]!.id]
            )
          }
          // One post.publishing per post, for its first target in the claim's order.
          const firsts = [claimed.find((t) => t.postId === both.post.id)!, half.targets[0]!]
          assert.deepStrictEqual(sorted(asked.map((a) => a.target)), sorted(ids(firsts)))
          const events = yield* store.listEvents(workspaceId)
          assert.deepStrictEqual(sorted(events.map((e) => e.data.target_id as string)), sorted(ids(firsts)))
          assert.deepStrictEqual(
            steps.flatMap((step) => Option.getOrThrow(step).events),
            claimed.flatMap((target) => events.filter((e) => e.data.target_id === target.id))
          )
        }))

      it.effect("resumes a target claimed while publishing: nothing written, no quota usage, the post as it is", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { post, queue, reload, start, store, workspaceId } = yield* aSetup()
          const aggregate = yield* post([{ dueAt: era }])
          yield* claim({ owner: "w1", at: era })
          yield* start(aggregate.targets[0]!, "w1", era, [anEvent(workspaceId, { type: "post.publishing" })])
          const progress = { at: era + 1, platformState: { container: "c1" }, dueAt: era + 5_000 }
          assert.isTrue(yield* queue.saveProgress(targetKey(aggregate.targets[0]!), "w1", progress))
          const before = yield* reload(aggregate)

          const [resumed] = yield* claim({ owner: "w2", at: era + 5_000 })
          assert.strictEqual(resumed!.status, "publishing")
          const step = Option.getOrThrow(yield* start(resumed!, "w2", era + 5_001, [anEvent(workspaceId, { type: "post.publishing" })]))
          assert.isFalse(step.started)
          assert.isNull(step.usage)
          assert.deepStrictEqual(step.events, [])
          assert.deepStrictEqual(step.targets[0]!.platformState, { container: "c1" })
          const after = yield* reload(aggregate)
          assert.deepStrictEqual(step.post, before.post)
          assert.deepStrictEqual(after.post, before.post)
          assert.strictEqual((yield* store.listEvents(workspaceId)).length, 1)
          // A target that left `publishing` meanwhile is not resumed.
          assert.isTrue(yield* queue.completeTarget(targetKey(resumed!), "w2", published(era + 5_002)))
          assert.isTrue(Option.isNone(yield* start(resumed!, "w2", era + 5_003)))
        }))

      it.effect("answers None for a target whose lease was taken over or that was cancelled, and starts the rest of the claim", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { post, reload, store } = yield* aSetup()
          const kept = yield* post([{ dueAt: era }])
          const cancelled = yield* post([{ dueAt: era + 1 }])
          const taken = yield* post([{ dueAt: era + 2 }])
          const claimed = yield* claim({ owner: "w1", at: era + 2, leaseUntil: era + 100 })
          assert.strictEqual(claimed.length, 3)
          const current = yield* reload(cancelled)
          yield* store.savePost(
            {
              ...current,
              post: { ...current.post, status: "cancelled", version: current.post.version + 1 },
              targets: current.targets.map((t) => ({ ...t, status: "cancelled" as const, leaseOwner: null, leaseUntil: null }))
            },
            []
          )
          const takenOver = yield* claim({ owner: "w2", at: era + 100 })
          assert.deepStrictEqual(sorted(ids(takenOver)), sorted([kept.targets[0]!.id, taken.targets[0]!.id]))

          const steps = yield* startAll(claimed, "w1", era + 101)
          assert.deepStrictEqual(steps.map(Option.isSome), [false, false, false])
          const mine = yield* claim({ owner: "w1", at: era + 60_100 })
          assert.deepStrictEqual(sorted(ids(mine)), sorted([kept.targets[0]!.id, taken.targets[0]!.id]))
          const again = yield* startAll([...mine, cancelled.targets[0]!], "w1", era + 60_101)
          assert.deepStrictEqual(again.map(Option.isSome), [true, true, false])
          assert.strictEqual((yield* reload(cancelled)).targets[0]!.status, "cancelled")
          assert.strictEqual((yield* reload(kept)).targets[0]!.status, "publishing")
        }))

      it.effect("hands each step its post's media items and its targets' accounts as the Store reads them, leaving out what is missing", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { accounts, profileId, reload, store, workspaceId } = yield* aSetup(2)
          const ready = aMedia(workspaceId)
          const failed = aMedia(workspaceId, { status: "failed", error: { code: "unsupported_format", details: { mime: "image/heic" } } })
          yield* store.createMedia(ready)
          yield* store.createMedia(failed)
          const missing = Id.unchecked("media", anId("med"))
          const aggregate = aPost(workspaceId, {
            profileId,
            media: [failed.id, missing, ready.id],
            status: "queued",
            targets: [0, 1].map((i) =>
              aTarget({ platform: "textpost", options: {}, accountId: accounts[i]!.id, status: "queued", dueAt: era })
            )
          })
          yield* store.insertPost(aggregate, [])
          const claimed = yield* claim({ owner: "w1", at: era })
          const [step] = yield* startAll(claimed.slice(0, 1), "w1", era + 1)
          const read = yield* reload(aggregate)
          assert.deepStrictEqual(Option.getOrThrow(step!).media, yield* store.getMediaItems(workspaceId, read.post.media))
          assert.deepStrictEqual(Option.getOrThrow(step!).media.map((m) => m.id), [failed.id, ready.id])
          assert.deepStrictEqual(
            Option.getOrThrow(step!).accounts,
            yield* store.getAccounts(workspaceId, [accounts[0]!.id, accounts[1]!.id])
          )
        }))

      it.effect("writes nothing when a first start's event cannot be written", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { post, reload, store, workspaceId } = yield* aSetup()
          const first = yield* post([{ dueAt: era }])
          const second = yield* post([{ dueAt: era + 1 }])
          const [a, b] = yield* claim({ owner: "w1", at: era + 1 })
          const event = anEvent(workspaceId, { type: "post.publishing" })
          yield* startAll([a!], "w1", era + 2, () => [event])
          const failedStart = yield* Effect.flip(startAll([b!], "w1", era + 3, () => [event]))
          assert.strictEqual(failedStart._tag, "StoreError")
          const after = yield* reload(second)
          assert.strictEqual(after.targets[0]!.status, "queued")
          assert.strictEqual(after.post.version, second.post.version)
          assert.strictEqual((yield* reload(first)).targets[0]!.status, "publishing")
          assert.strictEqual((yield* store.listEvents(workspaceId)).length, 1)
        }))

      it.effect("saves a step's platform state, gives the target up, and offers it again when the next step is due", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { post, queue, reload, start } = yield* aSetup()
          const aggregate = yield* post([{ dueAt: era }])
          const key = targetKey(aggregate.targets[0]!)
          yield* claim({ owner: "w1", at: era })
          yield* start(aggregate.targets[0]!, "w1", era)
          const before = yield* reload(aggregate)

          assert.isFalse(yield* queue.saveProgress(key, "w-other", { at: era + 1, platformState: { x: 1 }, dueAt: era + 5_000 }))
          assert.isTrue(
            yield* queue.saveProgress(key, "w1", {
              at: era + 1,
              platformState: { container_id: "17900001", children: [], started_at: era },
              dueAt: era + 5_000
            })
          )
          const after = yield* reload(aggregate)
          const target = after.targets[0]!
          assert.deepStrictEqual(target.platformState, { container_id: "17900001", children: [], started_at: era })
          assert.strictEqual(target.status, "publishing")
          assert.strictEqual(target.leaseOwner, null)
          assert.strictEqual(target.dueAt, era + 5_000)
          assert.strictEqual(after.post.version, before.post.version + 1)

          assert.deepStrictEqual(yield* claim({ owner: "w2", at: era + 4_999 }), [])
          const resumed = yield* claim({ owner: "w2", at: era + 5_000 })
          assert.deepStrictEqual(resumed[0]!.platformState, target.platformState)
          assert.strictEqual(resumed[0]!.status, "publishing")
        }))

      it.effect("saves a step's state keeping the lease when asked: nobody else takes the target until the lease runs out", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { post, queue, reload, start } = yield* aSetup()
          const aggregate = yield* post([{ dueAt: era }])
          const key = targetKey(aggregate.targets[0]!)
          yield* claim({ owner: "w1", at: era, leaseUntil: era + 60_000 })
          yield* start(aggregate.targets[0]!, "w1", era)
          const before = yield* reload(aggregate)

          assert.isFalse(
            yield* queue.saveProgress(key, "w-other", { at: era + 1, platformState: { x: 1 }, dueAt: era + 10, keepLease: true })
          )
          assert.isTrue(
            yield* queue.saveProgress(key, "w1", { at: era + 1, platformState: { step: 2 }, dueAt: era + 10, keepLease: true })
          )
          const after = yield* reload(aggregate)
          const target = after.targets[0]!
          assert.deepStrictEqual(target.platformState, { step: 2 })
          assert.strictEqual(target.status, "publishing")
          assert.strictEqual(target.leaseOwner, "w1")
          assert.strictEqual(target.dueAt, era + 10)
          assert.strictEqual(after.post.version, before.post.version + 1)

          // Due, but held: only once the lease runs out (the worker died) does another take it, where it was left.
          assert.deepStrictEqual(yield* claim({ owner: "w2", at: era + 1_000 }), [])
          const resumed = yield* claim({ owner: "w2", at: era + 60_000 })
          assert.deepStrictEqual(resumed[0]!.platformState, { step: 2 })
          // The first worker's next write is refused: the target is the other's now.
          assert.isFalse(yield* queue.saveCheckpoint(key, "w1", { at: era + 60_001, platformState: { step: 3 } }))
        }))

      it.effect("counts the due targets nobody holds and says since when the oldest is due", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { post, queue } = yield* aSetup()
          yield* post([{ dueAt: era }, { dueAt: era + 1_000 }, { dueAt: era + 5_000 }])
          assert.deepStrictEqual(yield* queue.dueTargets(era - 1), { count: 0, oldestDueAt: null })
          assert.deepStrictEqual(yield* queue.dueTargets(era + 2_000), { count: 2, oldestDueAt: era })
          const [claimed] = yield* claim({ owner: "w1", at: era + 2_000, limit: 1 })
          assert.strictEqual(claimed!.dueAt, era)
          // Held by a worker, the oldest no longer waits; once its lease runs out it does again.
          assert.deepStrictEqual(yield* queue.dueTargets(era + 2_000), { count: 1, oldestDueAt: era + 1_000 })
          assert.deepStrictEqual(yield* queue.dueTargets(era + 2_000 + 60_000), { count: 3, oldestDueAt: era })
        }))

      it.effect("saves a checkpoint before a publish keeping the lease, and counts the target as unconfirmed once nobody holds it", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { post, queue, reload, start } = yield* aSetup()
          const aggregate = yield* post([{ dueAt: era }])
          const key = targetKey(aggregate.targets[0]!)
          yield* claim({ owner: "w1", at: era })
          yield* start(aggregate.targets[0]!, "w1", era)
          const before = yield* reload(aggregate)
          const baseline = yield* queue.unconfirmedTargets(era + 1)
          const sent = { container_id: "17900009", children: [], started_at: era, publish_sent_at: era + 1 }

          assert.isFalse(yield* queue.saveCheckpoint(key, "w-other", { at: era + 1, platformState: { lost: true } }))
          assert.isTrue(yield* queue.saveCheckpoint(key, "w1", { at: era + 1, platformState: sent }))
          const after = yield* reload(aggregate)
          assert.deepStrictEqual(after.targets[0]!.platformState, sent)
          assert.strictEqual(after.targets[0]!.status, "publishing")
          assert.strictEqual(after.targets[0]!.leaseOwner, "w1")
          assert.strictEqual(after.post.version, before.post.version + 1)
          // Held by its worker, it is being asked right now: not waiting.
          assert.deepStrictEqual(yield* queue.unconfirmedTargets(era + 2), baseline)

          // A second checkpoint of the same attempt keeps the first time.
          assert.isTrue(yield* queue.saveCheckpoint(key, "w1", { at: era + 3, platformState: sent }))
          assert.isTrue(
            yield* queue.saveProgress(key, "w1", { at: era + 4, platformState: { ...sent, unanswered: 1 }, dueAt: era + 10 })
          )
          const waiting = yield* queue.unconfirmedTargets(era + 5)
          assert.strictEqual(waiting.count, baseline.count + 1)
          assert.strictEqual(waiting.oldestSince, era + 1)

          const [resumed] = yield* claim({ owner: "w2", at: era + 10 })
          assert.strictEqual(resumed!.id, key.targetId)
          assert.strictEqual(resumed!.unconfirmedSince, era + 1)
          assert.deepStrictEqual(resumed!.platformState, { ...sent, unanswered: 1 })
          assert.deepStrictEqual(yield* queue.unconfirmedTargets(era + 11), baseline)

          assert.isTrue(yield* queue.completeTarget(key, "w2", published(era + 12)))
          assert.deepStrictEqual(yield* queue.unconfirmedTargets(era + 13), baseline)
          const done = yield* reload(aggregate)
          assert.strictEqual(done.targets[0]!.status, "published")
          assert.strictEqual(done.targets[0]!.unconfirmedSince ?? null, null)
        }))

      it.effect("never counts a target whose worker died while it was unconfirmed as held, once the lease ran out", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { post, queue, start } = yield* aSetup()
          const aggregate = yield* post([{ dueAt: era }])
          const key = targetKey(aggregate.targets[0]!)
          yield* claim({ owner: "w1", at: era, leaseUntil: era + 1_000 })
          yield* start(aggregate.targets[0]!, "w1", era)
          const baseline = yield* queue.unconfirmedTargets(era + 1)
          assert.isTrue(yield* queue.saveCheckpoint(key, "w1", { at: era + 1, platformState: { container_id: "c" } }))
          assert.strictEqual((yield* queue.unconfirmedTargets(era + 999)).count, baseline.count)
          assert.strictEqual((yield* queue.unconfirmedTargets(era + 1_000)).count, baseline.count + 1)
          const [taken] = yield* claim({ owner: "w2", at: era + 1_000 })
          assert.strictEqual(taken!.unconfirmedSince, era + 1)
        }))

      it.effect("records a published target with its event and the post's status, and refuses a worker that lost the lease", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { post, queue, reload, start, store, workspaceId } = yield* aSetup()
          const aggregate = yield* post([{ dueAt: era }])
          const key = targetKey(aggregate.targets[0]!)
          yield* claim({ owner: "w1", at: era })
          yield* start(aggregate.targets[0]!, "w1", era)
          const event = anEvent(workspaceId, { type: "post.published" })

          assert.isFalse(yield* queue.completeTarget(key, "w-other", published(era + 1, [anEvent(workspaceId)])))
          assert.isTrue(yield* queue.completeTarget(key, "w1", published(era + 2, [event])))
          const after = yield* reload(aggregate)
          assert.deepStrictEqual(after.targets[0], {
            ...aggregate.targets[0]!,
            status: "published",
            permalink: "https://www.threads.net/@acme/post/C1",
            publishedAt: era + 2,
            attempts: 1,
            platformState: { container_id: "c1" },
            dueAt: null,
            leaseOwner: null,
            leaseUntil: null,
            updatedAt: era + 2
          })
          assert.strictEqual(after.post.status, "published")
          assert.strictEqual(after.post.updatedAt, era + 2)
          assert.deepStrictEqual(yield* store.listEvents(workspaceId), [event])
          // Done for good: neither claimed again nor completed twice.
          assert.deepStrictEqual(yield* claim({ owner: "w2", at: era + 10 * day }), [])
          assert.isFalse(yield* queue.completeTarget(key, "w1", published(era + 3)))
        }))

      it.effect("moves a target only as the state table allows: never completed before it started, never started twice", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { post, queue, reload, start } = yield* aSetup()
          const aggregate = yield* post([{ dueAt: era }])
          const target = aggregate.targets[0]!
          const key = targetKey(target)
          yield* claim({ owner: "w1", at: era })
          // Claimed but still queued: queued → published is not a move of the table.
          assert.isFalse(yield* queue.completeTarget(key, "w1", published(era + 1)))
          assert.strictEqual((yield* reload(aggregate)).targets[0]!.status, "queued")
          assert.isTrue(Option.isSome(yield* start(target, "w1", era + 2)))
          // publishing → publishing is no move: a second start changes nothing.
          assert.isTrue(Option.isNone(yield* start(target, "w1", era + 3)))
          assert.isTrue(yield* queue.completeTarget(key, "w1", published(era + 4)))
          assert.strictEqual((yield* reload(aggregate)).targets[0]!.status, "published")
        }))

      it.effect("records a failure with the account's new status, its events and rotated credentials in one go", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { accounts, post, queue, reload, start, store, workspaceId } = yield* aSetup(2)
          const aggregate = yield* post([
            { dueAt: era, account: 0 },
            { dueAt: era, account: 1, status: "published", publishedAt: era - 1 }
          ])
          const key = targetKey(aggregate.targets[0]!)
          yield* claim({ owner: "w1", at: era })
          yield* start(aggregate.targets[0]!, "w1", era)
          const error = { code: "token_expired" as const, platform_code: "190/463", retryable: false }
          const failedEvent = anEvent(workspaceId, { type: "post.failed" })
          const reconnect = anEvent(workspaceId, { type: "account.needs_reconnect" })
          assert.isTrue(
            yield* queue.completeTarget(key, "w1", {
              at: era + 1,
              outcome: { _tag: "Failed", error, platformState: null },
              events: [failedEvent],
              account: { credentials: "pwc1.sealed", status: { value: "needs_reconnect", events: [reconnect] } },
              postStatus: TargetStatus.derivePostStatus
            })
          )
          const after = yield* reload(aggregate)
          assert.strictEqual(after.targets[0]!.status, "failed")
          assert.deepStrictEqual(after.targets[0]!.error, error)
          assert.strictEqual(after.targets[0]!.attempts, 1)
          assert.strictEqual(after.post.status, "partially_published")
          const account = Option.getOrThrow(yield* store.getAccount(workspaceId, accounts[0]!.id))
          assert.strictEqual(account.status, "needs_reconnect")
          assert.strictEqual(account.credentials, "pwc1.sealed")
          assert.deepStrictEqual(sorted((yield* store.listEvents(workspaceId)).map((e) => e.id)), sorted([failedEvent.id, reconnect.id]))
        }))

      it.effect("writes the post status the engine's rule gives, from every target of the post as the completion leaves them", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { post, queue, reload, start } = yield* aSetup(2)
          const aggregate = yield* post([
            { dueAt: era, account: 0 },
            { dueAt: era, account: 1, status: "published", publishedAt: era - 1 }
          ])
          yield* claim({ owner: "w1", at: era })
          yield* start(aggregate.targets[0]!, "w1", era)
          const seen: Array<ReadonlyArray<string>> = []
          // Not the engine's own rule: the store writes what it is told, it does not derive it.
          const rule: Completion["postStatus"] = (statuses) => {
            seen.push([...statuses].sort())
            return "partially_published"
          }

          assert.isTrue(yield* queue.completeTarget(targetKey(aggregate.targets[0]!), "w1", { ...published(era + 1), postStatus: rule }))
          assert.deepStrictEqual(seen, [["published", "published"]])
          assert.strictEqual((yield* reload(aggregate)).post.status, "partially_published")
        }))

      it.effect("makes a save from a read taken before a publishing write fail with VersionConflict", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { post, reload, start, store } = yield* aSetup()
          const aggregate = yield* post([{ dueAt: era }])
          const stale = yield* reload(aggregate)
          yield* claim({ owner: "w1", at: era })
          yield* start(aggregate.targets[0]!, "w1", era)

          const error = yield* Effect.flip(
            store.savePost({ ...stale, post: { ...stale.post, caption: "Changed", version: stale.post.version + 1 } }, [])
          )
          assert.strictEqual(error._tag, "VersionConflict")
          assert.strictEqual((yield* reload(aggregate)).post.caption, aggregate.post.caption)
        }))
    })

    describe("pending permalinks", () => {
      it.effect("remembers a target published without its permalink, and offers it once it is time to ask, earliest first", () =>
        Effect.gen(function* () {
          const era = anEra()
          const setup = yield* aSetup()
          const later = yield* aPublishedPending(setup, era, era + 120_000)
          const sooner = yield* aPublishedPending(setup, era + 1_000, era + 61_000)
          // Published with its permalink: nothing to wait for.
          const complete = yield* setup.post([{ dueAt: era }])
          yield* claim({ owner: "w-pub", at: era + 2_000 })
          yield* setup.start(complete.targets[0]!, "w-pub", era + 2_000)
          yield* setup.queue.completeTarget(targetKey(complete.targets[0]!), "w-pub", published(era + 2_000))

          const target = (yield* setup.reload(later)).targets[0]!
          assert.strictEqual(target.status, "published")
          assert.strictEqual(target.permalink, null)
          assert.deepStrictEqual(yield* claimPermalinks("b1", era + 60_999), [])
          const claimed = yield* claimPermalinks("b1", era + 10 * day)
          assert.deepStrictEqual(claimed, [
            {
              workspaceId: setup.workspaceId,
              postId: sooner.post.id,
              targetId: sooner.targets[0]!.id,
              accountId: setup.accounts[0]!.id,
              since: era + 1_000,
              asked: 0,
              askAt: era + 61_000,
              leaseOwner: "b1",
              leaseUntil: era + 10 * day + 300_000
            },
            {
              workspaceId: setup.workspaceId,
              postId: later.post.id,
              targetId: later.targets[0]!.id,
              accountId: setup.accounts[0]!.id,
              since: era,
              asked: 0,
              askAt: era + 120_000,
              leaseOwner: "b1",
              leaseUntil: era + 10 * day + 300_000
            }
          ])
        }))

      it.effect("claims at most `limit`, and never hands a leased one to another instance until its lease runs out", () =>
        Effect.gen(function* () {
          const era = anEra()
          const setup = yield* aSetup()
          const a = yield* aPublishedPending(setup, era, era + 60_000)
          const b = yield* aPublishedPending(setup, era + 1, era + 60_001)
          const first = yield* claimPermalinks("b1", era + 60_001, 1)
          assert.deepStrictEqual(first.map((p) => p.targetId), [a.targets[0]!.id])
          assert.deepStrictEqual((yield* claimPermalinks("b2", era + 60_002)).map((p) => p.targetId), [b.targets[0]!.id])
          assert.deepStrictEqual(yield* claimPermalinks("b3", era + 360_000), [])
          const taken = yield* claimPermalinks("b3", era + 360_001)
          assert.deepStrictEqual(taken.map((p) => p.targetId), [a.targets[0]!.id])
          // The first instance lost its lease: its answer is not written.
          assert.isFalse(
            yield* setup.queue.fillPermalink(targetKey(a.targets[0]!), "b1", { at: era + 360_002, permalink: tiktokLink, platformState: {} })
          )
          assert.strictEqual((yield* setup.reload(a)).targets[0]!.permalink, null)
        }))

      it.effect("fills the permalink in with the platform's new state and rotated credentials, bumps the post, writes no event, and forgets it", () =>
        Effect.gen(function* () {
          const era = anEra()
          const setup = yield* aSetup()
          const aggregate = yield* aPublishedPending(setup, era, era + 60_000)
          const before = yield* setup.reload(aggregate)
          const key = targetKey(aggregate.targets[0]!)
          yield* claimPermalinks("b1", era + 60_000)

          const state = { publish_id: "v_pub_url~v2-1.7300000001", post_id: "7301234567890123401" }
          assert.isTrue(
            yield* setup.queue.fillPermalink(key, "b1", { at: era + 60_500, permalink: tiktokLink, platformState: state, credentials: "pwc1.rotated" })
          )
          const after = yield* setup.reload(aggregate)
          assert.deepStrictEqual(after.targets[0], {
            ...before.targets[0]!,
            permalink: tiktokLink,
            platformState: state,
            updatedAt: era + 60_500
          })
          assert.strictEqual(after.post.status, "published")
          assert.strictEqual(after.post.version, before.post.version + 1)
          assert.strictEqual(after.post.updatedAt, era + 60_500)
          assert.strictEqual(Option.getOrThrow(yield* setup.store.getAccount(setup.workspaceId, setup.accounts[0]!.id)).credentials, "pwc1.rotated")
          assert.deepStrictEqual(yield* setup.store.listEvents(setup.workspaceId), [])
          assert.deepStrictEqual(yield* claimPermalinks("b2", era + 10 * day), [])
          assert.isFalse(yield* setup.queue.fillPermalink(key, "b1", { at: era + 60_600, permalink: tiktokLink, platformState: state }))

          const stale = before
          const conflict = yield* Effect.flip(
            setup.store.savePost({ ...stale, post: { ...stale.post, version: stale.post.version + 1 } }, [])
          )
          assert.strictEqual(conflict._tag, "VersionConflict")
        }))

      it.effect("defers: counts the ask, gives the lease up, stores the credentials, and offers it again at the new time", () =>
        Effect.gen(function* () {
          const era = anEra()
          const setup = yield* aSetup()
          const aggregate = yield* aPublishedPending(setup, era, era + 60_000)
          const key = targetKey(aggregate.targets[0]!)
          yield* claimPermalinks("b1", era + 60_000)

          assert.isFalse(yield* setup.queue.deferPermalink(key, "b-other", { at: era + 60_001, askAt: era + 180_000 }))
          assert.isTrue(
            yield* setup.queue.deferPermalink(key, "b1", { at: era + 60_001, askAt: era + 180_000, credentials: "pwc1.deferred" })
          )
          assert.strictEqual(Option.getOrThrow(yield* setup.store.getAccount(setup.workspaceId, setup.accounts[0]!.id)).credentials, "pwc1.deferred")
          assert.deepStrictEqual(yield* claimPermalinks("b2", era + 179_999), [])
          const again = yield* claimPermalinks("b2", era + 180_000)
          assert.deepStrictEqual(again.map((p) => [p.targetId, p.asked, p.askAt, p.since]), [[key.targetId, 1, era + 180_000, era]])
        }))

      it.effect("abandons: forgets it, and the target stays published without a permalink", () =>
        Effect.gen(function* () {
          const era = anEra()
          const setup = yield* aSetup()
          const aggregate = yield* aPublishedPending(setup, era, era + 60_000)
          const before = yield* setup.reload(aggregate)
          const key = targetKey(aggregate.targets[0]!)
          yield* claimPermalinks("b1", era + 60_000)

          assert.isFalse(yield* setup.queue.abandonPermalink(key, "b-other"))
          assert.isTrue(yield* setup.queue.abandonPermalink(key, "b1"))
          assert.deepStrictEqual(yield* claimPermalinks("b2", era + 10 * day), [])
          assert.deepStrictEqual(yield* setup.reload(aggregate), before)
        }))

      it.effect("never claims the same pending permalink twice when two instances claim at the same moment", () =>
        Effect.gen(function* () {
          const era = anEra()
          const setup = yield* aSetup(4)
          for (let i = 0; i < 24; i++) yield* aPublishedPending(setup, era + i, era + 60_000 + i, i % 4)
          const instance = (owner: string) =>
            Effect.gen(function* () {
              const mine: Array<string> = []
              for (let round = 0; round < 6; round++) mine.push(...(yield* claimPermalinks(owner, era + 100_000, 3)).map((p) => p.targetId))
              return mine
            })
          const [first, second] = yield* Effect.all([instance("b-a"), instance("b-b")], { concurrency: "unbounded" })
          const sweep = (yield* claimPermalinks("b-c", era + 100_000)).map((p) => p.targetId)
          const all = [...first!, ...second!, ...sweep]
          assert.strictEqual(new Set(all).size, all.length)
          assert.strictEqual(all.length, 24)
        }))
    })

    describe("leases", () => {
      it.effect("renews a worker's leases and hands back what it still holds", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { post, queue } = yield* aSetup()
          const a = yield* post([{ dueAt: era }])
          const b = yield* post([{ dueAt: era + 1 }])
          yield* claim({ owner: "w-renew", at: era + 1, limit: 1 })
          yield* claim({ owner: "w-other", at: era + 1, limit: 1 })

          assert.deepStrictEqual(yield* queue.renewLeases("w-renew", era + 50_000, era + 110_000), ids(a.targets))
          // The renewed lease holds past its first expiry; the other worker's has run out.
          assert.deepStrictEqual(ids(yield* claim({ owner: "w3", at: era + 70_000 })), ids(b.targets))
        }))

      it.effect("renews only the named leases of a worker when asked to: a stuck step's runs out", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { post, queue } = yield* aSetup()
          const a = yield* post([{ dueAt: era }])
          const b = yield* post([{ dueAt: era }])
          yield* claim({ owner: "w-some", at: era + 1 })

          assert.deepStrictEqual(yield* queue.renewLeases("w-some", era + 50_000, era + 110_000, ids(a.targets)), ids(a.targets))
          assert.deepStrictEqual(yield* queue.renewLeases("w-some", era + 50_000, era + 110_000, []), [])
          assert.deepStrictEqual(ids(yield* claim({ owner: "w3", at: era + 70_000 })), ids(b.targets))
        }))

      it.effect("gives a held target back to the queue, due later, with its platform state and unconfirmedSince kept", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { post, queue, start } = yield* aSetup()
          const a = yield* post([{ dueAt: era }])
          const [claimed] = yield* claim({ owner: "w1", at: era })
          yield* start(claimed!, "w1", era)
          const key = targetKey(claimed!)
          assert.isTrue(yield* queue.saveCheckpoint(key, "w1", { at: era + 10, platformState: { container_id: "c9" } }))

          assert.isFalse(yield* queue.requeueTarget(key, "w-other", { at: era + 20, dueAt: era + 5_000 }))
          assert.isTrue(yield* queue.requeueTarget(key, "w1", { at: era + 20, dueAt: era + 5_000 }))
          // Released, but not due before its wait is over.
          assert.deepStrictEqual(yield* claim({ owner: "w2", at: era + 4_999 }), [])
          const [again] = yield* claim({ owner: "w2", at: era + 5_000 })
          assert.strictEqual(again?.id, a.targets[0]!.id)
          assert.strictEqual(again?.status, "publishing")
          assert.strictEqual(again?.unconfirmedSince, era + 10)
          assert.deepStrictEqual(again?.platformState, { container_id: "c9" })
        }))

      it.effect("gives every lease of a stopping worker up, so another takes its targets at once", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { post, queue, start } = yield* aSetup()
          const a = yield* post([{ dueAt: era }])
          const b = yield* post([{ dueAt: era }])
          yield* claim({ owner: "w-stop", at: era })
          yield* start(a.targets[0]!, "w-stop", era)

          assert.strictEqual(yield* queue.releaseTargets("w-stop"), 2)
          const taken = yield* claim({ owner: "w2", at: era + 1 })
          assert.deepStrictEqual(sorted(ids(taken)), sorted([a.targets[0]!.id, b.targets[0]!.id]))
          assert.deepStrictEqual(yield* queue.renewLeases("w-stop", era + 2, era + 60_000), [])
        }))
    })

    describe("accounts", () => {
      it.effect("stores rotated credentials", () =>
        Effect.gen(function* () {
          const { accounts, queue, store, workspaceId } = yield* aSetup()
          yield* queue.updateAccountCredentials(workspaceId, accounts[0]!.id, "pwc1.rotated")
          assert.strictEqual(Option.getOrThrow(yield* store.getAccount(workspaceId, accounts[0]!.id)).credentials, "pwc1.rotated")
        }))

      it.effect("reads, for a target that starts, what its account published in the window and has publishing now, the claim's earlier starts included", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { post } = yield* aSetup(2)
          yield* post([{ status: "published", publishedAt: era - day }])
          yield* post([{ status: "published", publishedAt: era + 1_000 }])
          yield* post([{ status: "published", publishedAt: era + 2_000 }])
          yield* post([{ status: "failed" }])
          yield* post([{ status: "publishing" }])
          yield* post([{ status: "published", publishedAt: era + 1_500, account: 1 }])
          yield* post([{ dueAt: era + 3_000 }])
          yield* post([{ dueAt: era + 3_001 }])
          yield* post([{ dueAt: era + 3_002, account: 1 }])
          const claimed = yield* claim({ owner: "w1", at: era + 3_500 })
          assert.strictEqual(claimed.length, 3)

          const steps = yield* startAll(claimed, "w1", era + 4_000, () => [], { from: era, to: era + day })
          assert.deepStrictEqual(
            steps.map((step) => Option.getOrThrow(step).usage),
            [
              { used: 3, oldest: era + 1_000 },
              { used: 4, oldest: era + 1_000 },
              { used: 1, oldest: era + 1_500 }
            ]
          )
        }))
    })

    describe("one reading of a row", () => {
      // The publishing store and the Store once decoded posts and targets with two copies that
      // disagreed (one parsed `media` as JSON, the other took the driver's value as it came).
      it.effect("hands the publisher the post and target exactly as the Store reads them: media, notify, options, consent, state", () =>
        Effect.gen(function* () {
          const era = anEra()
          const { accounts, reload, start, store, workspaceId } = yield* aSetup()
          const aggregate = aPost(workspaceId, {
            media: [Id.unchecked("media", "med_one"), Id.unchecked("media", "med_two")],
            notify: { email: "owner@example.com", locale: "id" },
            status: "queued",
            targets: [
              aTarget({
                platform: "textpost",
                accountId: accounts[0]!.id,
                status: "queued",
                dueAt: era,
                options: { textpost: { reply_control: "followers" } } as TargetRecord["options"],
                consent: { consent: { privacy_level: "SELF_ONLY", music_usage_confirmed: true }, givenBy: "key_1", givenAt: era },
                platformState: { step: 2, ids: ["a", "b"], nothing: null }
              })
            ]
          })
          yield* store.insertPost(aggregate, [])
          const [claimed] = yield* claim({ owner: "w1", at: era })
          const read = yield* reload(aggregate)
          const started = Option.getOrThrow(yield* start(aggregate.targets[0]!, "w1", era + 1))

          assert.deepStrictEqual<ReadonlyArray<string>>(started.post.media, ["med_one", "med_two"])
          assert.deepStrictEqual(started.post.notify, { email: "owner@example.com", locale: "id" })
          assert.deepStrictEqual(started.post.media, read.post.media)
          assert.deepStrictEqual(started.post.notify, read.post.notify)
          for (const target of [claimed!, read.targets[0]!]) {
            assert.deepStrictEqual(target.options, aggregate.targets[0]!.options)
            assert.deepStrictEqual(target.consent, aggregate.targets[0]!.consent)
            assert.deepStrictEqual(target.platformState, aggregate.targets[0]!.platformState)
          }
        }))
    })
  })
