/**
 * `@postwire/store-sql`: the engine's `Store` on SQL. One implementation, two databases:
 * PostgreSQL for production and PGlite, PostgreSQL compiled to WebAssembly, embedded in the
 * process as the zero-install default.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { PgliteClient, SqlStore, layerPostgres } from "@postwire/store-sql"
 *
 * const Embedded = SqlStore.layer.pipe(Layer.provide(PgliteClient.layer({ dataDir: ".postwire/db" })))
 * const Production = SqlStore.layer.pipe(Layer.provide(layerPostgres(process.env.DATABASE_URL!)))
 * ```
 *
 * @since 0.1.0
 */
export * as DatabaseStatus from "./DatabaseStatus.ts"
export * as TableStatistics from "./TableStatistics.ts"
export * as Migrations from "./migrations/Migrations.ts"
export * as PgliteClient from "./PgliteClient.ts"
export * as PgliteTemplate from "./PgliteTemplate.ts"
export * as PrivateFiles from "./PrivateFiles.ts"
export * from "./Postgres.ts"
export * as SqlStore from "./SqlStore.ts"
export * as SqlWebhookStore from "./SqlWebhookStore.ts"
export * as SqlPublishingStore from "./SqlPublishingStore.ts"
export * as SqlConnectStore from "./SqlConnectStore.ts"
export * as SqlCommentStore from "./SqlCommentStore.ts"
export * as SqlAnalyticsStore from "./SqlAnalyticsStore.ts"
export * as SqlCredentials from "./SqlCredentials.ts"
export * as SqlWebhookSecrets from "./SqlWebhookSecrets.ts"
export * as SqlEventLinks from "./SqlEventLinks.ts"
export * as SqlMediaStore from "./SqlMediaStore.ts"
export * as SqlPlatformCounters from "./SqlPlatformCounters.ts"
export * as SqlRateLimitStore from "./SqlRateLimitStore.ts"
export * as SqlIdempotencyStore from "./SqlIdempotencyStore.ts"
