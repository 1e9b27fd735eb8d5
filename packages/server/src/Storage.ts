/**
 * Which database the server uses: PostgreSQL when `DATABASE_URL` is set, else the embedded
 * database in the data directory.
 *
 * @since 0.1.0
 */
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import type { SqlClient } from "effect/sql"
import {
  DatabaseStatus,
  layerPostgres,
  PgliteClient,
  SqlAnalyticsStore,
  SqlCommentStore,
  SqlConnectStore,
  SqlIdempotencyStore,
  SqlMediaStore,
  SqlPlatformCounters,
  SqlPublishingStore,
  SqlRateLimitStore,
  SqlStore,
  SqlWebhookStore,
  TableStatistics
} from "@postwire/store-sql"
import { defaultDatabaseSettings, type ServerSettings } from "./config/ServerConfig.ts"
import * as DataDirectoryLock from "./DataDirectoryLock.ts"

/** The stores on one SQL database: the `Store` first (it migrates), then the `WebhookStore`, `PublishingStore`, `ConnectStore`, `CommentStore`, `MediaStore`, the platforms' counters, the rate-limit and idempotency stores, and beside them the readiness check and the tables' statistics. */
export const sqlStores = Layer.mergeAll(
  SqlWebhookStore.layer,
  SqlPublishingStore.layer,
  SqlConnectStore.layer,
  SqlCommentStore.layer,
  SqlAnalyticsStore.layer,
  SqlMediaStore.layer,
  // The platforms' shared budgets (YouTube's daily API units), counted once for every instance.
  SqlPlatformCounters.layer,
  SqlRateLimitStore.layer,
  SqlIdempotencyStore.layer,
  DatabaseStatus.layer,
  TableStatistics.layer
).pipe(
  Layer.provideMerge(SqlStore.layer)
)

/** What {@link sqlStores} provides: every store, the readiness check and the tables' statistics. */
export type SqlStores = Layer.Success<typeof sqlStores>

/**
 * The SQL database for these settings: PostgreSQL at `databaseUrl` (with the time limits of
 * `database`), else the embedded database in `dataDir`, held by this process alone (a lock file)
 * while the layer lives.
 */
export const sqlClientLayer = (
  settings: Pick<ServerSettings, "databaseUrl" | "dataDir" | "database">
): Layer.Layer<SqlClient.SqlClient, unknown> =>
  settings.databaseUrl !== undefined
    ? layerPostgres(settings.databaseUrl, {
        statementTimeoutMs: (settings.database ?? defaultDatabaseSettings).statementTimeoutMs,
        idleInTransactionTimeoutMs: (settings.database ?? defaultDatabaseSettings).idleInTransactionTimeoutMs,
        connectTimeoutMs: (settings.database ?? defaultDatabaseSettings).connectTimeoutMs
      })
    : Layer.unwrap(
        Effect.gen(function* () {
          yield* DataDirectoryLock.acquire(settings.dataDir)
          const dataDir = join(settings.dataDir, "db")
          yield* Effect.try({
            try: () => mkdirSync(dataDir, { recursive: true }),
            catch: (cause) => new DataDirectoryLock.DataDirectoryNotWritable({ dataDir: settings.dataDir, cause })
          })
          // A first start unpacks the template this version ships instead of running initdb
          // (docs/performance.md, "Third round: the first start").
          return PgliteClient.layer({ dataDir, template: PgliteClient.packagedTemplate() })
        })
      )

/** The store for these settings. */
export const storeLayer = (
  settings: Pick<ServerSettings, "databaseUrl" | "dataDir" | "database">
): Layer.Layer<SqlStores, unknown> =>
  sqlStores.pipe(Layer.provide(sqlClientLayer(settings)))
