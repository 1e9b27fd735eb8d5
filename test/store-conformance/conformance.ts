/**
 * The one specification every `Store` implementation passes: in memory, PGlite and PostgreSQL
 * run these same cases. One store instance serves the whole suite, so each case builds its own
 * workspace (or bucket, key, setting name) and never sees another case's data.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect, type Layer, Option } from "effect"
import { type PostAggregate, Store, StoreError, VersionConflict } from "@postwire/core"
import {
  aMedia,
  anAccount,
  anApiKey,
  anApproval,
  anEvent,
  anId,
  aPost,
  aProfile,
  aSave,
  aTarget,
  aWorkspace,
  t0
} from "./builders.ts"
import { Ids as Id } from "@postwire/domain"

/** Newest first by `(sortKey, id)`, the order every keyset list promises. */
const byNewest =
  <A>(sortKey: (a: A) => number, id: (a: A) => string) =>
  (a: A, b: A): number =>
    sortKey(b) - sortKey(a) || (id(a) < id(b) ? 1 : id(a) > id(b) ? -1 : 0)

const postsNewestFirst = byNewest<PostAggregate>(
  ({ post }) => post.publishAt,
  ({ post }) => post.id
)

/** A deterministic shuffle, so insertion order never matches list order by accident. */
const shuffled = <A>(items: ReadonlyArray<A>): Array<A> => {
  const out = [...items]
  let seed = 42
  for (let i = out.length - 1; i > 0; i--) {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
    const j = seed % (i + 1)
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

const withWorkspace = Effect.gen(function* () {
  const store = yield* Store
  const workspace = aWorkspace()
  yield* store.createWorkspace(workspace)
  return { store, workspaceId: workspace.id }
})

/**
 * Registers the conformance suite for one implementation.
 *
 * @param makeLayer builds the store under test once for the whole suite.
 */
export const storeConformance = <E>(name: string, makeLayer: () => Layer.Layer<Store, E>): void =>
  // The real clock: stores keep no time of their own, and drivers' pool timers must run.
  layer(makeLayer(), { excludeTestServices: true })(`Store conformance: ${name}`, (it) => {
    describe("workspaces and keys", () => {
      it.effect("creates a workspace, reads it back, and counts it", () =>
        Effect.gen(function* () {
          const store = yield* Store
          const before = yield* store.countWorkspaces()
          const first = aWorkspace({ name: "First", allowedRedirectDomains: ["a.test", "b.test"] })
          const second = aWorkspace({ name: "Second", allowedRedirectDomains: [] })
          yield* store.createWorkspace(first)
          yield* store.createWorkspace(second)

          assert.deepStrictEqual(Option.getOrThrow(yield* store.getWorkspace(first.id)), first)
          assert.deepStrictEqual(Option.getOrThrow(yield* store.getWorkspace(second.id)), second)
          assert.isTrue(Option.isNone(yield* store.getWorkspace(Id.unchecked("workspace", anId("ws")))))
          assert.strictEqual(yield* store.countWorkspaces(), before + 2)
        }))

      it.effect("refuses a second workspace with the same id with a StoreError naming the operation", () =>
        Effect.gen(function* () {
          const store = yield* Store
          const workspace = aWorkspace()
          yield* store.createWorkspace(workspace)
          const error = yield* Effect.flip(store.createWorkspace({ ...workspace, name: "Other" }))

          assert.instanceOf(error, StoreError)
          assert.strictEqual(error.operation, "createWorkspace")
          assert.strictEqual(Option.getOrThrow(yield* store.getWorkspace(workspace.id)).name, workspace.name)
        }))

      it.effect("finds an API key by the hash of its secret, revoked keys included", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const live = anApiKey(workspaceId, { kind: "live", scopes: ["posts:read"] })
          const revoked = anApiKey(workspaceId, { revokedAt: t0 + 5 })
          yield* store.createApiKey(live)
          yield* store.createApiKey(revoked)

          assert.deepStrictEqual(Option.getOrThrow(yield* store.findApiKeyByHash(live.hash)), live)
          assert.deepStrictEqual(Option.getOrThrow(yield* store.findApiKeyByHash(revoked.hash)), revoked)
          assert.isTrue(Option.isNone(yield* store.findApiKeyByHash(anId("hash"))))
        }))

      it.effect("refuses a second key with the same hash", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const key = anApiKey(workspaceId)
          yield* store.createApiKey(key)
          const error = yield* Effect.flip(store.createApiKey(anApiKey(workspaceId, { hash: key.hash })))

          assert.strictEqual(error.operation, "createApiKey")
          assert.strictEqual(Option.getOrThrow(yield* store.findApiKeyByHash(key.hash)).id, key.id)
        }))

      it.effect("lists every workspace oldest first, with every field", () =>
        Effect.gen(function* () {
          const store = yield* Store
          const later = aWorkspace({ name: "Later", createdAt: t0 + 2_000 })
          const earlier = aWorkspace({ name: "Earlier", createdAt: t0 + 1_000, allowedRedirectDomains: [] })
          yield* store.createWorkspace(later)
          yield* store.createWorkspace(earlier)

          const listed = (yield* store.listWorkspaces()).filter((w) => w.id === later.id || w.id === earlier.id)
          assert.deepStrictEqual(listed, [earlier, later])
          assert.strictEqual((yield* store.listWorkspaces()).length, yield* store.countWorkspaces())
        }))

      it.effect("lists a workspace's keys oldest first, revoked ones included, and no other workspace's", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const other = yield* withWorkspace
          const second = anApiKey(workspaceId, { createdAt: t0 + 2 })
          const first = anApiKey(workspaceId, { createdAt: t0 + 1, revokedAt: t0 + 3, kind: "live" })
          yield* store.createApiKey(second)
          yield* store.createApiKey(first)
          yield* store.createApiKey(anApiKey(other.workspaceId))

          assert.deepStrictEqual(yield* store.listApiKeys(workspaceId), [first, second])
          assert.deepStrictEqual(yield* store.listApiKeys(Id.unchecked("workspace", anId("ws"))), [])
        }))

      it.effect("revokes a key once: the first revocation time stays, and the key is found revoked by its hash", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const other = yield* withWorkspace
          const key = anApiKey(workspaceId)
          yield* store.createApiKey(key)

          const revoked = Option.getOrThrow(yield* store.revokeApiKey(workspaceId, key.id, t0 + 10))
          assert.deepStrictEqual(revoked, { ...key, revokedAt: t0 + 10 })
          const again = Option.getOrThrow(yield* store.revokeApiKey(workspaceId, key.id, t0 + 20))
          assert.strictEqual(again.revokedAt, t0 + 10)
          assert.strictEqual(Option.getOrThrow(yield* store.findApiKeyByHash(key.hash)).revokedAt, t0 + 10)

          assert.isTrue(Option.isNone(yield* store.revokeApiKey(other.workspaceId, key.id, t0 + 30)))
          assert.isTrue(Option.isNone(yield* store.revokeApiKey(workspaceId, Id.unchecked("key", anId("key")), t0 + 30)))
        }))
    })

    describe("profiles and accounts", () => {
      it.effect("lists profiles newest first, ties by id descending, in keyset pages", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const profiles = Array.from({ length: 7 }, (_, i) =>
            aProfile(workspaceId, { name: `P${i}`, createdAt: t0 + Math.floor(i / 3) * 1000 }))
          for (const profile of shuffled(profiles)) yield* store.createProfile(profile)
          const expected = [...profiles].sort(byNewest((p) => p.createdAt, (p) => p.id))

          const page1 = yield* store.listProfiles(workspaceId, undefined, 3)
          const last1 = page1[page1.length - 1]!
          const page2 = yield* store.listProfiles(workspaceId, { sortKey: last1.createdAt, id: last1.id }, 3)
          const last2 = page2[page2.length - 1]!
          const page3 = yield* store.listProfiles(workspaceId, { sortKey: last2.createdAt, id: last2.id }, 3)

          assert.deepStrictEqual([...page1, ...page2, ...page3], expected)
          assert.strictEqual(page3.length, 1)
          assert.deepStrictEqual(Option.getOrThrow(yield* store.getProfile(workspaceId, profiles[4]!.id)), profiles[4])
        }))

      it.effect("stores every account field, including nulls and simulate options", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const profile = aProfile(workspaceId)
          yield* store.createProfile(profile)
          const full = anAccount(workspaceId, profile.id, {
            platform: "shortvideo",
            handle: "@acme.video",
            sandbox: false,
            status: "needs_reconnect",
            dailyQuota: 15,
            simulate: { error: "platform_unavailable", times: 2, privacy_level_options: ["PUBLIC_TO_EVERYONE"] },
            credentials: "v1.encrypted-blob",
            externalId: "open_id_123"
          })
          const bare = anAccount(workspaceId, profile.id)
          yield* store.createAccount(full)
          yield* store.createAccount(bare)

          assert.deepStrictEqual(Option.getOrThrow(yield* store.getAccount(workspaceId, full.id)), full)
          assert.deepStrictEqual(Option.getOrThrow(yield* store.getAccount(workspaceId, bare.id)), bare)
        }))

      it.effect("filters accounts by profile and platform and pages them newest first", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const [brandA, brandB] = [aProfile(workspaceId), aProfile(workspaceId)]
          const accounts = [
            anAccount(workspaceId, brandA.id, { platform: "photo", createdAt: t0 + 1 }),
            anAccount(workspaceId, brandA.id, { platform: "pages", createdAt: t0 + 2 }),
            anAccount(workspaceId, brandA.id, { platform: "photo", createdAt: t0 + 2 }),
            anAccount(workspaceId, brandB.id, { platform: "photo", createdAt: t0 + 3 }),
            anAccount(workspaceId, brandB.id, { platform: "textpost", createdAt: t0 + 4 })
          ]
          for (const account of shuffled(accounts)) yield* store.createAccount(account)
          const newest = byNewest<(typeof accounts)[number]>((a) => a.createdAt, (a) => a.id)
          const ids = (list: ReadonlyArray<{ readonly id: string }>) => list.map((a) => a.id)

          assert.deepStrictEqual(
            ids(yield* store.listAccounts(workspaceId, {}, undefined, 10)),
            ids([...accounts].sort(newest))
          )
          assert.deepStrictEqual(
            ids(yield* store.listAccounts(workspaceId, { profileId: brandA.id }, undefined, 10)),
            ids(accounts.filter((a) => a.profileId === brandA.id).sort(newest))
          )
          assert.deepStrictEqual(
            ids(yield* store.listAccounts(workspaceId, { platform: "photo" }, undefined, 10)),
            ids(accounts.filter((a) => a.platform === "photo").sort(newest))
          )
          assert.deepStrictEqual(
            ids(yield* store.listAccounts(workspaceId, { profileId: brandA.id, platform: "photo" }, undefined, 10)),
            ids(accounts.filter((a) => a.profileId === brandA.id && a.platform === "photo").sort(newest))
          )
          const firstPage = yield* store.listAccounts(workspaceId, {}, undefined, 2)
          const last = firstPage[1]!
          const rest = yield* store.listAccounts(workspaceId, {}, { sortKey: last.createdAt, id: last.id }, 10)
          assert.deepStrictEqual(ids([...firstPage, ...rest]), ids([...accounts].sort(newest)))
        }))

      it.effect("returns the requested accounts in the order asked, without another workspace's", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const other = yield* withWorkspace
          const mine = [anAccount(workspaceId, Id.unchecked("profile", "prof_x")), anAccount(workspaceId, Id.unchecked("profile", "prof_x"))]
          const foreign = anAccount(other.workspaceId, Id.unchecked("profile", "prof_y"))
          for (const account of [...mine, foreign]) yield* store.createAccount(account)

          const found = yield* store.getAccounts(workspaceId, [mine[1]!.id, foreign.id, mine[0]!.id, Id.unchecked("account", anId("acct"))])
          assert.deepStrictEqual(found, [mine[1], mine[0]])
          assert.deepStrictEqual(yield* store.getAccounts(workspaceId, []), [])
        }))

      it.effect("updates an account's status and writes its events with it", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const account = anAccount(workspaceId, Id.unchecked("profile", "prof_x"))
          yield* store.createAccount(account)
          const event = anEvent(workspaceId, { type: "account.needs_reconnect", data: { account_id: account.id } })
          yield* store.updateAccountStatus(workspaceId, account.id, "needs_reconnect", [event])

          assert.strictEqual(Option.getOrThrow(yield* store.getAccount(workspaceId, account.id)).status, "needs_reconnect")
          assert.deepStrictEqual(yield* store.listEvents(workspaceId), [event])
        }))
    })

    describe("workspace isolation", () => {
      it.effect("never returns one workspace's rows to another", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const other = (yield* withWorkspace).workspaceId
          const profile = aProfile(workspaceId)
          const account = anAccount(workspaceId, profile.id)
          const media = aMedia(workspaceId)
          const post = aPost(workspaceId, { targets: [aTarget({ accountId: account.id })] })
          yield* store.createProfile(profile)
          yield* store.createAccount(account)
          yield* store.createMedia(media)
          yield* store.insertPost(post, [anEvent(workspaceId)])

          assert.isTrue(Option.isNone(yield* store.getProfile(other, profile.id)))
          assert.isTrue(Option.isNone(yield* store.getAccount(other, account.id)))
          assert.isTrue(Option.isNone(yield* store.getMedia(other, media.id)))
          assert.isTrue(Option.isNone(yield* store.getPost(other, post.post.id)))
          assert.deepStrictEqual(yield* store.getAccounts(other, [account.id]), [])
          assert.deepStrictEqual(yield* store.getMediaItems(other, [media.id]), [])
          assert.deepStrictEqual(yield* store.listProfiles(other, undefined, 10), [])
          assert.deepStrictEqual(yield* store.listAccounts(other, {}, undefined, 10), [])
          assert.deepStrictEqual(yield* store.listPosts(other, {}, undefined, 10), [])
          assert.deepStrictEqual(yield* store.listEvents(other), [])
          assert.deepStrictEqual(yield* store.countQuotaUsage(other, account.id, 0, t0 * 2), { used: 0, oldest: null })
        }))

      it.effect("lets two workspaces use the same ids", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const other = (yield* withWorkspace).workspaceId
          const id = anId("prof")
          yield* store.createProfile(aProfile(workspaceId, { id: Id.unchecked("profile", id), name: "Mine" }))
          yield* store.createProfile(aProfile(other, { id: Id.unchecked("profile", id), name: "Theirs" }))

          assert.strictEqual(Option.getOrThrow(yield* store.getProfile(workspaceId, Id.unchecked("profile", id))).name, "Mine")
          assert.strictEqual(Option.getOrThrow(yield* store.getProfile(other, Id.unchecked("profile", id))).name, "Theirs")
        }))
    })

    describe("media", () => {
      it.effect("stores images and videos and fetches several in the order asked", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const video = aMedia(workspaceId, {
            kind: "video",
            mime: "video/mp4",
            sizeBytes: 3_000_000_000,
            durationSeconds: 12.5,
            width: 1080,
            height: 1920
          })
          const image = aMedia(workspaceId, { filename: null, width: null, height: null })
          yield* store.createMedia(video)
          yield* store.createMedia(image)

          assert.deepStrictEqual(Option.getOrThrow(yield* store.getMedia(workspaceId, video.id)), video)
          assert.deepStrictEqual(Option.getOrThrow(yield* store.getMedia(workspaceId, image.id)), image)
          assert.deepStrictEqual(yield* store.getMediaItems(workspaceId, [image.id, Id.unchecked("media", anId("med")), video.id]), [
            image,
            video
          ])
        }))

      // The SQL store wrote the lifecycle's defaults and read them back; the memory store kept
      // the record as given, so the two answered differently for the same item.
      it.effect("reads an item created without its lifecycle fields as ready, without error, updated when created", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const { codec: _codec, error: _error, sourceUrl: _sourceUrl, status: _status, updatedAt: _updatedAt, ...bare } =
            aMedia(workspaceId)
          yield* store.createMedia(bare)

          const read = Option.getOrThrow(yield* store.getMedia(workspaceId, bare.id))
          assert.deepStrictEqual(read, {
            ...bare,
            status: "ready",
            codec: null,
            error: null,
            sourceUrl: null,
            updatedAt: bare.createdAt
          })
          assert.deepStrictEqual(yield* store.getMediaItems(workspaceId, [bare.id]), [read])
        }))
    })

    describe("posts", () => {
      it.effect("reads back exactly the post that was inserted, every field", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const post = aPost(workspaceId, {
            caption: "Launch day 🚀 — ünïcode",
            media: [Id.unchecked("media", anId("med")), Id.unchecked("media", anId("med"))],
            scheduledAt: t0 + 3_600_000,
            publishAt: t0 + 3_600_000,
            aiGenerated: true,
            approvalMode: "link",
            notify: { email: "owner@acme.test", locale: "id" },
            status: "awaiting_approval",
            version: 1,
            traceParent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            targets: [
              aTarget({
                platform: "shortvideo",
                status: "awaiting_approval",
                options: {
                  shortvideo: {
                    mode: "direct",
                    consent: { privacy_level: "SELF_ONLY", music_usage_confirmed: true, disable_duet: true }
                  }
                },
                consent: {
                  consent: { privacy_level: "SELF_ONLY", music_usage_confirmed: true },
                  givenBy: "key:key_1",
                  givenAt: t0 + 1
                },
                permalink: "https://video.example/v/1",
                publishedAt: t0 + 2,
                error: {
                  code: "media_invalid",
                  details: { platform: "shortvideo", detail: { en: "the file is damaged", id: "berkasnya rusak" } },
                  platform_code: "503",
                  retryable: true
                },
                attempts: 3,
                platformState: { publishId: "v_pub_1", chunks: [1, 2, 3], nested: { ok: true, none: null } },
                dueAt: t0 + 4,
                leaseOwner: "worker-1",
                leaseUntil: t0 + 5
              }),
              aTarget({ platform: "pages", options: {} })
            ],
            approval: anApproval({ status: "rejected", decidedAt: t0 + 9, reason: "Wrong photo" })
          })
          yield* store.insertPost(post, [])

          assert.deepStrictEqual(Option.getOrThrow(yield* store.getPost(workspaceId, post.post.id)), post)
          assert.isTrue(Option.isNone(yield* store.getPost(workspaceId, Id.unchecked("post", anId("post")))))
        }))

      it.effect("keeps the trace a post was created in through its later saves, and none for a post created untraced", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const traceParent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
          const traced = aPost(workspaceId, { traceParent })
          const untraced = aPost(workspaceId)
          yield* store.insertPost(traced, [])
          yield* store.insertPost(untraced, [])
          yield* store.savePost(aSave(traced, () => ({ caption: "Edited" })), [])

          const read = Option.getOrThrow(yield* store.getPost(workspaceId, traced.post.id)).post
          assert.strictEqual(read.caption, "Edited")
          assert.strictEqual(read.traceParent, traceParent)
          assert.isFalse("traceParent" in Option.getOrThrow(yield* store.getPost(workspaceId, untraced.post.id)).post)
        }))

      it.effect("keeps a platform state that is a bare JSON string or number", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const post = aPost(workspaceId, {
            targets: [aTarget({ platformState: "container_17" }), aTarget({ platformState: 42 })]
          })
          yield* store.insertPost(post, [])

          assert.deepStrictEqual(Option.getOrThrow(yield* store.getPost(workspaceId, post.post.id)), post)
        }))

      it.effect("refuses a post whose id is taken and writes none of its events", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const post = aPost(workspaceId)
          const first = anEvent(workspaceId)
          yield* store.insertPost(post, [first])
          const error = yield* Effect.flip(
            store.insertPost({ ...aPost(workspaceId), post: { ...post.post, caption: "again" } }, [anEvent(workspaceId)])
          )

          assert.strictEqual(error.operation, "insertPost")
          assert.deepStrictEqual(yield* store.listEvents(workspaceId), [first])
          assert.deepStrictEqual(Option.getOrThrow(yield* store.getPost(workspaceId, post.post.id)), post)
        }))

      it.effect("fails the second of two saves from the same read with VersionConflict, keeping the first", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const created = anEvent(workspaceId, { type: "post.created" })
          yield* store.insertPost(aPost(workspaceId, { caption: "draft" }), [created])
          const [read] = yield* store.listPosts(workspaceId, {}, undefined, 1)

          const first = aSave(read!, () => ({ caption: "first" }))
          const second = aSave(read!, () => ({ caption: "second" }))
          const firstEvent = anEvent(workspaceId, { type: "post.updated", data: { caption: "first" } })
          yield* store.savePost(first, [firstEvent])
          const error = yield* Effect.flip(store.savePost(second, [anEvent(workspaceId, { type: "post.updated" })]))

          assert.instanceOf(error, VersionConflict)
          assert.strictEqual(error._tag === "VersionConflict" && error.postId, read!.post.id)
          const stored = Option.getOrThrow(yield* store.getPost(workspaceId, read!.post.id))
          assert.deepStrictEqual(stored, first)
          assert.strictEqual(stored.post.version, 2)
          assert.deepStrictEqual(yield* store.listEvents(workspaceId), [created, firstEvent])
        }))

      it.effect("lets exactly one of several concurrent saves from the same read win", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const post = aPost(workspaceId)
          yield* store.insertPost(post, [])
          const saves = ["a", "b", "c", "d"].map((caption) => aSave(post, () => ({ caption })))
          const outcomes = yield* Effect.all(
            saves.map((save) =>
              Effect.result(store.savePost(save, [anEvent(workspaceId, { data: { caption: save.post.caption } })]))),
            { concurrency: "unbounded" }
          )

          const winners = outcomes.flatMap((outcome, i) => (outcome._tag === "Success" ? [saves[i]!] : []))
          const losers = outcomes.flatMap((outcome) => (outcome._tag === "Failure" ? [outcome.failure._tag] : []))
          assert.strictEqual(winners.length, 1)
          assert.deepStrictEqual(losers, ["VersionConflict", "VersionConflict", "VersionConflict"])
          assert.deepStrictEqual(Option.getOrThrow(yield* store.getPost(workspaceId, post.post.id)), winners[0])
          const events = yield* store.listEvents(workspaceId)
          assert.deepStrictEqual(events.map((event) => event.data.caption), [winners[0]!.post.caption])
        }))

      it.effect("fails saving a post that was never inserted with VersionConflict", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const error = yield* Effect.flip(store.savePost(aSave(aPost(workspaceId)), [anEvent(workspaceId)]))

          assert.strictEqual(error._tag, "VersionConflict")
          assert.deepStrictEqual(yield* store.listEvents(workspaceId), [])
        }))

      it.effect("saves every target and the approval: changed, added, removed", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const inserted = aPost(workspaceId, {
            approvalMode: "link",
            targets: [aTarget(), aTarget({ platform: "pages" }), aTarget({ platform: "textpost" })],
            approval: anApproval()
          })
          yield* store.insertPost(inserted, [])
          const [kept, , dropped] = inserted.targets
          const published = aSave(
            {
              ...inserted,
              targets: [
                { ...dropped!, status: "published", publishedAt: t0 + 60_000, permalink: "https://t.example/1" },
                { ...kept!, status: "failed", attempts: 2, error: null, platformState: { retry: 2 } },
                { ...aTarget({ platform: "shortvideo" }), workspaceId, postId: inserted.post.id }
              ],
              approval: { ...inserted.approval!, status: "approved", decidedAt: t0 + 30_000 }
            },
            () => ({ status: "partially_published", updatedAt: t0 + 60_000 })
          )
          yield* store.savePost(published, [])
          assert.deepStrictEqual(Option.getOrThrow(yield* store.getPost(workspaceId, inserted.post.id)), published)

          const withoutApproval = aSave({ ...published, approval: null })
          yield* store.savePost(withoutApproval, [])
          assert.deepStrictEqual(Option.getOrThrow(yield* store.getPost(workspaceId, inserted.post.id)), withoutApproval)

          const newLink = aSave({
            ...withoutApproval,
            approval: { ...anApproval(), workspaceId, postId: inserted.post.id }
          })
          yield* store.savePost(newLink, [])
          assert.deepStrictEqual(Option.getOrThrow(yield* store.getPost(workspaceId, inserted.post.id)), newLink)
        }))

      it.effect("finds a post by its current approval token's hash, and forgets a replaced token", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const inserted = aPost(workspaceId, { approvalMode: "link", approval: anApproval() })
          yield* store.insertPost(inserted, [])
          const oldHash = inserted.approval!.tokenHash
          assert.deepStrictEqual(
            Option.getOrThrow(yield* store.findApprovalByTokenHash(oldHash)),
            { workspaceId, postId: inserted.post.id }
          )
          assert.isTrue(Option.isNone(yield* store.findApprovalByTokenHash(anId("token"))))
          const replaced = aSave({ ...inserted, approval: { ...anApproval(), workspaceId, postId: inserted.post.id } })
          yield* store.savePost(replaced, [])
          assert.isTrue(Option.isNone(yield* store.findApprovalByTokenHash(oldHash)))
          assert.deepStrictEqual(
            Option.getOrThrow(yield* store.findApprovalByTokenHash(replaced.approval!.tokenHash)),
            { workspaceId, postId: inserted.post.id }
          )
        }))

      it.effect("lists events in the order they were written, across posts and accounts", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const account = anAccount(workspaceId, Id.unchecked("profile", "prof_x"))
          yield* store.createAccount(account)
          const post = aPost(workspaceId)
          const events = Array.from({ length: 6 }, (_, i) =>
            anEvent(workspaceId, { type: `step.${i}`, livemode: i % 2 === 0, data: { i, nested: { list: [i] } } }))
          yield* store.insertPost(post, [events[0]!, events[1]!, events[2]!])
          yield* store.updateAccountStatus(workspaceId, account.id, "disconnected", [events[3]!])
          yield* store.savePost(aSave(post), [events[4]!, events[5]!])

          assert.deepStrictEqual(yield* store.listEvents(workspaceId), events)
        }))
    })

    describe("listing posts", () => {
      it.effect("pages through 57 posts newest first, ties by id, with no duplicates or gaps", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const posts = Array.from({ length: 57 }, (_, i) =>
            aPost(workspaceId, { publishAt: t0 + Math.floor(i / 4) * 60_000 }))
          for (const post of shuffled(posts)) yield* store.insertPost(post, [])

          const seen: Array<PostAggregate> = []
          let pages = 0
          // bounded, so a cursor that never advances fails instead of hanging
          while (pages < 10) {
            const last = seen[seen.length - 1]
            const page = yield* store.listPosts(
              workspaceId,
              {},
              last === undefined ? undefined : { sortKey: last.post.publishAt, id: last.post.id },
              10
            )
            if (page.length === 0) break
            pages++
            seen.push(...page)
          }

          assert.strictEqual(pages, 6)
          assert.deepStrictEqual(seen, [...posts].sort(postsNewestFirst))
        }))

      it.effect("filters by status, profile and platform (any target on it)", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const profile = anId("prof")
          const posts = [
            aPost(workspaceId, { status: "published", profileId: Id.unchecked("profile", profile), publishAt: t0 + 1, targets: [aTarget({ platform: "photo" })] }),
            aPost(workspaceId, { status: "scheduled", profileId: Id.unchecked("profile", profile), publishAt: t0 + 2, targets: [aTarget({ platform: "pages" }), aTarget({ platform: "photo" })] }),
            aPost(workspaceId, { status: "scheduled", publishAt: t0 + 3, targets: [aTarget({ platform: "textpost" })] }),
            aPost(workspaceId, { status: "failed", profileId: Id.unchecked("profile", profile), publishAt: t0 + 4, targets: [aTarget({ platform: "pages" })] })
          ]
          for (const post of posts) yield* store.insertPost(post, [])
          const list = (filter: Parameters<typeof store.listPosts>[1]) =>
            Effect.map(store.listPosts(workspaceId, filter, undefined, 50), (page) => page.map(({ post }) => post.id))
          const ids = (...indexes: ReadonlyArray<number>) => indexes.map((i) => posts[i]!.post.id)

          assert.deepStrictEqual(yield* list({ status: "scheduled" }), ids(2, 1))
          assert.deepStrictEqual(yield* list({ profileId: Id.unchecked("profile", profile) }), ids(3, 1, 0))
          assert.deepStrictEqual(yield* list({ platform: "photo" }), ids(1, 0))
          assert.deepStrictEqual(yield* list({ platform: "pages", status: "scheduled" }), ids(1))
          assert.deepStrictEqual(yield* list({ platform: "shortvideo" }), [])
        }))

      it.effect("takes `from` inclusive and `to` exclusive on publishAt", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const posts = [100, 200, 300].map((offset) => aPost(workspaceId, { publishAt: t0 + offset }))
          for (const post of posts) yield* store.insertPost(post, [])
          const list = (from: number | undefined, to: number | undefined) =>
            Effect.map(store.listPosts(workspaceId, { from, to }, undefined, 50), (page) =>
              page.map(({ post }) => post.publishAt - t0))

          assert.deepStrictEqual(yield* list(t0 + 200, t0 + 300), [200])
          assert.deepStrictEqual(yield* list(t0 + 100, undefined), [300, 200, 100])
          assert.deepStrictEqual(yield* list(undefined, t0 + 300), [200, 100])
          assert.deepStrictEqual(yield* list(t0 + 101, t0 + 300), [200])
          assert.deepStrictEqual(yield* list(t0 + 100, t0 + 100), [])
        }))

      it.effect("returns each listed post with its targets, in order, and its approval", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const posts = [
            aPost(workspaceId, { publishAt: t0 + 1, targets: [aTarget(), aTarget({ platform: "pages" })], approval: anApproval() }),
            aPost(workspaceId, { publishAt: t0 + 2, targets: [] }),
            aPost(workspaceId, { publishAt: t0 + 3, targets: [aTarget({ platform: "textpost" }), aTarget(), aTarget()] })
          ]
          for (const post of posts) yield* store.insertPost(post, [])

          assert.deepStrictEqual(yield* store.listPosts(workspaceId, {}, undefined, 10), [posts[2], posts[1], posts[0]])
        }))
    })

    describe("quota usage", () => {
      it.effect("counts targets at publishedAt, else at the post's publishAt, in [from, to)", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const account = anId("acct")
          const on = (status: "scheduled" | "published" | "queued", publishedAt: number | null = null) =>
            aTarget({ accountId: Id.unchecked("account", account), status, publishedAt })
          const posts = [
            // published inside the window though its post was scheduled after it
            aPost(workspaceId, { publishAt: t0 + 500, targets: [on("published", t0 + 150)] }),
            aPost(workspaceId, { publishAt: t0 + 100, targets: [on("scheduled")] }),
            aPost(workspaceId, { publishAt: t0 + 299, targets: [on("queued"), on("scheduled")] }),
            // outside: at `to`, before `from`, published before `from` though scheduled inside
            aPost(workspaceId, { publishAt: t0 + 300, targets: [on("scheduled")] }),
            aPost(workspaceId, { publishAt: t0 + 99, targets: [on("scheduled")] }),
            aPost(workspaceId, { publishAt: t0 + 200, targets: [on("published", t0 + 50)] })
          ]
          for (const post of posts) yield* store.insertPost(post, [])

          assert.deepStrictEqual(yield* store.countQuotaUsage(workspaceId, Id.unchecked("account", account), t0 + 100, t0 + 300), {
            used: 4,
            oldest: t0 + 100
          })
          assert.deepStrictEqual(yield* store.countQuotaUsage(workspaceId, Id.unchecked("account", account), t0 + 101, t0 + 300), {
            used: 3,
            oldest: t0 + 150
          })
        }))

      it.effect("leaves out cancelled, rejected and failed targets, other accounts and other workspaces", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const other = (yield* withWorkspace).workspaceId
          const account = anId("acct")
          yield* store.insertPost(
            aPost(workspaceId, {
              publishAt: t0 + 10,
              targets: [
                aTarget({ accountId: Id.unchecked("account", account), status: "cancelled" }),
                aTarget({ accountId: Id.unchecked("account", account), status: "rejected" }),
                aTarget({ accountId: Id.unchecked("account", account), status: "failed" }),
                aTarget({ accountId: Id.unchecked("account", account), status: "publishing" }),
                aTarget({ accountId: Id.unchecked("account", anId("acct")), status: "scheduled" })
              ]
            }),
            []
          )
          yield* store.insertPost(aPost(other, { publishAt: t0 + 5, targets: [aTarget({ accountId: Id.unchecked("account", account) })] }), [])

          assert.deepStrictEqual(yield* store.countQuotaUsage(workspaceId, Id.unchecked("account", account), t0, t0 + 100), {
            used: 1,
            oldest: t0 + 10
          })
          assert.deepStrictEqual(yield* store.countQuotaUsage(workspaceId, Id.unchecked("account", anId("acct")), t0, t0 + 100), {
            used: 0,
            oldest: null
          })
        }))

      it.effect("inserts within a quota cap only while the cap has room, else names the full account", () =>
        Effect.gen(function* () {
          const { store, workspaceId } = yield* withWorkspace
          const profile = aProfile(workspaceId)
          const account = anAccount(workspaceId, profile.id)
          const roomy = anAccount(workspaceId, profile.id)
          yield* store.createProfile(profile)
          yield* store.createAccount(account)
          yield* store.createAccount(roomy)
          const day = { from: t0, to: t0 + 100 }
          const onBoth = () =>
            aPost(workspaceId, { publishAt: t0 + 10, targets: [aTarget({ accountId: roomy.id }), aTarget({ accountId: account.id })] })
          const caps = [
            { accountId: roomy.id, ...day, limit: 5 },
            { accountId: account.id, ...day, limit: 1 }
          ]
          const first = onBoth()
          const second = onBoth()

          assert.isTrue(Option.isNone(yield* store.insertPostWithinQuota(first, [anEvent(workspaceId)], caps)))
          assert.deepStrictEqual(yield* store.insertPostWithinQuota(second, [anEvent(workspaceId)], caps), Option.some(account.id))
          assert.isTrue(Option.isSome(yield* store.getPost(workspaceId, first.post.id)))
          assert.isTrue(Option.isNone(yield* store.getPost(workspaceId, second.post.id)))
          assert.strictEqual((yield* store.listEvents(workspaceId)).length, 1)
          assert.strictEqual((yield* store.countQuotaUsage(workspaceId, roomy.id, day.from, day.to)).used, 1)
          // The cap counts only its own window: the next one still has room.
          const nextDay = [{ accountId: account.id, from: t0 + 100, to: t0 + 200, limit: 1 }]
          assert.isTrue(Option.isNone(yield* store.insertPostWithinQuota(second, [], nextDay)))
        }))
    })

    describe("settings", () => {
      it.effect("keeps the first value stored under a name", () =>
        Effect.gen(function* () {
          const store = yield* Store
          const name = anId("setting")

          assert.strictEqual(yield* store.ensureSetting(name, "first"), "first")
          assert.strictEqual(yield* store.ensureSetting(name, "second"), "first")
        }))

      it.effect("gives concurrent first writers the same value", () =>
        Effect.gen(function* () {
          const store = yield* Store
          const name = anId("setting")
          const values = yield* Effect.all(
            ["a", "b", "c", "d"].map((value) => store.ensureSetting(name, value)),
            { concurrency: "unbounded" }
          )

          assert.strictEqual(new Set(values).size, 1)
        }))

      it.effect("reads a value, and deletes it only while it still holds the value named", () =>
        Effect.gen(function* () {
          const store = yield* Store
          const name = anId("setting")

          assert.isTrue(Option.isNone(yield* store.readSetting(name)))
          yield* store.ensureSetting(name, "kept")
          assert.deepStrictEqual(yield* store.readSetting(name), Option.some("kept"))
          assert.isFalse(yield* store.deleteSetting(name, "other"))
          assert.deepStrictEqual(yield* store.readSetting(name), Option.some("kept"))
          assert.isTrue(yield* store.deleteSetting(name, "kept"))
          assert.isTrue(Option.isNone(yield* store.readSetting(name)))
        }))
    })
  })
