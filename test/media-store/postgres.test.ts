/**
 * The media lifecycle suite on PostgreSQL, when `DATABASE_URL` is set, in a fresh schema dropped
 * at the end. With `REQUIRE_POSTGRES=1` a missing URL fails the run.
 */
import { SqlMediaStore, SqlStore } from "@postwire/store-sql"
import { Layer } from "effect"
import { freshSchema, onPostgres } from "../support/Postgres.ts"
import { mediaLifecycleConformance } from "./conformance.ts"

onPostgres("media lifecycle: PostgreSQL", (url) =>
  mediaLifecycleConformance("PostgreSQL", () =>
    Layer.merge(SqlStore.layer, SqlMediaStore.layer).pipe(
      Layer.provide(freshSchema(url, "pw_media", { maxConnections: 4 }))
    )))
