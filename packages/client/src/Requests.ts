/**
 * What each call takes, derived from the contract's schemas in `@postwire/domain`.
 *
 * Bodies are the wire form of the schema (plain strings for ids and timestamps). Queries are
 * the schema's decoded form without brands, so `limit` is a number.
 *
 * @since 0.1.0
 */
import type { Account, Approval, Comment, Media, Post, Webhook } from "@postwire/domain"
import type { Brand } from "effect"

/**
 * `T` with every brand removed, so ids are plain strings.
 *
 * @example
 * ```ts
 * import type { Unbranded } from "@postwire/client"
 * import type { Ids } from "@postwire/domain"
 *
 * const id: Unbranded<Ids.ProfileId> = "prof_01JD0000000000000000000000"
 * ```
 *
 * @since 0.1.0
 */
export type Unbranded<T> = T extends Brand.Brand<infer _Key>
  ? Brand.Brand.Unbranded<T>
  : T extends object
    ? { readonly [K in keyof T]: Unbranded<T[K]> }
    : T

/**
 * Body of `posts.create` and `posts.validate`.
 *
 * @example
 * ```ts
 * import type { CreatePostInput } from "@postwire/client"
 *
 * const body: CreatePostInput = {
 *   profile_id: "prof_01JD0000000000000000000000",
 *   caption: "Launching today",
 *   media: ["med_01JD0000000000000000000000"],
 *   targets: [{ account_id: "acc_01JD0000000000000000000000", shortvideo: { mode: "inbox" } }],
 *   scheduled_at: "2026-11-22T09:00:00+07:00"
 * }
 * ```
 *
 * @since 0.1.0
 */
export type CreatePostInput = typeof Post.CreatePostRequest.Encoded

/**
 * Body of `posts.createBatch`: 1 to 31 create requests, each created or refused on its own.
 *
 * @example
 * ```ts
 * import type { CreatePostBatchInput, CreatePostInput } from "@postwire/client"
 *
 * const day = (date: string, post: CreatePostInput): CreatePostInput => ({ ...post, scheduled_at: `${date}T09:00:00+07:00` })
 * const month = (post: CreatePostInput): CreatePostBatchInput => ({
 *   items: ["2026-12-01", "2026-12-02", "2026-12-03"].map((date) => day(date, post))
 * })
 * ```
 *
 * @since 0.2.0
 */
export type CreatePostBatchInput = typeof Post.CreatePostBatchRequest.Encoded

/**
 * Body of `posts.update`: a new caption and/or schedule (`scheduled_at: null` publishes as
 * soon as approved).
 *
 * @example
 * ```ts
 * import type { UpdatePostInput } from "@postwire/client"
 *
 * const change: UpdatePostInput = { caption: "Launching tomorrow", scheduled_at: "2026-11-23T09:00:00Z" }
 * ```
 *
 * @since 0.1.0
 */
export type UpdatePostInput = typeof Post.UpdatePostRequest.Encoded

/**
 * Filters of `posts.list`: `status`, `profile_id`, `platform`, `from` (inclusive) and `to`
 * (exclusive) on the publish time, `limit` (1 to 100) and `cursor`.
 *
 * @example
 * ```ts
 * import type { ListPostsInput } from "@postwire/client"
 *
 * const query: ListPostsInput = { status: "queued", platform: "shortvideo", limit: 50 }
 * ```
 *
 * @since 0.1.0
 */
export type ListPostsInput = Unbranded<typeof Post.ListPostsQuery.Type>

/**
 * Filters of `accounts.list`: `profile_id`, `platform`, `limit` and `cursor`.
 *
 * @example
 * ```ts
 * import type { ListAccountsInput } from "@postwire/client"
 *
 * const query: ListAccountsInput = { platform: "photo" }
 * ```
 *
 * @since 0.1.0
 */
export type ListAccountsInput = Unbranded<typeof Account.ListAccountsQuery.Type>

/**
 * Paging of `profiles.list`: `limit` and `cursor`.
 *
 * @example
 * ```ts
 * import type { ListProfilesInput } from "@postwire/client"
 *
 * const query: ListProfilesInput = { limit: 100 }
 * ```
 *
 * @since 0.1.0
 */
export type ListProfilesInput = Unbranded<typeof Account.ListProfilesQuery.Type>

/**
 * Body of `media.upload`: the bytes, as a `Uint8Array` (a Node `Buffer` is one) or already
 * base64-encoded, and an optional file name. The media type is read from the bytes.
 *
 * @example
 * ```ts
 * import { readFile } from "node:fs/promises"
 * import type { UploadMediaInput } from "@postwire/client"
 *
 * const upload: UploadMediaInput = { data: await readFile("clip.mp4"), filename: "clip.mp4" }
 * ```
 *
 * @since 0.1.0
 */
