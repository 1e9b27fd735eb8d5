/**
 * The connect store conformance suite on PostgreSQL, when `DATABASE_URL` is set, in a fresh
 * schema dropped at the end. With `REQUIRE_POSTGRES=1` a missing URL fails the run.
 */
import { SqlConnectStore, SqlStore } from "@postwire/store-sql"
import { Layer } from "effect"
import { freshSchema, onPostgres } from "../support/Postgres.ts"
import { connectStoreConformance } from "./conformance.ts"

onPostgres("ConnectStore conformance: PostgreSQL", (url) =>
  connectStoreConformance("PostgreSQL", () =>
    SqlConnectStore.layer.pipe(
      Layer.provideMerge(SqlStore.layer),
      Layer.provide(freshSchema(url, "pw_conn", { maxConnections: 4 }))
    )))
