/**
 * `@postwire/domain`: ids, wire schemas, the error catalog and the HTTP contract.
 *
 * @since 0.1.0
 */
export * as Account from "./Account.ts"
export * as Analytics from "./Analytics.ts"
export * from "./AnalyticsGroup.ts"
export * from "./Api.ts"
export * from "./ApiError.ts"
export * as Approval from "./Approval.ts"
export * from "./ApprovalLinks.ts"
export * from "./Auth.ts"
export * as Comment from "./Comment.ts"
export * from "./CommentsGroup.ts"
export * from "./ErrorCatalog.ts"
export * as ErrorDetail from "./ErrorDetail.ts"
export * as Ids from "./Ids.ts"
export * from "./List.ts"
export * from "./LocalizedText.ts"
export * as Media from "./Media.ts"
export * from "./Platform.ts"
export * as Post from "./Post.ts"
export * as RequestIssues from "./RequestIssues.ts"
export * as TargetRules from "./TargetRules.ts"
export * from "./Timestamp.ts"
export * as Webhook from "./Webhook.ts"
