/**
 * Mastodon replies as comments. A published status's replies are its context's `descendants`
 * (`GET /api/v1/statuses/:id/context`, every depth, in thread order;
 * https://docs.joinmastodon.org/methods/statuses/#context); a reply is a status with
 * `in_reply_to_id` (https://docs.joinmastodon.org/methods/statuses/#create); the account deletes
 * its own statuses only (`DELETE /api/v1/statuses/:id`,
 * https://docs.joinmastodon.org/methods/statuses/#delete: someone else's answers 404, so the
 * status is read first and someone else's is refused with `delete_own_only`). Mastodon
 * has no hiding of replies by the post's author.
 *
 * The context has no cursor: each poll reads it whole (one call) and the mark drops what was
 * already returned.
 *
 * @since 0.5.0
 */
import type { AccountRecord, PlatformComment } from "@postwire/core"
import { Clock, Effect, Schema } from "effect"
import { HttpClientRequest } from "effect/http"
import {
  advance,
  type CommentAdapter,
  decodeCursor,
  distinct,
  isNew,
  Mark,
  noMark,
  platformPostIdOf,
  unsupported
} from "../comments/CommentAdapter.ts"
import { failure, field, malformed, numberField, stringField, type Wire } from "../internal/Wire.ts"
import * as Api from "./Api.ts"
import * as FediverseCredentials from "./FediverseCredentials.ts"

/** What a Mastodon poll saves. */
export const Cursor = Schema.Struct({ mark: Mark })
/** What a Mastodon poll saves. */
export type Cursor = typeof Cursor.Type

/** Reads one status of a context as a comment; `undefined` without an id. */
export const toComment = (item: unknown, rootId: string, accountId: string): PlatformComment | undefined => {
  const id = stringField(item, "id")
  if (id === undefined) return undefined
  const author = field(item, "account")
  const parent = stringField(item, "in_reply_to_id") ?? rootId
  const created = Date.parse(stringField(item, "created_at") ?? "")
  const display = stringField(author, "display_name")
  return {
    platformCommentId: id,
    parentPlatformCommentId: parent === rootId ? null : parent,
    authorHandle: stringField(author, "acct") ?? stringField(author, "username") ?? "",
    authorDisplayName: display === undefined || display === "" ? null : display,
    authorPlatformId: stringField(author, "id") ?? null,
    text: Api.plainText(stringField(item, "content") ?? ""),
    createdAt: Number.isFinite(created) ? created : 0,
    hidden: false,
    likeCount: numberField(item, "favourites_count") ?? null,
    fromOwner: stringField(author, "id") === accountId,
    permalink: stringField(item, "url") ?? stringField(item, "uri") ?? null
  }
}

const sessionOf = (account: AccountRecord) =>
  FediverseCredentials.decode(account.credentials).pipe(
    Effect.map((credentials) => ({ credentials, session: { server: credentials.server, token: credentials.access_token } }))
  )

/** Creates the comment adapter. */
export const make = (wire: Wire): CommentAdapter => {
  const poll: CommentAdapter["poll"] = (input) =>
    Effect.gen(function* () {
      const rootId = platformPostIdOf(input.target)
      if (rootId === null) return yield* Effect.fail(failure("invalid_state", "not_published", { retryable: false }))
      const { credentials, session } = yield* sessionOf(input.account)
      const cursor = decodeCursor(Cursor, input.cursor) ?? { mark: noMark }
      const response = yield* Api.call(wire, session, Api.get(session, `/api/v1/statuses/${encodeURIComponent(rootId)}/context`))
      const descendants = field(response.json, "descendants")
      if (!Array.isArray(descendants)) return yield* Effect.fail(malformed("context"))
      const all = distinct(
        descendants.flatMap((item) => {
          const comment = toComment(item, rootId, credentials.account_id)
          return comment === undefined ? [] : [comment]
        })
      )
      const fresh = all.filter((c) => isNew(cursor.mark, c, Number.POSITIVE_INFINITY))
      return { comments: fresh, cursor: { mark: advance(cursor.mark, fresh) }, calls: 1 }
    }).pipe(Effect.withSpan("platforms.fediverse.comments.poll"))

  const reply: CommentAdapter["reply"] = (input) =>
    Effect.gen(function* () {
      const { credentials, session } = yield* sessionOf(input.account)
      const rootId = platformPostIdOf(input.target)
      // A reply is never retried blindly: a lost answer may have posted it.
      const response = yield* Api.publishing(
        wire,
        session,
        Api.post(session, "/api/v1/statuses", { status: input.text, in_reply_to_id: input.platformCommentId })
      )
      const id = stringField(response.json, "id")
      if (id === undefined) return yield* Effect.fail(malformed("status id"))
      const created = Date.parse(stringField(response.json, "created_at") ?? "")
      const comment = toComment(response.json, rootId ?? "", credentials.account_id)
      const at = Number.isFinite(created) ? created : yield* Clock.currentTimeMillis
      return {
        comment: {
          ...(comment ?? {
            platformCommentId: id,
            authorHandle: input.account.handle,
            authorDisplayName: null,
            authorPlatformId: credentials.account_id,
            likeCount: null,
            hidden: false,
            permalink: null
          }),
          parentPlatformCommentId: input.platformCommentId === rootId ? null : input.platformCommentId,
          text: comment?.text ?? input.text,
          createdAt: at,
          fromOwner: true
        }
      }
    }).pipe(Effect.withSpan("platforms.fediverse.comments.reply"))

  const remove: CommentAdapter["remove"] = (input) =>
    Effect.gen(function* () {
      const { credentials, session } = yield* sessionOf(input.account)
      const path = `/api/v1/statuses/${encodeURIComponent(input.platformCommentId)}`
      // Mastodon answers 404 both for a status gone and for someone else's: ask whose it is first.
      const found = yield* Api.call(wire, session, Api.get(session, path), (r) => Api.ok(r) || r.status === 404)
      if (found.status === 404) return {}
      if (stringField(field(found.json, "account"), "id") !== credentials.account_id) {
        return yield* Effect.fail(unsupported("delete_own_only"))
      }
      yield* Api.call(wire, session, HttpClientRequest.delete(`${session.server}${path}`), (r) => Api.ok(r) || r.status === 404)
      return {}
    }).pipe(Effect.withSpan("platforms.fediverse.comments.delete"))

  return {
    poll,
    reply,
    setHidden: () => Effect.fail(unsupported("hide_unsupported")),
    remove
  }
}
