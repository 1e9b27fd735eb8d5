import { PgliteClient, SqlCommentStore, SqlStore } from "@postwire/store-sql"
import { Layer } from "effect"
import { commentStoreConformance } from "./conformance.ts"

commentStoreConformance("embedded PGlite", () =>
  SqlCommentStore.layer.pipe(Layer.provideMerge(SqlStore.layer), Layer.provide(PgliteClient.layer())))
