/**
 * What the three Meta comment adapters (Instagram, Facebook Pages, Threads) do the same way: run
 * a step's calls with the session's token, read a list page after page by Meta's `after` cursor,
 * turn a `success: false` answer into a failure, and describe the reply the account just made.
 * What differs (which token, which fields, where a poll starts and when it has read enough)
 * stays in each adapter.
 *
 * @internal
 */
import type { AccountRecord, CommentPoll, PlatformComment, PlatformFailure, TargetRecord } from "@postwire/core"
import { Effect, type Schema } from "effect"
import type { GraphApi } from "./GraphApi.ts"
import type { OpenLongLived } from "./Sessions.ts"
import * as TokenSession from "../internal/TokenSession.ts"
import { failure, field } from "../internal/Wire.ts"
import { type Config, dataOf, decodeCursor, pagingOf, platformPostIdOf } from "../comments/CommentAdapter.ts"

/** What a Meta comment adapter is made of: the Graph host and sessions of its publishing adapter. */
export interface Options<Open> {
  readonly graph: GraphApi
  readonly openSession: Open
  readonly config: Config
}

/** Runs one platform call with the step's current token. */
export type Call = <B>(f: (token: string) => Effect.Effect<B, PlatformFailure>) => Effect.Effect<B, PlatformFailure>

/**
 * Runs `step` with calls authorized by the token `tokenOf` reads from the session's credentials;
 * credentials the session refreshed leave with the result or the failure.
 */
export const inSession = <C, A extends object>(
  session: TokenSession.TokenSession<C>,
  tokenOf: (credentials: C) => string,
  step: (call: Call) => Effect.Effect<A, PlatformFailure>
) => TokenSession.withCredentials(session, step((f) => session.authed((c) => f(tokenOf(c)))))

/** Steps of an Instagram or Threads account, with its long-lived user token. */
export const longLivedSteps =
  (openSession: OpenLongLived) =>
  <A extends object>(account: AccountRecord, step: (call: Call) => Effect.Effect<A, PlatformFailure>) =>
    Effect.flatMap(openSession(account), (session) => inSession(session, (c) => c.access_token, step))

/**
 * A poll of the target's item with its saved cursor (`null` when unreadable or none). A target
 * whose item is unknown costs nothing and keeps its cursor.
 */
export const pollItem = <A, R extends object>(
  cursorSchema: Schema.Codec<A>,
  input: { readonly target: TargetRecord; readonly cursor: unknown },
  read: (itemId: string, saved: A | null) => Effect.Effect<R, PlatformFailure>
): Effect.Effect<R | CommentPoll, PlatformFailure> =>
  Effect.suspend(() => {
    const itemId = platformPostIdOf(input.target)
    const saved = decodeCursor(cursorSchema, input.cursor)
    const nothing: Effect.Effect<R | CommentPoll, PlatformFailure> = Effect.succeed({ comments: [], cursor: saved, calls: 0 })
    return itemId === null ? nothing : read(itemId, saved)
  })

/**
 * Reads a Graph list page after page from `after` (Meta's cursor; `null`: the start), handing
 * each page's items to `take`, until the list ends, `enough()` says so after a page, or
 * `maxPages` pages were read. Returns the pages read (one call each) and the `after` cursor of
 * the last page that had one (`after` itself when none had).
 */
export const readPages = (options: {
  readonly after: string | null
  readonly maxPages: number
  readonly page: (after: string | null) => Effect.Effect<unknown, PlatformFailure>
  readonly take: (item: unknown) => void
  readonly enough?: () => boolean
}): Effect.Effect<{ readonly pages: number; readonly last: string | null }, PlatformFailure> =>
  Effect.gen(function* () {
    let after = options.after
    let last = after
    let pages = 0
    while (pages < options.maxPages) {
      const body = yield* options.page(after)
      pages += 1
      for (const item of dataOf(body)) options.take(item)
      const paging = pagingOf(body)
      if (paging.after !== undefined) last = paging.after
      if (options.enough?.() === true || !paging.next || paging.after === undefined) break
      after = paging.after
    }
    return { pages, last }
  })

/** Graph's answer to a hide or a delete: `success: false` is a failure (retryable). */
export const succeeded = (body: unknown) =>
  field(body, "success") === false ? Effect.fail(failure("platform_unavailable", "success_false")) : Effect.succeed({})

/** Deletes a comment (`DELETE /{comment-id}`). */
export const deleteComment = (graph: GraphApi, call: Call, commentId: string) =>
  call((token) => graph.del(commentId, {}, token)).pipe(Effect.flatMap(succeeded))

/** The comment the account just posted as a reply: by the owner, visible, created `at`. */
export const ownReply = (reply: {
  readonly id: string
  readonly parent: string | null
  readonly text: string
  readonly at: number
  readonly author: Pick<PlatformComment, "authorHandle" | "authorDisplayName" | "authorPlatformId" | "likeCount">
}): { readonly comment: PlatformComment } => ({
  comment: {
    platformCommentId: reply.id,
    parentPlatformCommentId: reply.parent,
    ...reply.author,
    text: reply.text,
    createdAt: reply.at,
    hidden: false,
    fromOwner: true,
    permalink: null
  }
})
