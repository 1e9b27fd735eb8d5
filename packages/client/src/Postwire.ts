/**
 * The Promise client of the Postwire API, for code that does not use Effect.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import { checkOptions } from "./internal/options.ts"
import { type Promised, promised } from "./internal/promised.ts"
import type { PagePromise } from "./Page.ts"
import {
  make,
  type PostwireClientAccounts,
  type PostwireClientApprovals,
  type PostwireClientComments,
  type PostwireClientDeliveries,
  type PostwireClientEvents,
  type PostwireClientMedia,
  type PostwireClientOptions,
  type PostwireClientPosts,
  type PostwireClientProfiles,
  type PostwireClientService,
  type PostwireClientWebhooks
} from "./PostwireClient.ts"
import type {
  ConnectAccountInput,
  CreateOptions,
  CreatePostBatchInput,
  CreatePostInput,
  CreateProfileInput,
  CreateWebhookInput,
  DecideApprovalInput,
  ImportMediaInput,
  ListAccountsInput,
  ListCommentsInput,
  ListDeliveriesInput,
  ListEventsInput,
  ListMediaInput,
  ListPostsInput,
  ListProfilesInput,
  ListWebhooksInput,
  MediaSource,
  MediaUploadOptions,
  ReconnectAccountInput,
  ReplyToCommentInput,
  RotateSecretInput,
  UpdatePostInput,
  UpdateProfileInput,
  UpdateWebhookInput
} from "./Requests.ts"
import type {
  Account,
  Comment,
  ConnectLink,
  CreatePostBatchResult,
  CreatePostResult,
  CreateWebhookResult,
  DecideApprovalResult,
  DeleteCommentResult,
  DeletedMedia,
  DeleteProfileResult,
  DeleteWebhookResult,
  Event,
  Media,
  Post,
  Profile,
  RetryPostResult,
  TestWebhookResult,
  ValidatePostResult,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookEndpoint
} from "./Resources.ts"

/**
 * Settings of a {@link Postwire} client.
 *
 * @example
 * ```ts
 * import { Postwire, type PostwireOptions } from "@postwire/client"
 *
 * const options: PostwireOptions = {
 *   apiKey: process.env.POSTWIRE_API_KEY!,
 *   baseUrl: "https://postwire.example.com",
 *   maxRetries: 4
 * }
 * const postwire = new Postwire(options)
 * ```
 *
 * @since 0.1.0
 */
export interface PostwireOptions extends PostwireClientOptions {
  /** The `fetch` to send requests with. Default `globalThis.fetch`. */
  readonly fetch?: typeof globalThis.fetch | undefined
}

// The Promise shape of each group, mapped from the Effect client's: a new endpoint appears in both.
type PromisedPosts = Promised<PostwireClientPosts>
type PromisedMedia = Promised<PostwireClientMedia>
type PromisedAccounts = Promised<PostwireClientAccounts>
type PromisedProfiles = Promised<PostwireClientProfiles>
type PromisedDeliveries = Promised<PostwireClientDeliveries>
type PromisedEvents = Promised<PostwireClientEvents>
type PromisedComments = Promised<PostwireClientComments>
type PromisedWebhooks = Promised<PostwireClientWebhooks>
type PromisedApprovals = Promised<PostwireClientApprovals>
type PromisedService = Promised<PostwireClientService>

/**
 * Posts, with Promises. Every method rejects with a `PostwireApiError` or a `PostwireConnectionError`.
 *
 * @example
 * ```ts
 * import { Postwire } from "@postwire/client"
 *
 * const postwire = new Postwire({ apiKey: process.env.POSTWIRE_API_KEY!, baseUrl: "http://localhost:8080" })
 * const post = await postwire.posts.get("post_01JD0000000000000000000000")
 * if (post.status === "failed") await postwire.posts.retry(post.id)
 * ```
 *
 * @since 0.1.0
 */
