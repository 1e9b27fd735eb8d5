import { Layer } from "effect"
import { PgliteClient, SqlMediaStore, SqlStore } from "@postwire/store-sql"
import { mediaLifecycleConformance } from "./conformance.ts"

mediaLifecycleConformance("embedded PGlite", () =>
  Layer.merge(SqlStore.layer, SqlMediaStore.layer).pipe(Layer.provide(PgliteClient.layer())))
