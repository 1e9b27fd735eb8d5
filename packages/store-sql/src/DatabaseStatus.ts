/**
 * Whether the database answers and its schema is the one this version expects: what an
 * instance's `GET /ready` reports to a load balancer or orchestrator.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as Migrations from "./migrations/Migrations.ts"

/** The outcome of one readiness check of the database. */
export type Check =
  | { readonly _tag: "Ready" }
  | { readonly _tag: "Unreachable" }
  | { readonly _tag: "SchemaBehind"; readonly pending: ReadonlyArray<string> }
  | { readonly _tag: "SchemaAhead"; readonly unknown: ReadonlyArray<string> }

/** Checks the database with one cheap query. */
export class DatabaseStatus extends Context.Service<DatabaseStatus, { readonly check: Effect.Effect<Check> }>()(
  "postwire/store-sql/DatabaseStatus"
) {}

/** The check on the current `SqlClient`. */
export const layer: Layer.Layer<DatabaseStatus, never, SqlClient.SqlClient> = Layer.effect(DatabaseStatus)(
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const check = Migrations.state.pipe(
      Effect.map((state): Check =>
        state.unknown.length > 0 ? { _tag: "SchemaAhead", unknown: state.unknown }
        : state.pending.length > 0 ? { _tag: "SchemaBehind", pending: state.pending }
        : { _tag: "Ready" }
      ),
      Effect.provideService(SqlClient.SqlClient, sql),
      Effect.orElseSucceed((): Check => ({ _tag: "Unreachable" }))
    )
    return { check }
  })
)
