import { Layer } from "effect"
import { MemoryCommentStore, MemoryStore } from "@postwire/core"
import { commentStoreConformance } from "./conformance.ts"

commentStoreConformance("in memory", () => MemoryCommentStore.layer.pipe(Layer.provideMerge(MemoryStore.layer)))
