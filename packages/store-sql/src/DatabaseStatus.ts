/**
 * Whether the database answers and its schema is the one this version expects: what an
 * instance's `GET /ready` reports to a load balancer or orchestrator.
 *
 * @since 0.1.0
 */
import { Context, Effect, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as Migrations from "./migrations/Migrations.ts"

/** The outcome of one readiness check of the database. */
export type Check =
  | { readonly _tag: "Ready" }
  /** The database failed the query (`failed`) or gave no answer within the check's time limit (`timeout`). */
  | { readonly _tag: "Unreachable"; readonly reason: "failed" | "timeout" }
  | { readonly _tag: "SchemaBehind"; readonly pending: ReadonlyArray<string> }
  | { readonly _tag: "SchemaAhead"; readonly unknown: ReadonlyArray<string> }

/** Checks the database with one cheap query. */
export class DatabaseStatus extends Context.Service<
  DatabaseStatus,
  {
    /**
     * The check, answered within `timeoutMs`: a database that has not answered by then is
     * `Unreachable` (`timeout`). The query itself is left to finish or fail in the background
     * (bounded by the client's own statement limit), so the answer never waits on it.
     */
    readonly check: (timeoutMs: number) => Effect.Effect<Check>
  }
>()("postwire/store-sql/DatabaseStatus") {}

/** The check on the current `SqlClient`. */
export const layer: Layer.Layer<DatabaseStatus, never, SqlClient.SqlClient> = Layer.effect(DatabaseStatus)(
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const query = Migrations.state.pipe(
      Effect.map((state): Check =>
        state.unknown.length > 0 ? { _tag: "SchemaAhead", unknown: state.unknown }
        : state.pending.length > 0 ? { _tag: "SchemaBehind", pending: state.pending }
        : { _tag: "Ready" }
      ),
      Effect.provideService(SqlClient.SqlClient, sql),
      Effect.orElseSucceed((): Check => ({ _tag: "Unreachable", reason: "failed" }))
    )
    const check = (timeoutMs: number) =>
      Effect.gen(function* () {
        // Interrupting a query waits for the driver to cancel it on the server: on a network
        // that swallows traffic that takes seconds. The answer stops waiting instead.
        const fiber = yield* Effect.forkDetach(query)
        return yield* Fiber.join(fiber).pipe(
          Effect.timeoutOption(timeoutMs),
          Effect.map((answer): Check => (answer._tag === "Some" ? answer.value : { _tag: "Unreachable", reason: "timeout" }))
        )
      })
    return { check }
  })
)
