import { MemoryAnalyticsStore, MemoryStore } from "@postwire/core"
import { Layer } from "effect"
import { analyticsStoreConformance } from "./conformance.ts"

analyticsStoreConformance("in memory", () => MemoryAnalyticsStore.layer.pipe(Layer.provideMerge(MemoryStore.layer)))
