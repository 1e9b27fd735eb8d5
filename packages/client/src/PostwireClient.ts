/**
 * The Effect client of the Postwire API: a service generated from the contract in
 * `@postwire/domain`, with one error channel, {@link PostwireClientError}.
 *
 * @since 0.1.0
 */
import type { Locale } from "@postwire/domain"
import { Context, Effect, Layer, type Redacted, type Stream } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import type { PostwireClientError } from "./ClientError.ts"
import { type DerivedService, deriveClient, listAllOf, markPaged, type RawEndpoint } from "./internal/derive.ts"
import type { ErrorContext } from "./internal/errors.ts"
import { checkOptions } from "./internal/options.ts"
import { makeUploads } from "./internal/upload.ts"
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
  UpdateWebhookInput,
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
  ListPage,
  Media,
  MediaList,
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
 * Settings of a client.
 *
 * @example
 * ```ts
 * import type { PostwireClientOptions } from "@postwire/client"
 *
 * const options: PostwireClientOptions = {
 *   apiKey: process.env.POSTWIRE_API_KEY!,
 *   baseUrl: "http://localhost:8080",
 *   maxRetries: 3,
 *   locale: "id"
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface PostwireClientOptions {
  /**
   * An API key, `svc_live_…` or `svc_test_…`, sent as `Authorization: Bearer <key>`. Optional
   * only for a client that just decides approvals (`approvals.decide`, whose token is the
   * credential): without it every other call answers 401 `unauthorized`.
   */
  readonly apiKey?: string | Redacted.Redacted<string> | undefined
  /**
   * The server's address, e.g. `http://localhost:8080`; a trailing `/v1` is accepted and ignored.
   * Default: the `POSTWIRE_BASE_URL` environment variable, else `http://localhost:8080`.
   */
  readonly baseUrl?: string | URL | undefined
  /** How many times a failed request is sent again (429, 5xx, network errors). Default 2. */
  readonly maxRetries?: number | undefined
  /** The `User-Agent` header. Default `@postwire/client`. */
  readonly userAgent?: string | undefined
  /** Language of `message` in errors (`Accept-Language`); `messageId` is always Indonesian. */
  readonly locale?: Locale | undefined
}

/**
 * Posts: create (one or a batch), validate, list, get, update, cancel, retry.
 *
 * @example
 * ```ts
 * import { PostwireClient } from "@postwire/client"
 * import { Effect } from "effect"
 *
 * const retryIfFailed = (id: string) =>
 *   PostwireClient.use((postwire) =>
 *     Effect.flatMap(postwire.posts.get(id), (post) =>
 *       post.status === "failed" ? postwire.posts.retry(post.id) : Effect.succeed({ data: [] })
 *     )
 *   )
 * ```
 *
 * @since 0.1.0
 */
export interface PostwireClientPosts extends DerivedPosts {
  /**
   * Creates a post (POST /v1/posts). Every target waits for approval through a link unless
   * `approval.mode` is `none`.
   */
  readonly create: (body: CreatePostInput, options?: CreateOptions) => Effect.Effect<CreatePostResult, PostwireClientError>
  /**
   * Creates 1 to 31 posts in one call (POST /v1/posts/batch). Succeeds once the batch is
   * understood: each item of `data` holds the created `post` or its `error` (a full day of
   * `scheduled_at` is 429 `quota_exceeded_for_day` there). One idempotency key covers the batch.
   */
  readonly createBatch: (
    body: CreatePostBatchInput,
    options?: CreateOptions
  ) => Effect.Effect<CreatePostBatchResult, PostwireClientError>
  /** Checks a post without saving it (POST /v1/posts/validate); `issues` is empty when it would be accepted. */
  readonly validate: (body: CreatePostInput) => Effect.Effect<ValidatePostResult, PostwireClientError>
  /** One page of posts, newest publish time first (GET /v1/posts). */
  readonly list: (query?: ListPostsInput) => Effect.Effect<ListPage<Post>, PostwireClientError>
  /** Every post matching `query`, following `cursor.next` page by page as the stream is pulled. */
  readonly listAll: (query?: ListPostsInput) => Stream.Stream<Post, PostwireClientError>
  /** A post with each target's status and permalink or error (GET /v1/posts/{id}). */
  readonly get: (id: string) => Effect.Effect<Post, PostwireClientError>
  /** Changes the caption and/or schedule while no target is publishing (PATCH /v1/posts/{id}). */
  readonly update: (id: string, body: UpdatePostInput) => Effect.Effect<Post, PostwireClientError>
  /** Cancels the targets that have not published (POST /v1/posts/{id}/cancel). */
  readonly cancel: (id: string) => Effect.Effect<Post, PostwireClientError>
  /** Queues again the targets that failed with `retryable: true` (POST /v1/posts/{id}/retry). */
  readonly retry: (id: string) => Effect.Effect<RetryPostResult, PostwireClientError>
}

