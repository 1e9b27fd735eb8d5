/**
 * The posts endpoints of the contract, `/v1/posts`: create (one or a batch), validate, list,
 * read, change, cancel and retry. Reading needs `posts:read`; every change needs `posts:write`.
 *
 * @since 0.1.0
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Authentication, RateLimitBucket, RequiredScope } from "./Auth.ts"
import { IdempotencyHeaders } from "./Idempotency.ts"
import { idParams } from "./PathParams.ts"
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
