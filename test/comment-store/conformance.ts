/**
 * The one specification every `CommentStore` passes: in memory, on PGlite and on PostgreSQL.
 * One store serves the whole suite. Poll claims look across workspaces, so each case that claims
 * lives in its own era, earlier than every era before it: what an earlier case left due lies in
 * a later case's future.
 */
import { assert, describe, layer } from "@effect/vitest"
import {
  type CommentPollState,
  type CommentRecord,
  CommentStore,
  type NewComment,
  type OutboxEvent,
  Store
} from "@postwire/core"
import { Effect, type Layer, Option } from "effect"
import { anAccount, anId, aPost, aProfile, aTarget, aWorkspace, t0 } from "../store-conformance/builders.ts"
import { Ids as Id } from "@postwire/domain"

const minute = 60_000
const day = 24 * 60 * minute
let eras = 0

/** The start of a fresh era, earlier than every era handed out before. */
const anEra = () => t0 - ++eras * 400 * day

/** A workspace with an Instagram account and one published post with one target. */
const aPublishedTarget = Effect.gen(function* () {
  const store = yield* Store
  const workspace = aWorkspace()
  yield* store.createWorkspace(workspace)
  const profile = aProfile(workspace.id)
  yield* store.createProfile(profile)
  const account = anAccount(workspace.id, profile.id, { platform: "photo", externalId: anId("igid"), sandbox: false })
  yield* store.createAccount(account)
  const post = aPost(workspace.id, {
    profileId: profile.id,
    status: "published",
    targets: [aTarget({ accountId: account.id, status: "published", publishedAt: t0 })]
  })
  yield* store.insertPost(post, [])
  return { workspace, account, post: post.post, target: post.targets[0]! }
})

type Setup = Effect.Success<typeof aPublishedTarget>

/** A comment under the setup's target; `parent` names the platform id it answers. */
const aComment = (
  setup: Setup,
  platformCommentId: string,
  overrides: Partial<CommentRecord> = {}
): NewComment => ({
  record: {
    id: Id.unchecked("comment", anId("cmt")),
    workspaceId: setup.workspace.id,
    postId: setup.post.id,
    targetId: setup.target.id,
    accountId: setup.account.id,
    platform: "photo",
    platformCommentId,
    parentId: null,
    parentPlatformCommentId: null,
    authorHandle: "rina.eats",
    authorDisplayName: null,
    text: "Looks delicious!",
    createdAt: t0,
    hidden: false,
    likeCount: 2,
    fromOwner: false,
    permalink: null,
    storedAt: t0,
    ...overrides
  },
  eventId: Id.unchecked("event", anId("evt"))
})

const createdEvent = (comment: CommentRecord, eventId: string): OutboxEvent => ({
  id: Id.unchecked("event", eventId),
  workspaceId: comment.workspaceId,
  type: "comment.created",
  createdAt: t0,
  livemode: true,
  data: { id: comment.id, parent_id: comment.parentId, platform_comment_id: comment.platformCommentId }
})

const aPollState = (setup: Setup, overrides: Partial<CommentPollState> = {}): CommentPollState => ({
  workspaceId: setup.workspace.id,
  targetId: setup.target.id,
  postId: setup.post.id,
  accountId: setup.account.id,
  platform: "photo",
  platformPostId: anId("media"),
  publishedAt: t0,
  cursor: null,
  nextPollAt: t0 + minute,
  failures: 0,
  leaseOwner: null,
  leaseUntil: null,
  ...overrides
})

const commentEvents = (workspaceId: string) =>
  Store.use((s) => s.listEvents(Id.unchecked("workspace", workspaceId))).pipe(Effect.map((events) => events.filter((e) => e.type === "comment.created")))

