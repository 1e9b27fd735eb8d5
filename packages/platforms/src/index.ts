/**
 * `@postwire/platforms`: the platforms as plugins (`PlatformPlugin`) in one registry
 * (`Registry`): TikTok (shortvideo), Instagram (photo), Facebook Pages (pages) and Threads
 * (textpost), each in its folder; the simulated platform behind sandbox accounts; the routers
 * that implement the engine's publishing, connect and comment ports over the registry; and the
 * Meta comment webhooks.
 *
 * @since 0.1.0
 */
export * as Credentials from "./Credentials.ts"
export * as Registry from "./Registry.ts"
export * as Plugin from "./Plugin.ts"
export type { Capabilities, EnvReader, PlatformConnector, PlatformPlugin, PlatformPublisher, PluginServices } from "./Plugin.ts"
export { tiktok } from "./tiktok/plugin.ts"
export { instagram } from "./instagram/plugin.ts"
export { facebook } from "./facebook/plugin.ts"
export { threads } from "./threads/plugin.ts"
export * as FacebookPages from "./facebook/FacebookPages.ts"
export * as GraphError from "./meta/GraphError.ts"
export * as Instagram from "./instagram/Instagram.ts"
export * as PlatformRouter from "./PlatformRouter.ts"
export * as PlatformHttp from "./PlatformHttp.ts"
export * as SimulatedPlatform from "./simulated/SimulatedPlatform.ts"
export * as Threads from "./threads/Threads.ts"
export * as TikTok from "./tiktok/TikTok.ts"
export * as ConnectRouter from "./connect/ConnectRouter.ts"
export * as FacebookConnect from "./facebook/FacebookConnect.ts"
export * as InstagramConnect from "./instagram/InstagramConnect.ts"
export * as MetaSignedRequest from "./meta/MetaSignedRequest.ts"
export * as MetaToken from "./meta/MetaToken.ts"
export * as SimulatedConnect from "./simulated/SimulatedConnect.ts"
export * as ThreadsConnect from "./threads/ThreadsConnect.ts"
export * as TikTokConnect from "./tiktok/TikTokConnect.ts"
export * as SimulatedComments from "./simulated/SimulatedComments.ts"
export * as CommentRouter from "./comments/CommentRouter.ts"
export * as CommentAdapter from "./comments/CommentAdapter.ts"
export * as InstagramComments from "./instagram/InstagramComments.ts"
export * as FacebookComments from "./facebook/FacebookComments.ts"
export * as ThreadsComments from "./threads/ThreadsComments.ts"
export * as TikTokComments from "./tiktok/TikTokComments.ts"
export * as MetaWebhooks from "./meta/MetaWebhooks.ts"
export { parseMetaCommentHook, verifyMetaSignature } from "./meta/MetaWebhooks.ts"
export { youtube } from "./youtube/plugin.ts"
export * as YouTube from "./youtube/YouTube.ts"
export * as YouTubeConnect from "./youtube/YouTubeConnect.ts"
export * as YouTubeComments from "./youtube/YouTubeComments.ts"
export * as YouTubeOptions from "./youtube/Options.ts"
export * as YouTubeQuota from "./youtube/Quota.ts"
export * as YouTubeRules from "./youtube/Rules.ts"
