/**
 * Facebook Page comments through the Graph API, with the Page token: `GET /{post-id}/comments`
 * with `filter=stream` (every level, chronological) and `summary=true`, `POST
 * /{comment-id}/comments` (`message`) to answer, `POST /{comment-id}` (`is_hidden`) and `DELETE
 * /{comment-id}`. Permissions: `pages_read_engagement` (read), `pages_manage_engagement` (answer,
 * hide, delete).
 *
 * ## Polling
 *
 * The stream is chronological, so the cursor keeps Meta's `after` cursor of the last comment read:
 * the next poll asks for what comes after it, which is exactly what was written since (one call
 * in the steady state, more only while full pages keep coming). The mark (the newest time and what
 * was returned lately) drops anything already returned should the platform repeat it. A first poll,
 * or a burst, larger than the page budget is continued by the next poll from where it stopped.
 * A cursor the platform no longer accepts (code 100) starts the read over from the beginning,
 * the mark keeping what was returned from coming back.
 *
 * @since 0.3.0
 */
import type { AccountRecord, PlatformComment, PlatformFailure } from "@postwire/core"
import { Clock, Effect, Schema } from "effect"
import type { OpenPage } from "../meta/Sessions.ts"
import { failure, field, malformed, stringField } from "../internal/Wire.ts"
import {
  advance,
  type CommentAdapter,
  countField,
  distinct,
  isNew,
  lateMs,
  Mark,
  noMark,
  parseTimestamp
} from "../comments/CommentAdapter.ts"
import { type Call, deleteComment, inSession, type Options, ownReply, pollItem, readPages, succeeded } from "../meta/GraphComments.ts"

/** The fields asked of each comment. */
export const listFields = "id,message,created_time,from,parent{id},like_count,is_hidden,permalink_url"

/** What a Page poll saves. */
export const Cursor = Schema.Struct({
  /** Meta's `after` cursor of the last comment read; `null` before any. */
  after: Schema.NullOr(Schema.String),
  mark: Mark
})
/** What a Page poll saves. */
export type Cursor = typeof Cursor.Type

/** Reads one comment of the wire format; `undefined` when it lacks an id. */
export const toComment = (item: unknown, pageId: string | null): PlatformComment | undefined => {
  const id = stringField(item, "id")
  if (id === undefined) return undefined
  const from = field(item, "from")
  const authorId = stringField(from, "id") ?? null
  const created = field(item, "created_time")
  return {
    platformCommentId: id,
    parentPlatformCommentId: stringField(field(item, "parent"), "id") ?? null,
    // Meta gives a person's name (no username); a comment without `from` is someone the Page
    // may not see (no page-scoped id).
    authorHandle: stringField(from, "name") ?? "",
    authorDisplayName: stringField(from, "name") ?? null,
    authorPlatformId: authorId,
    text: stringField(item, "message") ?? "",
    createdAt: typeof created === "number" ? created * 1000 : (parseTimestamp(stringField(item, "created_time")) ?? 0),
    hidden: field(item, "is_hidden") === true,
    likeCount: countField(item, "like_count") ?? null,
    fromOwner: authorId !== null && authorId === pageId,
    permalink: stringField(item, "permalink_url") ?? null
  }
}

/** Creates the Facebook Pages comment adapter over the pages adapter's Graph host and sessions. */
export const make = (options: Options<OpenPage>): CommentAdapter => {
  const { config, graph, openSession } = options

  const withSession = <A extends object>(
    account: AccountRecord,
    step: (call: Call, pageId: string) => Effect.Effect<A, PlatformFailure>
  ) =>
    Effect.gen(function* () {
      const pageId = account.externalId
      if (pageId === null) {
        return yield* Effect.fail(failure("permission_missing", "page_id_missing", { needsReconnect: true }))
      }
      const session = yield* openSession(account, pageId)
      return yield* inSession(session, (c) => c.page_access_token, (call) => step(call, pageId))
    })

  /** A cursor the platform refuses: Graph's invalid parameter. */
  const refusedCursor = (f: PlatformFailure) => f.platformCode === "100" || f.platformCode.startsWith("100/")

  const poll: CommentAdapter["poll"] = (input) =>
    pollItem(Cursor, input, (postId, saved) =>
      withSession(input.account, (call, pageId) =>
        Effect.gen(function* () {
          const mark = saved?.mark ?? noMark
          let restarts = 0
          // After the saved cursor everything is new but what was returned lately; a read started
          // over (first poll aside) skips what is older than the mark.
          let windowMs = Number.POSITIVE_INFINITY
          const found: Array<PlatformComment> = []
          const page = (cursor: string | null) =>
            call((token) =>
              graph.get(
                `${postId}/comments`,
                {
                  filter: "stream",
                  order: "chronological",
                  summary: true,
                  fields: listFields,
                  limit: config.pageSize,
                  after: cursor ?? undefined
                },
                token
              )
            )
          const read = yield* readPages({
            after: saved?.after ?? null,
            maxPages: config.maxPagesPerPoll,
            page: (after) =>
              page(after).pipe(
                Effect.catchIf(
                  (f: PlatformFailure) => after !== null && after === saved?.after && refusedCursor(f),
                  () => {
                    // The saved cursor is no longer valid: read again from the start.
                    restarts += 1
                    windowMs = lateMs
                    return page(null)
                  }
                )
              ),
            take: (item) => {
              const comment = toComment(item, pageId)
              if (comment !== undefined && isNew(mark, comment, windowMs)) found.push(comment)
            }
          })
          const comments = distinct(found)
          return {
            comments,
            cursor: { after: read.last, mark: advance(mark, comments) } satisfies Cursor,
            calls: read.pages + restarts
          }
        })
      )
    ).pipe(Effect.withSpan("platforms.pages.comments.poll"))

  const reply: CommentAdapter["reply"] = (input) =>
    withSession(input.account, (call, pageId) =>
      Effect.gen(function* () {
        const body = yield* call((token) =>
          graph.post(`${input.platformCommentId}/comments`, { message: input.text }, token, "unambiguous")
        )
        const id = stringField(body, "id")
        if (id === undefined) return yield* Effect.fail(malformed("reply id"))
        const name = input.account.handle.replace(/^@/, "")
        return ownReply({
          id,
          parent: input.platformCommentId,
          text: input.text,
          at: yield* Clock.currentTimeMillis,
          author: { authorHandle: name, authorDisplayName: name, authorPlatformId: pageId, likeCount: 0 }
        })
      })
    ).pipe(Effect.withSpan("platforms.pages.comments.reply"))

  const setHidden: CommentAdapter["setHidden"] = (input) =>
    withSession(input.account, (call) =>
      call((token) => graph.post(input.platformCommentId, { is_hidden: input.hidden }, token)).pipe(Effect.flatMap(succeeded))
    ).pipe(Effect.withSpan("platforms.pages.comments.hide"))

  const remove: CommentAdapter["remove"] = (input) =>
    withSession(input.account, (call) => deleteComment(graph, call, input.platformCommentId)).pipe(Effect.withSpan("platforms.pages.comments.delete"))

  return {
    poll,
    reply,
    setHidden,
    remove
  }
}
