import { Layer } from "effect"
import { MemoryMediaStore, MemoryStore } from "@postwire/core"
import { mediaLifecycleConformance } from "./conformance.ts"

mediaLifecycleConformance("in memory", () => MemoryMediaStore.layer.pipe(Layer.provideMerge(MemoryStore.layer)))