/**
 * Comments under published posts: read them (`posts:read`), answer, hide, show again and delete
 * them (`comments:write`).
 *
 * @example
 * ```ts
 * import { PostwireClient } from "@postwire/client"
 * import { Effect, Stream } from "effect"
 *
 * const thankEveryone = (postId: string) =>
 *   PostwireClient.use((postwire) =>
 *     postwire.comments.listAll({ post_id: postId }).pipe(
 *       Stream.filter((comment) => !comment.from_owner && comment.parent_id === null),
 *       Stream.mapEffect((comment) => postwire.comments.reply(comment.id, { text: "Thank you!" })),
 *       Stream.runDrain
 *     )
 *   )
 * ```
 *
 * @since 0.3.0
 */
export interface PostwireClientComments extends DerivedComments {
  /** One page of comments, newest first (GET /v1/comments). */
  readonly list: (query?: ListCommentsInput) => Effect.Effect<ListPage<Comment>, PostwireClientError>
  /** Every comment matching `query`, following `cursor.next` page by page as the stream is pulled. */
  readonly listAll: (query?: ListCommentsInput) => Stream.Stream<Comment, PostwireClientError>
  /** One comment (GET /v1/comments/{id}). */
  readonly get: (id: string) => Effect.Effect<Comment, PostwireClientError>
  /** Publishes an answer as the account and returns it (POST /v1/comments/{id}/replies); safe to retry. */
  readonly reply: (
    id: string,
    body: ReplyToCommentInput,
    options?: CreateOptions
  ) => Effect.Effect<Comment, PostwireClientError>
  /** Hides the comment on the platform (POST /v1/comments/{id}/hide). */
  readonly hide: (id: string) => Effect.Effect<Comment, PostwireClientError>
  /** Shows a hidden comment again (POST /v1/comments/{id}/unhide). */
  readonly unhide: (id: string) => Effect.Effect<Comment, PostwireClientError>
  /** Deletes the comment on the platform (DELETE /v1/comments/{id}). */
  readonly delete: (id: string) => Effect.Effect<DeleteCommentResult, PostwireClientError>
}

/**
 * Media: uploads of any size (inline up to 10 MiB, resumable parts beyond, up to 4 GiB), URL
 * imports, the list, retrieval and deletion.
 *
 * @example
 * ```ts
 * import { PostwireClient } from "@postwire/client"
 *
 * const upload = (path: string) =>
 *   PostwireClient.use((postwire) =>
 *     postwire.media.upload({ path }, { onProgress: ({ sentBytes, totalBytes }) => console.log(sentBytes, "/", totalBytes) })
 *   )
 * ```
 *
 * @since 0.1.0
 */
export interface PostwireClientMedia extends DerivedMedia {
  /**
   * Uploads a file: up to 10 MiB inline (POST /v1/media), larger in 16 MiB parts of a resumable
   * upload (POST /v1/media/uploads, a PUT per part, then complete), each part sent again alone
   * when its connection fails. Answers the media item, `ready`.
   */
  readonly upload: (source: MediaSource, options?: MediaUploadOptions) => Effect.Effect<Media, PostwireClientError>
  /** Imports a file from a public https address in the background; the item answers `processing` (POST /v1/media). */
  readonly import: (input: ImportMediaInput, options?: CreateOptions) => Effect.Effect<Media, PostwireClientError>
  /** One page of media, newest first (GET /v1/media). */
  readonly list: (query?: ListMediaInput) => Effect.Effect<MediaList, PostwireClientError>
  /** Every media item, page after page. */
  readonly listAll: (query?: ListMediaInput) => Stream.Stream<Media, PostwireClientError>
  /** A media item (GET /v1/media/{id}). */
  readonly get: (id: string) => Effect.Effect<Media, PostwireClientError>
  /** Deletes a media item no unfinished post uses (DELETE /v1/media/{id}). */
  readonly delete: (id: string) => Effect.Effect<DeletedMedia, PostwireClientError>
}

