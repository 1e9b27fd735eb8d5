import { Layer } from "effect"
import { PgliteClient, SqlStore, SqlWebhookStore } from "@postwire/store-sql"
import { webhookStoreConformance } from "./conformance.ts"

webhookStoreConformance("embedded PGlite", () =>
  SqlWebhookStore.layer.pipe(Layer.provideMerge(SqlStore.layer), Layer.provide(PgliteClient.layer())))
