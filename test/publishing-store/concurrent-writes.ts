/**
 * What a worker's concurrent writes to the targets it holds must leave behind, on every
 * `PublishingStore`: the SQL store writes concurrent checkpoints, progress saves and
 * completions together (a group commit), and the result must be exactly what the same writes
 * give one by one: statuses, post versions, events, account changes, pending permalinks; a
 * write whose lease is gone answers false and changes nothing, whatever shares its batch.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Deferred, Effect, type Layer, Option } from "effect"
import {
  type Completion,
  type OutboxEvent,
  type PostAggregate,
  PublishingStore,
  Store,
  type TargetRecord,
  TargetStatus,
  targetKey
} from "@postwire/core"
import { aPost, aTarget, aWorkspaceWithAccounts, anEvent, t0 } from "../store-conformance/builders.ts"

const day = 24 * 60 * 60 * 1000
let eras = 0

/** A stretch of time of its own for each case (claims look across workspaces). */
export const anEra = (): number => t0 - ++eras * 30 * day

/** A workspace with `accounts` accounts and `shape.length` posts, post `i` with `shape[i]` due targets. */
export const aBurst = (era: number, shape: ReadonlyArray<number>, accounts = 3) =>
  Effect.gen(function* () {
    const store = yield* Store
    const { accounts: accountList, profile, workspace } = yield* aWorkspaceWithAccounts(accounts)
    const posts: Array<PostAggregate> = []
    for (const [i, n] of shape.entries()) {
      const aggregate = aPost(workspace.id, {
        profileId: profile.id,
        status: "queued",
        targets: Array.from({ length: n }, (_, j) =>
          aTarget({
            platform: "textpost",
            options: {},
            accountId: accountList[(i + j) % accounts]!.id,
            status: "queued",
            dueAt: era + j
          })
        )
      })
      yield* store.insertPost(aggregate, [])
      posts.push(aggregate)
    }
    return { workspaceId: workspace.id, accounts: accountList, posts }
  })

type Burst = Effect.Success<ReturnType<typeof aBurst>>

/** Claims every due target of the burst for `owner` and starts each. */
export const claimAndStart = (burst: Burst, owner: string, at: number) =>
  Effect.gen(function* () {
    const queue = yield* PublishingStore
    const targets = burst.posts.flatMap((post) => post.targets)
    const mine = new Set(targets.map((target) => target.id as string))
    const claimed = yield* queue.claimDueTargets({ owner, at, leaseUntil: at + 600_000, limit: 1_000, perAccount: 1_000 })
    assert.includeMembers(claimed.map((target) => target.id as string), [...mine])
    const steps = yield* queue.startSteps({
      owner,
      at,
      targets: claimed.filter((target) => mine.has(target.id)),
      quotaWindow: { from: at - 24 * 60 * 60_000 + 1, to: at + 1 },
      firstStartEvents: () => []
    })
    assert.strictEqual(steps.length, mine.size)
    assert.isTrue(steps.every(Option.isSome))
  })

/**
 * Target `j` of post `i`'s three writes: a step saved with the lease kept, a checkpoint, the
 * outcome; after `before`, and with `afterStep` run once the step is saved.
 */
