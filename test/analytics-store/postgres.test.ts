/**
 * The analytics store conformance suite on PostgreSQL, when `DATABASE_URL` is set, in a fresh
 * schema dropped at the end. With `REQUIRE_POSTGRES=1` a missing URL fails the run.
 */
import { SqlAnalyticsStore, SqlStore } from "@postwire/store-sql"
import { Layer } from "effect"
import { freshSchema, onPostgres } from "../support/Postgres.ts"
import { analyticsStoreConformance } from "./conformance.ts"

onPostgres("AnalyticsStore conformance: PostgreSQL", (url) =>
  analyticsStoreConformance("PostgreSQL", () =>
    SqlAnalyticsStore.layer.pipe(Layer.provideMerge(SqlStore.layer), Layer.provide(freshSchema(url, "pw_ana", { maxConnections: 4 })))))
