/**
 * The HTTP contract of Postwire, `/v1`: one definition from which the server, the client and
 * the OpenAPI document are derived.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  Account,
  AccountList,
  ConnectAccountRequest,
  ConnectLink,
  CreateProfileRequest,
  DeletedProfile,
  ListAccountsQuery,
  ListProfilesQuery,
  Profile,
  ProfileList,
  ReconnectAccountRequest,
  UpdateProfileRequest
} from "./Account.ts"
import { ApprovalsGroup } from "./ApprovalsGroup.ts"
import { ApiErrors, Authentication, RateLimitBucket, RequiredScope } from "./Auth.ts"
import { EventsGroup } from "./EventsGroup.ts"
import {
  CreateMediaRequest,
  CreateUploadRequest,
  DeletedMedia,
  ListMediaQuery,
  maxInlineUploadBytes,
  Media,
  MediaList,
  MediaUpload,
  UploadMediaForm,
  UploadPartHeaders,
  uploadPartBytes
} from "./Media.ts"
import {
  CreatePostBatchRequest,
  CreatePostBatchResponse,
  createPostExamples,
  CreatePostRequest,
  CreatePostResponse,
  ListPostsQuery,
  Post,
  PostList,
  RetryPostResponse,
  UpdatePostRequest,
  ValidatePostResponse
} from "./Post.ts"
import { WebhooksGroup } from "./WebhooksGroup.ts"
import { CommentsGroup } from "./CommentsGroup.ts"
import { AnalyticsGroup } from "./AnalyticsGroup.ts"
import { IdempotencyHeaders } from "./Idempotency.ts"

export { IdempotencyHeaders } from "./Idempotency.ts"

/**
 * Shows named request examples in the API reference: viewers offer them as a choice, where a
 * schema's `examples` alone give one body.
 */
const withRequestExamples =
  (examples: Readonly<Record<string, { readonly summary: string; readonly value: unknown }>>) =>
  (operation: Record<string, unknown>): Record<string, unknown> => {
    const json = (operation as Partial<OpenApi.OpenAPISpecOperation>).requestBody?.content["application/json"]
    if (json !== undefined) Object.assign(json, { examples: structuredClone(examples) })
    return operation
  }

/** Copies each parameter's schema description onto the parameter, where API viewers read it. */
const describeParameters = (spec: Record<string, unknown>): Record<string, unknown> => {
  for (const pathItem of Object.values((spec as Partial<OpenApi.OpenAPISpec>).paths ?? {})) {
    for (const operation of Object.values(pathItem) as Array<Partial<OpenApi.OpenAPISpecOperation> | undefined>) {
      for (const parameter of operation?.parameters ?? []) {
        const description = (parameter.schema as { readonly description?: unknown }).description
        if (parameter.description === undefined && typeof description === "string") {
          parameter.description = description
        }
      }
    }
  }
  return spec
}

const integerHeader = (description: string) => ({ description, schema: { type: "integer" } })

/**
 * Documents the headers the server adds to answers: the rate-limit headers on every answer of
 * a rate-limited operation (errors included), `Retry-After` on a 429, and `Idempotent-Replayed`
 * where an `Idempotency-Key` is accepted.
 */
const describeResponseHeaders = (spec: Record<string, unknown>): Record<string, unknown> => {
  for (const pathItem of Object.values((spec as Partial<OpenApi.OpenAPISpec>).paths ?? {})) {
    for (const operation of Object.values(pathItem) as Array<Partial<OpenApi.OpenAPISpecOperation> | undefined>) {
      if (operation?.responses === undefined || operation.operationId === "health") continue
      const idempotent = (operation.parameters ?? []).some((p) => p.name === "idempotency-key")
      for (const [status, response] of Object.entries(operation.responses)) {
        const headers: Record<string, unknown> = {
          "X-RateLimit-Limit": integerHeader("Requests allowed in the current one-minute window, for the tightest limit that applied."),
          "X-RateLimit-Remaining": integerHeader("Requests left in the current window."),
          "X-RateLimit-Reset": integerHeader("When the current window ends, in Unix seconds.")
        }
        if (status === "429") headers["Retry-After"] = integerHeader("Seconds to wait before sending again.")
        if (idempotent && status.startsWith("2")) {
          headers["Idempotent-Replayed"] = {
            description: "`true` when this answer replays an earlier request with the same `Idempotency-Key`; absent otherwise.",
            schema: { type: "string", enum: ["true"] }
          }
        }
        Object.assign(response, { headers: { ...response.headers, ...headers } })
      }
    }
  }
  return spec
}

