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
import { Media, UploadMediaRequest } from "./Media.ts"
import {
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

const idParams = { id: Schema.String }

/** The optional `Idempotency-Key` header of POST requests. */
export const IdempotencyHeaders = Schema.Struct({
  "idempotency-key": Schema.optionalKey(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(255)))
})

/** Posts: create, validate, list, get, update, cancel, retry. */
export class PostsGroup extends HttpApiGroup.make("posts")
  .add(
    HttpApiEndpoint.post("create", "/", {
      headers: IdempotencyHeaders,
      payload: CreatePostRequest,
      success: CreatePostResponse.pipe(HttpApiSchema.status(201))
    })
      .annotate(RequiredScope, "posts:write")
      .annotate(RateLimitBucket, "posts.create")
      .annotate(OpenApi.Summary, "Create a post"),
    HttpApiEndpoint.post("validate", "/validate", {
      payload: CreatePostRequest,
      success: ValidatePostResponse
    })
      .annotate(RequiredScope, "posts:write")
      .annotate(OpenApi.Summary, "Validate a post without saving it"),
    HttpApiEndpoint.get("list", "/", { query: ListPostsQuery, success: PostList })
      .annotate(RequiredScope, "posts:read")
      .annotate(OpenApi.Summary, "List posts"),
    HttpApiEndpoint.get("get", "/:id", { params: idParams, success: Post })
      .annotate(RequiredScope, "posts:read")
      .annotate(OpenApi.Summary, "Retrieve a post"),
    HttpApiEndpoint.patch("update", "/:id", { params: idParams, payload: UpdatePostRequest, success: Post })
      .annotate(RequiredScope, "posts:write")
      .annotate(OpenApi.Summary, "Update a post's caption or schedule"),
    HttpApiEndpoint.post("cancel", "/:id/cancel", { params: idParams, success: Post })
      .annotate(RequiredScope, "posts:write")
      .annotate(OpenApi.Summary, "Cancel a post"),
    HttpApiEndpoint.post("retry", "/:id/retry", { params: idParams, success: RetryPostResponse })
      .annotate(RequiredScope, "posts:write")
      .annotate(OpenApi.Summary, "Retry failed targets")
  )
  .middleware(Authentication)
  .prefix("/v1/posts")
  .annotate(OpenApi.Description, "A post is a caption plus media sent to one or more targets.") {}

/** Accounts, with each one's posting quota. */
export class AccountsGroup extends HttpApiGroup.make("accounts")
  .add(
    HttpApiEndpoint.get("list", "/", { query: ListAccountsQuery, success: AccountList })
      .annotate(RequiredScope, "posts:read")
      .annotate(OpenApi.Summary, "List accounts"),
    HttpApiEndpoint.get("get", "/:id", { params: idParams, success: Account })
      .annotate(RequiredScope, "posts:read")
      .annotate(OpenApi.Summary, "Retrieve an account and its quota"),
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
      payload: ReconnectAccountRequest,
      success: ConnectLink.pipe(HttpApiSchema.status(201))
    })
      .annotate(RequiredScope, "accounts:write")
      .annotate(OpenApi.Summary, "Make a link that connects an account again"),
    HttpApiEndpoint.delete("disconnect", "/:id", { params: idParams, success: Account })
      .annotate(RequiredScope, "accounts:write")
      .annotate(OpenApi.Summary, "Disconnect an account")
      .annotate(
        OpenApi.Description,
        "Revokes the token at the platform where it offers that, erases the stored credentials and marks the account `disconnected`; its queued and scheduled targets fail with `token_expired`."
      )
  )
  .middleware(Authentication)
  .prefix("/v1/accounts") {}

/** Profiles. */
export class ProfilesGroup extends HttpApiGroup.make("profiles")
  .add(
    HttpApiEndpoint.get("list", "/", { query: ListProfilesQuery, success: ProfileList })
      .annotate(RequiredScope, "posts:read")
      .annotate(OpenApi.Summary, "List profiles"),
    HttpApiEndpoint.post("create", "/", { payload: CreateProfileRequest, success: Profile.pipe(HttpApiSchema.status(201)) })
      .annotate(RequiredScope, "accounts:write")
      .annotate(OpenApi.Summary, "Create a profile"),
    HttpApiEndpoint.get("get", "/:id", { params: idParams, success: Profile })
      .annotate(RequiredScope, "posts:read")
      .annotate(OpenApi.Summary, "Retrieve a profile"),
    HttpApiEndpoint.patch("update", "/:id", { params: idParams, payload: UpdateProfileRequest, success: Profile })
      .annotate(RequiredScope, "accounts:write")
      .annotate(OpenApi.Summary, "Rename a profile"),
    HttpApiEndpoint.delete("delete", "/:id", { params: idParams, success: DeletedProfile })
      .annotate(RequiredScope, "accounts:write")
      .annotate(OpenApi.Summary, "Delete a profile")
      .annotate(
        OpenApi.Description,
        "Refused with 409 `invalid_state` while the profile has accounts that are not disconnected, or posts that have not finished."
      )
  )
  .middleware(Authentication)
  .prefix("/v1/profiles") {}

/** Media: inline upload and retrieval. */
export class MediaGroup extends HttpApiGroup.make("media")
  .add(
    HttpApiEndpoint.post("upload", "/", {
      headers: IdempotencyHeaders,
      payload: UploadMediaRequest,
      success: Media.pipe(HttpApiSchema.status(201))
    })
      .annotate(RequiredScope, "posts:write")
      .annotate(OpenApi.Summary, "Upload media (inline base64)"),
    HttpApiEndpoint.get("get", "/:id", { params: idParams, success: Media })
      .annotate(RequiredScope, "posts:read")
      .annotate(OpenApi.Summary, "Retrieve a media item")
  )
  .middleware(Authentication)
  .prefix("/v1/media") {}

/** Liveness. */
export class SystemGroup extends HttpApiGroup.make("system", { topLevel: true }).add(
  HttpApiEndpoint.get("health", "/health", {
    success: Schema.Struct({ status: Schema.Literal("ok") })
  }).annotate(OpenApi.Summary, "Health check")
) {}

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
        "`{ error: { code, message, message_id, target_id?, field?, retryable, docs } }`."
    })
  ) {}
