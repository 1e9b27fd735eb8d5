import { Layer } from "effect"
import { PgliteClient, SqlPublishingStore, SqlStore } from "@postwire/store-sql"
import { publishingStoreConformance } from "./conformance.ts"

publishingStoreConformance("embedded PGlite", () =>
  Layer.merge(SqlStore.layer, SqlPublishingStore.layer).pipe(Layer.provide(PgliteClient.layer())))
