/**
 * `@postwire/server`: the HTTP server, admin API and command line of Postwire.
 *
 * @since 0.1.0
 */
export * from "./admin/AdminApi.ts"
export * from "./admin/Bootstrap.ts"
export * from "./config/ServerConfig.ts"
export { serveLayer } from "./cli/Serve.ts"
export * from "./Server.ts"
export * from "./Storage.ts"
export * as PostwireEngine from "./embedding/PostwireEngine.ts"
export { EventFeed, type EngineEvent, type EventHandler } from "./embedding/EventFeed.ts"
export { PostwireEngineError, PostwireStartError } from "./embedding/EngineError.ts"
export type { EmbedOptions } from "./embedding/EmbedOptions.ts"
export * from "./embedding/Plugins.ts"
export * from "./embedding/PostwireHandler.ts"
export * as MasterSecrets from "./config/MasterSecrets.ts"
export * as ServerSecrets from "./secrets/ServerSecrets.ts"
export * as Reseal from "./secrets/Reseal.ts"
export * as S3BlobStore from "./media/S3BlobStore.ts"
export * as SharpImageConverter from "./media/SharpImageConverter.ts"
export * as FileMailer from "./node/FileMailer.ts"
export * as FileBlobStore from "./node/FileBlobStore.ts"
export * as NodeWebhookTransport from "./node/NodeWebhookTransport.ts"
export * as NodePlatformHttp from "./node/NodePlatformHttp.ts"
export * as NodeResolver from "./node/NodeResolver.ts"
export * as RateLimiter from "./limits/RateLimiter.ts"