export type UploadMediaInput = Omit<typeof Media.UploadMediaRequest.Encoded, "data"> & {
  readonly data: Uint8Array | string
}

/**
 * A file for `media.upload`: bytes in memory (`data`), a file on disk (`path`, Node only), a
 * `Blob` or `File` (browsers, Node 20+), or a stream of known `size`. Up to 10 MiB it goes up
 * inline; larger, in parts of a resumable upload (up to 4 GiB).
 *
 * @example
 * ```ts
 * import type { MediaSource } from "@postwire/client"
 *
 * const onDisk: MediaSource = { path: "./launch.mp4" }
 * const inMemory: MediaSource = { data: new Uint8Array([0xff, 0xd8, 0xff]), filename: "cover.jpg" }
 * ```
 *
 * @since 0.3.0
 */
export type MediaSource =
  | UploadMediaInput
  | { readonly path: string; readonly filename?: string | undefined }
  | { readonly blob: Blob; readonly filename?: string | undefined }
  | {
      readonly stream: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>
      readonly size: number
      readonly filename: string
    }

/**
 * How far an upload is, for `onProgress`.
 *
 * @since 0.3.0
 */
export interface UploadProgress {
  /** Bytes the server has stored. */
  readonly sentBytes: number
  /** The file's size. */
  readonly totalBytes: number
}

/**
 * Options of `media.upload`.
 *
 * @example
 * ```ts
 * import type { MediaUploadOptions } from "@postwire/client"
 *
 * const options: MediaUploadOptions = {
 *   onProgress: ({ sentBytes, totalBytes }) => console.log(`${Math.round((100 * sentBytes) / totalBytes)}%`)
 * }
 * ```
 *
 * @since 0.3.0
 */
export interface MediaUploadOptions extends CreateOptions {
  /** Called after each stored part (once for an inline upload). */
  readonly onProgress?: ((progress: UploadProgress) => void) | undefined
  /** How many times one part is sent before the upload gives up (default 5); the parts already stored stay. */
  readonly partAttempts?: number | undefined
}

/**
 * Query of `media.list`: page size and cursor.
 *
 * @since 0.3.0
 */
export type ListMediaInput = Unbranded<typeof Media.ListMediaQuery.Type>

/**
 * Body of `media.import`: a public https address to fetch the file from, and an optional name.
 *
 * @since 0.3.0
 */
export type ImportMediaInput = typeof Media.ImportMediaRequest.Encoded

/**
 * Body of `webhooks.create`: where to deliver (a public https address) and which event types
 * (at least one).
 *
 * @example
 * ```ts
 * import type { CreateWebhookInput } from "@postwire/client"
 *
 * const endpoint: CreateWebhookInput = {
 *   url: "https://hooks.example.com/postwire",
 *   events: ["post.published", "post.failed"]
 * }
 * ```
 *
 * @since 0.1.0
 */
export type CreateWebhookInput = typeof Webhook.CreateWebhookRequest.Encoded

/**
 * Paging of `webhooks.list`: `limit` (1 to 100) and `cursor`.
 *
 * @example
 * ```ts
 * import type { ListWebhooksInput } from "@postwire/client"
 *
 * const query: ListWebhooksInput = { limit: 100 }
 * ```
 *
 * @since 0.1.0
 */
export type ListWebhooksInput = Unbranded<typeof Webhook.ListWebhooksQuery.Type>

/**
 * Body of `webhooks.update`: a new `url`, new `events`, and/or `active` (`true` re-enables a
 * disabled endpoint for events from then on; `false` disables it).
 *
 * @example
 * ```ts
 * import type { UpdateWebhookInput } from "@postwire/client"
 *
 * const reenable: UpdateWebhookInput = { active: true }
 * ```
 *
 * @since 0.2.0
 */
export type UpdateWebhookInput = typeof Webhook.UpdateWebhookRequest.Encoded
/**
 * Body of `webhooks.rotateSecret`: how many seconds the current secret keeps signing beside the
 * new one (default 86,400; `0` retires it at once; at most 604,800).
 *
 * @example
 * ```ts
 * import type { RotateSecretInput } from "@postwire/client"
 *
 * const leaked: RotateSecretInput = { expires_in_seconds: 0 }
 * ```
 *
 * @since 0.2.0
 */
export type RotateSecretInput = typeof Webhook.RotateSecretRequest.Encoded
/**
 * Filters of `webhooks.deliveries.list`: `status` (`pending`, `delivered`, `failed`),
 * `event_type`, `from` (inclusive) and `to` (exclusive) on when the delivery was created,
 * `limit` and `cursor`.
 *
 * @example
 * ```ts
 * import type { ListDeliveriesInput } from "@postwire/client"
 *
 * const givenUp: ListDeliveriesInput = { status: "failed", from: "2026-11-22T00:00:00Z" }
 * ```
 *
 * @since 0.2.0
 */