/**
 * Accounts, with each one's posting quota.
 *
 * @example
 * ```ts
 * import { PostwireClient } from "@postwire/client"
 * import { Stream } from "effect"
 *
 * const needingReconnect = PostwireClient.use((postwire) =>
 *   Stream.runCollect(Stream.filter(postwire.accounts.listAll(), (account) => account.status === "needs_reconnect"))
 * )
 * ```
 *
 * @since 0.1.0
 */
export interface PostwireClientAccounts extends DerivedAccounts {
  /** One page of accounts (GET /v1/accounts). */
  readonly list: (query?: ListAccountsInput) => Effect.Effect<ListPage<Account>, PostwireClientError>
  /** Every account matching `query`, page by page as the stream is pulled. */
  readonly listAll: (query?: ListAccountsInput) => Stream.Stream<Account, PostwireClientError>
  /** An account and its quota (GET /v1/accounts/{id}). */
  readonly get: (id: string) => Effect.Effect<Account, PostwireClientError>
  /**
   * A single-use link (30 minutes) a person opens to connect an account into a profile
   * (POST /v1/accounts/connect). Needs the `accounts:write` scope.
   */
  readonly connect: (body: ConnectAccountInput) => Effect.Effect<ConnectLink, PostwireClientError>
  /** A link that connects this account again, keeping its id (POST /v1/accounts/{id}/reconnect). */
  readonly reconnect: (id: string, body?: ReconnectAccountInput) => Effect.Effect<ConnectLink, PostwireClientError>
  /**
   * Revokes the token at the platform where it can, erases it, and marks the account
   * `disconnected`; its queued and scheduled targets fail (DELETE /v1/accounts/{id}).
   */
  readonly disconnect: (id: string) => Effect.Effect<Account, PostwireClientError>
}

/**
 * Profiles.
 *
 * @example
 * ```ts
 * import { PostwireClient } from "@postwire/client"
 * import { Stream } from "effect"
 *
 * const allProfiles = PostwireClient.use((postwire) => Stream.runCollect(postwire.profiles.listAll()))
 * ```
 *
 * @since 0.1.0
 */
export interface PostwireClientProfiles extends DerivedProfiles {
  /** One page of profiles (GET /v1/profiles). */
  readonly list: (query?: ListProfilesInput) => Effect.Effect<ListPage<Profile>, PostwireClientError>
  /** Every profile, page by page as the stream is pulled. */
  readonly listAll: (query?: ListProfilesInput) => Stream.Stream<Profile, PostwireClientError>
  /** Creates a profile (POST /v1/profiles); needs `accounts:write`. */
  readonly create: (body: CreateProfileInput) => Effect.Effect<Profile, PostwireClientError>
  /** A profile (GET /v1/profiles/{id}). */
  readonly get: (id: string) => Effect.Effect<Profile, PostwireClientError>
  /** Renames a profile (PATCH /v1/profiles/{id}); needs `accounts:write`. */
  readonly update: (id: string, body: UpdateProfileInput) => Effect.Effect<Profile, PostwireClientError>
  /**
   * Deletes a profile (DELETE /v1/profiles/{id}); 409 `invalid_state` while it has accounts that
   * are not disconnected or unfinished posts.
   */
  readonly delete: (id: string) => Effect.Effect<DeleteProfileResult, PostwireClientError>
}

/**
 * The delivery log of one endpoint: every delivery with every attempt, and redelivery. Reading
 * needs `webhooks:read` (or `webhooks:write`); redelivering needs `webhooks:write`.
 *
 * @example
 * ```ts
 * import { PostwireClient } from "@postwire/client"
 * import { Effect, Stream } from "effect"
 *
 * // After an outage: send again everything that was given up since it began.
 * const catchUp = (endpointId: string, since: string) =>
 *   PostwireClient.use((postwire) =>
 *     Stream.runForEach(postwire.webhooks.deliveries.listAll(endpointId, { status: "failed", from: since }), (delivery) =>
 *       postwire.webhooks.deliveries.redeliver(endpointId, delivery.id)
 *     )
 *   )
 * ```
 *
 * @since 0.2.0
 */