const idParams = {
  /** Identifier of the resource the path names: `post_…` under `/v1/posts`, `acc_…` under `/v1/accounts`, `med_…` under `/v1/media`. An unknown id, or one of another workspace, is 404 `not_found`. */
  id: Schema.String.annotate({ description: "Identifier of the resource the path names: `post_…` under `/v1/posts`, `acc_…` under `/v1/accounts`, `med_…` under `/v1/media`. An unknown id, or one of another workspace, is 404 `not_found`." })
}

/** Posts: create (one or a batch), validate, list, get, update, cancel, retry. */
export class PostsGroup extends HttpApiGroup.make("posts")
  .add(
    HttpApiEndpoint.post("create", "/", {
      headers: IdempotencyHeaders,
      payload: CreatePostRequest,
      success: CreatePostResponse.pipe(HttpApiSchema.status(201))
    })
      .annotate(RequiredScope, "posts:write")
      .annotate(RateLimitBucket, "posts.create")
      .annotate(OpenApi.Transform, withRequestExamples(createPostExamples))
      .annotate(OpenApi.Summary, "Create a post")
      .annotate(
        OpenApi.Description,
        "Creates a post with one target per entry of `targets`. With `approval.mode` `link` (the default) every target " +
          "waits in `awaiting_approval` and the answer carries the approval link; with `none` each target goes to `scheduled` " +
          "(when `scheduled_at` is ahead) or `queued`. A shortvideo `direct` target with `approval.mode` `none` needs " +
          "`consent` (422 `consent_required`). Platform rules (caption length, media, quota) are 422 with every problem in " +
          "`error.issues`. Send `Idempotency-Key` to make retries safe. Scope `posts:write`; 30 requests a minute per key."
      ),
    HttpApiEndpoint.post("createBatch", "/batch", {
      headers: IdempotencyHeaders,
      payload: CreatePostBatchRequest,
      success: CreatePostBatchResponse
    })
      .annotate(RequiredScope, "posts:write")
      .annotate(RateLimitBucket, "posts.create")
      .annotate(OpenApi.Summary, "Create posts in a batch")
      .annotate(
        OpenApi.Description,
        "Creates up to 31 posts in one call, each item with the body and the rules of `POST /v1/posts`, each created or " +
          "refused on its own. Answers 200 once the batch is understood, with one result per item in order: its `index`, " +
          "the `status` it would have had alone, and the created `post` or the `error`. An item whose `scheduled_at` falls " +
          "on a calendar day (in the offset it was written in) on which one of its accounts is already full is refused " +
          "with 429 `quota_exceeded_for_day`, naming `items[i].scheduled_at` and the account; items of one batch count " +
          "against each other. A body that does not match the schema, or 0 or more than 31 items, is a 400 for the whole " +
          "batch. One `Idempotency-Key` covers the whole batch. Counts as one request toward the key's limit and the 30 " +
          "a minute of `POST /v1/posts`. Scope `posts:write`."
      ),
    HttpApiEndpoint.post("validate", "/validate", {
      payload: CreatePostRequest,
      success: ValidatePostResponse
    })
      .annotate(RequiredScope, "posts:write")
      .annotate(OpenApi.Transform, withRequestExamples(createPostExamples))
      .annotate(OpenApi.Summary, "Validate a post without saving it")
      .annotate(
        OpenApi.Description,
        "Runs the checks of `POST /v1/posts` on the body and lists every problem in `issues` (unknown accounts, media " +
          "rules, caption length, consent, quota), empty when the post would be accepted. Nothing is saved, no approval " +
          "link is made and no quota is used. A body that does not match the schema is still a 400. Scope `posts:write`."
      ),
    HttpApiEndpoint.get("list", "/", { query: ListPostsQuery, success: PostList })
      .annotate(RequiredScope, "posts:read")
      .annotate(OpenApi.Summary, "List posts")
      .annotate(
        OpenApi.Description,
        "Lists posts newest first by publish time (`scheduled_at`, else `created_at`), filtered by `status`, " +
          "`profile_id`, `platform` and the range `from` (inclusive) to `to` (exclusive). Pages hold `limit` posts " +
          "(25 by default); follow `cursor.next` while `cursor.has_more` is true, with the same filters. Scope `posts:read`."
      ),
    HttpApiEndpoint.get("get", "/:id", { params: idParams, success: Post })
      .annotate(RequiredScope, "posts:read")
      .annotate(OpenApi.Summary, "Retrieve a post")
      .annotate(
        OpenApi.Description,
        "Retrieves a post with its approval and each target's status, permalink or error. A post of another workspace " +
          "is 404 `not_found`. Scope `posts:read`."
      ),
    HttpApiEndpoint.patch("update", "/:id", { params: idParams, payload: UpdatePostRequest, success: Post })
      .annotate(RequiredScope, "posts:write")
      .annotate(OpenApi.Summary, "Update a post's caption or schedule")
      .annotate(
        OpenApi.Description,
        "Changes the caption and/or `scheduled_at` while no target has started publishing (409 `invalid_state` " +
          "after). A caption change after approval sends a `link` post back to `awaiting_approval` with a new approval " +
          "link; a new `scheduled_at` still ahead on a scheduled post sends `post.scheduled` again. Answers the post. " +
          "Scope `posts:write`."
      ),
    HttpApiEndpoint.post("cancel", "/:id/cancel", { params: idParams, success: Post })
      .annotate(RequiredScope, "posts:write")
      .annotate(OpenApi.Summary, "Cancel a post")
      .annotate(
        OpenApi.Description,
        "Stops a post: published targets stay published, the others become `cancelled`. Refused with 409 " +
          "`invalid_state` while a target is publishing, and when every target has already finished. Answers the post. " +
          "Accepts `Idempotency-Key`. Scope `posts:write`."
      ),
    HttpApiEndpoint.post("retry", "/:id/retry", { params: idParams, success: RetryPostResponse })
      .annotate(RequiredScope, "posts:write")
      .annotate(OpenApi.Summary, "Retry failed targets")
      .annotate(
        OpenApi.Description,
        "Queues again the targets that failed with `retryable: true`, continuing from what the platform already has " +
          "(a container already made is published, not made again). Published targets are never retried. Nothing to " +
          "retry is 409 `invalid_state`. Accepts `Idempotency-Key`. Scope `posts:write`."
      )
  )
  .middleware(Authentication)
  .prefix("/v1/posts")
  .annotate(
    OpenApi.Description,
    "A post is a caption plus media sent to one or more targets (accounts). Each target has its own status " +
      "(`awaiting_approval`, `scheduled`, `queued`, `publishing`, `published`, `failed`, `cancelled`, `rejected`) and " +
      "publishes independently; the post's status is derived from its targets."
  ) {}

