import { Layer } from "effect"
import { MemoryIdempotencyStore, MemoryRateLimitStore } from "@postwire/core"
import { limitStoresConformance } from "./conformance.ts"

limitStoresConformance("in memory", () => Layer.merge(MemoryRateLimitStore.layer, MemoryIdempotencyStore.layer))
