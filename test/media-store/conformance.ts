import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import {
  BlobStore,
  defaultSettings,
  EngineConfig,
  Ids,
  Media,
  MediaFetcher,
  MediaFetchFailed,
  MediaJobs,
  MediaStore,
  Posts,
  Store,
  Workspaces
} from "@postwire/core"
import { aPng } from "../support/Media.ts"
import { Ids as Id } from "@postwire/domain"
import { Registry } from "@postwire/platforms"

// Expiry needs no download; an import in these tests would fail like an unreachable address.
const NoDownloads = Layer.succeed(MediaFetcher)({
  fetch: () => Effect.fail(new MediaFetchFailed({ failure: { code: "invalid_url", field: "url" } }))
})

const engineOver = (stores: Layer.Layer<Store | MediaStore, unknown>) =>
  Layer.mergeAll(
    Ids.layerTest,
    BlobStore.layerMemory,
    NoDownloads,
    EngineConfig.layer(defaultSettings("https://postwire.test", "test-secret-of-at-least-thirty-two-bytes", Registry.catalog()))
  ).pipe(Layer.provideMerge(stores), Layer.orDie)

const settings = MediaJobs.defaults("worker-1")
const hours = (n: number) => `${n} hours` as const

const aWorkspace = Effect.gen(function* () {
  const ws = yield* Workspaces.createWorkspace({ name: "acme" })
  const key = yield* Workspaces.createKey(ws.id, { kind: "test", scopes: ["posts:read", "posts:write"] })
  const profile = yield* Workspaces.createProfile(ws.id, { name: "Acme" })
  const account = yield* Workspaces.createAccount(ws.id, { profileId: profile.id, platform: "photo", sandbox: true })
  return { caller: { workspaceId: ws.id, keyId: key.id, kind: "test" as const }, profile, account }
})

const anImage = (caller: { readonly workspaceId: Id.WorkspaceId; readonly keyId: Id.KeyId; readonly kind: "test" }) =>
  Media.uploadMedia(caller, { data: Buffer.from(aPng({ width: 2, height: 2 })).toString("base64") })

const exists = (workspaceId: string, id: string) =>
  Store.use((store) => store.getMedia(Id.unchecked("workspace", workspaceId), Id.unchecked("media", id))).pipe(Effect.map(Option.isSome))

/**
 * The media lifecycle on a pair of stores (`Store` and `MediaStore` over one database): upload
 * expiry, unused media expiry that spares media a post names, and an import that fails.
 */
export const mediaLifecycleConformance = (name: string, stores: () => Layer.Layer<Store | MediaStore, unknown>) =>
  layer(engineOver(stores()))(`media lifecycle: ${name}`, (it) => {
  it.effect("deletes an upload not completed within 24 hours, with its parts", () =>
    Effect.gen(function* () {
      const { caller } = yield* aWorkspace
      const upload = yield* Media.createUpload(caller, { filename: "late.mp4", size: 100 })
      yield* TestClock.adjust(hours(23))
      yield* MediaJobs.runMediaJobs(settings)
      assert.isTrue(yield* exists(caller.workspaceId, upload.id))
      yield* TestClock.adjust(hours(2))
      yield* MediaJobs.runMediaJobs(settings)
      assert.isFalse(yield* exists(caller.workspaceId, upload.id))
      const media = yield* MediaStore
      assert.isTrue(Option.isNone(yield* media.getUpload(caller.workspaceId, Id.unchecked("media", upload.id))))
    })
  )

  it.effect("deletes media no post names 7 days after creation, and its bytes, but keeps media a post names", () =>
    Effect.gen(function* () {
      const { caller, profile, account } = yield* aWorkspace
      const unused = yield* anImage(caller)
      const used = yield* anImage(caller)
      yield* Posts.createPost(
        caller,
        { profile_id: profile.id, caption: "hi", media: [used.id], targets: [{ account_id: account.id }] } as never
      )
      yield* TestClock.adjust(hours(6 * 24))
      yield* MediaJobs.runMediaJobs(settings)
      assert.isTrue(yield* exists(caller.workspaceId, unused.id))
      yield* TestClock.adjust(hours(2 * 24))
      yield* MediaJobs.runMediaJobs(settings)
      assert.isFalse(yield* exists(caller.workspaceId, unused.id))
      assert.isTrue(yield* exists(caller.workspaceId, used.id))
      const blobs = yield* BlobStore
      const gone = yield* Effect.result(blobs.get(`${caller.workspaceId}/${unused.id}`))
      assert.strictEqual(gone._tag, "Failure")
    })
  )

  it.effect("says which media a post of a live account names: only those are out of a test key's reach", () =>
    Effect.gen(function* () {
      const { caller, profile, account } = yield* aWorkspace
      const live = yield* Workspaces.createAccount(caller.workspaceId, { profileId: profile.id, platform: "textpost", sandbox: false })
      const liveCaller = { ...caller, kind: "live" as const }
      const [onLive, onBoth, onSandbox, unused] = [yield* anImage(caller), yield* anImage(caller), yield* anImage(caller), yield* anImage(caller)]
      const post = (media: ReadonlyArray<string>, accounts: ReadonlyArray<string>) =>
        Posts.createPost(liveCaller, {
          profile_id: profile.id,
          caption: "hi",
          media,
          targets: accounts.map((id) => ({ account_id: id }))
        } as never)
      yield* post([onLive.id], [live.id])
      yield* post([onBoth.id], [account.id, live.id])
      yield* post([onSandbox.id], [account.id])
      const media = yield* MediaStore
      const ids = [onLive.id, onBoth.id, onSandbox.id, unused.id].map((id) => Id.unchecked("media", id))
      assert.deepStrictEqual([...(yield* media.usedByLivePosts(caller.workspaceId, ids))].sort(), [onLive.id, onBoth.id].sort())
      assert.strictEqual((yield* media.usedByLivePosts(caller.workspaceId, [])).size, 0)
    })
  )

  it.effect("fails an import the fetcher cannot download, in the shared error shape", () =>
    Effect.gen(function* () {
      const { caller } = yield* aWorkspace
      const media = yield* MediaStore
      const store = yield* Store
      const at = yield* Effect.clockWith((c) => c.currentTimeMillis)
      yield* store.createMedia({
        id: Id.unchecked("media", "med_import"),
        workspaceId: caller.workspaceId,
        status: "processing",
        kind: "video",
        mime: "",
        sizeBytes: 0,
        filename: null,
        width: null,
        height: null,
        durationSeconds: null,
        sourceUrl: "https://cdn.example.com/a.mp4",
        blobKey: `${caller.workspaceId}/med_import`,
        sha256: "",
        createdAt: at
      })
      yield* MediaJobs.runMediaJobs(settings)
      const view = Media.mediaView((yield* Media.getMedia(caller, Id.unchecked("media", "med_import"))).record)
      assert.strictEqual(view.status, "failed")
      assert.strictEqual(view.error?.code, "invalid_url")
      assert.isTrue((yield* media.listMedia(caller.workspaceId, undefined, 10)).some((m) => m.id === "med_import"))
    })
  )
})
