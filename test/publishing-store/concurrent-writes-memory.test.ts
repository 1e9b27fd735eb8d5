import { MemoryPublishingStore, MemoryStore } from "@postwire/core"
import { Layer } from "effect"
import { concurrentWritesSpec } from "./concurrent-writes.ts"

concurrentWritesSpec("in memory", () => MemoryPublishingStore.layer.pipe(Layer.provideMerge(MemoryStore.layer)))
