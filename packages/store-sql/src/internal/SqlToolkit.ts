/**
 * What every SQL store shares: the traced operation wrapper that turns SQL failures and rows
 * that do not decode into a `StoreError`, the migrate-then-build layer, numbers read back from
 * `bigint` columns, and the writes of outbox events (each queued for the dispatcher's fan-out).
 * Row decoders live in `Rows.ts`.
 *
 * @internal
 */
import { type OutboxEvent, Spans, StoreError } from "@postwire/core"
import { Array as Arr, Cause, type Context, Effect, Layer, type Scope } from "effect"
import { SqlClient, SqlError, type Statement } from "effect/sql"
import * as Migrations from "../migrations/Migrations.ts"
import { isRowDecodeError } from "./Rows.ts"

/**
 * The operation wrapper of one store: `operation("name")(effect)` runs in a span
 * `<service>.name`, with every SQL failure, and every row that does not decode, turned into a
 * `StoreError` naming the operation.
 */
export const operations =
  (service: string) =>
  (name: string) =>
  <A, E>(effect: Effect.Effect<A, E | SqlError.SqlError>): Effect.Effect<A, Exclude<E, SqlError.SqlError> | StoreError> =>
    // A span only while tracing is on (every store call is on a hot path), named after the operation.
    Spans.withSpan(
      effect.pipe(
        Effect.catchIf(SqlError.isSqlError, (cause) => Effect.fail(new StoreError({ operation: name, cause }))),
        Effect.catchCause((cause) => {
          // A transaction whose connection died fails its ROLLBACK too, and Effect's
          // `withTransaction` turns that into a defect: still a lost database, not a bug.
          const lostDatabase = (reason: Cause.Reason<unknown>) =>
            Cause.isDieReason(reason) && (SqlError.isSqlError(reason.defect) || isRowDecodeError(reason.defect))
          const defect = cause.reasons.find(lostDatabase)
          if (defect === undefined || !cause.reasons.every((reason) => Cause.isFailReason(reason) || lostDatabase(reason))) {
            return Effect.failCause(cause)
          }
          const failure = cause.reasons.find(Cause.isFailReason)
          return failure !== undefined
            ? Effect.fail(failure.error)
            : Effect.fail(new StoreError({ operation: name, cause: (defect as Cause.Die).defect }))
        })
      ),
      `${service}.${name}`
    )

/** The migration of each client, run once whichever of its stores' layers asks first. */
const migrationOf = new WeakMap<SqlClient.SqlClient, Effect.Effect<unknown, Effect.Error<typeof Migrations.migrate>>>()

/**
 * Applies the pending migrations once per client: a server builds five migrated stores on one
 * client, and each checking the schema again cost a transaction of seven statements at every
 * start (docs/performance.md, "Seventeenth round: the second start").
 */
const migrateOnce: Effect.Effect<unknown, Effect.Error<typeof Migrations.migrate>, SqlClient.SqlClient> = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    Effect.suspend(() => {
      let migration = migrationOf.get(sql)
      if (migration === undefined) {
        // Made and stored without yielding, so stores built concurrently share the one run.
        migration = Effect.runSync(Effect.cached(Effect.provideService(Migrations.migrate, SqlClient.SqlClient, sql)))
        migrationOf.set(sql, migration)
      }
      return migration
    })
)

/**
 * The layer of a store that applies pending migrations first, then builds the store. A
 * database that cannot be migrated is a startup defect carrying a `StoreError` with operation
 * `migrate`. The stores on one client share one run of the migrations; they take an advisory
 * lock, so instances on one database apply them once.
 */
export const migratedLayer = <I, S, R>(
  service: Context.Key<I, S>,
  make: Effect.Effect<S, never, R>
): Layer.Layer<I, never, Exclude<R, Scope.Scope> | SqlClient.SqlClient> =>
  Layer.effect(service)(
    migrateOnce.pipe(
      Effect.mapError((cause) => new StoreError({ operation: "migrate", cause })),
      Effect.orDie,
      Effect.andThen(make)
    )
  )

/** A number from a column the driver may hand back as a string (`bigint`, `count(*)`). */
export const toNumber = (value: unknown): number => (typeof value === "number" ? value : Number(value))

/** {@link toNumber}, keeping `null` (and a missing value) as `null`. */
export const toNumberOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : toNumber(value))

/** The `outbox_events` row of an event. */
export const eventRow = (event: OutboxEvent) => ({
  workspace_id: event.workspaceId,
  id: event.id,
  type: event.type,
  created_at: event.createdAt,
  livemode: event.livemode,
  data: JSON.stringify(event.data)
})

/**
 * The `WITH` entries of a statement that writes outbox events: `name` runs `insert` (an
 * `INSERT INTO outbox_events ...` without `RETURNING`), and `<name>_queued` queues each event it
 * inserted for the dispatcher's fan-out (`outbox_pending`, by `seq`). Every event is written
 * this way: an event not queued would never be delivered.
 */
export const eventEntries = (
  sql: SqlClient.SqlClient,
  name: string,
  insert: Statement.Fragment
): ReadonlyArray<Statement.Fragment> => [
  sql`${sql(name)} AS (${insert} RETURNING seq, workspace_id)`,
  sql`${sql(`${name}_queued`)} AS (INSERT INTO outbox_pending (seq, workspace_id) SELECT seq, workspace_id FROM ${sql(name)})`
]

/** The `WITH` entries that insert `events` (their rows by {@link eventRow}) and queue them. */
export const eventRowsEntries = (
  sql: SqlClient.SqlClient,
  name: string,
  events: Arr.NonEmptyReadonlyArray<OutboxEvent>
) => eventEntries(sql, name, sql`INSERT INTO outbox_events ${sql.insert(Arr.map(events, eventRow))}`)

/** One statement: inserts `events` and queues them for the fan-out; nothing when there are none. */
export const insertEvents = (sql: SqlClient.SqlClient, events: ReadonlyArray<OutboxEvent>): Effect.Effect<void, SqlError.SqlError> =>
  Arr.isReadonlyArrayNonEmpty(events)
    ? Effect.asVoid(sql`WITH ${sql.csv(eventRowsEntries(sql, "new_events", events))} SELECT 1`)
    : Effect.void