/** Accounts, with each one's posting quota. */
export class AccountsGroup extends HttpApiGroup.make("accounts")
  .add(
    HttpApiEndpoint.get("list", "/", { query: ListAccountsQuery, success: AccountList })
      .annotate(RequiredScope, "posts:read")
      .annotate(OpenApi.Summary, "List accounts")
      .annotate(
        OpenApi.Description,
        "Lists the workspace's accounts, newest first, filtered by `profile_id` and `platform`. Scope `posts:read`."
      ),
    HttpApiEndpoint.get("get", "/:id", { params: idParams, success: Account })
      .annotate(RequiredScope, "posts:read")
      .annotate(OpenApi.Summary, "Retrieve an account and its quota")
      .annotate(
        OpenApi.Description,
        "Retrieves an account with its connection status and its posting quota over the last 24 hours. Scope " +
          "`posts:read`."
      ),
    HttpApiEndpoint.post("connect", "/connect", {
      payload: ConnectAccountRequest,
      success: ConnectLink.pipe(HttpApiSchema.status(201))
    })
      .annotate(RequiredScope, "accounts:write")
      .annotate(OpenApi.Summary, "Make a link that connects an account")
      .annotate(
        OpenApi.Description,
        "A single-use link, valid 30 minutes, that a person opens in a browser to connect one of their accounts (for `pages`, one account per Facebook Page they pick)."
      ),
    HttpApiEndpoint.post("reconnect", "/:id/reconnect", {
      params: idParams,
      // The body is optional: none, or an empty one, is `{}`.
      payload: [ReconnectAccountRequest, Schema.Null],
      success: ConnectLink.pipe(HttpApiSchema.status(201))
    })
      .annotate(RequiredScope, "accounts:write")
      .annotate(OpenApi.Summary, "Make a link that connects an account again")
      .annotate(
        OpenApi.Description,
        "A single-use link, valid 30 minutes, for the person who owns the account to grant access again (an account in " +
          "`needs_reconnect`, or to renew its permissions). Completing it renews the same account: its id, profile and " +
          "posts are kept. The body may be empty (no `redirect_url`). Scope `accounts:write`."
      ),
    HttpApiEndpoint.delete("disconnect", "/:id", { params: idParams, success: Account })
      .annotate(RequiredScope, "accounts:write")
      .annotate(OpenApi.Summary, "Disconnect an account")
      .annotate(
        OpenApi.Description,
        "Revokes the token at the platform where it offers that, erases the stored credentials and marks the account `disconnected`; its queued and scheduled targets fail with `token_expired`."
      )
  )
  .middleware(Authentication)
  .prefix("/v1/accounts")
  .annotate(OpenApi.Description, "The social accounts posts publish to, with each one's posting quota.") {}

