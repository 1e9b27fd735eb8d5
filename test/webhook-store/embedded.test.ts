import { Layer } from "effect"
import { PgliteClient, SqlStore, SqlWebhookStore } from "@postwire/store-sql"
import { webhookStoreConformance } from "./conformance.ts"
import { anEmbeddedTemplate } from "../support/TestServer.ts"

/** Each embedded database here starts as a copy of a new one (no `initdb` of its own). */
const template = await anEmbeddedTemplate()

webhookStoreConformance("embedded PGlite", () =>
  SqlWebhookStore.layer.pipe(Layer.provideMerge(SqlStore.layer), Layer.provide(PgliteClient.layer({ template }))))
