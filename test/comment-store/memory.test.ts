import { MemoryCommentStore, MemoryStore } from "@postwire/core"
import { Layer } from "effect"
import { commentStoreConformance } from "./conformance.ts"

commentStoreConformance("in memory", () => MemoryCommentStore.layer.pipe(Layer.provideMerge(MemoryStore.layer)))