/** Profiles. */
export class ProfilesGroup extends HttpApiGroup.make("profiles")
  .add(
    HttpApiEndpoint.get("list", "/", { query: ListProfilesQuery, success: ProfileList })
      .annotate(RequiredScope, "posts:read")
      .annotate(OpenApi.Summary, "List profiles")
      .annotate(
        OpenApi.Description,
        "Lists the workspace's profiles, newest first. Scope `posts:read`."
      ),
    HttpApiEndpoint.post("create", "/", { payload: CreateProfileRequest, success: Profile.pipe(HttpApiSchema.status(201)) })
      .annotate(RequiredScope, "accounts:write")
      .annotate(OpenApi.Summary, "Create a profile")
      .annotate(OpenApi.Description, "Creates an empty profile; connect accounts to it with `POST /v1/accounts/connect`. Scope `accounts:write`."),
    HttpApiEndpoint.get("get", "/:id", { params: idParams, success: Profile })
      .annotate(RequiredScope, "posts:read")
      .annotate(OpenApi.Summary, "Retrieve a profile")
      .annotate(OpenApi.Description, "Retrieves a profile. A profile of another workspace is 404 `not_found`. Scope `posts:read`."),
    HttpApiEndpoint.patch("update", "/:id", { params: idParams, payload: UpdateProfileRequest, success: Profile })
      .annotate(RequiredScope, "accounts:write")
      .annotate(OpenApi.Summary, "Rename a profile")
      .annotate(OpenApi.Description, "Changes the profile's name and answers the profile. Scope `accounts:write`."),
    HttpApiEndpoint.delete("delete", "/:id", { params: idParams, success: DeletedProfile })
      .annotate(RequiredScope, "accounts:write")
      .annotate(OpenApi.Summary, "Delete a profile")
      .annotate(
        OpenApi.Description,
        "Refused with 409 `invalid_state` while the profile has accounts that are not disconnected, or posts that have not finished."
      )
  )
  .middleware(Authentication)
  .prefix("/v1/profiles")
  .annotate(OpenApi.Description, "Profiles group the accounts that publish together (a brand, a client).") {}

/** A form's file field has no schema of its own to carry a description: it is added here. */
const describeFormFile = (operation: Record<string, unknown>): Record<string, unknown> => {
  const form = (operation as Partial<OpenApi.OpenAPISpecOperation>).requestBody?.content["multipart/form-data"]
  const file = (form?.schema as { properties?: Record<string, Record<string, unknown>> } | undefined)?.properties?.file
  if (file !== undefined) {
    file.description =
      "The file, at most 10 MiB (400 `payload_too_large`); JPEG, PNG, WebP, MP4 or QuickTime, read from the bytes."
  }
  return operation
}

const uploadParams = {
  /** The media item's id, `med_…`, as `POST /v1/media/uploads` answered it. An unknown id, or one of another workspace, is 404 `not_found`. */
  id: Schema.String.annotate({ description: "The media item's id, `med_…`, as `POST /v1/media/uploads` answered it. An unknown id, or one of another workspace, is 404 `not_found`." })
}