export const aLife = (
  burst: Burst,
  i: number,
  j: number,
  owner: string,
  era: number,
  before: Effect.Effect<void> = Effect.void,
  afterStep: Effect.Effect<unknown> = Effect.void
) => {
  const target = burst.posts[i]!.targets[j]!
  const key = targetKey(target)
  // Some of every account fail, the first account's among them.
  const published = (i * 7 + j * 3) % 5 < 3
  // The first account's failures ask for a reconnect; every outcome of it rotates its credentials.
  const ofFirstAccount = target.accountId === burst.accounts[0]!.id
  const event = anEvent(burst.workspaceId, {
    type: published ? "post.published" : "post.failed",
    createdAt: era + 30,
    data: { post: i, target: j }
  })
  const reconnect = anEvent(burst.workspaceId, {
    type: "account.needs_reconnect",
    createdAt: era + 30,
    data: { post: i, target: j }
  })
  const completion: Completion = published
    ? {
        at: era + 30,
        outcome: {
          _tag: "Published",
          permalink: j % 2 === 0 ? `https://www.threads.net/@acme/post/${i}-${j}` : null,
          publishedAt: era + 30,
          platformState: { container_id: `c-${i}-${j}`, published: true },
          ...(j % 2 === 0 ? {} : { permalinkAskAt: era + 500 }),
          tracking: { platformPostId: `pp-${i}-${j}`, firstCommentPollAt: era + 90 }
        },
        events: [event],
        postStatus: TargetStatus.derivePostStatus,
        ...(ofFirstAccount ? { account: { credentials: "pwc1.rotated" } } : {})
      }
    : {
        at: era + 30,
        outcome: {
          _tag: "Failed",
          error: { code: "token_expired", platform_code: "190/463", retryable: false },
          platformState: { container_id: `c-${i}-${j}` }
        },
        events: [event],
        postStatus: TargetStatus.derivePostStatus,
        ...(ofFirstAccount
          ? { account: { credentials: "pwc1.rotated", status: { value: "needs_reconnect" as const, events: [reconnect] } } }
          : {})
      }
  return Effect.gen(function* () {
    const queue = yield* PublishingStore
    yield* before
    const progressed = yield* queue.saveProgress(key, owner, {
      at: era + 10,
      platformState: { container_id: `c-${i}-${j}` },
      dueAt: era + 1_010,
      keepLease: true
    })
    yield* afterStep
    const checkpointed = yield* queue.saveCheckpoint(key, owner, {
      at: era + 20,
      platformState: { container_id: `c-${i}-${j}`, publishing: true }
    })
    const completed = yield* queue.completeTarget(key, owner, completion)
    return [progressed, checkpointed, completed]
  })
}

/**
 * Every life of the burst, for `owner`. A post's next target starts once the one before it has
 * saved its step: run together, a post's targets are at different writes at once.
 */
const lives = (burst: Burst, owner: string, era: number) =>
  Effect.gen(function* () {
    const stepped = burst.posts.map((post) => post.targets.map(() => Deferred.makeUnsafe<void>()))
    return burst.posts.flatMap((post, i) =>
      post.targets.map((_, j) =>
        aLife(
          burst,
          i,
          j,
          owner,
          era,
          j === 0 ? Effect.void : Deferred.await(stepped[i]![j - 1]!),
          Deferred.succeed(stepped[i]![j]!, undefined)
        )
      )
    )
  })

/** The burst as stored, with its ids replaced by positions, so that two bursts compare. */
export const snapshot = (burst: Burst, era: number) =>
  Effect.gen(function* () {
    const store = yield* Store
    const queue = yield* PublishingStore
    const accountIndex = new Map(burst.accounts.map((account, k) => [account.id as string, `account-${k}`]))
    const posts = []
    for (const [i, aggregate] of burst.posts.entries()) {
      const { post, targets } = Option.getOrThrow(yield* store.getPost(burst.workspaceId, aggregate.post.id))
      posts.push({
        status: post.status,
        version: post.version,
        updatedAt: post.updatedAt,
        targets: targets.map((target: TargetRecord, j) => ({
          ...target,
          id: `${i}-${j}`,
          workspaceId: "",
          postId: `${i}`,
          accountId: accountIndex.get(target.accountId)
        }))
      })
    }
    const events = (yield* store.listEvents(burst.workspaceId))
      .map((event: OutboxEvent) => JSON.stringify([event.type, event.data, event.createdAt, event.livemode]))
      .sort()
    const accounts = []
    for (const account of burst.accounts) {
      const stored = Option.getOrThrow(yield* store.getAccount(burst.workspaceId, account.id))
      accounts.push({ status: stored.status, credentials: stored.credentials })
    }
    const targetIndex = new Map(
      burst.posts.flatMap((post, i) => post.targets.map((target, j) => [target.id as string, `${i}-${j}`] as const))
    )
    const pending = (yield* queue.claimPendingPermalinks({ owner: "backfill", at: era + 1_000, leaseUntil: era + 2_000, limit: 1_000 }))
      .filter((row) => row.workspaceId === burst.workspaceId)
      .map((row) => ({ target: targetIndex.get(row.targetId), since: row.since, askAt: row.askAt, account: accountIndex.get(row.accountId) }))
      .sort((a, b) => (a.target! < b.target! ? -1 : 1))
    return { posts, events, accounts, pending }
  })

