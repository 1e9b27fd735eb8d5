/**
 * The engine in memory over a platform: test ids, blobs in memory, the engine's settings and its
 * credentials cipher, the memory publishing store and the memory store; and a workspace with one
 * live account in it. What the publishing tests that drive `Publisher` and `PermalinkBackfill`
 * in process run on.
 */
import {
  BlobStore,
  CredentialsCipher,
  defaultSettings,
  EngineConfig,
  Ids,
  MemoryPublishingStore,
  MemoryStore,
  PlatformClient,
  type PublishingStore,
  Workspaces
} from "@postwire/core"
import type { Platform } from "@postwire/domain"
import { Effect, Layer } from "effect"
import { Registry } from "@postwire/platforms"

/** The master secret of {@link memoryEngineSettings}. */
export const memoryEngineSecret = "test-secret-of-at-least-thirty-two-bytes"

/** The engine's settings in these tests. */
export const memoryEngineSettings = defaultSettings("https://postwire.test", memoryEngineSecret, Registry.catalog())

/**
 * The engine in memory over `platform`; `publishingStore` replaces the memory publishing store
 * (a wrapper of it that records what it is asked, for example).
 */
export const memoryEngine = (
  platform: PlatformClient["Service"],
  publishingStore: Layer.Layer<PublishingStore, never, MemoryStore.MemoryState> = MemoryPublishingStore.layer
) =>
  Layer.mergeAll(
    Ids.layerTest,
    BlobStore.layerMemory,
    EngineConfig.layer(memoryEngineSettings),
    CredentialsCipher.layer.pipe(Layer.provide(EngineConfig.layer(memoryEngineSettings))),
    Layer.succeed(PlatformClient)(platform)
  ).pipe(Layer.provideMerge(publishingStore), Layer.provideMerge(MemoryStore.layer))

/**
 * A workspace ("Maya Bakes") with a live key that reads and writes posts, a profile, and one live
 * account ("maya.bakes") on `platform` holding `credentials`; with the caller of that key.
 */
export const aLiveAccount = (options: {
  readonly platform: Platform
  readonly credentials: string
  readonly externalId: string
}) =>
  Effect.gen(function* () {
    const workspace = yield* Workspaces.createWorkspace({ name: "Maya Bakes" })
    const key = yield* Workspaces.createKey(workspace.id, { kind: "live", scopes: ["posts:read", "posts:write"] })
    const profile = yield* Workspaces.createProfile(workspace.id, { name: "Maya" })
    const account = yield* Workspaces.createAccount(workspace.id, {
      profileId: profile.id,
      platform: options.platform,
      sandbox: false,
      handle: "maya.bakes",
      credentials: options.credentials,
      externalId: options.externalId
    })
    const caller = { workspaceId: workspace.id, keyId: key.id, kind: "live" as const }
    return { workspace, profile, account, caller }
  })
