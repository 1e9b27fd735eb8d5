/**
 * The one specification every `ConnectStore` passes: in memory, on PGlite and on PostgreSQL.
 * One store serves the whole suite. Refresh claims look across workspaces, so each case that
 * claims lives in its own era, earlier than every era before it: what an earlier case left due
 * lies in a later case's future.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect, type Layer, Option } from "effect"
import {
  type AccountConnectionRecord,
  type AccountRecord,
  type ConnectedAccount,
  type ConnectLinkRecord,
  ConnectStore,
  Store
} from "@postwire/core"
import { aPost, aProfile, aTarget, aWorkspace, anAccount, anEvent, anId, t0 } from "../store-conformance/builders.ts"
import { Ids as Id } from "@postwire/domain"

const day = 24 * 60 * 60 * 1000
let eras = 0

/** The start of a fresh era, earlier than every era handed out before. */
const anEra = () => t0 - ++eras * 400 * day

const aLink = (workspaceId: string, profileId: string, overrides: Partial<ConnectLinkRecord> = {}): ConnectLinkRecord => ({
  id: Id.unchecked("connectLink", anId("cnl")),
  workspaceId: Id.unchecked("workspace", workspaceId),
  profileId: Id.unchecked("profile", profileId),
  platform: "shortvideo",
  sandbox: false,
  redirectUrl: "https://app.example.com/back",
  accountId: null,
  tokenHash: anId("tokenhash"),
  stateHash: null,
  codeVerifier: null,
  pendingChoice: null,
  expiresAt: t0 + 30 * 60 * 1000,
  completedAt: null,
  accountIds: [],
  createdBy: "key:key_1",
  createdAt: t0,
  ...overrides
})

const aConnection = (
  account: AccountRecord,
  overrides: Partial<AccountConnectionRecord> = {}
): AccountConnectionRecord => ({
  workspaceId: account.workspaceId,
  accountId: account.id,
  platform: account.platform,
  sandbox: account.sandbox,
  externalId: anId("ext"),
  grantId: anId("grant"),
  displayName: "Dewi Creator",
  avatarUrl: "https://cdn.example/avatar.jpg",
  scopes: ["video.publish", "user.info.basic"],
  connectedAt: t0,
  tokenExpiresAt: t0 + 2 * 60 * 60 * 1000,
  refreshExpiresAt: t0 + 180 * day,
  privacyLevelOptions: ["PUBLIC_TO_EVERYONE", "SELF_ONLY"],
  maxVideoPostDurationSec: 300,
  refreshAt: t0 + 60 * 60 * 1000,
  refreshFailures: 0,
  leaseOwner: null,
  leaseUntil: null,
  reconnectReason: null,
  disconnectedAt: null,
  ...overrides
})

/** A workspace with a profile and an open link. */
const aSetup = Effect.gen(function* () {
  const store = yield* Store
  const connect = yield* ConnectStore
  const workspace = aWorkspace()
  yield* store.createWorkspace(workspace)
  const profile = aProfile(workspace.id)
  yield* store.createProfile(profile)
  const link = aLink(workspace.id, profile.id)
  yield* connect.createLink(link)
  /** A new account connected through a fresh link, with its connection. */
  const connected = (account: Partial<AccountRecord> = {}, connection: Partial<AccountConnectionRecord> = {}) =>
    Effect.gen(function* () {
      const fresh = aLink(workspace.id, profile.id)
      yield* connect.createLink(fresh)
      const record = anAccount(workspace.id, profile.id, { platform: "shortvideo", sandbox: false, credentials: "pwc1.sealed", ...account })
      const written: ConnectedAccount = { mode: "insert", account: record, connection: aConnection(record, connection) }
      assert.isTrue(yield* connect.completeLink(workspace.id, fresh.id, t0, [written], []))
      return written
    })
  return { store, connect, workspaceId: workspace.id, profileId: profile.id, link, connected }
})

/**
 * Registers the conformance suite for one implementation.
 *
 * @param makeLayer builds the stores under test once for the whole suite.
 */
