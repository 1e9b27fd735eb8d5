/**
 * The planner's statistics of Postwire's own tables, kept current by Postwire where nothing else
 * keeps them.
 *
 * PostgreSQL picks a statement's plan from each table's statistics, which `ANALYZE` gathers and
 * autovacuum runs when a table changed enough. The embedded database has no autovacuum (PGlite
 * runs one backend, without background workers), and a PostgreSQL may run with it turned off:
 * then no table is ever analyzed, and the planner, guessing, reads a workspace's whole history
 * where its primary key would read a few rows (the publisher locking 45 posts scanned all 1,700
 * of its workspace, 10.7 ms instead of 0.3; at 100,000 posts, every such statement reads 100,000
 * rows). `refresh` analyzes the tables of the current schema whose statistics are missing or
 * stale, with autovacuum's own rule where PostgreSQL counts changes (more than 50 rows plus a
 * tenth of the table changed since the last analyze) and, where it does not (the embedded
 * database), by size: a table never analyzed that holds data, or one grown by more than a tenth
 * (and 8 pages) since. Where autovacuum keeps up, nothing is stale and a refresh is one catalog
 * read.
 *
 * @since 0.4.0
 */
import { Context, Duration, Effect, Layer, type Scope } from "effect"
import { SqlClient, type SqlError } from "effect/sql"

/** Runs `refresh` on demand; the server's worker runs it every minute (`start`). */
export class TableStatistics extends Context.Service<
  TableStatistics,
  {
    /** Analyzes every table of the current schema whose statistics are stale; answers their names. */
    readonly refresh: Effect.Effect<ReadonlyArray<string>, SqlError.SqlError>
  }
>()("postwire/store-sql/TableStatistics") {}

/** The tables of the current schema whose statistics are missing or stale, by name. */
export const staleTables: Effect.Effect<ReadonlyArray<string>, SqlError.SqlError, SqlClient.SqlClient> = Effect.gen(
  function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ readonly name: string }>`
      WITH sized AS (
        SELECT c.relname AS name, c.reltuples, c.relpages,
          pg_relation_size(c.oid) / current_setting('block_size')::bigint AS pages,
          COALESCE(s.n_mod_since_analyze, 0) AS changed
        FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace
        LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
        WHERE n.nspname = current_schema() AND c.relkind = 'r'
      )
      SELECT name FROM sized
      WHERE (reltuples < 0 AND pages > 0)
        OR pages > relpages * 1.1 + 8
        OR changed > 50 + 0.1 * GREATEST(reltuples, 0)
      ORDER BY name`
    return rows.map((row) => row.name)
  }
)

/** Analyzes the stale tables (skipping one another session is analyzing or vacuuming now). */
export const refresh: Effect.Effect<ReadonlyArray<string>, SqlError.SqlError, SqlClient.SqlClient> = Effect.gen(
  function* () {
    const sql = yield* SqlClient.SqlClient
    const tables = yield* staleTables
    for (const table of tables) yield* sql`ANALYZE (SKIP_LOCKED) ${sql(table)}`
    return tables
  }
)

/** The service on the current `SqlClient`. */
export const layer: Layer.Layer<TableStatistics, never, SqlClient.SqlClient> = Layer.effect(TableStatistics)(
  Effect.map(SqlClient.SqlClient, (sql) => ({ refresh: Effect.provideService(refresh, SqlClient.SqlClient, sql) }))
)

/** When the refresh runs: first this long after the start, then every `every`. */
export interface RefreshSchedule {
  readonly first: Duration.Input
  readonly every: Duration.Input
}

/** The worker's schedule: ten seconds after the start, then every minute. */
export const defaultSchedule: RefreshSchedule = { first: Duration.seconds(10), every: Duration.minutes(1) }

/**
 * Refreshes the statistics on `schedule` in the background until the scope closes. A refresh
 * that fails (the database away for a moment) is logged and tried again at the next turn.
 *
 * @example
 * ```ts
 * const StatisticsLive = Layer.effectDiscard(TableStatistics.start())
 * ```
 */
export const start = (schedule: RefreshSchedule = defaultSchedule): Effect.Effect<void, never, TableStatistics | Scope.Scope> =>
  Effect.gen(function* () {
    const { refresh } = yield* TableStatistics
    const turn = refresh.pipe(
      Effect.tap((tables) => (tables.length === 0 ? Effect.void : Effect.logDebug("analyzed tables", { tables }))),
      Effect.catchCause((cause) => Effect.logWarning("refreshing the tables' statistics failed", cause)),
      Effect.withTracerEnabled(false)
    )
    yield* Effect.sleep(schedule.first).pipe(
      Effect.andThen(Effect.forever(Effect.andThen(turn, Effect.sleep(schedule.every)))),
      Effect.forkScoped
    )
  })
