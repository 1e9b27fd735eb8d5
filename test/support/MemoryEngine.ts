/**
 * The engine in memory over a platform: test ids, blobs in memory, the engine's settings and its
 * credentials cipher, the memory publishing store and the memory store. What the publishing
 * tests that drive `Publisher` and `PermalinkBackfill` in process run on.
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
  type PublishingStore
} from "@postwire/core"
import { Layer } from "effect"

/** The master secret of {@link memoryEngineSettings}. */
export const memoryEngineSecret = "test-secret-of-at-least-thirty-two-bytes"

/** The engine's settings in these tests. */
export const memoryEngineSettings = defaultSettings("https://postwire.test", memoryEngineSecret)

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
