/**
 * What the API returns, as the contract's schemas in `@postwire/domain` type it.
 *
 * @since 0.1.0
 */
import type {
  Account as AccountSchemas,
  Approval as ApprovalSchemas,
  Comment as CommentSchemas,
  Cursor,
  Media as MediaSchemas,
  Post as PostSchemas,
  Webhook as WebhookSchemas
} from "@postwire/domain"

/**
 * A post with its targets and approval (GET, PATCH and cancel answer with it).
 *
 * @example
 * ```ts
 * import type { Post } from "@postwire/client"
 *
 * const permalinks = (post: Post) => post.targets.flatMap((target) => target.permalink ?? [])
 * ```
 *
 * @since 0.1.0
 */
export type Post = PostSchemas.Post

/**
 * One target of a post: an account, its status, and its permalink or error.
 *
 * @example
 * ```ts
 * import type { Target } from "@postwire/client"
 *
 * const failedForGood = (target: Target) => target.status === "failed" && target.error?.retryable === false
 * ```
 *
 * @since 0.1.0
 */
export type Target = PostSchemas.Target

/**
 * The answer of `posts.create`: the post, its approval link when one exists, and warnings.
 *
 * @example
 * ```ts
 * import type { CreatePostResult } from "@postwire/client"
 *
 * const approvalUrl = (created: CreatePostResult) => created.approval?.url
 * ```
 *
 * @since 0.1.0
 */
export type CreatePostResult = PostSchemas.CreatePostResponse

/**
 * The answer of `posts.createBatch`: one result per item in request order, each with its
 * `index`, the `status` it would have had alone, and the created `post` or the `error`.
 *
 * @example
 * ```ts
 * import type { CreatePostBatchResult } from "@postwire/client"
 *
 * const refusedDays = (result: CreatePostBatchResult) =>
 *   result.data.filter((item) => item.error?.code === "quota_exceeded_for_day").map((item) => item.index)
 * ```
 *
 * @since 0.2.0
 */
export type CreatePostBatchResult = PostSchemas.CreatePostBatchResponse

/**
 * The answer of `posts.validate`: every problem found (empty when none), nothing saved.
 *
 * @example
 * ```ts
 * import type { ValidatePostResult } from "@postwire/client"
 *
 * const isValid = (result: ValidatePostResult) => result.issues.length === 0
 * ```
 *
 * @since 0.1.0
 */
export type ValidatePostResult = PostSchemas.ValidatePostResponse

/**
 * The answer of `posts.retry`: the targets queued again.
 *
 * @example
 * ```ts
 * import type { RetryPostResult } from "@postwire/client"
 *
 * const retriedIds = (result: RetryPostResult) => result.data.map((target) => target.id)
 * ```
 *
 * @since 0.1.0
 */
export type RetryPostResult = PostSchemas.RetryPostResponse

/**
 * An uploaded image or video.
 *
 * @example
 * ```ts
 * import type { Media } from "@postwire/client"
 *
 * const isVideo = (media: Media) => media.kind === "video"
 * ```
 *
 * @since 0.1.0
 */
export type Media = MediaSchemas.Media

/**
 * A page of media items.
 *
 * @since 0.3.0
 */
export type MediaList = MediaSchemas.MediaList

/**
 * The answer to `media.delete`.
 *
 * @since 0.3.0
 */
export type DeletedMedia = MediaSchemas.DeletedMedia

/**
 * A social account that posts can target, with its posting quota.
 *
 * @example
 * ```ts
 * import type { Account } from "@postwire/client"
 *
 * const remaining = (account: Account) => account.quota.limit - account.quota.used
 * ```
 *
 * @since 0.1.0
 */
export type Account = AccountSchemas.Account

/**
 * A profile: the accounts that publish together (a brand, a client).
 *
 * @example
 * ```ts
 * import type { Profile } from "@postwire/client"
 *
 * const label = (profile: Profile) => `${profile.name} (${profile.id})`
 * ```
 *
 * @since 0.1.0
 */
export type Profile = AccountSchemas.Profile

/**
 * A webhook endpoint as `webhooks.list` returns it: never with its secret.
 *
 * @example
 * ```ts
 * import type { WebhookEndpoint } from "@postwire/client"
 *
 * const wasDisabled = (endpoint: WebhookEndpoint) => !endpoint.active && endpoint.disabled_reason !== null
 * ```
 *
 * @since 0.1.0
 */
export type WebhookEndpoint = WebhookSchemas.WebhookEndpoint

/**
 * The answer of `webhooks.create`: the endpoint and its `secret` (`whsec_…`), which is shown
 * this once. Keep it to verify the `SERVICE-Signature` of deliveries.
 *
 * @example
 * ```ts
 * import type { CreateWebhookResult } from "@postwire/client"
 *
 * const signingSecret = (created: CreateWebhookResult) => created.secret
 * ```
 *
 * @since 0.1.0
 */
export type CreateWebhookResult = WebhookSchemas.CreatedWebhookEndpoint

