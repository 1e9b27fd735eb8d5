/**
 * `@postwire/core`: the engine. Services, use-cases and the rules they follow; no HTTP, no SQL.
 *
 * @since 0.1.0
 */
export * as Accounts from "./accounts/Accounts.ts"
export * as ApprovalToken from "./approvals/ApprovalToken.ts"
export type { Caller } from "./Caller.ts"
export * from "./EngineConfig.ts"
export * from "./ids/Ids.ts"
export * from "./media/BlobStore.ts"
export * as Media from "./media/Media.ts"
export * as MediaSniffer from "./media/MediaSniffer.ts"
export * from "./publishing/PlatformClient.ts"
export * as Cursor from "./posts/Cursor.ts"
export * as PostEvents from "./posts/PostEvents.ts"
export * as PostPlan from "./posts/PostPlan.ts"
export * as Posts from "./posts/Posts.ts"
export * as PostView from "./posts/PostView.ts"
export * as Quota from "./posts/Quota.ts"
export * as TargetStatus from "./posts/TargetStatus.ts"
export type * from "./store/Records.ts"
export * from "./store/Store.ts"
export * as UrlSafety from "./webhooks/UrlSafety.ts"
export * as Workspaces from "./workspaces/Workspaces.ts"
export * as MemoryStore from "./store/MemoryStore.ts"
