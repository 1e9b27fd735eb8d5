/**
 * Batch creation: up to 31 create requests, each created or refused on its own by the same
 * use-case as a single create, with each account's quota also capped per calendar day of
 * `scheduled_at`.
 *
 * @since 0.2.0
 */
import { Cause, Effect } from "effect"
import { type Post, PostwireError } from "@postwire/domain"
import type { Caller } from "../Caller.ts"
import { createPost } from "./Posts.ts"
import type { PostRead } from "./PostView.ts"

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

/** What became of one item: the post created, or the failure that refused it (fields under `items[i]`). */
export type ItemResult =
  | { readonly index: number; readonly post: PostRead }
  | { readonly index: number; readonly error: PostwireError }

/** What became of a batch's items, in request order; the server renders posts and refusals in the caller's language. */
export interface BatchResult {
  readonly items: ReadonlyArray<ItemResult>
  readonly created: number
  readonly refused: number
}

/**
 * Creates each item in order; earlier items are stored before later ones are checked, so the
 * items of one batch count against each other's quotas. Created posts are returned as stored,
 * refusals as failures: neither is rendered.
 */
export const createPostBatch = Effect.fn("posts.createBatch")(function* (
  caller: Caller,
  request: Post.CreatePostBatchRequest
) {
  const items: Array<ItemResult> = []
  for (const [index, item] of request.items.entries()) {
    const result = yield* createPost(caller, item, { quotaByDay: true }).pipe(
      Effect.map((post): ItemResult => ({ index, post })),
      Effect.catchCause((cause) => {
        if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
        const failure = Cause.findErrorOption(cause)
        const known = failure._tag === "Some" && failure.value instanceof PostwireError
        // An unexpected failure (a database outage) refuses this item only: items already
        // created stay reported as created.
        const error = known ? failure.value : new PostwireError({ code: "internal_error" })
        return (known ? Effect.void : Effect.logError("batch item failed unexpectedly", cause)).pipe(
          Effect.as<ItemResult>({ index, error: underItem(error, index) })
        )
      })
    )
    items.push(result)
  }
  const created = items.filter((r) => "post" in r).length
  return { items, created, refused: items.length - created } satisfies BatchResult
})
