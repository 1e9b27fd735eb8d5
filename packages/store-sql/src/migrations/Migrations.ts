/**
 * The schema's numbered migrations, bundled as code so they run the same under vitest, tsx,
 * node and bundlers (no file-system loading).
 *
 * @since 0.1.0
 */
import { Data, Effect } from "effect"
import { Migrator, SqlClient, type SqlError } from "effect/sql"
import init from "./0001_init.ts"
import publishing from "./0002_publishing.ts"
import webhooks from "./0003_webhooks.ts"
import pendingPermalinks from "./0004_pending_permalinks.ts"
import accountsConnect from "./0005_accounts_connect.ts"
import webhookLog from "./0006_webhook_log.ts"
import publishRecovery from "./0007_publish_recovery.ts"
import comments from "./0008_comments.ts"
import mediaLifecycle from "./0009_media_lifecycle.ts"
import historyBounded from "./0010_history_bounded.ts"
import targetErrorsAsData from "./0011_target_errors_as_data.ts"
import hotUpdates from "./0012_hot_updates.ts"
import postTraceParent from "./0013_post_trace_parent.ts"
import outboxPending from "./0014_outbox_pending.ts"
import keyApprovalLinks from "./0015_key_approval_links.ts"
import analytics from "./0016_analytics.ts"

/** The table recording applied migrations; named for Postwire so it never meets an app's own. */
export const table = "postwire_migrations"

const migrations = {
  "0001_init": init,
  "0002_publishing": publishing,
  "0003_webhooks": webhooks,
  "0004_pending_permalinks": pendingPermalinks,
  "0005_accounts_connect": accountsConnect,
  "0006_webhook_log": webhookLog,
  "0007_publish_recovery": publishRecovery,
  "0008_comments": comments,
  "0009_media_lifecycle": mediaLifecycle,
  "0010_history_bounded": historyBounded,
  "0011_target_errors_as_data": targetErrorsAsData,
  "0012_hot_updates": hotUpdates,
  "0013_post_trace_parent": postTraceParent,
  "0014_outbox_pending": outboxPending,
  "0015_key_approval_links": keyApprovalLinks,
  "0016_analytics": analytics
}

/** Every migration, keyed `<number>_<name>`; append new ones, never edit applied ones. */
export const loader: Migrator.Loader = Migrator.fromRecord(migrations)

/** Every migration this version knows, as `<number>_<name>`, in order. */
export const known: ReadonlyArray<string> = Object.keys(migrations)

/**
 * The database was migrated by a newer Postwire: it holds migrations this version does not
 * know, so this version must not run against it (it would misread the newer schema).
 */
export class SchemaFromNewerVersion extends Data.TaggedError("SchemaFromNewerVersion")<{
  /** The migrations in the database this version does not know, as `<number>_<name>`. */
  readonly unknown: ReadonlyArray<string>
}> {}

/** Where the database's schema stands against this version's migrations. */
export interface SchemaState {
  /** Migrations applied, as `<number>_<name>`. */
  readonly applied: ReadonlyArray<string>
  /** Migrations of this version not yet applied. */
  readonly pending: ReadonlyArray<string>
  /** Applied migrations this version does not know (the database was migrated by a newer version). */
  readonly unknown: ReadonlyArray<string>
}

const idOf = (row: { readonly migration_id: number | string; readonly name: string }) =>
  `${String(row.migration_id).padStart(4, "0")}_${row.name}`

/** Reads the applied migrations and compares them with this version's; an empty database has them all pending. */
export const state: Effect.Effect<SchemaState, SqlError.SqlError, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const exists = yield* sql<{ readonly present: string | null }>`SELECT to_regclass(${table})::text AS present`
  const rows =
    exists[0]?.present == null
      ? []
      : yield* sql<{ readonly migration_id: number; readonly name: string }>`SELECT migration_id, name FROM ${sql(table)} ORDER BY migration_id`
  const applied = rows.map(idOf)
  return {
    applied,
    pending: known.filter((id) => !applied.includes(id)),
    unknown: applied.filter((id) => !known.includes(id))
  }
})

// An arbitrary constant naming Postwire's migration lock among the database's advisory locks.
const advisoryLockKey = 7_420_161

/**
 * Applies the pending migrations in one transaction and returns those it ran. On PostgreSQL,
 * instances starting together queue on one transaction-scoped advisory lock, so each migration
 * runs once and none sees a half-made migrations table. A database migrated by a newer version
 * is refused with {@link SchemaFromNewerVersion} before anything is changed.
 */
export const migrate: Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  Migrator.MigrationError | SqlError.SqlError | SchemaFromNewerVersion,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return yield* Effect.gen(function* () {
    yield* sql`SELECT pg_advisory_xact_lock(${advisoryLockKey})`
    const current = yield* state
    if (current.unknown.length > 0) return yield* new SchemaFromNewerVersion({ unknown: current.unknown })
    return yield* Migrator.make({})({ loader, table })
  }).pipe(sql.withTransaction)
})

/**
 * Applies the migrations up to and including `last` (`<number>_<name>`), as a database of the
 * version that ended there would be: for upgrade tests, which load that version's data and
 * then {@link migrate} the rest.
 */
export const migrateTo = (last: string) =>
  Effect.gen(function* () {
    const index = known.indexOf(last)
    if (index < 0) return yield* Effect.die(new Error(`unknown migration ${last}`))
    const subset = Object.fromEntries(Object.entries(migrations).slice(0, index + 1))
    return yield* Migrator.make({})({ loader: Migrator.fromRecord(subset), table })
  })
