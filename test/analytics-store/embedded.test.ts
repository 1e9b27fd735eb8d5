import { PgliteClient, SqlAnalyticsStore, SqlStore } from "@postwire/store-sql"
import { Layer } from "effect"
import { anEmbeddedTemplate } from "../support/TestServer.ts"
import { analyticsStoreConformance } from "./conformance.ts"

/** Each embedded database here starts as a copy of a new one (no `initdb` of its own). */
const template = await anEmbeddedTemplate()

analyticsStoreConformance("embedded PGlite", () =>
  SqlAnalyticsStore.layer.pipe(Layer.provideMerge(SqlStore.layer), Layer.provide(PgliteClient.layer({ template }))))
