// Imported by path until `@postwire/core`'s index exports `MemoryStore`.
import * as MemoryStore from "../../packages/core/src/store/MemoryStore.ts"
import { storeConformance } from "./conformance.ts"

storeConformance("in memory", () => MemoryStore.layer)
