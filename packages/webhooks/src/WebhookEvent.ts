/**
 * Platforms a target publishes to: `shortvideo`, `photo`, `pages`, `textpost`. Typed open-ended
 * so that a platform added to the service later does not break your build.
 *
 * @example
 * ```ts
 * const label = (platform: Platform) => (platform === "shortvideo" ? "Short video" : platform)
 * ```
 */
export type Platform = "shortvideo" | "photo" | "pages" | "textpost" | (string & {})

/**
 * The service's shared error object, as carried by `post.failed`.
 *
 * @example
 * ```ts
 * if (event.type === "post.failed" && event.data.error.retryable) {
 *   await scheduleRetry(event.data.post_id)
 * }
 * ```
 */
export interface ErrorObject {
  /** Normalized error code, e.g. `media_too_large`. */
  readonly code: string
  /** English text. */
  readonly message: string
  /** Indonesian text. */
  readonly message_id: string
  /** The `tgt_` id concerned, when one applies. */
  readonly target_id?: string
  /** The request field concerned, e.g. `media[0]`, when one applies. */
  readonly field?: string
  /** Whether retrying can succeed without changes (`POST /v1/posts/{id}/retry`). */
  readonly retryable: boolean
  /** Address of the documentation entry for `code`. */
  readonly docs: string
}

/**
 * `data` of `post.published`: one target of a post is live on its platform.
 *
 * @example
 * ```ts
 * const markLive = (data: PostPublishedData) => db.targets.update(data.target_id, { url: data.permalink })
 * ```
 */
export interface PostPublishedData {
  readonly post_id: string
  readonly target_id: string
  readonly platform: Platform
  /** Public address of the published item. */
  readonly permalink: string
  /** ISO 8601 UTC with milliseconds, e.g. `2026-11-22T01:02:03.456Z`. */
  readonly published_at: string
}

/**
 * `data` of `post.failed`: one target of a post could not be published.
 *
 * @example
 * ```ts
 * const notify = (data: PostFailedData) => alert(`${data.platform}: ${data.error.message}`)
 * ```
 */
export interface PostFailedData {
  readonly post_id: string
  readonly target_id: string
  readonly platform: Platform
  readonly error: ErrorObject
}

/**
 * `data` of an event whose payload this package does not type field by field.
 *
 * @example
 * ```ts
 * if (event.type === "account.needs_reconnect") console.log(event.data["account_id"])
 * ```
 */
export type UntypedEventData = Readonly<Record<string, unknown>>

/**
 * Fields every event body has, whatever its type; `Type` and `Data` make one event type.
 *
 * @example
 * ```ts
 * type MyEvent = WebhookEventOf<"post.published", PostPublishedData> // same as PostPublishedEvent
 * ```
 */
export interface WebhookEventOf<Type extends string, Data> {
  /** The `evt_` id; the same value as the `SERVICE-Event-Id` header. Deduplicate on it. */
  readonly id: string
  readonly type: Type
  /** When the event happened: ISO 8601 UTC with milliseconds. */
  readonly created_at: string
  /** `true` for live activity, `false` for sandbox activity. */
  readonly livemode: boolean
  readonly data: Data
  /** `true` on the synthetic event sent by `POST /v1/webhooks/{id}/test`. */
  readonly test?: boolean
}

/**
 * A target went live.
 *
 * @example
 * ```ts
 * if (event.type === "post.published") handlePostPublished(event) // event: PostPublishedEvent
 * ```
 */
export type PostPublishedEvent = WebhookEventOf<"post.published", PostPublishedData>

/**
 * A target failed; `data.error` says why and whether a retry can help.
 *
 * @example
 * ```ts
 * if (event.type === "post.failed") handlePostFailed(event) // event: PostFailedEvent
 * ```
 */
export type PostFailedEvent = WebhookEventOf<"post.failed", PostFailedData>

/**
 * A post entered `scheduled`.
 *
 * @example
 * ```ts
 * if (event.type === "post.scheduled") handlePostScheduled(event) // event: PostScheduledEvent
 * ```
 */