/**
 * Registers the cases for one implementation.
 *
 * @param makeLayer builds the store under test (with the `Store` it shares tables with) once.
 */
export const concurrentWritesSpec = <E>(name: string, makeLayer: () => Layer.Layer<Store | PublishingStore, E>): void =>
  layer(makeLayer(), { excludeTestServices: true })(`PublishingStore concurrent writes: ${name}`, (it) => {
    describe("a worker's concurrent writes to the targets it holds", () => {
      it.effect("leave exactly what the same writes leave one by one: statuses, post versions, events, accounts, permalinks", () =>
        Effect.gen(function* () {
          // Posts of one to four targets, several targets of one post and of one account in flight at once.
          const shape = [1, 2, 3, 4, 1, 2, 3, 4, 2, 2, 1, 3, 4, 1, 2, 3]
          const era = anEra()

          const together = yield* aBurst(era, shape)
          yield* claimAndStart(together, "w-together", era + 5)
          const answersTogether = yield* Effect.all(yield* lives(together, "w-together", era), { concurrency: "unbounded" })
          const left = yield* snapshot(together, era)

          const oneByOne = yield* aBurst(era, shape)
          yield* claimAndStart(oneByOne, "w-together", era + 5)
          const answersOneByOne = yield* Effect.all(yield* lives(oneByOne, "w-together", era), { concurrency: 1 })
          const expected = yield* snapshot(oneByOne, era)

          assert.isTrue(answersTogether.flat().every((held) => held))
          assert.deepStrictEqual(answersTogether, answersOneByOne)
          assert.deepStrictEqual(left, expected)
          // And what that is: the claim's start bumps each post once, and three writes per target
          // bump it again each; every outcome has its event.
          for (const [i, post] of left.posts.entries()) {
            assert.strictEqual(post.version, 1 + 1 + 3 * shape[i]!)
            assert.strictEqual(post.updatedAt, era + 30)
          }
          assert.strictEqual(left.events.filter((event) => event.includes('"post.')).length, shape.reduce((a, b) => a + b))
          assert.deepStrictEqual(left.accounts[0], { status: "needs_reconnect", credentials: "pwc1.rotated" })
          assert.deepStrictEqual(left.accounts[1], { status: "connected", credentials: null })
          assert.isAbove(left.pending.length, 0)
          assert.deepStrictEqual(
            left.posts.map((post) => post.status),
            expected.posts.map((post) => post.status)
          )
          assert.includeMembers(
            left.posts.map((post) => post.status),
            ["published", "partially_published", "failed"]
          )
        }))

      it.effect("answer false for a write whose lease is gone, and change nothing of it, whatever shares its batch", () =>
        Effect.gen(function* () {
          const era = anEra()
          const burst = yield* aBurst(era, [3, 2, 1])
          yield* claimAndStart(burst, "w1", era + 5)
          const queue = yield* PublishingStore
          const [a, b, c] = burst.posts[0]!.targets.map(targetKey)
          const other = burst.posts[1]!.targets.map(targetKey)
          const lone = targetKey(burst.posts[2]!.targets[0]!)
          const done = (at: number): Completion => ({
            at,
            outcome: { _tag: "Published", permalink: "https://www.threads.net/@acme/post/C1", publishedAt: at, platformState: { container_id: "c1" } },
            events: [anEvent(burst.workspaceId, { type: "post.published", createdAt: at })],
            postStatus: TargetStatus.derivePostStatus
          })
          const answers = yield* Effect.all(
            [
              queue.completeTarget(a!, "w1", done(era + 30)),
              // Another worker's lease (this one's ran out and was taken): nothing of these may land.
              queue.completeTarget(b!, "w-gone", done(era + 30)),
              queue.saveCheckpoint(c!, "w-gone", { at: era + 30, platformState: { container_id: "stale" } }),
              queue.saveProgress(other[0]!, "w-gone", { at: era + 30, platformState: { container_id: "stale" }, dueAt: era + 40 }),
              queue.saveProgress(other[1]!, "w1", { at: era + 30, platformState: { container_id: "c2" }, dueAt: era + 40 }),
              queue.saveCheckpoint(lone, "w1", { at: era + 30, platformState: { container_id: "c3" } })
            ],
            { concurrency: "unbounded" }
          )
          assert.deepStrictEqual(answers, [true, false, false, false, true, true])

          const store = yield* Store
          const first = Option.getOrThrow(yield* store.getPost(burst.workspaceId, burst.posts[0]!.post.id))
          assert.deepStrictEqual(
            first.targets.map((target) => [target.status, target.attempts, target.platformState]),
            [
              ["published", 1, { container_id: "c1" }],
              ["publishing", 0, null],
              ["publishing", 0, null]
            ]
          )
          // One start of the claim and one completion; the lost writes bumped nothing.
          assert.strictEqual(first.post.version, 1 + 1 + 1)
          assert.strictEqual(first.post.status, "publishing")
          const second = Option.getOrThrow(yield* store.getPost(burst.workspaceId, burst.posts[1]!.post.id))
          assert.deepStrictEqual(
            second.targets.map((target) => [target.platformState, target.leaseOwner, target.dueAt]),
            [
              [null, "w1", era],
              [{ container_id: "c2" }, null, era + 40]
            ]
          )
          // One start of the claim and the one progress saved under a lease still held.
          assert.strictEqual(second.post.version, 1 + 1 + 1)
          assert.strictEqual((yield* store.listEvents(burst.workspaceId)).length, 1)
        }))

      it.effect("write two calls on one target one after the other, in some order, never as one", () =>
        Effect.gen(function* () {
          const era = anEra()
          const burst = yield* aBurst(era, [1, 1])
          yield* claimAndStart(burst, "w1", era + 5)
          const queue = yield* PublishingStore
          const key = targetKey(burst.posts[0]!.targets[0]!)
          const [checkpointed, completed, other] = yield* Effect.all(
            [
              queue.saveCheckpoint(key, "w1", { at: era + 20, platformState: { container_id: "c1", publishing: true } }),
              queue.completeTarget(key, "w1", {
                at: era + 30,
                outcome: { _tag: "Failed", error: { code: "internal_error", retryable: false }, platformState: { container_id: "c1" } },
                events: [],
                postStatus: TargetStatus.derivePostStatus
              }),
              queue.saveCheckpoint(targetKey(burst.posts[1]!.targets[0]!), "w1", { at: era + 20, platformState: { n: 1 } })
            ],
            { concurrency: "unbounded" }
          )
          assert.isTrue(completed)
          assert.isTrue(other)
          const store = yield* Store
          const after = Option.getOrThrow(yield* store.getPost(burst.workspaceId, burst.posts[0]!.post.id))
          assert.strictEqual(after.targets[0]!.status, "failed")
          assert.deepStrictEqual(after.targets[0]!.platformState, { container_id: "c1" })
          // A checkpoint after the completion finds the target no longer publishing.
          assert.strictEqual(after.post.version, checkpointed ? 1 + 1 + 2 : 1 + 1 + 1)
          assert.strictEqual(after.post.status, "failed")
        }))
    })
  })
