/**
 * Instagram comments through the Graph API (Instagram Login or Facebook Login hosts):
 * `GET /{ig-media-id}/comments` (with each comment's `replies{...}` expanded), `GET
 * /{ig-comment-id}/replies`, `POST /{ig-comment-id}/replies` (`message`), `POST /{ig-comment-id}`
 * (`hide=true|false`) and `DELETE /{ig-comment-id}`. Permission: `instagram_business_manage_comments`
 * (Facebook Login: `instagram_manage_comments`).
 *
 * ## Polling without `since`
 *
 * Instagram's comment listing has no `since` filter and "ordering results is not supported", so
 * a poll cannot ask for "what is new". The cursor instead keeps the media's `comments_count` (which
 * counts replies too) and a mark: the newest comment time returned so far, and what was returned
 * within 5 minutes of it (`lateMs`).
 *
 * 1. `GET /{ig-media-id}?fields=comments_count` (1 call). Unchanged count: nothing new, done.
 * 2. Changed: the first page of comments, 50 with their first replies expanded (2 calls). A
 *    comment or reply is new unless returned lately or older than the mark by more than
 *    5 minutes. When the page holds at least as many new ones as the count grew by, done.
 * 3. Otherwise (a burst, or new replies under older comments) the next pages, then the reply
 *    lists that were cut, until that many are found or `comments.maxPagesPerPoll`
 *    pages were read.
 *
 * The steady state costs one call (nothing new) or two. Limits, documented in
 * docs/comments-platforms.md: a deletion and an addition between two polls cancel out in the count
 * (the addition is found by the next poll that reads, since the mark did not move); a burst larger
 * than the page budget, or a reply deep under an old thread, may be found only by the webhook.
 * The first poll reads every page up to the budget.
 *
 * @since 0.3.0
 */
import type { AccountRecord, PlatformComment } from "@postwire/core"
import { Clock, Effect, Schema } from "effect"
import type { OpenLongLived } from "../meta/Sessions.ts"
import { field, malformed, stringField } from "../internal/Wire.ts"
import {
  advance,
  bareHandle,
  type CommentAdapter,
  countField,
  dataOf,
  distinct,
  isNew,
  Mark,
  noMark,
  pagingOf,
  parseTimestamp
} from "../comments/CommentAdapter.ts"
import { deleteComment, longLivedSteps, type Options, ownReply, pollItem, readPages, succeeded } from "../meta/GraphComments.ts"

/** The fields of one comment. */
const commentFields = "id,text,timestamp,username,from,like_count,hidden,parent_id"

/** The fields asked of a media's comments: each with its first replies. */
export const listFields = `${commentFields},replies{${commentFields}}`

/** What an Instagram poll saves. */
export const Cursor = Schema.Struct({
  /** The media's `comments_count` when last read. */
  count: Schema.Number,
  mark: Mark
})
/** What an Instagram poll saves. */
export type Cursor = typeof Cursor.Type

/** Reads one comment of the wire format; `undefined` when it lacks an id. */
export const toComment = (
  item: unknown,
  account: Pick<AccountRecord, "externalId" | "handle">,
  parentOf: string | null
): PlatformComment | undefined => {
  const id = stringField(item, "id")
  if (id === undefined) return undefined
  const from = field(item, "from")
  const username = stringField(item, "username") ?? stringField(from, "username") ?? ""
  const authorId = stringField(from, "id") ?? null
  const likes = countField(item, "like_count")
  return {
    platformCommentId: id,
    parentPlatformCommentId: stringField(field(item, "parent_id"), "id") ?? stringField(item, "parent_id") ?? parentOf,
    authorHandle: username,
    authorDisplayName: null,
    authorPlatformId: authorId,
    text: stringField(item, "text") ?? "",
    createdAt: parseTimestamp(stringField(item, "timestamp")) ?? 0,
    hidden: field(item, "hidden") === true,
    likeCount: likes ?? null,
    fromOwner:
      (authorId !== null && authorId === account.externalId) ||
      (username !== "" && username.toLowerCase() === bareHandle(account.handle)),
    permalink: null
  }
}

