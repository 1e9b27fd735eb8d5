import { Layer } from "effect"
import { PgliteClient, SqlPublishingStore, SqlStore } from "@postwire/store-sql"
import { publishingStoreConformance } from "./conformance.ts"
import { anEmbeddedTemplate } from "../support/TestServer.ts"

/** Each embedded database here starts as a copy of a new one (no `initdb` of its own). */
const template = await anEmbeddedTemplate()

publishingStoreConformance("embedded PGlite", () =>
  Layer.merge(SqlStore.layer, SqlPublishingStore.layer).pipe(Layer.provide(PgliteClient.layer({ template }))))
