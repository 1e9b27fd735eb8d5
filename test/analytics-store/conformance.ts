/**
 * The one specification every `AnalyticsStore` passes: in memory, on PGlite and on PostgreSQL.
 * One store serves the whole suite. Claims look across workspaces, so each case that claims lives
 * in its own era, earlier than every era before it: what an earlier case left due lies in a later
 * case's future.
 */
import { assert, describe, layer } from "@effect/vitest"
import { type AnalyticsTarget, AnalyticsStore, Store } from "@postwire/core"
import { Effect, type Layer } from "effect"
import { anAccount, anId, aPost, aProfile, aTarget, aWorkspace, t0 } from "../store-conformance/builders.ts"

const minute = 60_000
const day = 24 * 60 * minute
let eras = 0

/** The start of a fresh era, earlier than every era handed out before. */
const anEra = () => t0 - ++eras * 400 * day

/** A workspace with one sandbox account and a published post of `count` targets on it, tracked from `at`. */
const publishedTargets = (at: number, count = 1) =>
  Effect.gen(function* () {
    const store = yield* Store
    const analytics = yield* AnalyticsStore
    const workspace = aWorkspace()
    yield* store.createWorkspace(workspace)
    const profile = aProfile(workspace.id)
    yield* store.createProfile(profile)
    const account = anAccount(workspace.id, profile.id, { platform: "textpost", externalId: anId("thid"), sandbox: true })
    yield* store.createAccount(account)
    const post = aPost(workspace.id, {
      profileId: profile.id,
      status: "published",
      targets: Array.from({ length: count }, () => aTarget({ accountId: account.id, platform: "textpost", status: "published", publishedAt: at }))
    })
    yield* store.insertPost(post, [])
    const tracked: Array<AnalyticsTarget> = post.targets.map((target) => ({
      workspaceId: workspace.id,
      targetId: target.id,
      postId: post.post.id,
      accountId: account.id,
      platform: "textpost",
      platformPostId: anId("thpost"),
      publishedAt: at,
      state: "active",
      nextDueAt: at,
      failures: 0,
      collectedAt: null,
      values: {},
      raw: {},
      leaseOwner: null,
      leaseUntil: null
    }))
    for (const target of tracked) yield* analytics.trackTarget(target)
    return { workspace, profile, account, targets: tracked }
  })

/** Runs the specification against a fresh store made by `makeLayer`. */
export const analyticsStoreConformance = (name: string, makeLayer: () => Layer.Layer<AnalyticsStore | Store, unknown>) =>
  describe(`AnalyticsStore conformance: ${name}`, () => {
    layer(makeLayer(), { timeout: 120_000 })((it) => {
      it.effect("tracks a published target once: tracking it again changes nothing", () =>
        Effect.gen(function* () {
          const analytics = yield* AnalyticsStore
          const { workspace, targets } = yield* publishedTargets(anEra())
          const target = targets[0]!
          yield* analytics.trackTarget({ ...target, nextDueAt: target.publishedAt + day })
          const [read] = yield* analytics.getTargets(workspace.id, [target.targetId])
          assert.strictEqual(read?.state, "active")
          assert.strictEqual(read?.nextDueAt, target.nextDueAt)
          assert.strictEqual(read?.collectedAt, null)
        }))

      it.effect("claims due targets once: leased to one owner, not again until the lease ends", () =>
        Effect.gen(function* () {
          const analytics = yield* AnalyticsStore
          const era = anEra()
          const { targets } = yield* publishedTargets(era, 3)
          const first = yield* analytics.claimDue({ owner: "a", at: era + minute, leaseUntil: era + 2 * minute, limit: 10 })
          assert.deepStrictEqual(new Set(first.map((t) => t.targetId)), new Set(targets.map((t) => t.targetId)))
          assert.isTrue(first.every((t) => t.leaseOwner === "a"))
          const again = yield* analytics.claimDue({ owner: "b", at: era + minute, leaseUntil: era + 2 * minute, limit: 10 })
          assert.deepStrictEqual(again, [])
          const after = yield* analytics.claimDue({ owner: "b", at: era + 3 * minute, leaseUntil: era + 4 * minute, limit: 2 })
          assert.strictEqual(after.length, 2)
        }))

      it.effect("saves a round for the lease's owner only: one snapshot a reading, the gains summed by day", () =>
        Effect.gen(function* () {
          const analytics = yield* AnalyticsStore
          const era = anEra()
          const { workspace, profile, account, targets } = yield* publishedTargets(era)
          const target = targets[0]!
          const save = (owner: string, at: number, views: number) =>
            analytics.saveCollection({
              workspaceId: workspace.id,
              accountId: account.id,
              profileId: profile.id,
              platform: "textpost",
              owner,
              at,
              outcomes: [{ targetId: target.targetId, reading: { values: { views, likes: 1 }, raw: { views } }, state: "active", nextDueAt: at + 60 * minute, failures: 0 }]
            })
          yield* analytics.claimDue({ owner: "a", at: era + minute, leaseUntil: era + 2 * minute, limit: 10 })
          // Another worker's lease: nothing saved.
          assert.deepStrictEqual(yield* save("b", era + minute, 999), [])
          assert.deepStrictEqual(yield* save("a", era + minute, 40), [target.targetId])
          yield* analytics.claimDue({ owner: "a", at: era + 61 * minute, leaseUntil: era + 62 * minute, limit: 10 })
          assert.deepStrictEqual(yield* save("a", era + day + minute, 100), [target.targetId])
          const snapshots = yield* analytics.listSnapshots(workspace.id, target.targetId)
          assert.deepStrictEqual(
            snapshots.map((s) => s.values.views),
            [40, 100]
          )
          const [latest] = yield* analytics.getTargets(workspace.id, [target.targetId])
          assert.strictEqual(latest?.values.views, 100)
          // Day one gained the first reading whole (40), day two the growth (60).
          const boundaries = [era, era + day, era + 2 * day]
          const sums = yield* analytics.sumByDay(workspace.id, {}, boundaries)
          const byDay = new Map(sums.map((s) => [s.day, s.values.views]))
          assert.strictEqual(byDay.get(0), 40)
          assert.strictEqual(byDay.get(1), 60)
          // Only the accounts asked for: none, or this one.
          assert.deepStrictEqual(yield* analytics.sumByDay(workspace.id, { accountIds: [] }, boundaries), [])
          const mine = yield* analytics.sumByDay(workspace.id, { accountIds: [account.id] }, boundaries)
          assert.strictEqual(mine.reduce((total, s) => total + (s.values.views ?? 0), 0), 100)
          const groups = yield* analytics.listGroups(workspace.id, {}, era, era + 2 * day, undefined, 10)
          assert.deepStrictEqual(groups, [{ profileId: profile.id, platform: "textpost" }])
        }))
    })
  })