export interface PostwireClientDeliveries {
  /** One page of an endpoint's deliveries, newest first, each with its latest attempt (GET /v1/webhooks/{id}/deliveries). */
  readonly list: (endpointId: string, query?: ListDeliveriesInput) => Effect.Effect<ListPage<WebhookDelivery>, PostwireClientError>
  /** Every delivery matching `query`, page by page as the stream is pulled. */
  readonly listAll: (endpointId: string, query?: ListDeliveriesInput) => Stream.Stream<WebhookDelivery, PostwireClientError>
  /** A delivery with its attempts, newest first (GET /v1/webhooks/{id}/deliveries/{delivery_id}). */
  readonly get: (endpointId: string, deliveryId: string) => Effect.Effect<WebhookDeliveryDetail, PostwireClientError>
  /**
   * Sends the delivery's event again now, whatever its status: same `SERVICE-Event-Id`, fresh
   * signature (POST …/deliveries/{delivery_id}/redeliver). Safe to retry: each call carries an
   * `Idempotency-Key` (yours in `options`, or one generated per call).
   */
  readonly redeliver: (
    endpointId: string,
    deliveryId: string,
    options?: CreateOptions
  ) => Effect.Effect<WebhookDeliveryDetail, PostwireClientError>
}

/**
 * Events: every event of the workspace for 30 days, exactly as delivered. Needs
 * `webhooks:read` (or `webhooks:write`).
 *
 * @example
 * ```ts
 * import { PostwireClient } from "@postwire/client"
 * import { Stream } from "effect"
 *
 * const missedPublications = (since: string) =>
 *   PostwireClient.use((postwire) => Stream.runCollect(postwire.events.listAll({ type: ["post.published"], from: since })))
 * ```
 *
 * @since 0.2.0
 */
export interface PostwireClientEvents extends DerivedEvents {
  /** One page of events, newest first (GET /v1/events). */
  readonly list: (query?: ListEventsInput) => Effect.Effect<ListPage<Event>, PostwireClientError>
  /** Every event matching `query`, page by page as the stream is pulled. */
  readonly listAll: (query?: ListEventsInput) => Stream.Stream<Event, PostwireClientError>
  /** One event (GET /v1/events/{id}). */
  readonly get: (id: string) => Effect.Effect<Event, PostwireClientError>
}

/**
 * Webhook endpoints: create (the secret is shown once), list, get, update, rotate the secret,
 * delete, test, and the delivery log. Reading needs `webhooks:read` (or `webhooks:write`);
 * every change needs `webhooks:write`.
 *
 * @example
 * ```ts
 * import { PostwireClient } from "@postwire/client"
 * import { Effect } from "effect"
 *
 * const register = PostwireClient.use((postwire) =>
 *   Effect.gen(function* () {
 *     const endpoint = yield* postwire.webhooks.create({
 *       url: "https://hooks.example.com/postwire",
 *       events: ["post.published", "post.failed"]
 *     })
 *     const test = yield* postwire.webhooks.test(endpoint.id)
 *     return { id: endpoint.id, secret: endpoint.secret, delivered: test.delivered }
 *   })
 * )
 * ```
 *
 * @since 0.1.0
 */
export interface PostwireClientWebhooks extends DerivedWebhooks {
  /**
   * Registers an endpoint (POST /v1/webhooks) and answers with its signing `secret`, shown this
   * once. A `url` that is not a public https address fails with 400 `invalid_url`.
   */
  readonly create: (body: CreateWebhookInput) => Effect.Effect<CreateWebhookResult, PostwireClientError>
  /** One page of endpoints, newest first, without their secrets (GET /v1/webhooks). */
  readonly list: (query?: ListWebhooksInput) => Effect.Effect<ListPage<WebhookEndpoint>, PostwireClientError>
  /** Every endpoint, page by page as the stream is pulled. */
  readonly listAll: (query?: ListWebhooksInput) => Stream.Stream<WebhookEndpoint, PostwireClientError>
  /** One endpoint, without its secret (GET /v1/webhooks/{id}). */
  readonly get: (id: string) => Effect.Effect<WebhookEndpoint, PostwireClientError>
  /**
   * Changes `url`, `events` or `active` (PATCH /v1/webhooks/{id}); `active: true` re-enables a
   * disabled endpoint for the events created from then on.
   */
  readonly update: (id: string, body: UpdateWebhookInput) => Effect.Effect<WebhookEndpoint, PostwireClientError>
  /**
   * Gives the endpoint a new secret, returned this once (POST /v1/webhooks/{id}/rotate-secret).
   * The old secret keeps signing beside it for `expires_in_seconds` (default one day; `0`
   * retires it now).
   */
  readonly rotateSecret: (id: string, body?: RotateSecretInput) => Effect.Effect<CreateWebhookResult, PostwireClientError>
  /** Removes an endpoint; nothing more is delivered to it (DELETE /v1/webhooks/{id}). */
  readonly delete: (id: string) => Effect.Effect<DeleteWebhookResult, PostwireClientError>
  /**
   * Sends one synthetic event of the endpoint's first subscribed type now, with `"test": true`
   * in its body, and reports what the endpoint answered (POST /v1/webhooks/{id}/test).
   */
  readonly test: (id: string) => Effect.Effect<TestWebhookResult, PostwireClientError>
  /** The delivery log of an endpoint, and redelivery. */
  readonly deliveries: PostwireClientDeliveries
}

