import { Layer } from "effect"
import { PgliteClient, SqlConnectStore, SqlStore } from "@postwire/store-sql"
import { connectStoreConformance } from "./conformance.ts"

connectStoreConformance("embedded PGlite", () =>
  SqlConnectStore.layer.pipe(Layer.provideMerge(SqlStore.layer), Layer.provide(PgliteClient.layer())))
