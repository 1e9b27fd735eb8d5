/**
 * Comments in the contract, `/v1/comments`: list and read what people write under published
 * posts, answer as the account, hide, show again and delete. Reading needs `posts:read`;
 * answering and moderating need `comments:write`.
 *
 * @since 0.3.0
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Authentication, RequiredScope } from "./Auth.ts"
import { Comment, CommentList, DeletedComment, ListCommentsQuery, ReplyToCommentRequest } from "./Comment.ts"
import { IdempotencyHeaders } from "./Idempotency.ts"

const idParams = {
  /** The comment's id, `cmt_…`. An unknown id, or one of another workspace, is 404 `not_found`. */
  id: Schema.String.annotate({
    description: "The comment's id, `cmt_…`. An unknown id, or one of another workspace, is 404 `not_found`."
  })
}

const refusals =
  "A platform refusal is normalized like a publishing error (`permission_missing` when the account lacks the comment " +
  "permission, `token_expired`, `platform_unavailable`); an action the platform does not offer is 422 " +
  "`comment_action_unsupported`."

/** Comments: list, get, reply, hide, unhide, delete. */
export class CommentsGroup extends HttpApiGroup.make("comments")
  .add(
    HttpApiEndpoint.get("list", "/", { query: ListCommentsQuery, success: CommentList })
      .annotate(RequiredScope, "posts:read")
      .annotate(OpenApi.Summary, "List comments")
      .annotate(
        OpenApi.Description,
        "Lists the comments under the workspace's published posts, newest first by the time they were written, " +
          "filtered by `post_id`, `target_id`, `account_id`, `platform`, `hidden` and the range `from` (inclusive) to " +
          "`to` (exclusive). New comments arrive by polling (often while a post is young, rarer later, not after 30 days) " +
          "and, where the platform pushes them, within seconds. Scope `posts:read`."
      ),
    HttpApiEndpoint.get("get", "/:id", { params: idParams, success: Comment })
      .annotate(RequiredScope, "posts:read")
      .annotate(OpenApi.Summary, "Retrieve a comment")
      .annotate(OpenApi.Description, "Retrieves one comment. Scope `posts:read`."),
    HttpApiEndpoint.post("reply", "/:id/replies", {
      params: idParams,
      headers: IdempotencyHeaders,
      payload: ReplyToCommentRequest,
      success: Comment.pipe(HttpApiSchema.status(201))
    })
      .annotate(RequiredScope, "comments:write")
      .annotate(OpenApi.Summary, "Answer a comment")
      .annotate(
        OpenApi.Description,
        "Publishes `text` on the platform as the account, as an answer to the comment, and answers the new comment " +
          "(it is listed like any other and announced with `comment.created`). Send `Idempotency-Key` to make retries " +
          `safe. ${refusals} Scope \`comments:write\`.`
      ),
    HttpApiEndpoint.post("hide", "/:id/hide", { params: idParams, success: Comment })
      .annotate(RequiredScope, "comments:write")
      .annotate(OpenApi.Summary, "Hide a comment")
      .annotate(
        OpenApi.Description,
        `Hides the comment from the public on the platform and answers it with \`hidden: true\`. ${refusals} Scope \`comments:write\`.`
      ),
    HttpApiEndpoint.post("unhide", "/:id/unhide", { params: idParams, success: Comment })
      .annotate(RequiredScope, "comments:write")
      .annotate(OpenApi.Summary, "Show a hidden comment again")
      .annotate(
        OpenApi.Description,
        `Shows a hidden comment again on the platform and answers it with \`hidden: false\`. ${refusals} Scope \`comments:write\`.`
      ),
    HttpApiEndpoint.delete("delete", "/:id", { params: idParams, success: DeletedComment })
      .annotate(RequiredScope, "comments:write")
      .annotate(OpenApi.Summary, "Delete a comment")
      .annotate(
        OpenApi.Description,
        `Deletes the comment on the platform; it is no longer listed. ${refusals} Scope \`comments:write\`.`
      )
  )
  .middleware(Authentication)
  .prefix("/v1/comments")
  .annotate(
    OpenApi.Description,
    "What people write under published posts: read it, answer as the account, hide, show again and delete."
  ) {}
