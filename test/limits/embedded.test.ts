import { Layer } from "effect"
import { PgliteClient, SqlIdempotencyStore, SqlRateLimitStore, SqlStore } from "@postwire/store-sql"
import { limitStoresConformance } from "./conformance.ts"
import { anEmbeddedTemplate } from "../support/TestServer.ts"

/** Each embedded database here starts as a copy of a new one (no `initdb` of its own). */
const template = await anEmbeddedTemplate()

// The `Store`'s layer migrates the schema that holds the counters and the keys.
limitStoresConformance("embedded PGlite", () =>
  Layer.merge(SqlRateLimitStore.layer, SqlIdempotencyStore.layer).pipe(
    Layer.provideMerge(SqlStore.layer),
    Layer.provide(PgliteClient.layer({ template }))
  ))