export type PostScheduledEvent = WebhookEventOf<"post.scheduled", UntypedEventData>

/**
 * A post was created waiting for approval through a link.
 *
 * @example
 * ```ts
 * if (event.type === "post.awaiting_approval") handlePostAwaitingApproval(event) // event: PostAwaitingApprovalEvent
 * ```
 */
export type PostAwaitingApprovalEvent = WebhookEventOf<"post.awaiting_approval", UntypedEventData>

/**
 * A post was approved.
 *
 * @example
 * ```ts
 * if (event.type === "post.approved") handlePostApproved(event) // event: PostApprovedEvent
 * ```
 */
export type PostApprovedEvent = WebhookEventOf<"post.approved", UntypedEventData>

/**
 * A post was rejected.
 *
 * @example
 * ```ts
 * if (event.type === "post.rejected") handlePostRejected(event) // event: PostRejectedEvent
 * ```
 */
export type PostRejectedEvent = WebhookEventOf<"post.rejected", UntypedEventData>

/**
 * The first target of a post started publishing.
 *
 * @example
 * ```ts
 * if (event.type === "post.publishing") handlePostPublishing(event) // event: PostPublishingEvent
 * ```
 */
export type PostPublishingEvent = WebhookEventOf<"post.publishing", UntypedEventData>

/**
 * A social account was connected.
 *
 * @example
 * ```ts
 * if (event.type === "account.connected") handleAccountConnected(event) // event: AccountConnectedEvent
 * ```
 */
export type AccountConnectedEvent = WebhookEventOf<"account.connected", UntypedEventData>

/**
 * A social account was disconnected.
 *
 * @example
 * ```ts
 * if (event.type === "account.disconnected") handleAccountDisconnected(event) // event: AccountDisconnectedEvent
 * ```
 */
export type AccountDisconnectedEvent = WebhookEventOf<"account.disconnected", UntypedEventData>

/**
 * A social account's authorization expired or was revoked; it must be reconnected.
 *
 * @example
 * ```ts
 * if (event.type === "account.needs_reconnect") handleAccountNeedsReconnect(event) // event: AccountNeedsReconnectEvent
 * ```
 */
export type AccountNeedsReconnectEvent = WebhookEventOf<"account.needs_reconnect", UntypedEventData>

/**
 * A comment arrived on a published item.
 *
 * @example
 * ```ts
 * if (event.type === "comment.created") handleCommentCreated(event) // event: CommentCreatedEvent
 * ```
 */
export type CommentCreatedEvent = WebhookEventOf<"comment.created", UntypedEventData>

/**
 * A verified event, as returned by {@link verify}. Narrow it on `type`:
 *
 * @example
 * ```ts
 * const event = await verify(rawBody, signature, secret)
 * switch (event.type) {
 *   case "post.published":
 *     console.log(`live at ${event.data.permalink}`)
 *     break
 *   case "post.failed":
 *     console.log(`${event.data.error.code}: ${event.data.error.message}`)
 *     break
 *   default:
 *     // Newer servers may send types this version does not list; acknowledge them.
 *     break
 * }
 * ```
 */
export type WebhookEvent =
  | PostScheduledEvent
  | PostAwaitingApprovalEvent
  | PostApprovedEvent
  | PostRejectedEvent
  | PostPublishingEvent
  | PostPublishedEvent
  | PostFailedEvent
  | AccountConnectedEvent
  | AccountDisconnectedEvent
  | AccountNeedsReconnectEvent
  | CommentCreatedEvent

/**
 * Every event type this version of the package knows, e.g. to subscribe an endpoint.
 *
 * @example
 * ```ts
 * const events: ReadonlyArray<WebhookEventType> = ["post.published", "post.failed"]
 * await fetch(`${baseUrl}/webhooks`, {
 *   method: "POST",
 *   headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
 *   body: JSON.stringify({ url: "https://example.com/webhooks/postwire", events })
 * })
 * ```
 */
export type WebhookEventType = WebhookEvent["type"]
