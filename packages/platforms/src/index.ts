/**
 * `@postwire/platforms`: the `PlatformClient` adapters for TikTok (shortvideo), Instagram
 * (photo), Facebook Pages (pages) and Threads (textpost), the simulated platform behind sandbox
 * accounts, the router that chooses between them, the comment adapters with their router, and
 * the Meta comment webhooks.
 *
 * @since 0.1.0
 */
export * as Credentials from "./Credentials.ts"
export * as FacebookPages from "./pages/FacebookPages.ts"
export * as GraphError from "./graph/GraphError.ts"
export * as Instagram from "./photo/Instagram.ts"
export * as PlatformRouter from "./PlatformRouter.ts"
export * as PlatformHttp from "./PlatformHttp.ts"
export * as SimulatedPlatform from "./simulated/SimulatedPlatform.ts"
export * as Threads from "./textpost/Threads.ts"
export * as TikTok from "./shortvideo/TikTok.ts"
export * as ConnectRouter from "./connect/ConnectRouter.ts"
export * as FacebookConnect from "./connect/FacebookConnect.ts"
export * as InstagramConnect from "./connect/InstagramConnect.ts"
export * as MetaSignedRequest from "./connect/MetaSignedRequest.ts"
export * as MetaToken from "./connect/MetaToken.ts"
export * as SimulatedConnect from "./connect/SimulatedConnect.ts"
export * as ThreadsConnect from "./connect/ThreadsConnect.ts"
export * as TikTokConnect from "./connect/TikTokConnect.ts"
export * as SimulatedComments from "./simulated/SimulatedComments.ts"
export * as CommentRouter from "./comments/CommentRouter.ts"
export * as CommentAdapter from "./comments/CommentAdapter.ts"
export * as InstagramComments from "./comments/InstagramComments.ts"
export * as FacebookComments from "./comments/FacebookComments.ts"
export * as ThreadsComments from "./comments/ThreadsComments.ts"
export * as TikTokComments from "./comments/TikTokComments.ts"
export * as MetaWebhooks from "./comments/MetaWebhooks.ts"
export { parseMetaCommentHook, verifyMetaSignature } from "./comments/MetaWebhooks.ts"
