import { Layer } from "effect"
import { MemoryPublishingStore, MemoryStore } from "@postwire/core"
import { publishingStoreConformance } from "./conformance.ts"

publishingStoreConformance("in memory", () => MemoryPublishingStore.layer.pipe(Layer.provideMerge(MemoryStore.layer)))