/**
 * Decisions on approval links.
 *
 * @example
 * ```ts
 * import { PostwireClient } from "@postwire/client"
 * import { Effect } from "effect"
 *
 * // The token is the last segment of the post's approval.url: https://…/approve/{token}
 * const approve = (token: string) =>
 *   PostwireClient.use((postwire) => postwire.approvals.decide(token, { decision: "approve" })).pipe(
 *     Effect.catchTag("PostwireApiError", (error) =>
 *       error.code === "already_decided" ? Effect.logInfo("someone decided first") : Effect.fail(error)
 *     )
 *   )
 * ```
 *
 * @since 0.1.0
 */
export interface PostwireClientApprovals extends DerivedApprovals {
  /**
   * Approves or rejects a post through its approval link (POST /v1/approvals/{token}/decision).
   * The token is the credential: the API key is not sent with this call. Fails with 409
   * `already_decided` (the link has a decision), 410 `approval_expired`, 409 `consent_required`
   * (a shortvideo `direct` target approved without `consent`, `targetId` naming it) or 400
   * `invalid_redirect_url`.
   */
  readonly decide: (token: string, body: DecideApprovalInput) => Effect.Effect<DecideApprovalResult, PostwireClientError>
}

/**
 * What the {@link PostwireClient} service offers: one object per resource.
 *
 * @example
 * ```ts
 * import { PostwireClient, type PostwireClientService } from "@postwire/client"
 * import { Effect } from "effect"
 *
 * const countQueued = (postwire: PostwireClientService) =>
 *   Effect.map(postwire.posts.list({ status: "queued", limit: 100 }), (page) => page.data.length)
 * const program = Effect.flatMap(PostwireClient, countQueued)
 * ```
 *
 * @since 0.1.0
 */
export interface PostwireClientService extends Derived {
  readonly posts: PostwireClientPosts
  readonly media: PostwireClientMedia
  readonly accounts: PostwireClientAccounts
  readonly profiles: PostwireClientProfiles
  readonly webhooks: PostwireClientWebhooks
  readonly approvals: PostwireClientApprovals
  readonly events: PostwireClientEvents
  readonly comments: PostwireClientComments
}

/**
 * The endpoints whose methods are written by hand: the upload engine (`media.upload`,
 * `media.import`) and the delivery log, which the SDK nests under `webhooks.deliveries`.
 */
type HandWritten = {
  readonly media: "upload" | "createUpload" | "getUpload" | "uploadPart" | "completeUpload"
  readonly webhooks: "listDeliveries" | "getDelivery" | "redeliver"
}

/** The methods derived from the contract, group by group. */
type Derived = DerivedService<HandWritten>
type DerivedPosts = Derived["posts"]
type DerivedComments = Derived["comments"]
type DerivedMedia = Derived["media"]
type DerivedAccounts = Derived["accounts"]
type DerivedProfiles = Derived["profiles"]
type DerivedEvents = Derived["events"]
type DerivedWebhooks = Derived["webhooks"]
type DerivedApprovals = Derived["approvals"]

const defaultMaxRetries = 2
const defaultUserAgent = "@postwire/client"

/**
 * Groups whose every POST the server deduplicates on `Idempotency-Key` (or that are safe to
 * repeat), beyond the endpoints that declare the header: each POST there carries a generated key.
 */
const keyedGroups: ReadonlySet<string> = new Set(["posts", "media", "comments"])