export interface PostwirePosts extends PromisedPosts {
  /**
   * Creates a post (POST /v1/posts). Every target waits for approval through a link unless
   * `approval.mode` is `none`. Pass `idempotencyKey` to make a re-run of your own job safe.
   */
  readonly create: (body: CreatePostInput, options?: CreateOptions) => Promise<CreatePostResult>
  /**
   * Creates 1 to 31 posts in one call (POST /v1/posts/batch). Resolves once the batch is
   * understood: each item of `data` holds the created `post` or its `error` (a full day of
   * `scheduled_at` is 429 `quota_exceeded_for_day` there). One idempotency key covers the batch.
   */
  readonly createBatch: (body: CreatePostBatchInput, options?: CreateOptions) => Promise<CreatePostBatchResult>
  /** Checks a post without saving it (POST /v1/posts/validate); `issues` is empty when it would be accepted. */
  readonly validate: (body: CreatePostInput) => Promise<ValidatePostResult>
  /**
   * The first page of posts, newest publish time first (GET /v1/posts). Await it for one page,
   * or `for await` over it for every post of every page.
   */
  readonly list: (query?: ListPostsInput) => PagePromise<Post>
  /** A post with each target's status and permalink or error (GET /v1/posts/{id}). */
  readonly get: (id: string) => Promise<Post>
  /** Changes the caption and/or schedule while no target is publishing (PATCH /v1/posts/{id}). */
  readonly update: (id: string, body: UpdatePostInput) => Promise<Post>
  /** Cancels the targets that have not published (POST /v1/posts/{id}/cancel). */
  readonly cancel: (id: string) => Promise<Post>
  /** Queues again the targets that failed with `retryable: true` (POST /v1/posts/{id}/retry). */
  readonly retry: (id: string) => Promise<RetryPostResult>
}

/**
 * Media, with Promises.
 *
 * @example
 * ```ts
 * import { readFile } from "node:fs/promises"
 * import { Postwire } from "@postwire/client"
 *
 * const postwire = new Postwire({ apiKey: process.env.POSTWIRE_API_KEY!, baseUrl: "http://localhost:8080" })
 * const media = await postwire.media.upload({ data: await readFile("clip.mp4"), filename: "clip.mp4" })
 * console.log(media.id, media.kind, media.duration_seconds)
 * ```
 *
 * @since 0.1.0
 */
export interface PostwireMedia extends PromisedMedia {
  /**
   * Uploads a file (`{ path }`, `{ data }`, `{ blob }` or `{ stream, size, filename }`): up to
   * 10 MiB inline, larger in resumable parts, each sent again alone when it fails; `onProgress`
   * reports the bytes stored. Answers the media item, `ready`.
   */
  readonly upload: (source: MediaSource, options?: MediaUploadOptions) => Promise<Media>
  /** Imports a file from a public https address in the background; answers the item `processing`. */
  readonly import: (input: ImportMediaInput, options?: CreateOptions) => Promise<Media>
  /** The media, newest first (GET /v1/media): await one page, or `for await` over every item. */
  readonly list: (query?: ListMediaInput) => PagePromise<Media>
  /** A media item (GET /v1/media/{id}). */
  readonly get: (id: string) => Promise<Media>
  /** Deletes a media item no unfinished post uses. */
  readonly delete: (id: string) => Promise<DeletedMedia>
}

/**
 * Accounts, with Promises.
 *
 * @example
 * ```ts
 * import { Postwire } from "@postwire/client"
 *
 * const postwire = new Postwire({ apiKey: process.env.POSTWIRE_API_KEY!, baseUrl: "http://localhost:8080" })
 * for await (const account of postwire.accounts.list({ platform: "shortvideo" })) {
 *   console.log(account.handle, `${account.quota.used}/${account.quota.limit}`)
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface PostwireAccounts extends PromisedAccounts {
  /** The first page of accounts (GET /v1/accounts); `for await` over it for every account. */
  readonly list: (query?: ListAccountsInput) => PagePromise<Account>
  /** An account and its posting quota (GET /v1/accounts/{id}). */
  readonly get: (id: string) => Promise<Account>
  /**
   * A single-use link (30 minutes) a person opens to connect an account into a profile
   * (POST /v1/accounts/connect). Needs the `accounts:write` scope.
   */
  readonly connect: (body: ConnectAccountInput) => Promise<ConnectLink>
  /** A link that connects this account again, keeping its id (POST /v1/accounts/{id}/reconnect). */
  readonly reconnect: (id: string, body?: ReconnectAccountInput) => Promise<ConnectLink>
  /**
   * Revokes the token at the platform where it can, erases it, and marks the account
   * `disconnected`; its queued and scheduled targets fail (DELETE /v1/accounts/{id}).
   */
  readonly disconnect: (id: string) => Promise<Account>
}

