/**
 * The webhook store conformance suite on PostgreSQL, when `DATABASE_URL` is set, in a fresh
 * schema dropped at the end. Here concurrent fan-outs and claims really run side by side.
 * With `REQUIRE_POSTGRES=1` a missing URL fails the run.
 */
import { SqlStore, SqlWebhookStore } from "@postwire/store-sql"
import { Layer } from "effect"
import { freshSchema, onPostgres } from "../support/Postgres.ts"
import { webhookStoreConformance } from "./conformance.ts"

onPostgres("WebhookStore conformance: PostgreSQL", (url) =>
  webhookStoreConformance("PostgreSQL", () =>
    SqlWebhookStore.layer.pipe(
      Layer.provideMerge(SqlStore.layer),
      Layer.provide(freshSchema(url, "pw_whtest"))
    )))
