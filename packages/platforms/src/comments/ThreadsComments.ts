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
import type { GraphApi } from "../graph/GraphApi.ts"
import * as GraphError from "../graph/GraphError.ts"
import type { OpenLongLived } from "../graph/Sessions.ts"
import * as TokenSession from "../internal/TokenSession.ts"
import { failure, field, malformed, stringField } from "../internal/Wire.ts"
import {
  advance,
  bareHandle,
  type CommentAdapter,
  type Config,
  dataOf,
  decodeCursor,
  distinct,
  isNew,
  Mark,
  noMark,
  pagingOf,
  parseTimestamp,
  platformPostIdOf,
  unsupported
} from "./CommentAdapter.ts"

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
export const make = (options: {
  readonly graph: GraphApi
  readonly openSession: OpenLongLived
  readonly config: Config
}): CommentAdapter => {
  const { config, graph, openSession } = options

  const withSession = <A extends object>(
    account: AccountRecord,
    step: (call: <B>(f: (token: string) => Effect.Effect<B, PlatformFailure>) => Effect.Effect<B, PlatformFailure>) => Effect.Effect<A, PlatformFailure>
  ) =>
    Effect.gen(function* () {
      const session = yield* openSession(account)
      return yield* TokenSession.withCredentials(
        session,
        step((f) => session.authed((c) => f(c.access_token)))
      )
    })

  const poll: CommentAdapter["poll"] = (input) =>
    Effect.gen(function* () {
      const rootId = platformPostIdOf(input.target)
      const saved = decodeCursor(Cursor, input.cursor)
      if (rootId === null) return { comments: [], cursor: saved, calls: 0 }
      return yield* withSession(input.account, (call) =>
        Effect.gen(function* () {
          const mark = saved?.mark ?? noMark
          let calls = 0
          let after = saved?.after ?? null
          let last = after
          const found: Array<PlatformComment> = []
          for (let pages = 0; pages < config.maxPagesPerPoll; pages++) {
            calls += 1
            const body = yield* call((token) =>
              graph.get(
                `${rootId}/conversation`,
                { fields: listFields, reverse: false, limit: config.pageSize, after: after ?? undefined },
                token
              )
            )
            // After the saved cursor everything is new but what was returned lately.
            for (const item of dataOf(body)) {
              const comment = toComment(item, rootId, input.account)
              if (comment !== undefined && isNew(mark, comment, Number.POSITIVE_INFINITY)) found.push(comment)
            }
            const paging = pagingOf(body)
            if (paging.after !== undefined) last = paging.after
            if (!paging.next || paging.after === undefined) break
            after = paging.after
          }
          const comments = distinct(found)
          return { comments, cursor: { after: last, mark: advance(mark, comments) } satisfies Cursor, calls }
        })
      )
    }).pipe(Effect.withSpan("platforms.textpost.comments.poll"))

  /** Publishes a reply container once it is ready: not ready yet, its status is asked again. */
  const publishReply = (
    call: <B>(f: (token: string) => Effect.Effect<B, PlatformFailure>) => Effect.Effect<B, PlatformFailure>,
    userId: string,
    containerId: string
  ) =>
    Effect.gen(function* () {
      for (let check = 0; ; check++) {
        const published = yield* call((token) =>
          graph.post(`${userId}/threads_publish`, { creation_id: containerId }, token, "unambiguous")
        ).pipe(
          Effect.map((body) => stringField(body, "id")),
          Effect.catchIf(GraphError.isNotReady, () => Effect.succeed(null))
        )
        if (published === undefined) return yield* Effect.fail(malformed("reply id"))
        if (published !== null) return published
        if (check >= config.replyMaxChecks) {
          return yield* Effect.fail(failure("platform_unavailable", "reply_container_not_ready"))
        }
        yield* Effect.sleep(Duration.millis(config.replyPollIntervalMs))
        const status = yield* call((token) => graph.get(containerId, { fields: "status,error_message" }, token))
        const state = stringField(status, "status")
        if (state === "ERROR" || state === "EXPIRED") {
          return yield* Effect.fail(
            failure("media_invalid", stringField(status, "error_message") ?? `container_${state.toLowerCase()}`, {
              retryable: false
            })
          )
        }
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
        const now = yield* Clock.currentTimeMillis
        const rootId = platformPostIdOf(input.target)
        const comment: PlatformComment = {
          platformCommentId: id,
          parentPlatformCommentId: input.platformCommentId === rootId ? null : input.platformCommentId,
          authorHandle: bareHandle(input.account.handle),
          authorDisplayName: null,
          authorPlatformId: input.account.externalId,
          text: input.text,
          createdAt: now,
          hidden: false,
          likeCount: null,
          fromOwner: true,
          permalink: null
        }
        return { comment }
      })
    ).pipe(Effect.withSpan("platforms.textpost.comments.reply"))

  const succeeded = (body: unknown) =>
    field(body, "success") === false ? Effect.fail(failure("platform_unavailable", "success_false")) : Effect.succeed({})

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
    withSession(input.account, (call) =>
      call((token) => graph.del(input.platformCommentId, {}, token)).pipe(Effect.flatMap(succeeded))
    ).pipe(Effect.withSpan("platforms.textpost.comments.delete"))

  return {
    poll,
    reply,
    setHidden,
    remove
  }
}