/**
 * Profiles, with Promises.
 *
 * @example
 * ```ts
 * import { Postwire } from "@postwire/client"
 *
 * const postwire = new Postwire({ apiKey: process.env.POSTWIRE_API_KEY!, baseUrl: "http://localhost:8080" })
 * const { data: profiles } = await postwire.profiles.list()
 * ```
 *
 * @since 0.1.0
 */
export interface PostwireProfiles extends PromisedProfiles {
  /** The first page of profiles (GET /v1/profiles); `for await` over it for every profile. */
  readonly list: (query?: ListProfilesInput) => PagePromise<Profile>
  /** Creates a profile (POST /v1/profiles); needs `accounts:write`. */
  readonly create: (body: CreateProfileInput) => Promise<Profile>
  /** A profile (GET /v1/profiles/{id}). */
  readonly get: (id: string) => Promise<Profile>
  /** Renames a profile (PATCH /v1/profiles/{id}); needs `accounts:write`. */
  readonly update: (id: string, body: UpdateProfileInput) => Promise<Profile>
  /**
   * Deletes a profile (DELETE /v1/profiles/{id}); 409 `invalid_state` while it has accounts that
   * are not disconnected or unfinished posts.
   */
  readonly delete: (id: string) => Promise<DeleteProfileResult>
}

/**
 * The delivery log of one endpoint, with Promises: every delivery with every attempt, and
 * redelivery.
 *
 * @example
 * ```ts
 * import { Postwire } from "@postwire/client"
 *
 * const postwire = new Postwire({ apiKey: process.env.POSTWIRE_API_KEY!, baseUrl: "http://localhost:3000" })
 * // My receiver was down since this morning: send again what was given up.
 * for await (const delivery of postwire.webhooks.deliveries.list("wh_…", { status: "failed", from: "2026-11-22T00:00:00Z" })) {
 *   const result = await postwire.webhooks.deliveries.redeliver("wh_…", delivery.id)
 *   console.log(result.event_id, result.status)
 * }
 * ```
 *
 * @since 0.2.0
 */
export interface PostwireDeliveries extends PromisedDeliveries {
  /** The first page of an endpoint's deliveries, newest first; `for await` over it for every one. */
  readonly list: (endpointId: string, query?: ListDeliveriesInput) => PagePromise<WebhookDelivery>
  /** A delivery with its attempts, newest first. */
  readonly get: (endpointId: string, deliveryId: string) => Promise<WebhookDeliveryDetail>
  /**
   * Sends the delivery's event again now, whatever its status (same `SERVICE-Event-Id`, fresh
   * signature); safe to retry, with your `idempotencyKey` or a generated one.
   */
  readonly redeliver: (endpointId: string, deliveryId: string, options?: CreateOptions) => Promise<WebhookDeliveryDetail>
}

/**
 * Events, with Promises: every event of the workspace for 30 days, exactly as delivered.
 *
 * @example
 * ```ts
 * import { Postwire } from "@postwire/client"
 *
 * const postwire = new Postwire({ apiKey: process.env.POSTWIRE_API_KEY!, baseUrl: "http://localhost:3000" })
 * for await (const event of postwire.events.list({ type: ["post.published", "post.failed"], from: "2026-11-22T00:00:00Z" })) {
 *   console.log(event.id, event.type)
 * }
 * ```
 *
 * @since 0.2.0
 */
export interface PostwireEvents extends PromisedEvents {
  /** The first page of events, newest first (GET /v1/events); `for await` over it for every event. */
  readonly list: (query?: ListEventsInput) => PagePromise<Event>
  /** One event (GET /v1/events/{id}). */
  readonly get: (id: string) => Promise<Event>
}

/**
 * Comments under published posts, with Promises: reading needs `posts:read`, answering and
 * moderating `comments:write`.
 *
 * @example
 * ```ts
 * import { Postwire } from "@postwire/client"
 *
 * const postwire = new Postwire({ apiKey: process.env.POSTWIRE_API_KEY!, baseUrl: "http://localhost:8080" })
 * for await (const comment of postwire.comments.list({ post_id: "post_01JD0000000000000000000000" })) {
 *   if (comment.text.includes("?") && !comment.from_owner) {
 *     await postwire.comments.reply(comment.id, { text: "Good question! We'll DM you." })
 *   }
 * }
 * ```
 *
 * @since 0.3.0
 */
