/**
 * Threads replies through the Threads API: `GET /{media-id}/conversation` (every depth,
 * flattened; `reverse=false` for oldest first, `after` cursors), a reply published like a post
 * (`POST /me/threads` with `media_type=TEXT`, `text`, `reply_to_id`, then `POST
 * /{user-id}/threads_publish` with `creation_id`), `POST /{reply-id}/manage_reply`
 * (`hide=true|false`) and `DELETE /{media-id}`. Permissions: `threads_read_replies` (read),
 * `threads_manage_replies` (answer, hide), `threads_delete` (delete).
 *
 * ## Polling
 *
 * Like a Page's stream: the conversation is read oldest first and the cursor keeps Meta's `after`
 * cursor of the last reply read, so a poll asks only for what came after it (one call in the
 * steady state). The mark drops anything already returned should the platform repeat it.
 *
 * Threads hides only replies made directly to the post (hiding cascades to their answers): a
 * deeper reply is refused before any write, with `invalid_state`
 * (`platform_code: hide_top_level_only`).
 *
 * @since 0.3.0
 */
import type { AccountRecord, PlatformComment, PlatformFailure } from "@postwire/core"
import { Clock, Duration, Effect, Schema } from "effect"
import * as GraphError from "../meta/GraphError.ts"
import type { OpenLongLived } from "../meta/Sessions.ts"
import { failure, field, malformed, stringField } from "../internal/Wire.ts"
import {
  advance,
  bareHandle,
  type CommentAdapter,
  distinct,
  isNew,
  Mark,
  noMark,
  parseTimestamp,
  platformPostIdOf,
  unsupported
} from "../comments/CommentAdapter.ts"
import { type Call, deleteComment, longLivedSteps, type Options, ownReply, pollItem, readPages, succeeded } from "../meta/GraphComments.ts"

/** The fields asked of each reply of a conversation. */
export const listFields =
  "id,text,username,timestamp,permalink,media_type,has_replies,root_post,replied_to,is_reply,is_reply_owned_by_me,hide_status"

/** What a Threads poll saves. */
export const Cursor = Schema.Struct({
  /** Meta's `after` cursor of the last reply read; `null` before any. */
  after: Schema.NullOr(Schema.String),
  mark: Mark
})
/** What a Threads poll saves. */
export type Cursor = typeof Cursor.Type

/** Reads one reply of the wire format; `undefined` when it lacks an id. */
export const toComment = (
  item: unknown,
  rootId: string,
  account: Pick<AccountRecord, "handle">
): PlatformComment | undefined => {
  const id = stringField(item, "id")
  if (id === undefined) return undefined
  const repliedTo = stringField(field(item, "replied_to"), "id")
  const username = stringField(item, "username") ?? ""
  return {
    platformCommentId: id,
    parentPlatformCommentId: repliedTo === undefined || repliedTo === rootId ? null : repliedTo,
    authorHandle: username,
    authorDisplayName: null,
    authorPlatformId: null,
    text: stringField(item, "text") ?? "",
    createdAt: parseTimestamp(stringField(item, "timestamp")) ?? 0,
    hidden: stringField(item, "hide_status") === "HIDDEN",
    likeCount: null,
    fromOwner:
      field(item, "is_reply_owned_by_me") === true || (username !== "" && username.toLowerCase() === bareHandle(account.handle)),
    permalink: stringField(item, "permalink") ?? null
  }
}

/** Creates the Threads comment adapter over the textpost adapter's Graph host and sessions. */
/**
 * A `threads_publish` refusal of a container that is not there yet: Instagram's `9007` and the
 * `24/4279009` integrators see from Threads (not in Meta's Threads documentation).
 */
const notReady = (f: PlatformFailure): boolean => GraphError.isNotReady(f) || f.platformCode === "24/4279009"