/**
 * Builds the client on the `HttpClient` in context. Use it to run the client on another
 * `HttpClient` than fetch; {@link PostwireClient.layer} is the usual way in.
 *
 * Wrong options (an invalid `baseUrl`, an empty `apiKey`, …) are a defect: a `TypeError` naming the option.
 *
 * @example
 * ```ts
 * import { PostwireClient } from "@postwire/client"
 * import { Layer } from "effect"
 * import { FetchHttpClient } from "effect/http"
 *
 * const PostwireLive = Layer.effect(
 *   PostwireClient,
 *   PostwireClient.make({ apiKey: process.env.POSTWIRE_API_KEY!, baseUrl: "http://localhost:8080" })
 * ).pipe(Layer.provide(FetchHttpClient.layer))
 * ```
 *
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function* (
  options: PostwireClientOptions
): Effect.fn.Return<PostwireClientService, never, HttpClient.HttpClient> {
  const baseUrl = yield* Effect.sync(() => checkOptions(options))
  const context: ErrorContext = { baseUrl, locale: options.locale ?? "en" }
  const derived = yield* deriveClient(
    {
      baseUrl,
      context,
      apiKey: options.apiKey,
      userAgent: options.userAgent ?? defaultUserAgent,
      locale: options.locale,
      maxRetries: Math.max(0, options.maxRetries ?? defaultMaxRetries),
      keyedGroups
    },
    yield* HttpClient.HttpClient
  )
  const { groups, raw } = derived
  const webhooks = groups.webhooks!
  const listDeliveries = markPaged(webhooks.listDeliveries as (...args: Array<unknown>) => Effect.Effect<ListPage<unknown>, PostwireClientError>, 1)
  const uploads = makeUploads({
    media: raw.media as Record<"upload" | "createUpload" | "uploadPart" | "completeUpload", RawEndpoint>,
    call: derived.call,
    context
  })
  const { listDeliveries: _list, getDelivery, redeliver, ...endpoints } = webhooks
  const { upload: _upload, createUpload: _create, getUpload: _get, uploadPart: _part, completeUpload: _complete, ...media } = groups.media!
  return {
    ...groups,
    media: { ...media, ...uploads },
    webhooks: {
      ...endpoints,
      deliveries: { list: listDeliveries, listAll: listAllOf(listDeliveries, 1), get: getDelivery, redeliver }
    }
  } as unknown as PostwireClientService
})

/**
 * The Postwire API as an Effect service. Every call fails with one typed error,
 * {@link PostwireClientError}: a `PostwireApiError` for an error answer, or a
 * `PostwireConnectionError` when no usable answer arrived.
 *
 * @example
 * ```ts
 * import { PostwireClient } from "@postwire/client"
 * import { Effect, Stream } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const postwire = yield* PostwireClient
 *   const created = yield* postwire.posts.create({
 *     profile_id: "prof_01JD0000000000000000000000",
 *     caption: "Launching today",
 *     media: ["med_01JD0000000000000000000000"],
 *     targets: [{ account_id: "acc_01JD0000000000000000000000" }]
 *   })
 *   const queued = yield* Stream.runCollect(postwire.posts.listAll({ status: "queued" }))
 *   return { created, queued }
 * }).pipe(
 *   Effect.catchTag("PostwireApiError", (error) => Effect.logError(`${error.status} ${error.code}: ${error.message}`)),
 *   Effect.provide(PostwireClient.layer({ apiKey: process.env.POSTWIRE_API_KEY!, baseUrl: "http://localhost:8080" }))
 * )
 * ```
 *
 * @since 0.1.0
 */
export class PostwireClient extends Context.Service<PostwireClient, PostwireClientService>()(
  "@postwire/client/PostwireClient"
) {
  /**
   * Builds the client on the `HttpClient` in context (see {@link make}).
   *
   * @since 0.1.0
   */
  static readonly make = make

  /**
   * The client over `fetch`. To use another `fetch`, provide `FetchHttpClient.Fetch`.
   *
   * @example
   * ```ts
   * import { PostwireClient } from "@postwire/client"
   *
   * const PostwireLive = PostwireClient.layer({
   *   apiKey: process.env.POSTWIRE_API_KEY!,
   *   baseUrl: "http://localhost:8080",
   *   maxRetries: 3
   * })
   * ```
   *
   * @since 0.1.0
   */
  static readonly layer = (options: PostwireClientOptions): Layer.Layer<PostwireClient> =>
    Layer.effect(PostwireClient, make(options)).pipe(Layer.provide(FetchHttpClient.layer))
}