export interface PostwireComments extends PromisedComments {
  /** The first page of comments, newest first (GET /v1/comments); `for await` over it for every comment. */
  readonly list: (query?: ListCommentsInput) => PagePromise<Comment>
  /** One comment (GET /v1/comments/{id}). */
  readonly get: (id: string) => Promise<Comment>
  /** Publishes an answer as the account and resolves to it (POST /v1/comments/{id}/replies); safe to retry. */
  readonly reply: (id: string, body: ReplyToCommentInput, options?: CreateOptions) => Promise<Comment>
  /** Hides the comment on the platform (POST /v1/comments/{id}/hide). */
  readonly hide: (id: string) => Promise<Comment>
  /** Shows a hidden comment again (POST /v1/comments/{id}/unhide). */
  readonly unhide: (id: string) => Promise<Comment>
  /** Deletes the comment on the platform (DELETE /v1/comments/{id}). */
  readonly delete: (id: string) => Promise<DeleteCommentResult>
}

/**
 * Webhook endpoints, with Promises. Reading needs a key with `webhooks:read` (or
 * `webhooks:write`); every change needs `webhooks:write`.
 *
 * @example
 * ```ts
 * import { Postwire } from "@postwire/client"
 *
 * const postwire = new Postwire({ apiKey: process.env.POSTWIRE_API_KEY!, baseUrl: "http://localhost:8080" })
 * const endpoint = await postwire.webhooks.create({
 *   url: "https://hooks.example.com/postwire",
 *   events: ["post.published", "post.failed"]
 * })
 * console.log(endpoint.secret) // whsec_…: store it now, it cannot be read again
 * const test = await postwire.webhooks.test(endpoint.id)
 * console.log(test.delivered, test.status_code)
 * for await (const each of postwire.webhooks.list()) console.log(each.url, each.active)
 * ```
 *
 * @since 0.1.0
 */
export interface PostwireWebhooks extends PromisedWebhooks {
  /**
   * Registers an endpoint (POST /v1/webhooks) and answers with its signing `secret`, shown this
   * once. A `url` that is not a public https address rejects with 400 `invalid_url`.
   */
  readonly create: (body: CreateWebhookInput) => Promise<CreateWebhookResult>
  /**
   * The first page of endpoints, newest first, without their secrets (GET /v1/webhooks);
   * `for await` over it for every endpoint.
   */
  readonly list: (query?: ListWebhooksInput) => PagePromise<WebhookEndpoint>
  /** One endpoint, without its secret (GET /v1/webhooks/{id}). */
  readonly get: (id: string) => Promise<WebhookEndpoint>
  /** Changes `url`, `events` or `active` (`true` re-enables a disabled endpoint) (PATCH /v1/webhooks/{id}). */
  readonly update: (id: string, body: UpdateWebhookInput) => Promise<WebhookEndpoint>
  /**
   * A new secret, returned this once; the old one keeps signing for `expires_in_seconds`
   * (default one day, `0` = retire now) (POST /v1/webhooks/{id}/rotate-secret).
   */
  readonly rotateSecret: (id: string, body?: RotateSecretInput) => Promise<CreateWebhookResult>
  /** Removes an endpoint; nothing more is delivered to it (DELETE /v1/webhooks/{id}). */
  readonly delete: (id: string) => Promise<DeleteWebhookResult>
  /**
   * Sends one synthetic event of the endpoint's first subscribed type now, with `"test": true`
   * in its body, and reports what the endpoint answered (POST /v1/webhooks/{id}/test).
   */
  readonly test: (id: string) => Promise<TestWebhookResult>
  /** The delivery log of an endpoint, and redelivery. */
  readonly deliveries: PostwireDeliveries
}

