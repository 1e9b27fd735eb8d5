/**
 * Batch creation: up to 31 create requests, each created or refused on its own by the same
 * use-case as a single create, with each account's quota also capped per calendar day of
 * `scheduled_at`.
 *
 * @since 0.2.0
 */
import { Cause, Effect } from "effect"
import { type Locale, type Post, PostwireError, renderError } from "@postwire/domain"
import type { Caller } from "../Caller.ts"
import { EngineConfig } from "../EngineConfig.ts"
import { createPost } from "./Posts.ts"

/** A failure moved into the batch: its field (and its issues' fields) under `items[i]`. */
const underItem = (error: PostwireError, index: number): PostwireError => {
  const prefix = (field: string | undefined) => (field === undefined ? `items[${index}]` : `items[${index}].${field}`)
  return new PostwireError({
    ...error,
    code: error.code,
    field: prefix(error.field),
    issues: error.issues?.map((issue) => new PostwireError({ ...issue, code: issue.code, field: prefix(issue.field) }))
  })
}

/**
 * Creates each item in order; earlier items are stored before later ones are checked, so the
 * items of one batch count against each other's quotas.
 */
export const createPostBatch = Effect.fn("posts.createBatch")(function* (
  caller: Caller,
  request: Post.CreatePostBatchRequest,
  locale: Locale
) {
  const settings = yield* EngineConfig
  const data: Array<Post.PostBatchResult> = []
  for (const [index, item] of request.items.entries()) {
    const result = yield* createPost(caller, item, locale, { quotaByDay: true }).pipe(
      Effect.map((post): Post.PostBatchResult => ({ index, status: 201, post })),
      Effect.catchCause((cause) => {
        if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
        const failure = Cause.findErrorOption(cause)
        const known = failure._tag === "Some" && failure.value instanceof PostwireError
        // An unexpected failure (a database outage) refuses this item only: items already
        // created stay reported as created.
        const error = known ? failure.value : new PostwireError({ code: "internal_error" })
        const rendered = renderError(underItem(error, index), locale, settings.publicBaseUrl)
        return (known ? Effect.void : Effect.logError("batch item failed unexpectedly", cause)).pipe(
          Effect.as<Post.PostBatchResult>({
            index,
            status: error.httpStatus,
            // As alone: a 422 always lists its problems in `issues`.
            error: error.httpStatus === 422 && rendered.issues === undefined ? { ...rendered, issues: [rendered] } : rendered
          })
        )
      })
    )
    data.push(result)
  }
  const created = data.filter((r) => r.status === 201).length
  return { data, created, refused: data.length - created } satisfies Post.CreatePostBatchResponse
})
