/**
 * The Effect client of the Postwire API: a service generated from the contract in
 * `@postwire/domain`, with one error channel, {@link PostwireClientError}.
 *
 * @since 0.1.0
 */
import {
  Account as AccountSchemas,
  Api,
  Approval as ApprovalSchemas,
  Comment as CommentSchemas,
  ErrorDetail,
  type Locale,
  Media as MediaSchemas,
  Post as PostSchemas,
  Webhook as WebhookSchemas
} from "@postwire/domain"
import { Context, Effect, Layer, Option, type Redacted, type Schema, Stream } from "effect"
import { Base64 } from "effect/encoding"
import { FetchHttpClient, HttpClient, type HttpClientResponse } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import type { PostwireClientError } from "./ClientError.ts"
import { type ErrorContext, failBeforeAnswer, failFromAnswer, invalidRequest, unreadableSource } from "./internal/errors.ts"
import { type OpenedSource, openSource } from "./internal/mediaSource.ts"
import { checkOptions } from "./internal/options.ts"
import { transformClient } from "./internal/transport.ts"
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
  UploadMediaInput
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
export interface PostwireClientPosts {
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
export interface PostwireClientComments {
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
export interface PostwireClientMedia {
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
export interface PostwireClientAccounts {
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
export interface PostwireClientProfiles {
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
export interface PostwireClientEvents {
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
export interface PostwireClientWebhooks {
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
export interface PostwireClientApprovals {
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
export interface PostwireClientService {
  readonly posts: PostwireClientPosts
  readonly media: PostwireClientMedia
  readonly accounts: PostwireClientAccounts
  readonly profiles: PostwireClientProfiles
  readonly webhooks: PostwireClientWebhooks
  readonly approvals: PostwireClientApprovals
  readonly events: PostwireClientEvents
  readonly comments: PostwireClientComments
}

const defaultMaxRetries = 2
const defaultUserAgent = "@postwire/client"

// Callers without `exactOptionalPropertyTypes` may write `{ cursor: undefined }`; JSON drops such keys, so do we.
const withoutUndefined = <A>(value: A): A => {
  if (Array.isArray(value)) return value.map(withoutUndefined) as A
  if (value === null || typeof value !== "object" || value instanceof Uint8Array) return value
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, field]) => field !== undefined)
      .map(([key, field]) => [key, withoutUndefined(field)])
  ) as A
}

// Brands exist only in types: the generated client checks every rule of the schema when it encodes.
const asContract = <S extends Schema.Top>(_schema: S, value: unknown): S["Type"] => withoutUndefined(value) as S["Type"]

const idempotencyHeaders = (options: CreateOptions | undefined) =>
  options?.idempotencyKey === undefined ? {} : { "idempotency-key": options.idempotencyKey }

const maxInlineUploadBytes = MediaSchemas.maxInlineUploadBytes

const toBase64 = (data: Uint8Array | string): string => (typeof data === "string" ? data : Base64.encode(data))

const nextCursor = (page: ListPage<unknown>): Option.Option<string> =>
  page.cursor.has_more && page.cursor.next !== null ? Option.some(page.cursor.next) : Option.none()

// Follows `cursor.next` from the first page until `has_more` is false.
const paginate = <Q extends { readonly cursor?: string | undefined }, T>(
  list: (query: Q) => Effect.Effect<ListPage<T>, PostwireClientError>,
  query: Q
): Stream.Stream<T, PostwireClientError> =>
  Stream.paginate(query, (current: Q) =>
    Effect.map(
      list(current),
      (page) => [page.data, Option.map(nextCursor(page), (cursor): Q => ({ ...current, cursor }))] as const
    )
  )

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
  const transport = {
    userAgent: options.userAgent ?? defaultUserAgent,
    locale: options.locale,
    maxRetries: Math.max(0, options.maxRetries ?? defaultMaxRetries)
  }
  const httpClient = yield* HttpClient.HttpClient
  const client = yield* HttpApiClient.make(Api, {
    baseUrl,
    transformClient: transformClient({ ...transport, apiKey: options.apiKey, idempotencyKeys: true })
  })
  // The server does not deduplicate the POSTs of these groups: sent without an Idempotency-Key,
  // they are not resent after a 5xx or a network failure. A decision's token is its credential.
  const webhooksClient = yield* HttpApiClient.group(Api, {
    group: "webhooks",
    baseUrl,
    httpClient: transformClient({ ...transport, apiKey: options.apiKey, idempotencyKeys: false })(httpClient)
  })
  const accountsClient = yield* HttpApiClient.group(Api, {
    group: "accounts",
    baseUrl,
    httpClient: transformClient({ ...transport, apiKey: options.apiKey, idempotencyKeys: false })(httpClient)
  })
  const profilesClient = yield* HttpApiClient.group(Api, {
    group: "profiles",
    baseUrl,
    httpClient: transformClient({ ...transport, apiKey: options.apiKey, idempotencyKeys: false })(httpClient)
  })
  const approvalsClient = yield* HttpApiClient.group(Api, {
    group: "approvals",
    baseUrl,
    httpClient: transformClient({ ...transport, apiKey: undefined, idempotencyKeys: false })(httpClient)
  })
  const decode = {
    posts: {
      create: HttpApiClient.decodeResponse(Api, { group: "posts", endpoint: "create" }),
      createBatch: HttpApiClient.decodeResponse(Api, { group: "posts", endpoint: "createBatch" }),
      validate: HttpApiClient.decodeResponse(Api, { group: "posts", endpoint: "validate" }),
      list: HttpApiClient.decodeResponse(Api, { group: "posts", endpoint: "list" }),
      get: HttpApiClient.decodeResponse(Api, { group: "posts", endpoint: "get" }),
      update: HttpApiClient.decodeResponse(Api, { group: "posts", endpoint: "update" }),
      cancel: HttpApiClient.decodeResponse(Api, { group: "posts", endpoint: "cancel" }),
      retry: HttpApiClient.decodeResponse(Api, { group: "posts", endpoint: "retry" })
    },
    media: {
      upload: HttpApiClient.decodeResponse(Api, { group: "media", endpoint: "upload" }),
      list: HttpApiClient.decodeResponse(Api, { group: "media", endpoint: "list" }),
      get: HttpApiClient.decodeResponse(Api, { group: "media", endpoint: "get" }),
      delete: HttpApiClient.decodeResponse(Api, { group: "media", endpoint: "delete" }),
      createUpload: HttpApiClient.decodeResponse(Api, { group: "media", endpoint: "createUpload" }),
      uploadPart: HttpApiClient.decodeResponse(Api, { group: "media", endpoint: "uploadPart" }),
      completeUpload: HttpApiClient.decodeResponse(Api, { group: "media", endpoint: "completeUpload" })
    },
    accounts: {
      list: HttpApiClient.decodeResponse(Api, { group: "accounts", endpoint: "list" }),
      get: HttpApiClient.decodeResponse(Api, { group: "accounts", endpoint: "get" }),
      connect: HttpApiClient.decodeResponse(Api, { group: "accounts", endpoint: "connect" }),
      reconnect: HttpApiClient.decodeResponse(Api, { group: "accounts", endpoint: "reconnect" }),
      disconnect: HttpApiClient.decodeResponse(Api, { group: "accounts", endpoint: "disconnect" })
    },
    profiles: {
      list: HttpApiClient.decodeResponse(Api, { group: "profiles", endpoint: "list" }),
      create: HttpApiClient.decodeResponse(Api, { group: "profiles", endpoint: "create" }),
      get: HttpApiClient.decodeResponse(Api, { group: "profiles", endpoint: "get" }),
      update: HttpApiClient.decodeResponse(Api, { group: "profiles", endpoint: "update" }),
      delete: HttpApiClient.decodeResponse(Api, { group: "profiles", endpoint: "delete" })
    },
    webhooks: {
      create: HttpApiClient.decodeResponse(Api, { group: "webhooks", endpoint: "create" }),
      list: HttpApiClient.decodeResponse(Api, { group: "webhooks", endpoint: "list" }),
      delete: HttpApiClient.decodeResponse(Api, { group: "webhooks", endpoint: "delete" }),
      test: HttpApiClient.decodeResponse(Api, { group: "webhooks", endpoint: "test" }),
      get: HttpApiClient.decodeResponse(Api, { group: "webhooks", endpoint: "get" }),
      update: HttpApiClient.decodeResponse(Api, { group: "webhooks", endpoint: "update" }),
      rotateSecret: HttpApiClient.decodeResponse(Api, { group: "webhooks", endpoint: "rotateSecret" }),
      listDeliveries: HttpApiClient.decodeResponse(Api, { group: "webhooks", endpoint: "listDeliveries" }),
      getDelivery: HttpApiClient.decodeResponse(Api, { group: "webhooks", endpoint: "getDelivery" }),
      redeliver: HttpApiClient.decodeResponse(Api, { group: "webhooks", endpoint: "redeliver" })
    },
    events: {
      list: HttpApiClient.decodeResponse(Api, { group: "events", endpoint: "list" }),
      get: HttpApiClient.decodeResponse(Api, { group: "events", endpoint: "get" })
    },
    approvals: {
      decide: HttpApiClient.decodeResponse(Api, { group: "approvals", endpoint: "decide" })
    },
    comments: {
      list: HttpApiClient.decodeResponse(Api, { group: "comments", endpoint: "list" }),
      get: HttpApiClient.decodeResponse(Api, { group: "comments", endpoint: "get" }),
      reply: HttpApiClient.decodeResponse(Api, { group: "comments", endpoint: "reply" }),
      hide: HttpApiClient.decodeResponse(Api, { group: "comments", endpoint: "hide" }),
      unhide: HttpApiClient.decodeResponse(Api, { group: "comments", endpoint: "unhide" }),
      delete: HttpApiClient.decodeResponse(Api, { group: "comments", endpoint: "delete" })
    }
  }

