import { PgliteClient, SqlCommentStore, SqlStore } from "@postwire/store-sql"
import { Layer } from "effect"
import { commentStoreConformance } from "./conformance.ts"
import { anEmbeddedTemplate } from "../support/TestServer.ts"

/** Each embedded database here starts as a copy of a new one (no `initdb` of its own). */
const template = await anEmbeddedTemplate()

commentStoreConformance("embedded PGlite", () =>
  SqlCommentStore.layer.pipe(Layer.provideMerge(SqlStore.layer), Layer.provide(PgliteClient.layer({ template }))))