/** Runs the suite against the store `make` builds. */
export const commentStoreConformance = (name: string, make: () => Layer.Layer<Store | CommentStore, unknown>) =>
  layer(make(), { timeout: 60_000 })(`CommentStore conformance: ${name}`, (it) => {
    describe("storing comments", () => {
      it.effect("stores each platform comment once, with one comment.created each", () =>
        Effect.gen(function* () {
          const comments = yield* CommentStore
          const setup = yield* aPublishedTarget
          const batch = [aComment(setup, "c1"), aComment(setup, "c2", { createdAt: t0 + 1 })]
          const first = yield* comments.storeComments({ workspaceId: setup.workspace.id, comments: batch, event: createdEvent })
          assert.strictEqual(first.inserted.length, 2)
          assert.isFalse(first.pollSaved)
          // Seen again (a repeated poll, a webhook), with new ids: nothing new.
          const again = yield* comments.storeComments({
            workspaceId: setup.workspace.id,
            comments: [aComment(setup, "c1"), aComment(setup, "c2"), aComment(setup, "c3", { createdAt: t0 + 2 })],
            event: createdEvent
          })
          assert.deepStrictEqual(again.inserted.map((c) => c.platformCommentId), ["c3"])
          const events = yield* commentEvents(setup.workspace.id)
          assert.deepStrictEqual(events.map((e) => e.data.platform_comment_id).sort(), ["c1", "c2", "c3"])
          const listed = yield* comments.listComments(setup.workspace.id, {}, undefined, 10)
          assert.deepStrictEqual(listed.map((c) => c.platformCommentId), ["c3", "c2", "c1"])
        }))

      it.effect("links an answer to its parent, in the same batch or a later one", () =>
        Effect.gen(function* () {
          const comments = yield* CommentStore
          const setup = yield* aPublishedTarget
          const stored = yield* comments.storeComments({
            workspaceId: setup.workspace.id,
            comments: [aComment(setup, "p1"), aComment(setup, "r1", { parentPlatformCommentId: "p1" })],
            event: createdEvent
          })
          const [parent, reply] = stored.inserted
          assert.strictEqual(reply?.parentId, parent?.id)
          assert.strictEqual(
            (yield* commentEvents(setup.workspace.id)).find((e) => e.data.platform_comment_id === "r1")?.data.parent_id,
            parent?.id
          )
          const later = yield* comments.storeComments({
            workspaceId: setup.workspace.id,
            comments: [aComment(setup, "r2", { parentPlatformCommentId: "p1" })],
            event: createdEvent
          })
          assert.strictEqual(later.inserted[0]?.parentId, parent?.id)
        }))

      it.effect("changes, hides and deletes a comment; a deleted one is neither listed nor stored again", () =>
        Effect.gen(function* () {
          const comments = yield* CommentStore
          const setup = yield* aPublishedTarget
          const ws = setup.workspace.id
          const { inserted } = yield* comments.storeComments({ workspaceId: ws, comments: [aComment(setup, "d1")], event: createdEvent })
          const id = inserted[0]!.id
          const hidden = yield* comments.changeComment(ws, setup.account.id, "d1", { hidden: true, text: "edited" })
          assert.isTrue(Option.isSome(hidden) && hidden.value.hidden && hidden.value.text === "edited")
          assert.strictEqual((yield* comments.listComments(ws, { hidden: true }, undefined, 10)).length, 1)
          assert.strictEqual((yield* comments.listComments(ws, { hidden: false }, undefined, 10)).length, 0)
          yield* comments.changeComment(ws, setup.account.id, "d1", { deleted: true })
          assert.isTrue(Option.isNone(yield* comments.getComment(ws, id)))
          assert.strictEqual((yield* comments.listComments(ws, {}, undefined, 10)).length, 0)
          const again = yield* comments.storeComments({ workspaceId: ws, comments: [aComment(setup, "d1")], event: createdEvent })
          assert.strictEqual(again.inserted.length, 0)
          assert.isTrue(Option.isNone(yield* comments.changeComment(ws, setup.account.id, "unknown", { hidden: true })))
        }))
    })

    describe("listing comments", () => {
      it.effect("pages newest first with filters, and never shows another workspace's comments", () =>
        Effect.gen(function* () {
          const comments = yield* CommentStore
          const setup = yield* aPublishedTarget
          const other = yield* aPublishedTarget
          const ws = setup.workspace.id
          const batch = [1, 2, 3, 4, 5].map((i) => aComment(setup, `l${i}`, { createdAt: t0 + (i < 3 ? 0 : i) * minute }))
          yield* comments.storeComments({ workspaceId: ws, comments: batch, event: createdEvent })
          yield* comments.storeComments({ workspaceId: other.workspace.id, comments: [aComment(other, "x1")], event: createdEvent })
          const first = yield* comments.listComments(ws, {}, undefined, 3)
          assert.deepStrictEqual(first.map((c) => c.platformCommentId), ["l5", "l4", "l3"])
          const last = first[2]!
          const second = yield* comments.listComments(ws, {}, { sortKey: last.createdAt, id: last.id }, 3)
          assert.strictEqual(second.length, 2)
          assert.deepStrictEqual(
            [...first, ...second].map((c) => c.platformCommentId).sort(),
            ["l1", "l2", "l3", "l4", "l5"]
          )
          const ranged = yield* comments.listComments(ws, { from: t0 + 3 * minute, to: t0 + 5 * minute }, undefined, 10)
          assert.deepStrictEqual(ranged.map((c) => c.platformCommentId), ["l4", "l3"])
          for (const filter of [
            { postId: setup.post.id },
            { targetId: setup.target.id },
            { accountId: setup.account.id },
            { platform: "photo" as const }
          ]) {
            assert.strictEqual((yield* comments.listComments(ws, filter, undefined, 10)).length, 5)
          }
          assert.strictEqual((yield* comments.listComments(ws, { postId: other.post.id }, undefined, 10)).length, 0)
          assert.strictEqual((yield* comments.listComments(ws, { platform: "pages" }, undefined, 10)).length, 0)
          assert.isTrue(Option.isNone(yield* comments.getComment(ws, (yield* comments.listComments(other.workspace.id, {}, undefined, 1))[0]!.id)))
        }))
    })

    describe("polling state", () => {
      it.effect("claims due polls once, saves the cursor with the comments, and claims again when a lease runs out", () =>
        Effect.gen(function* () {
          const comments = yield* CommentStore
          const setup = yield* aPublishedTarget
          const era = anEra()
          const state = aPollState(setup, { publishedAt: era, nextPollAt: era + minute })
          yield* comments.trackTarget(state)
          yield* comments.trackTarget({ ...state, nextPollAt: era + day })
          assert.deepStrictEqual(yield* comments.claimDuePolls({ owner: "w1", at: era, leaseUntil: era + minute, limit: 10 }), [])
          const claimed = yield* comments.claimDuePolls({ owner: "w1", at: era + minute, leaseUntil: era + 3 * minute, limit: 10 })
          assert.deepStrictEqual(claimed.map((p) => p.targetId), [setup.target.id])
          assert.deepStrictEqual(yield* comments.claimDuePolls({ owner: "w2", at: era + 2 * minute, leaseUntil: era + 4 * minute, limit: 10 }), [])
          const reclaimed = yield* comments.claimDuePolls({ owner: "w2", at: era + 3 * minute, leaseUntil: era + 5 * minute, limit: 10 })
          assert.deepStrictEqual(reclaimed.map((p) => p.leaseOwner), ["w2"])
          // w1 lost its lease: what it found is stored once, its cursor is not.
          const lost = yield* comments.storeComments({
            workspaceId: setup.workspace.id,
            comments: [aComment(setup, "q1")],
            event: createdEvent,
            poll: { key: { workspaceId: setup.workspace.id, targetId: setup.target.id }, completion: { owner: "w1", at: era, cursor: "stale", nextPollAt: era } }
          })
          assert.strictEqual(lost.inserted.length, 1)
          assert.isFalse(lost.pollSaved)
          const saved = yield* comments.storeComments({
            workspaceId: setup.workspace.id,
            comments: [aComment(setup, "q1")],
            event: createdEvent,
            poll: {
              key: { workspaceId: setup.workspace.id, targetId: setup.target.id },
              completion: { owner: "w2", at: era + 3 * minute, cursor: { after: "QVFI", seen: 1 }, nextPollAt: era + 4 * minute, credentials: "sealed-2" }
            }
          })
          assert.isTrue(saved.pollSaved)
          assert.strictEqual(saved.inserted.length, 0)
          const after = Option.getOrThrow(yield* comments.getPollState({ workspaceId: setup.workspace.id, targetId: setup.target.id }))
          assert.deepStrictEqual(after.cursor, { after: "QVFI", seen: 1 })
          assert.strictEqual(after.nextPollAt, era + 4 * minute)
          assert.strictEqual(after.leaseOwner, null)
          const account = Option.getOrThrow(yield* Store.use((s) => s.getAccount(setup.workspace.id, setup.account.id)))
          assert.strictEqual(account.credentials, "sealed-2")
        }))

      it.effect("keeps a cursor that is a plain string, and stops polling on a deferral without a next time", () =>
        Effect.gen(function* () {
          const comments = yield* CommentStore
          const setup = yield* aPublishedTarget
          const era = anEra()
          const key = { workspaceId: setup.workspace.id, targetId: setup.target.id }
          yield* comments.trackTarget(aPollState(setup, { publishedAt: era, nextPollAt: era }))
          yield* comments.claimDuePolls({ owner: "w1", at: era, leaseUntil: era + minute, limit: 10 })
          yield* comments.storeComments({
            workspaceId: key.workspaceId,
            comments: [],
            event: createdEvent,
            poll: { key, completion: { owner: "w1", at: era, cursor: "17", nextPollAt: era + minute } }
          })
          assert.strictEqual(Option.getOrThrow(yield* comments.getPollState(key)).cursor, "17")
          yield* comments.claimDuePolls({ owner: "w1", at: era + minute, leaseUntil: era + 2 * minute, limit: 10 })
          assert.isFalse(yield* comments.deferPoll(key, "w2", { at: era + minute, nextPollAt: null, failures: 0 }))
          assert.isTrue(yield* comments.deferPoll(key, "w1", { at: era + minute, nextPollAt: era + 5 * minute, failures: 3 }))
          assert.strictEqual(Option.getOrThrow(yield* comments.getPollState(key)).failures, 3)
          yield* comments.claimDuePolls({ owner: "w1", at: era + 5 * minute, leaseUntil: era + 6 * minute, limit: 10 })
          assert.isTrue(yield* comments.deferPoll(key, "w1", { at: era + 5 * minute, nextPollAt: null, failures: 0 }))
          assert.deepStrictEqual(yield* comments.claimDuePolls({ owner: "w1", at: era + 300 * day, leaseUntil: era + 301 * day, limit: 100 }).pipe(
            Effect.map((claimed) => claimed.filter((p) => p.workspaceId === key.workspaceId))
          ), [])
        }))

      it.effect("marks the account needs_reconnect with its event on a deferral that says so, once", () =>
        Effect.gen(function* () {
          const comments = yield* CommentStore
          const setup = yield* aPublishedTarget
          const era = anEra()
          const key = { workspaceId: setup.workspace.id, targetId: setup.target.id }
          yield* comments.trackTarget(aPollState(setup, { publishedAt: era, nextPollAt: era }))
          const reconnect = (eventId: string) => ({
            reason: { code: "token_expired", platformCode: "190" },
            events: [
              {
                id: Id.unchecked("event", eventId),
                workspaceId: setup.workspace.id,
                type: "account.needs_reconnect",
                createdAt: era,
                livemode: true,
                data: { account_id: setup.account.id, reason: "token_expired" }
              } satisfies OutboxEvent
            ]
          })
          const reconnectEvents = Store.use((s) => s.listEvents(setup.workspace.id)).pipe(
            Effect.map((events) => events.filter((e) => e.type === "account.needs_reconnect").map((e) => e.id))
          )
          yield* comments.claimDuePolls({ owner: "w1", at: era, leaseUntil: era + minute, limit: 10 })
          // Another instance's lease: nothing changes.
          assert.isFalse(yield* comments.deferPoll(key, "w2", { at: era, nextPollAt: era + minute, failures: 1, reconnect: reconnect(anId("evt")) }))
          assert.strictEqual(Option.getOrThrow(yield* Store.use((s) => s.getAccount(setup.workspace.id, setup.account.id))).status, "connected")
          const first = anId("evt")
          assert.isTrue(yield* comments.deferPoll(key, "w1", { at: era, nextPollAt: era + minute, failures: 1, reconnect: reconnect(first) }))
          assert.strictEqual(Option.getOrThrow(yield* Store.use((s) => s.getAccount(setup.workspace.id, setup.account.id))).status, "needs_reconnect")
          assert.deepStrictEqual(yield* reconnectEvents, [first])
          // Already waiting for the person: a second refusal writes no second event.
          yield* comments.claimDuePolls({ owner: "w1", at: era + minute, leaseUntil: era + 2 * minute, limit: 10 })
          assert.isTrue(yield* comments.deferPoll(key, "w1", { at: era + minute, nextPollAt: era + 3 * minute, failures: 2, reconnect: reconnect(anId("evt")) }))
          assert.deepStrictEqual(yield* reconnectEvents, [first])
        }))

      it.effect("finds the polled targets of a platform item, by the account's platform id when given", () =>
        Effect.gen(function* () {
          const comments = yield* CommentStore
          const setup = yield* aPublishedTarget
          const item = anId("media")
          yield* comments.trackTarget(aPollState(setup, { platformPostId: item, nextPollAt: null }))
          const found = yield* comments.findPolledTargets("photo", setup.account.externalId, item)
          assert.deepStrictEqual(found.map((p) => p.targetId), [setup.target.id])
          assert.strictEqual((yield* comments.findPolledTargets("photo", null, item)).length, 1)
          assert.strictEqual((yield* comments.findPolledTargets("photo", "someone-else", item)).length, 0)
          assert.strictEqual((yield* comments.findPolledTargets("pages", null, item)).length, 0)
        }))
    })

    describe("call budget", () => {
      it.effect("counts an account's calls per hour and refuses past the budget until the next hour", () =>
        Effect.gen(function* () {
          const comments = yield* CommentStore
          const setup = yield* aPublishedTarget
          const ws = setup.workspace.id
          const hour = 60 * minute
          assert.isTrue(yield* comments.takeCallBudget(ws, setup.account.id, t0, 3, 1))
          yield* comments.addCalls(ws, setup.account.id, t0, 1)
          assert.isTrue(yield* comments.takeCallBudget(ws, setup.account.id, t0, 3, 1))
          assert.strictEqual(yield* comments.callsUsed(ws, setup.account.id, t0), 3)
          assert.isFalse(yield* comments.takeCallBudget(ws, setup.account.id, t0, 3, 1))
          assert.isTrue(yield* comments.takeCallBudget(ws, setup.account.id, t0 + hour, 3, 1))
          assert.strictEqual(yield* comments.callsUsed(ws, setup.account.id, t0 + hour), 1)
          assert.strictEqual(yield* comments.callsUsed(ws, setup.account.id, t0), 0)
        }))
    })
  })