/** Creates the Instagram comment adapter over the photo adapter's Graph host and sessions. */
export const make = (options: Options<OpenLongLived>): CommentAdapter => {
  const { config, graph, openSession } = options

  const withSession = longLivedSteps(openSession)

  const poll: CommentAdapter["poll"] = (input) =>
    pollItem(Cursor, input, (mediaId, saved) =>
      withSession(input.account, (call) =>
        Effect.gen(function* () {
          let calls = 1
          const head = yield* call((token) => graph.get(mediaId, { fields: "comments_count" }, token))
          const count = countField(head, "comments_count")
          if (count === undefined) return yield* Effect.fail(malformed("comments_count"))
          if (saved !== null && saved.count === count) return { comments: [], cursor: saved, calls }
          const mark = saved?.mark ?? noMark
          // How many new ones to look for; the first poll reads everything (up to the budget).
          const wanted = saved === null ? Number.POSITIVE_INFINITY : count - saved.count
          const found: Array<PlatformComment> = []
          const cutReplies: Array<{ readonly parent: string; readonly after: string }> = []
          const take = (comment: PlatformComment | undefined) => {
            if (comment !== undefined && isNew(mark, comment)) found.push(comment)
          }
          const enough = () => found.length >= wanted
          const top = yield* readPages({
            after: null,
            maxPages: config.maxPagesPerPoll,
            page: (after) =>
              call((token) =>
                graph.get(`${mediaId}/comments`, { fields: listFields, limit: config.pageSize, after: after ?? undefined }, token)
              ),
            take: (item) => {
              const comment = toComment(item, input.account, null)
              take(comment)
              if (comment === undefined) return
              const replies = field(item, "replies")
              for (const reply of dataOf(replies)) take(toComment(reply, input.account, comment.platformCommentId))
              const cut = pagingOf(replies)
              if (cut.next && cut.after !== undefined) cutReplies.push({ parent: comment.platformCommentId, after: cut.after })
            },
            enough
          })
          let pages = top.pages
          // Replies beyond the ones expanded inline, while new ones are still missing.
          for (const { after: expandedUpTo, parent } of cutReplies) {
            if (enough() || pages >= config.maxPagesPerPoll) continue
            const more = yield* readPages({
              after: expandedUpTo,
              maxPages: config.maxPagesPerPoll - pages,
              page: (after) =>
                call((token) =>
                  graph.get(`${parent}/replies`, { fields: commentFields, limit: config.pageSize, after: after ?? undefined }, token)
                ),
              take: (reply) => take(toComment(reply, input.account, parent)),
              enough
            })
            pages += more.pages
          }
          calls += pages
          const comments = distinct(found)
          return { comments, cursor: { count, mark: advance(mark, comments) } satisfies Cursor, calls }
        })
      )
    ).pipe(Effect.withSpan("platforms.photo.comments.poll"))

  const reply: CommentAdapter["reply"] = (input) =>
    withSession(input.account, (call) =>
      Effect.gen(function* () {
        // A new answer: a lost one is not sent again blindly.
        const body = yield* call((token) =>
          graph.post(`${input.platformCommentId}/replies`, { message: input.text }, token, "unambiguous")
        )
        const id = stringField(body, "id")
        if (id === undefined) return yield* Effect.fail(malformed("reply id"))
        return ownReply({
          id,
          parent: input.platformCommentId,
          text: input.text,
          at: yield* Clock.currentTimeMillis,
          author: {
            authorHandle: bareHandle(input.account.handle),
            authorDisplayName: null,
            authorPlatformId: input.account.externalId,
            likeCount: 0
          }
        })
      })
    ).pipe(Effect.withSpan("platforms.photo.comments.reply"))

  const setHidden: CommentAdapter["setHidden"] = (input) =>
    withSession(input.account, (call) =>
      call((token) => graph.post(input.platformCommentId, { hide: input.hidden }, token)).pipe(Effect.flatMap(succeeded))
    ).pipe(Effect.withSpan("platforms.photo.comments.hide"))

  const remove: CommentAdapter["remove"] = (input) =>
    withSession(input.account, (call) => deleteComment(graph, call, input.platformCommentId)).pipe(Effect.withSpan("platforms.photo.comments.delete"))

  return {
    poll,
    reply,
    setHidden,
    remove
  }
}