  // Sends with the generated client in "response-only" mode, then decodes with the same
  // schemas, so that an error answer keeps its status and headers (request id, Retry-After).
  const call = <A>(
    send: Effect.Effect<HttpClientResponse.HttpClientResponse, unknown>,
    decodeAnswer: (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<A, unknown>
  ): Effect.Effect<A, PostwireClientError> =>
    send.pipe(
      Effect.catchCause((cause) => failBeforeAnswer(cause, context)),
      Effect.flatMap((response) =>
        decodeAnswer(response).pipe(Effect.catchCause((cause) => failFromAnswer(cause, response, context)))
      )
    )

  // An empty id would address the list instead of the item.
  const checkPathParam = <K extends "id" | "token" | "delivery_id">(name: K, value: string) =>
    typeof value === "string" && value !== "" && value !== "." && value !== ".."
      ? Effect.succeed({ [name]: value } as Record<K, string>)
      : Effect.fail(invalidRequest([{ field: name, detail: ErrorDetail.reason("must_not_be_empty") }], context))
  const checkId = (id: string) => checkPathParam("id", id)

  const posts: PostwireClientPosts = {
    create: Effect.fn("postwire.posts.create")(function* (body: CreatePostInput, options?: CreateOptions) {
      return yield* call(
        client.posts.create({
          payload: asContract(PostSchemas.CreatePostRequest, body),
          headers: idempotencyHeaders(options),
          responseMode: "response-only"
        }),
        decode.posts.create
      )
    }),
    createBatch: Effect.fn("postwire.posts.createBatch")(function* (body: CreatePostBatchInput, options?: CreateOptions) {
      return yield* call(
        client.posts.createBatch({
          payload: asContract(PostSchemas.CreatePostBatchRequest, body),
          headers: idempotencyHeaders(options),
          responseMode: "response-only"
        }),
        decode.posts.createBatch
      )
    }),
    validate: Effect.fn("postwire.posts.validate")(function* (body: CreatePostInput) {
      return yield* call(
        client.posts.validate({
          payload: asContract(PostSchemas.CreatePostRequest, body),
          responseMode: "response-only"
        }),
        decode.posts.validate
      )
    }),
    list: Effect.fn("postwire.posts.list")(function* (query?: ListPostsInput) {
      return yield* call(
        client.posts.list({ query: asContract(PostSchemas.ListPostsQuery, query ?? {}), responseMode: "response-only" }),
        decode.posts.list
      )
    }),
    listAll: (query) => paginate(posts.list, query ?? {}),
    get: Effect.fn("postwire.posts.get")(function* (id: string) {
      const params = yield* checkId(id)
      return yield* call(client.posts.get({ params, responseMode: "response-only" }), decode.posts.get)
    }),
    update: Effect.fn("postwire.posts.update")(function* (id: string, body: UpdatePostInput) {
      const params = yield* checkId(id)
      return yield* call(
        client.posts.update({
          params,
          payload: asContract(PostSchemas.UpdatePostRequest, body),
          responseMode: "response-only"
        }),
        decode.posts.update
      )
    }),
    cancel: Effect.fn("postwire.posts.cancel")(function* (id: string) {
      const params = yield* checkId(id)
      return yield* call(client.posts.cancel({ params, responseMode: "response-only" }), decode.posts.cancel)
    }),
    retry: Effect.fn("postwire.posts.retry")(function* (id: string) {
      const params = yield* checkId(id)
      return yield* call(client.posts.retry({ params, responseMode: "response-only" }), decode.posts.retry)
    })
  }

  const comments: PostwireClientComments = {
    list: Effect.fn("postwire.comments.list")(function* (query?: ListCommentsInput) {
      return yield* call(
        client.comments.list({ query: asContract(CommentSchemas.ListCommentsQuery, query ?? {}), responseMode: "response-only" }),
        decode.comments.list
      )
    }),
    listAll: (query) => paginate(comments.list, query ?? {}),
    get: Effect.fn("postwire.comments.get")(function* (id: string) {
      const params = yield* checkId(id)
      return yield* call(client.comments.get({ params, responseMode: "response-only" }), decode.comments.get)
    }),
    reply: Effect.fn("postwire.comments.reply")(function* (id: string, body: ReplyToCommentInput, options?: CreateOptions) {
      const params = yield* checkId(id)
      return yield* call(
        client.comments.reply({
          params,
          payload: asContract(CommentSchemas.ReplyToCommentRequest, body),
          headers: idempotencyHeaders(options),
          responseMode: "response-only"
        }),
        decode.comments.reply
      )
    }),
    hide: Effect.fn("postwire.comments.hide")(function* (id: string) {
      const params = yield* checkId(id)
      return yield* call(client.comments.hide({ params, responseMode: "response-only" }), decode.comments.hide)
    }),
    unhide: Effect.fn("postwire.comments.unhide")(function* (id: string) {
      const params = yield* checkId(id)
      return yield* call(client.comments.unhide({ params, responseMode: "response-only" }), decode.comments.unhide)
    }),
    delete: Effect.fn("postwire.comments.delete")(function* (id: string) {
      const params = yield* checkId(id)
      return yield* call(client.comments.delete({ params, responseMode: "response-only" }), decode.comments.delete)
    })
  }

  const uploadInline = (input: UploadMediaInput, options?: CreateOptions) => {
    const payload = input.filename === undefined ? { data: toBase64(input.data) } : { data: toBase64(input.data), filename: input.filename }
    return call(
      client.media.upload({ payload, headers: idempotencyHeaders(options), responseMode: "response-only" }),
      decode.media.upload
    )
  }
  const fromSource = <A>(run: () => Promise<A>) =>
    Effect.tryPromise({
      try: run,
      catch: (cause) => invalidRequest([{ field: "source", detail: unreadableSource(cause) }], context)
    })

  // Sends one part, again after a failure that a retry can mend (a dropped connection, a 5xx,
  // a 429 after its Retry-After): a part is replaced whole, so sending it twice is harmless.
  const sendPart = (id: string, size: number, start: number, bytes: Uint8Array, attempts: number) => {
    const once = call(
      client.media.uploadPart({
        params: { id },
        headers: { "content-range": `bytes ${start}-${start + bytes.length - 1}/${size}` },
        payload: Stream.make(bytes),
        responseMode: "response-only"
      }),
      decode.media.uploadPart
    )
    const attempt = (left: number, delayMillis: number): Effect.Effect<MediaSchemas.MediaUpload, PostwireClientError> =>
      Effect.catch(once, (error) => {
        const mendable = error._tag !== "PostwireApiError" || error.status >= 500 || error.status === 429
        if (!mendable || left <= 1) return Effect.fail(error)
        const wait = error._tag === "PostwireApiError" && error.retryAfter !== undefined ? error.retryAfter * 1000 : delayMillis
        return Effect.sleep(wait).pipe(Effect.andThen(attempt(left - 1, Math.min(delayMillis * 2, 8_000))))
      })
    return attempt(Math.max(1, attempts), 500)
  }

  const uploadInParts = Effect.fn("postwire.media.uploadInParts")(function* (
    source: OpenedSource,
    options: MediaUploadOptions | undefined
  ) {
    const started = yield* call(
      client.media.createUpload({
        payload: { filename: source.filename ?? "upload", size: source.size },
        responseMode: "response-only"
      }),
      decode.media.createUpload
    )
    for (let n = 0; n < started.part_count; n++) {
      const start = n * started.part_size
      const length = Math.min(started.part_size, source.size - start)
      const bytes = yield* fromSource(() => source.read(start, length))
      const answer = yield* sendPart(started.id, source.size, start, bytes, options?.partAttempts ?? 5)
      options?.onProgress?.({ sentBytes: answer.bytes_received, totalBytes: source.size })
    }
    return yield* call(
      client.media.completeUpload({ params: { id: started.id }, responseMode: "response-only" }),
      decode.media.completeUpload
    )
  })

  const media: PostwireClientMedia = {
    upload: Effect.fn("postwire.media.upload")(function* (input: MediaSource, options?: MediaUploadOptions) {
      if ("data" in input && (typeof input.data === "string" ? input.data.length * 0.75 : input.data.length) <= maxInlineUploadBytes) {
        const uploaded = yield* uploadInline(input, options)
        options?.onProgress?.({ sentBytes: uploaded.size_bytes ?? 0, totalBytes: uploaded.size_bytes ?? 0 })
        return uploaded
      }
      return yield* Effect.acquireUseRelease(
        fromSource(() => openSource(input)),
        (source) =>
          source.size <= maxInlineUploadBytes
            ? fromSource(() => source.read(0, source.size)).pipe(
                Effect.flatMap((data) => uploadInline(source.filename === undefined ? { data } : { data, filename: source.filename }, options)),
                Effect.tap(() => Effect.sync(() => options?.onProgress?.({ sentBytes: source.size, totalBytes: source.size })))
              )
            : uploadInParts(source, options),
        (source) => Effect.promise(() => source.close().catch(() => undefined))
      )
    }),
    import: Effect.fn("postwire.media.import")(function* (input: ImportMediaInput, options?: CreateOptions) {
      return yield* call(
        client.media.upload({ payload: asContract(MediaSchemas.ImportMediaRequest, input), headers: idempotencyHeaders(options), responseMode: "response-only" }),
        decode.media.upload
      )
    }),
    list: Effect.fn("postwire.media.list")(function* (query?: ListMediaInput) {
      return yield* call(
        client.media.list({ query: asContract(MediaSchemas.ListMediaQuery, query ?? {}), responseMode: "response-only" }),
        decode.media.list
      )
    }),
    listAll: (query) => paginate(media.list, query ?? {}),
    get: Effect.fn("postwire.media.get")(function* (id: string) {
      const params = yield* checkId(id)
      return yield* call(client.media.get({ params, responseMode: "response-only" }), decode.media.get)
    }),
    delete: Effect.fn("postwire.media.delete")(function* (id: string) {
      const params = yield* checkId(id)
      return yield* call(client.media.delete({ params, responseMode: "response-only" }), decode.media.delete)
    })
  }

  const accounts: PostwireClientAccounts = {
    list: Effect.fn("postwire.accounts.list")(function* (query?: ListAccountsInput) {
      return yield* call(
        accountsClient.list({ query: asContract(AccountSchemas.ListAccountsQuery, query ?? {}), responseMode: "response-only" }),
        decode.accounts.list
      )
    }),
    listAll: (query) => paginate(accounts.list, query ?? {}),
    get: Effect.fn("postwire.accounts.get")(function* (id: string) {
      const params = yield* checkId(id)
      return yield* call(accountsClient.get({ params, responseMode: "response-only" }), decode.accounts.get)
    }),
    connect: Effect.fn("postwire.accounts.connect")(function* (body: ConnectAccountInput) {
      return yield* call(
        accountsClient.connect({ payload: asContract(AccountSchemas.ConnectAccountRequest, body), responseMode: "response-only" }),
        decode.accounts.connect
      )
    }),
    reconnect: Effect.fn("postwire.accounts.reconnect")(function* (id: string, body?: ReconnectAccountInput) {
      const params = yield* checkId(id)
      return yield* call(
        accountsClient.reconnect({
          params,
          payload: asContract(AccountSchemas.ReconnectAccountRequest, body ?? {}),
          responseMode: "response-only"
        }),
        decode.accounts.reconnect
      )
    }),
    disconnect: Effect.fn("postwire.accounts.disconnect")(function* (id: string) {
      const params = yield* checkId(id)
      return yield* call(accountsClient.disconnect({ params, responseMode: "response-only" }), decode.accounts.disconnect)
    })
  }

  const profiles: PostwireClientProfiles = {
    list: Effect.fn("postwire.profiles.list")(function* (query?: ListProfilesInput) {
      return yield* call(
        profilesClient.list({ query: asContract(AccountSchemas.ListProfilesQuery, query ?? {}), responseMode: "response-only" }),
        decode.profiles.list
      )
    }),
    listAll: (query) => paginate(profiles.list, query ?? {}),
    create: Effect.fn("postwire.profiles.create")(function* (body: CreateProfileInput) {
      return yield* call(
        profilesClient.create({ payload: asContract(AccountSchemas.CreateProfileRequest, body), responseMode: "response-only" }),
        decode.profiles.create
      )
    }),
    get: Effect.fn("postwire.profiles.get")(function* (id: string) {
      const params = yield* checkId(id)
      return yield* call(profilesClient.get({ params, responseMode: "response-only" }), decode.profiles.get)
    }),
    update: Effect.fn("postwire.profiles.update")(function* (id: string, body: UpdateProfileInput) {
      const params = yield* checkId(id)
      return yield* call(
        profilesClient.update({ params, payload: asContract(AccountSchemas.UpdateProfileRequest, body), responseMode: "response-only" }),
        decode.profiles.update
      )
    }),
    delete: Effect.fn("postwire.profiles.delete")(function* (id: string) {
      const params = yield* checkId(id)
      return yield* call(profilesClient.delete({ params, responseMode: "response-only" }), decode.profiles.delete)
    })
  }

  const webhooks: PostwireClientWebhooks = {
    create: Effect.fn("postwire.webhooks.create")(function* (body: CreateWebhookInput) {
      return yield* call(
        webhooksClient.create({
          payload: asContract(WebhookSchemas.CreateWebhookRequest, body),
          responseMode: "response-only"
        }),
        decode.webhooks.create
      )
    }),
    list: Effect.fn("postwire.webhooks.list")(function* (query?: ListWebhooksInput) {
      return yield* call(
        webhooksClient.list({ query: asContract(WebhookSchemas.ListWebhooksQuery, query ?? {}), responseMode: "response-only" }),
        decode.webhooks.list
      )
    }),
    listAll: (query) => paginate(webhooks.list, query ?? {}),
    delete: Effect.fn("postwire.webhooks.delete")(function* (id: string) {
      const params = yield* checkId(id)
      return yield* call(webhooksClient.delete({ params, responseMode: "response-only" }), decode.webhooks.delete)
    }),
    test: Effect.fn("postwire.webhooks.test")(function* (id: string) {
      const params = yield* checkId(id)
      return yield* call(webhooksClient.test({ params, responseMode: "response-only" }), decode.webhooks.test)
    }),
    get: Effect.fn("postwire.webhooks.get")(function* (id: string) {
      const params = yield* checkId(id)
      return yield* call(webhooksClient.get({ params, responseMode: "response-only" }), decode.webhooks.get)
    }),
    update: Effect.fn("postwire.webhooks.update")(function* (id: string, body: UpdateWebhookInput) {
      const params = yield* checkId(id)
      return yield* call(
        webhooksClient.update({
          params,
          payload: asContract(WebhookSchemas.UpdateWebhookRequest, body),
          responseMode: "response-only"
        }),
        decode.webhooks.update
      )
    }),
    rotateSecret: Effect.fn("postwire.webhooks.rotateSecret")(function* (id: string, body?: RotateSecretInput) {
      const params = yield* checkId(id)
      return yield* call(
        webhooksClient.rotateSecret({
          params,
          payload: asContract(WebhookSchemas.RotateSecretRequest, body ?? {}),
          responseMode: "response-only"
        }),
        decode.webhooks.rotateSecret
      )
    }),
    deliveries: {
      list: Effect.fn("postwire.webhooks.deliveries.list")(function* (endpointId: string, query?: ListDeliveriesInput) {
        const params = yield* checkId(endpointId)
        return yield* call(
          webhooksClient.listDeliveries({
            params,
            query: asContract(WebhookSchemas.ListDeliveriesQuery, query ?? {}),
            responseMode: "response-only"
          }),
          decode.webhooks.listDeliveries
        )
      }),
      listAll: (endpointId, query) => paginate((current) => webhooks.deliveries.list(endpointId, current), query ?? {}),
      get: Effect.fn("postwire.webhooks.deliveries.get")(function* (endpointId: string, deliveryId: string) {
        const { id } = yield* checkId(endpointId)
        const { delivery_id } = yield* checkPathParam("delivery_id", deliveryId)
        return yield* call(
          webhooksClient.getDelivery({ params: { id, delivery_id }, responseMode: "response-only" }),
          decode.webhooks.getDelivery
        )
      }),
      // Through the client that adds an Idempotency-Key: the server deduplicates redeliveries on it.
      redeliver: Effect.fn("postwire.webhooks.deliveries.redeliver")(function* (
        endpointId: string,
        deliveryId: string,
        options?: CreateOptions
      ) {
        const { id } = yield* checkId(endpointId)
        const { delivery_id } = yield* checkPathParam("delivery_id", deliveryId)
        return yield* call(
          client.webhooks.redeliver({
            params: { id, delivery_id },
            headers: idempotencyHeaders(options),
            responseMode: "response-only"
          }),
          decode.webhooks.redeliver
        )
      })
    }
  }

  const events: PostwireClientEvents = {
    list: Effect.fn("postwire.events.list")(function* (query?: ListEventsInput) {
      return yield* call(
        client.events.list({ query: asContract(WebhookSchemas.ListEventsQuery, query ?? {}), responseMode: "response-only" }),
        decode.events.list
      )
    }),
    listAll: (query) => paginate(events.list, query ?? {}),
    get: Effect.fn("postwire.events.get")(function* (id: string) {
      const params = yield* checkId(id)
      return yield* call(client.events.get({ params, responseMode: "response-only" }), decode.events.get)
    })
  }

  const approvals: PostwireClientApprovals = {
    decide: Effect.fn("postwire.approvals.decide")(function* (token: string, body: DecideApprovalInput) {
      const params = yield* checkPathParam("token", token)
      return yield* call(
        approvalsClient.decide({
          params,
          payload: asContract(ApprovalSchemas.DecisionRequest, body),
          responseMode: "response-only"
        }),
        decode.approvals.decide
      )
    })
  }

  return { posts, media, accounts, profiles, webhooks, approvals, events, comments }
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