/** Media: uploads (inline, form, resumable in parts), URL imports, list, retrieval and deletion. */
export class MediaGroup extends HttpApiGroup.make("media")
  .add(
    HttpApiEndpoint.post("upload", "/", {
      headers: IdempotencyHeaders,
      payload: [CreateMediaRequest, UploadMediaForm.pipe(HttpApiSchema.asMultipart({ maxFileSize: maxInlineUploadBytes }))],
      success: [Media.pipe(HttpApiSchema.status(201)), Media.pipe(HttpApiSchema.status(202))]
    })
      .annotate(RequiredScope, "posts:write")
      .annotate(OpenApi.Transform, describeFormFile)
      .annotate(OpenApi.Summary, "Upload media (inline, form) or import it from a URL")
      .annotate(
        OpenApi.Description,
        "With `data`, uploads an image or a video as base64, at most 10 MiB decoded; as `multipart/form-data`, the " +
          "same from a form field named `file` (`curl -F file=@photo.jpg`). The type is read from the bytes (JPEG, PNG, " +
          "WebP, MP4 or QuickTime), with its size, dimensions, duration and codec; the answer is 201 with the item `ready`. " +
          "With `url`, the file is fetched in the background from a public https address (at most 4 GiB): the answer is " +
          "202 with the item `processing`; poll `GET /v1/media/{id}` or name it in a post at once (its targets wait). " +
          "Larger files go through `POST /v1/media/uploads`. Accepts `Idempotency-Key`. Scope `posts:write`."
      ),
    HttpApiEndpoint.get("list", "/", { query: ListMediaQuery, success: MediaList })
      .annotate(RequiredScope, "posts:read")
      .annotate(OpenApi.Summary, "List media")
      .annotate(OpenApi.Description, "Lists the workspace's media items, newest first, in every status. Scope `posts:read`."),
    HttpApiEndpoint.get("get", "/:id", { params: idParams, success: Media })
      .annotate(RequiredScope, "posts:read")
      .annotate(OpenApi.Summary, "Retrieve a media item")
      .annotate(
        OpenApi.Description,
        "Retrieves a media item with its status: poll it after an import or a completed upload. Scope `posts:read`."
      ),
    HttpApiEndpoint.delete("delete", "/:id", { params: idParams, success: DeletedMedia })
      .annotate(RequiredScope, "posts:write")
      .annotate(OpenApi.Summary, "Delete a media item")
      .annotate(
        OpenApi.Description,
        "Deletes a media item and its bytes (an unfinished upload with its parts). Refused with 409 `invalid_state` " +
          "while a post that has not finished publishing uses it. Scope `posts:write`."
      ),
    HttpApiEndpoint.post("createUpload", "/uploads", {
      payload: CreateUploadRequest,
      success: MediaUpload.pipe(HttpApiSchema.status(201))
    })
      .annotate(RequiredScope, "posts:write")
      .annotate(OpenApi.Summary, "Start a resumable upload")
      .annotate(
        OpenApi.Description,
        "Starts an upload of a file of up to 4 GiB sent in parts, and creates its media item in `processing`. Then " +
          "`PUT` each part to `upload_url` (any order, each retried alone), `GET` it to see which parts arrived (to " +
          "resume after a crash), and `POST` to `{upload_url}/complete`. An upload not completed within 24 hours " +
          "expires and is deleted. Scope `posts:write`."
      ),
    HttpApiEndpoint.get("getUpload", "/uploads/:id", { params: uploadParams, success: MediaUpload })
      .annotate(RequiredScope, "posts:read")
      .annotate(OpenApi.Summary, "See which parts of an upload arrived")
      .annotate(
        OpenApi.Description,
        "Answers the upload with `parts_received`: send the parts missing from it, then complete. Scope `posts:read`."
      ),
    HttpApiEndpoint.put("uploadPart", "/uploads/:id", {
      params: uploadParams,
      headers: UploadPartHeaders,
      payload: HttpApiSchema.StreamUint8Array({ contentType: "application/octet-stream", maxBytes: uploadPartBytes }),
      success: MediaUpload
    })
      .annotate(RequiredScope, "posts:write")
      .annotate(OpenApi.Summary, "Send one part of an upload")
      .annotate(
        OpenApi.Description,
        "Stores one whole part, its bytes as the body (`application/octet-stream`) and its place in " +
          "`Content-Range: bytes start-end/size`. The body is streamed to storage, never held in memory. A part cut " +
          "short is not stored: send it again. Sending a part again replaces it. 400 `invalid_request` naming " +
          "`content-range` when the range is not one whole part; 409 `invalid_state` after completion or expiry. " +
          "Answers the upload. Scope `posts:write`."
      ),
    HttpApiEndpoint.post("completeUpload", "/uploads/:id/complete", { params: uploadParams, success: Media })
      .annotate(RequiredScope, "posts:write")
      .annotate(OpenApi.Summary, "Complete an upload")
      .annotate(
        OpenApi.Description,
        "Checks that every part arrived (409 `invalid_state` listing what is missing), joins them into the file " +
          "(streamed, in storage), reads its type, dimensions, duration and codec from the bytes, and answers the media " +
          "item `ready`. Bytes of another format make the item `failed` with `unsupported_format` (also the answer, " +
          "400). Calling it again answers the item. Scope `posts:write`."
      )
  )
  .middleware(Authentication)
  .prefix("/v1/media")
  .annotate(
    OpenApi.Description,
    "Images and videos to publish: uploaded inline or as a form (up to 10 MiB), in resumable parts (up to 4 GiB), " +
      "or imported from a URL. Each item is `processing`, `ready` or `failed`; posts may name it before it is ready."
  ) {}