export const make = (options: Options<OpenLongLived>): CommentAdapter => {
  const { config, graph, openSession } = options

  const withSession = longLivedSteps(openSession)

  const poll: CommentAdapter["poll"] = (input) =>
    pollItem(Cursor, input, (rootId, saved) =>
      withSession(input.account, (call) =>
        Effect.gen(function* () {
          const mark = saved?.mark ?? noMark
          const found: Array<PlatformComment> = []
          const read = yield* readPages({
            after: saved?.after ?? null,
            maxPages: config.maxPagesPerPoll,
            page: (after) =>
              call((token) =>
                graph.get(
                  `${rootId}/conversation`,
                  { fields: listFields, reverse: false, limit: config.pageSize, after: after ?? undefined },
                  token
                )
              ),
            // After the saved cursor everything is new but what was returned lately.
            take: (item) => {
              const comment = toComment(item, rootId, input.account)
              if (comment !== undefined && isNew(mark, comment, Number.POSITIVE_INFINITY)) found.push(comment)
            }
          })
          const comments = distinct(found)
          return { comments, cursor: { after: read.last, mark: advance(mark, comments) } satisfies Cursor, calls: read.pages }
        })
      )
    ).pipe(Effect.withSpan("platforms.textpost.comments.poll"))

  /**
   * Publishes a reply container once it is ready. Threads documents no error for publishing a
   * container still being processed; it says to wait (about 30 seconds) and to read the
   * container's `status` (IN_PROGRESS, FINISHED, ERROR, EXPIRED, PUBLISHED) before publishing
   * (https://developers.facebook.com/documentation/threads/retrieve-and-manage-replies/create-replies,
   * https://developers.facebook.com/docs/threads/troubleshooting). So the status is read first,
   * and again every `replyPollIntervalMs` while IN_PROGRESS, up to `replyMaxChecks` times; the
   * publish is sent at FINISHED. Should `threads_publish` still refuse a container as not there
   * yet (integrators report `24/4279009` "The requested resource does not exist" for an early
   * publish; Instagram's `9007` is taken too), the status is asked again the same way.
   */
  const publishReply = (
    call: Call,
    userId: string,
    containerId: string
  ) =>
    Effect.gen(function* () {
      for (let check = 0; ; check++) {
        const status = yield* call((token) => graph.get(containerId, { fields: "status,error_message" }, token))
        const state = stringField(status, "status")
        if (state === "ERROR" || state === "EXPIRED") {
          return yield* Effect.fail(
            failure("media_invalid", stringField(status, "error_message") ?? `container_${state.toLowerCase()}`, {
              retryable: false
            })
          )
        }
        // FINISHED; an unknown or missing status is tried (the publish says what it is).
        const published =
          state === "IN_PROGRESS"
            ? null
            : yield* call((token) =>
                graph.post(`${userId}/threads_publish`, { creation_id: containerId }, token, "unambiguous")
              ).pipe(
                Effect.map((body) => stringField(body, "id")),
                Effect.catchIf(notReady, () => Effect.succeed(null))
              )
        if (published === undefined) return yield* Effect.fail(malformed("reply id"))
        if (published !== null) return published
        if (check + 1 >= config.replyMaxChecks) {
          return yield* Effect.fail(failure("platform_unavailable", "reply_container_not_ready"))
        }
        yield* Effect.sleep(Duration.millis(config.replyPollIntervalMs))
      }
    })

  const reply: CommentAdapter["reply"] = (input) =>
    withSession(input.account, (call) =>
      Effect.gen(function* () {
        const userId = input.account.externalId ?? "me"
        const created = yield* call((token) =>
          graph.post("me/threads", { media_type: "TEXT", text: input.text, reply_to_id: input.platformCommentId }, token)
        )
        const containerId = stringField(created, "id")
        if (containerId === undefined) return yield* Effect.fail(malformed("container id"))
        const id = yield* publishReply(call, userId, containerId)
        const rootId = platformPostIdOf(input.target)
        return ownReply({
          id,
          parent: input.platformCommentId === rootId ? null : input.platformCommentId,
          text: input.text,
          at: yield* Clock.currentTimeMillis,
          author: {
            authorHandle: bareHandle(input.account.handle),
            authorDisplayName: null,
            authorPlatformId: input.account.externalId,
            likeCount: null
          }
        })
      })
    ).pipe(Effect.withSpan("platforms.textpost.comments.reply"))

  const setHidden: CommentAdapter["setHidden"] = (input) =>
    withSession(input.account, (call) =>
      Effect.gen(function* () {
        // Only replies made directly to the post can be hidden: ask where this one hangs first.
        const item = yield* call((token) => graph.get(input.platformCommentId, { fields: "id,replied_to,root_post" }, token))
        const repliedTo = stringField(field(item, "replied_to"), "id")
        const root = stringField(field(item, "root_post"), "id") ?? platformPostIdOf(input.target)
        if (repliedTo !== undefined && root !== null && repliedTo !== root) {
          return yield* Effect.fail(unsupported("hide_top_level_only"))
        }
        const body = yield* call((token) => graph.post(`${input.platformCommentId}/manage_reply`, { hide: input.hidden }, token))
        return yield* succeeded(body)
      })
    ).pipe(Effect.withSpan("platforms.textpost.comments.hide"))

  const remove: CommentAdapter["remove"] = (input) =>
    withSession(input.account, (call) => deleteComment(graph, call, input.platformCommentId)).pipe(Effect.withSpan("platforms.textpost.comments.delete"))

  return {
    poll,
    reply,
    setHidden,
    remove
  }
}
