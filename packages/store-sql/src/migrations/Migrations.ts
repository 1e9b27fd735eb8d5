/**
 * The schema's numbered migrations, bundled as code so they run the same under vitest, tsx,
 * node and bundlers (no file-system loading).
 *
 * @since 0.1.0
 */
import type { Effect } from "effect"
import { Migrator, type SqlClient, type SqlError } from "effect/sql"
import init from "./0001_init.ts"
import publishing from "./0002_publishing.ts"
import webhooks from "./0003_webhooks.ts"
import pendingPermalinks from "./0004_pending_permalinks.ts"
import accountsConnect from "./0005_accounts_connect.ts"
import webhookLog from "./0006_webhook_log.ts"
import publishRecovery from "./0007_publish_recovery.ts"

/** The table recording applied migrations; named for Postwire so it never meets an app's own. */
export const table = "postwire_migrations"

/** Every migration, keyed `<number>_<name>`; append new ones, never edit applied ones. */
export const loader: Migrator.Loader = Migrator.fromRecord({
  "0001_init": init,
  "0002_publishing": publishing,
  "0003_webhooks": webhooks,
  "0004_pending_permalinks": pendingPermalinks,
  "0005_accounts_connect": accountsConnect,
  "0006_webhook_log": webhookLog,
  "0007_publish_recovery": publishRecovery
})

/**
 * Applies the pending migrations in one transaction and returns those it ran. On PostgreSQL,
 * instances starting together take turns on a table lock, so each migration runs once.
 */
export const migrate: Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  Migrator.MigrationError | SqlError.SqlError,
  SqlClient.SqlClient
> = Migrator.make({})({ loader, table })