export const connectStoreConformance = <E>(name: string, makeLayer: () => Layer.Layer<Store | ConnectStore, E>): void => {
  describe(`ConnectStore conformance: ${name}`, () => {
    layer(makeLayer(), { timeout: 60_000 })((it) => {
      describe("links", () => {
        it.effect("finds a link by its token, and by the state of its authorization in progress only", () =>
          Effect.gen(function* () {
            const { connect, link } = yield* aSetup
            assert.deepStrictEqual(Option.getOrThrow(yield* connect.findLinkByToken(link.tokenHash)), link)
            assert.isTrue(Option.isNone(yield* connect.findLinkByToken("unknown")))

            assert.isTrue(yield* connect.startAuthorization(link.workspaceId, link.id, "state-1", "sealed-verifier-1"))
            const started = Option.getOrThrow(yield* connect.findLinkByState("state-1"))
            assert.strictEqual(started.codeVerifier, "sealed-verifier-1")
            assert.isTrue(yield* connect.startAuthorization(link.workspaceId, link.id, "state-2", "sealed-verifier-2"))
            assert.isTrue(Option.isNone(yield* connect.findLinkByState("state-1")), "a restarted authorization forgets the old state")
            assert.strictEqual(Option.getOrThrow(yield* connect.findLinkByState("state-2")).codeVerifier, "sealed-verifier-2")
          })
        )

        it.effect("completes a link once: its accounts, connections and events in one write, then nothing more", () =>
          Effect.gen(function* () {
            const { connect, link, store, workspaceId, profileId } = yield* aSetup
            yield* connect.startAuthorization(workspaceId, link.id, "state-complete", "v")
            const account = anAccount(workspaceId, profileId, { platform: "pages", sandbox: false, credentials: "pwc1.a" })
            const second = anAccount(workspaceId, profileId, { platform: "pages", sandbox: false, credentials: "pwc1.b" })
            const written = [account, second].map((a): ConnectedAccount => ({ mode: "insert", account: a, connection: aConnection(a) }))
            const events = [anEvent(workspaceId, { type: "account.connected" }), anEvent(workspaceId, { type: "account.connected" })]

            assert.isTrue(yield* connect.completeLink(workspaceId, link.id, t0 + 5, written, events))
            const done = Option.getOrThrow(yield* connect.findLinkByToken(link.tokenHash))
            assert.strictEqual(done.completedAt, t0 + 5)
            assert.deepStrictEqual(done.accountIds, [account.id, second.id])
            assert.isTrue(Option.isNone(yield* connect.findLinkByState("state-complete")))
            assert.deepStrictEqual(Option.getOrThrow(yield* store.getAccount(workspaceId, account.id)), account)
            assert.deepStrictEqual(Option.getOrThrow(yield* connect.getConnection(workspaceId, second.id)), written[1]!.connection)
            assert.deepStrictEqual(
              (yield* store.listEvents(workspaceId)).map((e) => e.id),
              events.map((e) => e.id)
            )

            const again = anAccount(workspaceId, profileId)
            assert.isFalse(
              yield* connect.completeLink(workspaceId, link.id, t0 + 6, [{ mode: "insert", account: again, connection: aConnection(again) }], [])
            )
            assert.isTrue(Option.isNone(yield* store.getAccount(workspaceId, again.id)))
            assert.isFalse(yield* connect.startAuthorization(workspaceId, link.id, "state-late", "v"))
            assert.isFalse(yield* connect.closeLink(workspaceId, link.id, t0 + 7))
          })
        )

        it.effect("closes a link without connecting anything", () =>
          Effect.gen(function* () {
            const { connect, link } = yield* aSetup
            assert.isTrue(yield* connect.closeLink(link.workspaceId, link.id, t0 + 1))
            const closed = Option.getOrThrow(yield* connect.findLinkByToken(link.tokenHash))
            assert.strictEqual(closed.completedAt, t0 + 1)
            assert.deepStrictEqual(closed.accountIds, [])
          })
        )

        it.effect("renews the account of an identity: same id, new credentials and connection", () =>
          Effect.gen(function* () {
            const { connect, connected, link, store, workspaceId } = yield* aSetup
            const first = yield* connected({ status: "needs_reconnect" }, { reconnectReason: { code: "token_expired", platformCode: "invalid_grant" } })
            const found = yield* connect.findConnectionByIdentity(workspaceId, "shortvideo", false, first.connection.externalId)
            assert.strictEqual(Option.getOrThrow(found).accountId, first.account.id)
            assert.isTrue(Option.isNone(yield* connect.findConnectionByIdentity(workspaceId, "shortvideo", true, first.connection.externalId)))

            const renewed: ConnectedAccount = {
              mode: "renew",
              account: { ...first.account, status: "connected", credentials: "pwc1.renewed", handle: "renamed" },
              connection: { ...first.connection, reconnectReason: null, connectedAt: t0 + 9, scopes: ["video.publish"] }
            }
            assert.isTrue(yield* connect.completeLink(workspaceId, link.id, t0 + 9, [renewed], []))
            assert.deepStrictEqual(Option.getOrThrow(yield* store.getAccount(workspaceId, first.account.id)), renewed.account)
            assert.deepStrictEqual(Option.getOrThrow(yield* connect.getConnection(workspaceId, first.account.id)), renewed.connection)
          })
        )

        it.effect("refuses a second account with an identity the workspace already has", () =>
          Effect.gen(function* () {
            const { connect, connected, link, store, workspaceId, profileId } = yield* aSetup
            const first = yield* connected()
            const twin = anAccount(workspaceId, profileId, { platform: "shortvideo", sandbox: false })
            const attempt = connect.completeLink(workspaceId, link.id, t0, [
              { mode: "insert", account: twin, connection: aConnection(twin, { externalId: first.connection.externalId }) }
            ], [])
            assert.strictEqual((yield* Effect.flip(attempt))._tag, "StoreError")
            assert.isTrue(Option.isNone(yield* store.getAccount(workspaceId, twin.id)))
            assert.isTrue(Option.isSome(yield* connect.findLinkByToken(link.tokenHash)))
            assert.isNull(Option.getOrThrow(yield* connect.findLinkByToken(link.tokenHash)).completedAt, "nothing of the failed write stays")
          })
        )
      })

      describe("disconnecting", () => {
        it.effect("disconnects once: status, erased credentials, no refresh, one set of events", () =>
          Effect.gen(function* () {
            const { connect, connected, store, workspaceId } = yield* aSetup
            const { account } = yield* connected()
            const event = anEvent(workspaceId, { type: "account.disconnected" })

            assert.isTrue(yield* connect.disconnectAccount(workspaceId, account.id, t0 + 3, [event]))
            const stored = Option.getOrThrow(yield* store.getAccount(workspaceId, account.id))
            assert.strictEqual(stored.status, "disconnected")
            assert.isNull(stored.credentials)
            const connection = Option.getOrThrow(yield* connect.getConnection(workspaceId, account.id))
            assert.strictEqual(connection.disconnectedAt, t0 + 3)
            assert.isNull(connection.refreshAt)
            assert.isFalse(yield* connect.disconnectAccount(workspaceId, account.id, t0 + 4, [anEvent(workspaceId)]))
            assert.deepStrictEqual((yield* store.listEvents(workspaceId)).map((e) => e.id), [event.id])
          })
        )

        it.effect("finds the live connections of one consent across workspaces", () =>
          Effect.gen(function* () {
            const one = yield* aSetup
            const two = yield* aSetup
            const grantId = anId("grant")
            const a = yield* one.connected({ platform: "pages" }, { grantId })
            const b = yield* two.connected({ platform: "pages" }, { grantId })
            yield* one.connected({ platform: "pages", sandbox: true }, { grantId })
            const found = yield* one.connect.findConnectionsByGrant("pages", grantId)
            assert.sameMembers(found.map((c) => c.accountId), [a.account.id, b.account.id])

            yield* two.connect.disconnectAccount(two.workspaceId, b.account.id, t0, [])
            assert.deepStrictEqual((yield* one.connect.findConnectionsByGrant("pages", grantId)).map((c) => c.accountId), [a.account.id])
          })
        )

        it.effect("lists the posts waiting on an account: queued or scheduled targets only", () =>
          Effect.gen(function* () {
            const { connect, connected, store, workspaceId, profileId } = yield* aSetup
            const { account } = yield* connected()
            const posts = (["queued", "scheduled", "published", "awaiting_approval"] as const).map((status) =>
              aPost(workspaceId, { profileId, status, targets: [aTarget({ accountId: account.id, status, platform: "shortvideo" })] })
            )
            for (const post of posts) yield* store.insertPost(post, [])
            const waiting = yield* connect.postsWaitingOnAccount(workspaceId, account.id)
            assert.deepStrictEqual(waiting, [posts[0]!.post.id, posts[1]!.post.id].sort())
          })
        )
      })

      describe("profiles", () => {
        it.effect("deletes a profile only without live accounts and unfinished posts", () =>
          Effect.gen(function* () {
            const { connect, connected, store, workspaceId, profileId } = yield* aSetup
            const { account } = yield* connected()
            assert.deepStrictEqual(yield* connect.deleteProfile(workspaceId, profileId), { _tag: "HasAccounts", count: 1 })
            yield* connect.disconnectAccount(workspaceId, account.id, t0, [])
            const post = aPost(workspaceId, { profileId, status: "scheduled" })
            yield* store.insertPost(post, [])
            assert.deepStrictEqual(yield* connect.deleteProfile(workspaceId, profileId), { _tag: "HasUnfinishedPosts" })
            yield* store.savePost({ ...post, post: { ...post.post, status: "cancelled", version: post.post.version + 1 } }, [])
            assert.deepStrictEqual(yield* connect.deleteProfile(workspaceId, profileId), { _tag: "Deleted" })
            assert.isTrue(Option.isNone(yield* store.getProfile(workspaceId, profileId)))
            assert.deepStrictEqual(yield* connect.deleteProfile(workspaceId, profileId), { _tag: "NotFound" })
          })
        )

        it.effect("renames a profile of its workspace only", () =>
          Effect.gen(function* () {
            const { connect, store, workspaceId, profileId } = yield* aSetup
            assert.isTrue(yield* connect.renameProfile(workspaceId, profileId, "Renamed"))
            assert.strictEqual(Option.getOrThrow(yield* store.getProfile(workspaceId, profileId)).name, "Renamed")
            assert.isFalse(yield* connect.renameProfile(Id.unchecked("workspace", "ws_other"), profileId, "Nope"))
          })
        )
      })

      describe("the refresh queue", () => {
        it.effect("leases due refreshes of connected accounts, earliest first, and not twice", () =>
          Effect.gen(function* () {
            const { connect, connected } = yield* aSetup
            const era = anEra()
            const late = yield* connected({}, { refreshAt: era + 20 })
            const early = yield* connected({}, { refreshAt: era + 10 })
            yield* connected({}, { refreshAt: era + 1_000 })
            yield* connected({ status: "needs_reconnect" }, { refreshAt: era + 5 })

            const claimed = yield* connect.claimDueRefreshes({ owner: "w1", at: era + 100, leaseUntil: era + 200, limit: 10 })
            assert.deepStrictEqual(claimed.map((c) => c.accountId), [early.account.id, late.account.id])
            assert.isTrue(claimed.every((c) => c.leaseOwner === "w1" && c.leaseUntil === era + 200))
            assert.deepStrictEqual(yield* connect.claimDueRefreshes({ owner: "w2", at: era + 150, leaseUntil: era + 300, limit: 10 }), [])
            const expired = yield* connect.claimDueRefreshes({ owner: "w2", at: era + 200, leaseUntil: era + 300, limit: 1 })
            assert.deepStrictEqual(expired.map((c) => c.accountId), [early.account.id], "a lease that ran out is claimed again")
          })
        )

        it.effect("never leases one refresh to two workers claiming at the same time", () =>
          Effect.gen(function* () {
            const { connect, connected } = yield* aSetup
            const era = anEra()
            const due: Array<string> = []
            for (let i = 0; i < 8; i++) due.push((yield* connected({}, { refreshAt: era + i })).account.id)
            const claim = (owner: string) => connect.claimDueRefreshes({ owner, at: era + 100, leaseUntil: era + 1_000, limit: 5 })
            const [a, b] = yield* Effect.all([claim("w1"), claim("w2")], { concurrency: 2 })
            const ids = [...a, ...b].map((c) => c.accountId)
            assert.strictEqual(new Set(ids).size, ids.length, "no refresh is leased twice")
            assert.sameMembers(ids, due)
          })
        )

        it.effect("records a refresh (new credentials, expiry, next time) only for the lease holder", () =>
          Effect.gen(function* () {
            const { connect, connected, store, workspaceId } = yield* aSetup
            const era = anEra()
            const { account } = yield* connected({}, { refreshAt: era })
            yield* connect.claimDueRefreshes({ owner: "w1", at: era, leaseUntil: era + 100, limit: 10 })
            const key = { workspaceId, accountId: account.id }
            const done = {
              at: era,
              credentials: "pwc1.fresh",
              tokenExpiresAt: era + day,
              refreshExpiresAt: era + 365 * day,
              scopes: ["video.publish"],
              refreshAt: era + day / 2,
              creator: { privacyLevelOptions: ["SELF_ONLY"], maxVideoPostDurationSec: 60 }
            }

            assert.isFalse(yield* connect.recordRefresh(key, "w2", done))
            assert.isTrue(yield* connect.recordRefresh(key, "w1", done))
            const connection = Option.getOrThrow(yield* connect.getConnection(workspaceId, account.id))
            assert.deepStrictEqual(
              [connection.tokenExpiresAt, connection.refreshExpiresAt, connection.scopes, connection.refreshAt, connection.leaseOwner],
              [era + day, era + 365 * day, ["video.publish"], era + day / 2, null]
            )
            assert.strictEqual(Option.getOrThrow(yield* store.getAccount(workspaceId, account.id)).credentials, "pwc1.fresh")
            assert.deepStrictEqual([connection.privacyLevelOptions, connection.maxVideoPostDurationSec], [["SELF_ONLY"], 60])
          })
        )

        it.effect("defers a refresh with its failure count", () =>
          Effect.gen(function* () {
            const { connect, connected, workspaceId } = yield* aSetup
            const era = anEra()
            const { account } = yield* connected({}, { refreshAt: era })
            yield* connect.claimDueRefreshes({ owner: "w1", at: era, leaseUntil: era + 100, limit: 10 })
            assert.isTrue(yield* connect.deferRefresh({ workspaceId, accountId: account.id }, "w1", era + 60_000, 1))
            const connection = Option.getOrThrow(yield* connect.getConnection(workspaceId, account.id))
            assert.deepStrictEqual([connection.refreshAt, connection.refreshFailures, connection.leaseOwner], [era + 60_000, 1, null])
          })
        )

        it.effect("a refused refresh marks the account needs_reconnect with its events, once", () =>
          Effect.gen(function* () {
            const { connect, connected, store, workspaceId } = yield* aSetup
            const era = anEra()
            const { account } = yield* connected({}, { refreshAt: era })
            const key = { workspaceId, accountId: account.id }
            const reason = { code: "token_expired", platformCode: "invalid_grant" }
            yield* connect.claimDueRefreshes({ owner: "w1", at: era, leaseUntil: era + 100, limit: 10 })
            const event = anEvent(workspaceId, { type: "account.needs_reconnect" })
            assert.isTrue(yield* connect.refuseRefresh(key, "w1", reason, [event]))

            assert.strictEqual(Option.getOrThrow(yield* store.getAccount(workspaceId, account.id)).status, "needs_reconnect")
            const connection = Option.getOrThrow(yield* connect.getConnection(workspaceId, account.id))
            assert.deepStrictEqual([connection.reconnectReason, connection.refreshAt], [reason, null])
            assert.deepStrictEqual((yield* store.listEvents(workspaceId)).map((e) => e.id), [event.id])
            assert.isFalse(yield* connect.refuseRefresh(key, "w1", reason, [anEvent(workspaceId)]), "the lease was given up")
          })
        )
      })
    })
  })
}
