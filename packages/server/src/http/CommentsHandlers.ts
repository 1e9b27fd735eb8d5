/**
 * The handlers of `/v1/comments`: decode (done by the contract), authorize (middleware), call a
 * comments use-case, encode.
 *
 * @since 0.3.0
 */

import { type Caller, Comments } from "@postwire/core"
import { Api, Comment, CurrentKey, Ids } from "@postwire/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { respond } from "./Failures.ts"
import { idempotent } from "./Idempotency.ts"

const caller: Effect.Effect<Caller, never, CurrentKey> = Effect.gen(function* () {
  const key = yield* CurrentKey
  return { workspaceId: key.workspaceId, keyId: key.keyId, kind: key.kind }
})

/** /v1/comments… */
export const CommentsHandlers = HttpApiBuilder.group(Api, "comments", (handlers) =>
  handlers
    .handle("list", ({ query }) =>
      Effect.gen(function* () {
        return yield* respond(Comments.listComments(yield* caller, query))
      })
    )
    .handle("get", ({ params }) =>
      Effect.gen(function* () {
        return yield* respond(Comments.getComment(yield* caller, Ids.unchecked("comment", params.id)))
      })
    )
    .handle("reply", ({ headers, params, payload }) =>
      Effect.gen(function* () {
        const who = yield* caller
        return yield* respond(Comments.replyToComment(who, Ids.unchecked("comment", params.id), payload)).pipe(
          idempotent({
            key: headers["idempotency-key"],
            workspaceId: who.workspaceId,
            keyId: who.keyId,
            request: ["POST", `/v1/comments/${params.id}/replies`, payload],
            status: 201,
            schema: Comment.Comment,
            // The reply is made on the platform: no transaction is held across that call.
            atomic: false
          })
        )
      })
    )
    .handle("hide", ({ params }) =>
      Effect.gen(function* () {
        return yield* respond(Comments.setCommentHidden(yield* caller, Ids.unchecked("comment", params.id), true))
      })
    )
    .handle("unhide", ({ params }) =>
      Effect.gen(function* () {
        return yield* respond(Comments.setCommentHidden(yield* caller, Ids.unchecked("comment", params.id), false))
      })
    )
    .handle("delete", ({ params }) =>
      Effect.gen(function* () {
        return yield* respond(Comments.deleteComment(yield* caller, Ids.unchecked("comment", params.id)))
      })
    )
)
