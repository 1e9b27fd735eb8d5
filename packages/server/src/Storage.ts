/**
 * Which database the server uses: PostgreSQL when `DATABASE_URL` is set, else the embedded
 * database in the data directory.
 *
 * @since 0.1.0
 */
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import type { ConnectStore, PublishingStore, Store, WebhookStore } from "@postwire/core"
import { DatabaseStatus, layerPostgres, PgliteClient, SqlConnectStore, SqlPublishingStore, SqlStore, SqlWebhookStore } from "@postwire/store-sql"
import type { ServerSettings } from "./config/ServerConfig.ts"

/** The stores on one SQL database: the `Store` first (it migrates), then the `WebhookStore`, `PublishingStore`, `ConnectStore` and the readiness check beside it. */
export const sqlStores = Layer.mergeAll(SqlWebhookStore.layer, SqlPublishingStore.layer, SqlConnectStore.layer, DatabaseStatus.layer).pipe(
  Layer.provideMerge(SqlStore.layer)
)

/** The store for these settings. */
export const storeLayer = (
  settings: Pick<ServerSettings, "databaseUrl" | "dataDir">
): Layer.Layer<Store | WebhookStore | PublishingStore | ConnectStore | DatabaseStatus.DatabaseStatus, unknown> =>
  settings.databaseUrl !== undefined
    ? sqlStores.pipe(Layer.provide(layerPostgres(settings.databaseUrl)))
    : sqlStores.pipe(
        Layer.provide(
          Layer.unwrap(
            Effect.sync(() => {
              const dataDir = join(settings.dataDir, "db")
              mkdirSync(dataDir, { recursive: true })
              return PgliteClient.layer({ dataDir })
            })
          )
        )
      )