/**
 * The answer of `webhooks.delete`: `{ id, deleted: true }`.
 *
 * @example
 * ```ts
 * import type { DeleteWebhookResult } from "@postwire/client"
 *
 * const removedId = (result: DeleteWebhookResult) => result.id
 * ```
 *
 * @since 0.1.0
 */
export type DeleteWebhookResult = WebhookSchemas.DeletedWebhookEndpoint

/**
 * The answer of `webhooks.test`: the synthetic event sent and what the endpoint answered.
 * `status_code` is `null` when no HTTP answer came back; `error` is present when `delivered` is
 * `false`.
 *
 * @example
 * ```ts
 * import type { TestWebhookResult } from "@postwire/client"
 *
 * const report = (result: TestWebhookResult) =>
 *   result.delivered ? `${result.type} delivered in ${result.duration_ms} ms` : result.error?.message
 * ```
 *
 * @since 0.1.0
 */
export type TestWebhookResult = WebhookSchemas.WebhookTestResult

/**
 * A delivery of one event to one endpoint, as `webhooks.deliveries.list` lists it: its status,
 * how many attempts were made, when the next is due, and the latest attempt.
 *
 * @example
 * ```ts
 * import type { WebhookDelivery } from "@postwire/client"
 *
 * const givenUp = (delivery: WebhookDelivery) => delivery.status === "failed"
 * ```
 *
 * @since 0.2.0
 */
export type WebhookDelivery = WebhookSchemas.WebhookDelivery
/**
 * A delivery with every attempt, newest first (`webhooks.deliveries.get` and `redeliver`).
 *
 * @example
 * ```ts
 * import type { WebhookDeliveryDetail } from "@postwire/client"
 *
 * const lastAnswer = (delivery: WebhookDeliveryDetail) => delivery.attempts[0]?.response_body
 * ```
 *
 * @since 0.2.0
 */
export type WebhookDeliveryDetail = WebhookSchemas.WebhookDeliveryDetail
/**
 * One attempt of a delivery: when, how long, the answer's status and first KB, and the error in
 * the shared shape.
 *
 * @example
 * ```ts
 * import type { DeliveryAttempt } from "@postwire/client"
 *
 * const why = (attempt: DeliveryAttempt) => attempt.error?.message ?? `HTTP ${attempt.status_code}`
 * ```
 *
 * @since 0.2.0
 */
export type DeliveryAttempt = WebhookSchemas.DeliveryAttempt
/**
 * An event, exactly as its deliveries carry it: `{ id, type, created_at, livemode, data }`.
 *
 * @example
 * ```ts
 * import type { Event } from "@postwire/client"
 *
 * const postOf = (event: Event) => event.data.post_id as string | undefined
 * ```
 *
 * @since 0.2.0
 */
export type Event = WebhookSchemas.Event
/**
 * The answer of `approvals.decide`: the decision taken, the post after it (`approval.status`
 * `approved` or `rejected`), and the checked `redirect_url` (`null` when none was sent).
 *
 * @example
 * ```ts
 * import type { DecideApprovalResult } from "@postwire/client"
 *
 * const nextPage = (result: DecideApprovalResult) => result.redirect_url ?? "/thanks"
 * ```
 *
 * @since 0.1.0
 */
export type DecideApprovalResult = ApprovalSchemas.DecisionResponse

/**
 * One page of a list: its items and the cursor to the next page (`next` is `null` when
 * `has_more` is `false`).
 *
 * @example
 * ```ts
 * import type { ListPage, Post } from "@postwire/client"
 *
 * const isLast = (page: ListPage<Post>) => !page.cursor.has_more
 * ```
 *
 * @since 0.1.0
 */
export interface ListPage<T> {
  readonly data: ReadonlyArray<T>
  readonly cursor: typeof Cursor.Type
}

/**
 * A connect link (`accounts.connect`, `accounts.reconnect`): the address a person opens in a
 * browser, single use, until `expires_at`.
 *
 * @example
 * ```ts
 * import type { ConnectLink } from "@postwire/client"
 *
 * const sendToCustomer = (link: ConnectLink) => `Connect your account here: ${link.url}`
 * ```
 *
 * @since 0.2.0
 */
export type ConnectLink = AccountSchemas.ConnectLink

/**
 * The answer of `profiles.delete`.
 *
 * @example
 * ```ts
 * import type { DeleteProfileResult } from "@postwire/client"
 *
 * const removedId = (result: DeleteProfileResult) => result.id
 * ```
 *
 * @since 0.2.0
 */
export type DeleteProfileResult = AccountSchemas.DeletedProfile

/**
 * A comment under a published post, or an answer to one (also the data of `comment.created`).
 *
 * @example
 * ```ts
 * import type { Comment } from "@postwire/client"
 *
 * const isQuestion = (comment: Comment) => !comment.from_owner && comment.text.includes("?")
 * ```
 *
 * @since 0.3.0
 */
export type Comment = CommentSchemas.Comment

/**
 * Answer of `comments.delete`.
 *
 * @since 0.3.0
 */
export type DeleteCommentResult = CommentSchemas.DeletedComment