export type ListDeliveriesInput = Unbranded<typeof Webhook.ListDeliveriesQuery.Type>
/**
 * Filters of `events.list`: `type` (one or several), `from` (inclusive) and `to` (exclusive) on
 * `created_at`, `post_id`, `account_id`, `limit` and `cursor`.
 *
 * @example
 * ```ts
 * import type { ListEventsInput } from "@postwire/client"
 *
 * const missed: ListEventsInput = { type: ["post.published", "post.failed"], from: "2026-11-22T00:00:00Z" }
 * ```
 *
 * @since 0.2.0
 */
export type ListEventsInput = Unbranded<typeof Webhook.ListEventsQuery.Type>
/**
 * Body of `approvals.decide`: `approve` or `reject`, an optional `reason`, the `consent` of each
 * shortvideo `direct` target that has none yet (keyed by target id; needed to approve), and an
 * optional `redirect_url` on one of the workspace's allowed domains.
 *
 * @example
 * ```ts
 * import type { DecideApprovalInput } from "@postwire/client"
 *
 * const approve: DecideApprovalInput = {
 *   decision: "approve",
 *   consent: { tgt_01JD0000000000000000000000: { privacy_level: "PUBLIC_TO_EVERYONE", music_usage_confirmed: true } }
 * }
 * const reject: DecideApprovalInput = { decision: "reject", reason: "Wrong product photo" }
 * ```
 *
 * @since 0.1.0
 */
export type DecideApprovalInput = typeof Approval.DecisionRequest.Encoded

/**
 * Options of a call that creates something (`posts.create`, `media.upload`).
 *
 * @example
 * ```ts
 * import type { CreateOptions } from "@postwire/client"
 *
 * // Reuse the key of your own order or job, so a re-run never posts twice.
 * const options: CreateOptions = { idempotencyKey: "campaign-42-post-1" }
 * ```
 *
 * @since 0.1.0
 */
export interface CreateOptions {
  /**
   * The `Idempotency-Key` header (1 to 255 characters). The same key with the same body within
   * 24 hours returns the first answer instead of creating again. When omitted the client
   * generates one per call, reused by that call's retries.
   */
  readonly idempotencyKey?: string | undefined
}

/**
 * Body of `profiles.create`: the profile's name (1 to 200 characters).
 *
 * @example
 * ```ts
 * import type { CreateProfileInput } from "@postwire/client"
 *
 * const profile: CreateProfileInput = { name: "Kopi Kenangan" }
 * ```
 *
 * @since 0.2.0
 */
export type CreateProfileInput = typeof Account.CreateProfileRequest.Encoded

/**
 * Body of `profiles.update`: the fields to change.
 *
 * @example
 * ```ts
 * import type { UpdateProfileInput } from "@postwire/client"
 *
 * const rename: UpdateProfileInput = { name: "Kopi Kenangan Jakarta" }
 * ```
 *
 * @since 0.2.0
 */
export type UpdateProfileInput = typeof Account.UpdateProfileRequest.Encoded

/**
 * Body of `accounts.connect`: the profile the account joins, its platform, where the person
 * returns (https on one of the workspace's allowed domains) and whether it is a sandbox account.
 *
 * @example
 * ```ts
 * import type { ConnectAccountInput } from "@postwire/client"
 *
 * const connect: ConnectAccountInput = {
 *   profile_id: "prof_01JD0000000000000000000000",
 *   platform: "shortvideo",
 *   redirect_url: "https://app.example.com/accounts/connected"
 * }
 * ```
 *
 * @since 0.2.0
 */
export type ConnectAccountInput = Unbranded<typeof Account.ConnectAccountRequest.Type>

/**
 * Body of `accounts.reconnect`: where the person returns.
 *
 * @example
 * ```ts
 * import type { ReconnectAccountInput } from "@postwire/client"
 *
 * const reconnect: ReconnectAccountInput = { redirect_url: "https://app.example.com/accounts/reconnected" }
 * ```
 *
 * @since 0.2.0
 */
export type ReconnectAccountInput = typeof Account.ReconnectAccountRequest.Encoded

/**
 * Query of `comments.list`: filters by post, target, account, platform, `hidden` and a range of
 * the times comments were written.
 *
 * @example
 * ```ts
 * import type { ListCommentsInput } from "@postwire/client"
 *
 * const query: ListCommentsInput = { post_id: "post_01JD0000000000000000000000", hidden: "false", limit: 50 }
 * ```
 *
 * @since 0.3.0
 */
export type ListCommentsInput = Unbranded<typeof Comment.ListCommentsQuery.Type>

/**
 * Body of `comments.reply`: the answer's text, published as the account.
 *
 * @since 0.3.0
 */
export type ReplyToCommentInput = typeof Comment.ReplyToCommentRequest.Encoded
