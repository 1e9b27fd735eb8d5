/**
 * Which database the server uses: PostgreSQL when `DATABASE_URL` is set, else the embedded
 * database in the data directory.
 *
 * @since 0.1.0
 */
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import type { Store } from "@postwire/core"
import { layerPostgres, PgliteClient, SqlStore } from "@postwire/store-sql"
import type { ServerSettings } from "./config/ServerConfig.ts"

/** The store for these settings. */
export const storeLayer = (settings: Pick<ServerSettings, "databaseUrl" | "dataDir">): Layer.Layer<Store, unknown> =>
  settings.databaseUrl !== undefined
    ? SqlStore.layer.pipe(Layer.provide(layerPostgres(settings.databaseUrl)))
    : SqlStore.layer.pipe(
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
