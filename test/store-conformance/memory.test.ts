import { MemoryStore } from "@postwire/core"
import { storeConformance } from "./conformance.ts"

storeConformance("in memory", () => MemoryStore.layer)
