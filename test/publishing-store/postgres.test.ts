/**
 * The publishing store conformance suite on PostgreSQL, when `DATABASE_URL` is set, in a fresh
 * schema dropped at the end. Here claims really run side by side on a pool of connections. With
 * `REQUIRE_POSTGRES=1` a missing URL fails the run.
 */
import { SqlPublishingStore, SqlStore } from "@postwire/store-sql"
import { Layer } from "effect"
import { freshSchema, onPostgres } from "../support/Postgres.ts"
import { publishingStoreConformance } from "./conformance.ts"

onPostgres("PublishingStore conformance: PostgreSQL", (url) =>
  publishingStoreConformance("PostgreSQL", () =>
    Layer.merge(SqlStore.layer, SqlPublishingStore.layer).pipe(
      Layer.provide(freshSchema(url, "pw_pub", { maxConnections: 8 }))
    )))
