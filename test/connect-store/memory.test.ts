import { Layer } from "effect"
import { MemoryConnectStore, MemoryStore } from "@postwire/core"
import { connectStoreConformance } from "./conformance.ts"

connectStoreConformance("in memory", () => MemoryConnectStore.layer.pipe(Layer.provideMerge(MemoryStore.layer)))
