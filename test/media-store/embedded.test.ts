import { Layer } from "effect"
import { PgliteClient, SqlMediaStore, SqlStore } from "@postwire/store-sql"
import { mediaLifecycleConformance } from "./conformance.ts"
import { anEmbeddedTemplate } from "../support/TestServer.ts"

/** Each embedded database here starts as a copy of a new one (no `initdb` of its own). */
const template = await anEmbeddedTemplate()

mediaLifecycleConformance("embedded PGlite", () =>
  Layer.merge(SqlStore.layer, SqlMediaStore.layer).pipe(Layer.provide(PgliteClient.layer({ template }))))
