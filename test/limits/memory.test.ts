import { Layer } from "effect"
import { IdempotencyStore, RateLimitStore } from "@postwire/server"
import { limitStoresConformance } from "./conformance.ts"

limitStoresConformance("in memory", () => Layer.merge(RateLimitStore.layerMemory, IdempotencyStore.layerMemory))
