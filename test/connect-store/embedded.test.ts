import { Layer } from "effect"
import { PgliteClient, SqlConnectStore, SqlStore } from "@postwire/store-sql"
import { connectStoreConformance } from "./conformance.ts"
import { anEmbeddedTemplate } from "../support/TestServer.ts"

/** Each embedded database here starts as a copy of a new one (no `initdb` of its own). */
const template = await anEmbeddedTemplate()

connectStoreConformance("embedded PGlite", () =>
  SqlConnectStore.layer.pipe(Layer.provideMerge(SqlStore.layer), Layer.provide(PgliteClient.layer({ template }))))