/** Liveness. */
export class SystemGroup extends HttpApiGroup.make("system", { topLevel: true }).add(
  HttpApiEndpoint.get("health", "/health", {
    success: Schema.Struct({
      /** Always `ok`. */
      status: Schema.Literal("ok").annotate({ description: "Always `ok`." })
    }).annotate({ description: "The server is running." })
  })
    .annotate(OpenApi.Summary, "Health check")
    .annotate(OpenApi.Description, "Answers 200 while the server runs. No API key needed; not rate limited.")
).annotate(OpenApi.Description, "Liveness, for load balancers and orchestrators.") {}

const strictInput = { onExcessProperty: "error", errors: "all" } as const

/** The Postwire API. */
export class Api extends HttpApi.make("postwire")
  .add(PostsGroup)
  .add(AccountsGroup)
  .add(ProfilesGroup)
  .add(MediaGroup)
  .add(WebhooksGroup)
  .add(ApprovalsGroup)
  .add(SystemGroup)
  .add(EventsGroup)
  .add(CommentsGroup)
  .add(AnalyticsGroup)
  .middleware(ApiErrors)
  .annotate(HttpApi.PayloadParseOptions, strictInput)
  .annotate(HttpApi.QueryParseOptions, strictInput)
  .annotate(HttpApi.ParamsParseOptions, { errors: "all" })
  .annotate(HttpApi.HeadersParseOptions, { errors: "all" })
  .annotateMerge(
    OpenApi.annotations({
      title: "Postwire API",
      version: "1",
      description:
        "Publish a caption plus media to many social accounts. Every error has one shape: " +
        "`{ error: { code, message, message_id, target_id?, field?, retryable, docs } }`." +
        "\n\n**Authentication**: `Authorization: Bearer <API key>`. Test keys (`svc_test_…`) post to sandbox " +
        "accounts only; live keys (`svc_live_…`) to real ones. Scopes: `posts:read`, `posts:write`, `webhooks:write`, `accounts:write`, `comments:write`, `analytics:read`." +
        "\n\n**Errors**: branch on `code`; `message` follows `Accept-Language` (`id` for Indonesian) and " +
        "`message_id` is always Indonesian. Every code is listed, with its status and retryability, at `/docs/errors`." +
        "\n\n**Rate limits**: 120 requests a minute per key, 30 a minute for `POST /v1/posts` (server defaults). " +
        "Every answer carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (Unix seconds); " +
        "a 429 carries `Retry-After` (seconds)." +
        "\n\n**Lists** are newest first and paged with an opaque `cursor`: follow `cursor.next` while " +
        "`cursor.has_more` is true, with the same filters. `limit` is 1 to 100 (default 25)." +
        "\n\n**Idempotency**: send `Idempotency-Key` on `POST /v1/posts`, `POST /v1/media` and the cancel and " +
        "retry actions; a repeat within 24 hours gets the first answer with `Idempotent-Replayed: true`." +
        "\n\n**Times** are ISO 8601: answers in UTC with milliseconds, requests with an offset (`Z` or `+07:00`).",
      transform: (spec) => describeResponseHeaders(describeParameters(spec))
    })
  ) {}
