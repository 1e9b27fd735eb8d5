import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { ApprovalToken, BlobStore, CredentialsCipher, defaultSettings, EngineConfig, Ids, Media, Posts, Webhooks, Workspaces } from "../src/index.ts"
import { MemoryStore } from "../src/index.ts"
import { aPng } from "../../../test/support/Media.ts"
import { Registry } from "@postwire/platforms"

const Engine = Layer.mergeAll(
  Ids.layerTest,
  BlobStore.layerMemory,
  EngineConfig.layer(defaultSettings("https://postwire.test", "test-secret-of-at-least-thirty-two-bytes", Registry.catalog()))
).pipe(Layer.provideMerge(MemoryStore.layer))

const hours = (n: number) => `${n} hours` as const

/** A workspace with a sandbox photo account and one image, as the engine sees it. */
const aWorkspace = Effect.gen(function* () {
  const ws = yield* Workspaces.createWorkspace({ name: "acme" })
  const key = yield* Workspaces.createKey(ws.id, { kind: "test", scopes: ["posts:read", "posts:write"] })
  const profile = yield* Workspaces.createProfile(ws.id, { name: "Acme" })
  const account = yield* Workspaces.createAccount(ws.id, { profileId: profile.id, platform: "photo", sandbox: true })
  const caller = { workspaceId: ws.id, keyId: key.id, kind: "test" as const }
  const media = yield* Media.uploadMedia(caller, { data: Buffer.from(aPng({ width: 2, height: 2 })).toString("base64") })
  const request = { profile_id: profile.id, caption: "hi", media: [media.id], targets: [{ account_id: account.id }] }
  return { caller, request: request as never }
})

describe("posts use-cases", () => {
  it.effect("expires a list cursor after 24 hours", () =>
    Effect.gen(function* () {
      const { caller, request } = yield* aWorkspace
      for (let i = 0; i < 3; i++) {
        yield* Posts.createPost(caller, request)
        yield* TestClock.adjust("1 second")
      }
      const first = yield* Posts.listPosts(caller, { limit: 1 } as never)
      const cursor = first.cursor.next
      assert.isString(cursor)
      yield* TestClock.adjust(hours(23))
      const stillValid = yield* Posts.listPosts(caller, { limit: 1, cursor } as never)
      assert.strictEqual(stillValid.data.length, 1)
      yield* TestClock.adjust(hours(2))
      const expired = yield* Effect.flip(Posts.listPosts(caller, { limit: 1, cursor } as never))
      assert.strictEqual(expired._tag === "PostwireError" ? expired.code : expired._tag, "invalid_cursor")
    }).pipe(Effect.provide(Engine))
  )

  it.effect("shows a pending approval as expired once seven days have passed", () =>
    Effect.gen(function* () {
      const { caller, request } = yield* aWorkspace
      const created = yield* Posts.createPost(caller, request)
      yield* TestClock.adjust(hours(7 * 24 - 1))
      assert.strictEqual((yield* Posts.getPost(caller, created.post.id)).approvalLink?.status, "pending")
      yield* TestClock.adjust(hours(2))
      assert.strictEqual((yield* Posts.getPost(caller, created.post.id)).approvalLink?.status, "expired")
    }).pipe(Effect.provide(Engine))
  )

  it.effect("moves a scheduled post to queued when its schedule is cleared", () =>
    Effect.gen(function* () {
      const { caller, request } = yield* aWorkspace
      const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
      const created = yield* Posts.createPost(
        caller,
        { ...(request as object), approval: { mode: "none" }, scheduled_at: new Date(now + 3_600_000).toISOString() } as never
      )
      assert.strictEqual(created.post.status, "scheduled")
      const updated = yield* Posts.updatePost(caller, created.post.id, { scheduled_at: null })
      assert.strictEqual(updated.post.status, "queued")
    }).pipe(Effect.provide(Engine))
  )

  it.effect("writes post.scheduled with the new time when a scheduled post is given another scheduled_at", () =>
    Effect.gen(function* () {
      const { caller, request } = yield* aWorkspace
      const { Store } = yield* Effect.promise(() => import("../src/store/Store.ts"))
      const store = yield* Store
      const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
      const inOneHour = new Date(now + 3_600_000).toISOString()
      const inTwoHours = new Date(now + 7_200_000).toISOString()
      const created = yield* Posts.createPost(
        caller,
        { ...(request as object), approval: { mode: "none" }, scheduled_at: inOneHour } as never
      )

      yield* Posts.updatePost(caller, created.post.id, { scheduled_at: inTwoHours })
      yield* Posts.updatePost(caller, created.post.id, { caption: "new caption" })
      yield* Posts.updatePost(caller, created.post.id, { scheduled_at: inTwoHours })

      const scheduled = (yield* store.listEvents(caller.workspaceId)).filter((e) => e.type === "post.scheduled")
      assert.deepStrictEqual(
        scheduled.map((e) => e.data),
        [
          { post_id: created.post.id, scheduled_at: inOneHour },
          { post_id: created.post.id, scheduled_at: inTwoHours }
        ]
      )
    }).pipe(Effect.provide(Engine))
  )

  it.effect("writes post.awaiting_approval to the outbox with the post, and post.scheduled for a future post", () =>
    Effect.gen(function* () {
      const { caller, request } = yield* aWorkspace
      const { Store } = yield* Effect.promise(() => import("../src/store/Store.ts"))
      const store = yield* Store
      const linked = yield* Posts.createPost(caller, request)
      const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
      const later = yield* Posts.createPost(
        caller,
        { ...(request as object), approval: { mode: "none" }, scheduled_at: new Date(now + 60_000).toISOString() } as never
      )
      const events = yield* store.listEvents(caller.workspaceId)
      const posts = events.filter((e) => e.type.startsWith("post."))
      assert.deepStrictEqual(
        posts.map((e) => [e.type, e.data.post_id]),
        [
          ["post.awaiting_approval", linked.post.id],
          ["post.scheduled", later.post.id]
        ]
      )
      // The link is stored sealed, and opened for deliveries and the events API.
      const url = ApprovalToken.approvalUrl("https://postwire.test", linked.approvalLink!.token)
      assert.notInclude(JSON.stringify(posts[0]!.data), linked.approvalLink!.token)
      const cipher = CredentialsCipher.make((yield* EngineConfig).keyring)
      assert.strictEqual(Webhooks.eventView(posts[0]!, cipher).data.approval_url, url)
      assert.isFalse(posts[0]!.livemode)
    }).pipe(Effect.provide(Engine))
  )
})
