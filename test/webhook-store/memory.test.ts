import { Layer } from "effect"
import { MemoryStore, MemoryWebhookStore } from "@postwire/core"
import { webhookStoreConformance } from "./conformance.ts"

webhookStoreConformance("in memory", () => MemoryWebhookStore.layer.pipe(Layer.provideMerge(MemoryStore.layer)))
