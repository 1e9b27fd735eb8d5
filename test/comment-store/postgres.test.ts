/**
 * The comment store conformance suite on PostgreSQL, when `DATABASE_URL` is set, in a fresh
 * schema dropped at the end. With `REQUIRE_POSTGRES=1` a missing URL fails the run.
 */
import { SqlCommentStore, SqlStore } from "@postwire/store-sql"
import { Layer } from "effect"
import { freshSchema, onPostgres } from "../support/Postgres.ts"
import { commentStoreConformance } from "./conformance.ts"

onPostgres("CommentStore conformance: PostgreSQL", (url) =>
  commentStoreConformance("PostgreSQL", () =>
    SqlCommentStore.layer.pipe(
      Layer.provideMerge(SqlStore.layer),
      Layer.provide(freshSchema(url, "pw_cmt", { maxConnections: 4 }))
    )))