/**
 * Decisions on approval links, with Promises.
 *
 * @example
 * ```ts
 * import { Postwire, PostwireApiError } from "@postwire/client"
 *
 * const postwire = new Postwire({ apiKey: process.env.POSTWIRE_API_KEY!, baseUrl: "http://localhost:8080" })
 * const created = await postwire.posts.create({
 *   profile_id: "prof_01JD0000000000000000000000",
 *   caption: "Launching today",
 *   media: ["med_01JD0000000000000000000000"],
 *   targets: [{ account_id: "acc_01JD0000000000000000000000" }]
 * })
 * // The token is the last segment of the approval link: https://…/approve/{token}
 * const token = new URL(created.approval!.url).pathname.split("/").pop()!
 * try {
 *   const { post } = await postwire.approvals.decide(token, { decision: "reject", reason: "Wrong photo" })
 *   console.log(post.status) // rejected
 * } catch (error) {
 *   if (error instanceof PostwireApiError && error.code === "already_decided") console.log("decided already")
 *   else throw error
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface PostwireApprovals extends PromisedApprovals {
  /**
   * Approves or rejects a post through its approval link (POST /v1/approvals/{token}/decision).
   * The token is the credential: the API key is not sent with this call. Rejects with 409
   * `already_decided` (the link has a decision), 410 `approval_expired`, 409 `consent_required`
   * (a shortvideo `direct` target approved without `consent`, `targetId` naming it) or 400
   * `invalid_redirect_url`.
   */
  readonly decide: (token: string, body: DecideApprovalInput) => Promise<DecideApprovalResult>
}

/**
 * The Postwire API with Promises. Every method rejects with a `PostwireApiError` (the API
 * answered with an error) or a `PostwireConnectionError` (no usable answer); both are `Error`
 * subclasses.
 *
 * Requests carry `Authorization: Bearer <apiKey>` (except `approvals.decide`, whose token is the
 * credential); every POST of posts and media carries an `Idempotency-Key` (yours, or one
 * generated per call); a 429 is retried after its `Retry-After`, and a 5xx or network failure of
 * a GET or of a POST with an `Idempotency-Key` with exponential backoff, up to `maxRetries` times
 * (default 2).
 *
 * @example
 * ```ts
 * import { Postwire, PostwireApiError } from "@postwire/client"
 *
 * const postwire = new Postwire({ apiKey: process.env.POSTWIRE_API_KEY!, baseUrl: "http://localhost:8080" })
 *
 * try {
 *   const post = await postwire.posts.create({
 *     profile_id: "prof_01JD0000000000000000000000",
 *     caption: "Launching today",
 *     media: ["med_01JD0000000000000000000000"],
 *     targets: [{ account_id: "acc_01JD0000000000000000000000" }]
 *   })
 *   console.log(post.id, post.approval?.url)
 * } catch (error) {
 *   if (error instanceof PostwireApiError) console.error(error.code, error.field, error.message)
 *   else throw error
 * }
 *
 * for await (const post of postwire.posts.list({ status: "queued" })) {
 *   console.log(post.id)
 * }
 * ```
 *
 * @since 0.1.0
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the class assigns every member in its constructor; the groups without a documented interface of their own come from the contract as they are (the interface below)
export class Postwire {
  /** Posts: create, validate, list, get, update, cancel, retry. */
  declare readonly posts: PostwirePosts
  /** Media: upload and get. */
  declare readonly media: PostwireMedia
  /** Accounts: list, get, connect, reconnect, disconnect. */
  declare readonly accounts: PostwireAccounts
  /** Profiles: list, create, get, update, delete. */
  declare readonly profiles: PostwireProfiles
  /** Webhook endpoints: create, list, get, update, rotate the secret, delete, test, and the delivery log. */
  declare readonly webhooks: PostwireWebhooks
  /** Approval links: decide. */
  declare readonly approvals: PostwireApprovals
  /** Events: list and get. */
  declare readonly events: PostwireEvents
  /** Comments: list, get, reply, hide, unhide, delete. */
  declare readonly comments: PostwireComments

  /**
   * Makes a client; throws a `TypeError` naming the option when one is wrong (`baseUrl` not an
   * http(s) address, an empty `apiKey`, a negative `maxRetries`, …).
   */
  constructor(options: PostwireOptions) {
    checkOptions(options)
    const build = make(options).pipe(Effect.provide(FetchHttpClient.layer))
    const client: PostwireClientService = Effect.runSync(
      options.fetch === undefined ? build : Effect.provideService(build, FetchHttpClient.Fetch, options.fetch)
    )
    // Every group of the contract, each method answering a Promise (see internal/promised.ts).
    Object.assign(this, promised(client))
  }
}

// The groups without a documented interface of their own come from the contract as they are.
export interface Postwire extends PromisedService {}
