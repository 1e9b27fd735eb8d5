/**
 * Comments under LinkedIn posts through the Comments API
 * (https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/comments-api):
 * `GET /rest/socialActions/{post urn}/comments` (the post's top-level comments, `start`/`count`
 * paging), an answer `POST /rest/socialActions/{post urn}/comments` with `parentComment`, and
 * `DELETE /rest/socialActions/{post urn}/comments/{comment id}?actor=…`.
 *
 * What an app may do depends on its LinkedIn products: answering and deleting the account's own
 * comments needs `w_member_social` / `w_organization_social` (every app that publishes has it);
 * reading comments needs `r_member_social` (a member's posts, a restricted permission) or
 * `r_organization_social` (a page's, Community Management API). A poll the app may not make
 * fails `permission_missing` with `platform_code` `ACCESS_DENIED:…`. LinkedIn has no hiding of
 * comments (`hide: false`) and pushes nothing (`push: false`).
 *
 * ## Polling
 *
 * LinkedIn lists a post's comments oldest first; the cursor keeps how many were read (`start`),
 * so a poll asks only for what came after (one call in the steady state), and the shared mark
 * drops anything returned before. Answers to comments (nested comments) are not read.
 *
 * @since 0.5.0
 */
import type { AccountRecord, PlatformComment, PlatformFailure } from "@postwire/core"
import { Clock, Effect, Schema } from "effect"
import { advance, type CommentAdapter, type Config as CommentConfig, decodeCursor, distinct, isNew, Mark, noMark, platformPostIdOf, unsupported } from "../comments/CommentAdapter.ts"
import * as TokenSession from "../internal/TokenSession.ts"
import { amend, field, malformed, numberField, stringField, type Wire } from "../internal/Wire.ts"
import * as LinkedIn from "./LinkedIn.ts"
import * as Api from "./LinkedInApi.ts"
import * as Creds from "./LinkedInCredentials.ts"

/** What a LinkedIn poll saves. */
export const Cursor = Schema.Struct({
  /** How many top-level comments were read. */
  start: Schema.Number,
  mark: Mark
})
/** What a LinkedIn poll saves. */
export type Cursor = typeof Cursor.Type

/** The comment's own id from its URN (`urn:li:comment:(urn:li:activity:1,2)` → `2`). */
export const commentId = (urn: string): string => /,([^,()]+)\)$/.exec(urn)?.[1] ?? urn

/** Reads one comment of the wire format; `undefined` when it names none. */
export const toComment = (item: unknown, author: string): PlatformComment | undefined => {
  const urn = stringField(item, "commentUrn") ?? stringField(item, "$URN")
  if (urn === undefined) return undefined
  const actor = stringField(item, "actor") ?? ""
  return {
    platformCommentId: urn,
    parentPlatformCommentId: stringField(item, "parentComment") ?? null,
    authorHandle: actor,
    authorDisplayName: null,
    authorPlatformId: actor === "" ? null : actor,
    text: stringField(field(item, "message"), "text") ?? "",
    createdAt: numberField(field(item, "created"), "time") ?? 0,
    hidden: false,
    likeCount: numberField(field(item, "likesSummary"), "totalLikes") ?? null,
    fromOwner: actor === author,
    permalink: null
  }
}

/** The permission that reads an author's comments: a page's, or a member's (restricted). */
export const readScope = (author: string): string => (author.startsWith("urn:li:organization:") ? "r_organization_social" : "r_member_social")

/** Creates the comment adapter over the publishing settings. */
export const make = (config: LinkedIn.Config, wire: Wire, comments: CommentConfig): CommentAdapter => {
  const call = LinkedIn.caller(wire, config)
  const refresh = LinkedIn.refresher(config, wire)

  /** Runs `body` in the account's token session; refreshed tokens come back with the result. */
  const withSession = <A extends object>(
    account: AccountRecord,
    body: (session: LinkedIn.Session, author: string) => Effect.Effect<A, PlatformFailure>
  ) =>
    Effect.gen(function* () {
      const { author, session, expired } = yield* LinkedIn.openSession(config, refresh, account)
      return yield* TokenSession.withCredentials(
        session,
        Effect.gen(function* () {
          if (expired) yield* session.refreshNow
          return yield* body(session, author)
        })
      )
    })

  const postUrnOf = (target: Parameters<typeof platformPostIdOf>[0]) => {
    const urn = platformPostIdOf(target) ?? stringField(target.platformState, "urn") ?? null
    return urn === null ? Effect.fail(malformed("target_without_post_urn")) : Effect.succeed(urn)
  }

  return {
    poll: (input) =>
      withSession(input.account, (session, author) =>
        Effect.gen(function* () {
          const post = yield* postUrnOf(input.target)
          const cursor = decodeCursor(Cursor, input.cursor) ?? { start: 0, mark: noMark }
          const scopes = yield* Effect.map(Creds.decode(input.account.credentials), (c) => c.scopes)
          // An app without the read permission of this author (a basic app's member) has nothing
          // to read: no call is made, and the account stays connected.
          if (scopes !== undefined && !scopes.includes(readScope(author))) return { comments: [], cursor, calls: 0 }
          let start = cursor.start
          let calls = 0
          const found: Array<PlatformComment> = []
          for (let page = 0; page < comments.maxPagesPerPoll; page++) {
            const response = yield* call(session, (token) =>
              Api.rest(config, "GET", `socialActions/${Api.urnPath(post)}/comments`, token, {
                query: { start: String(start), count: String(comments.pageSize) }
              })
            ).pipe(
              // Refused reading: the app lacks the permission, which no reconnect grants.
              Effect.mapError((f) => (f.code === "permission_missing" ? amend(f, { needsReconnect: false }) : f))
            )
            calls += 1
            const elements = field(response.json, "elements")
            const items = Array.isArray(elements) ? elements : []
            for (const item of items) {
              const comment = toComment(item, author)
              if (comment !== undefined) found.push(comment)
            }
            start += items.length
            if (items.length < comments.pageSize) break
          }
          const fresh = distinct(found).filter((c) => isNew(cursor.mark, c, Number.POSITIVE_INFINITY))
          return { comments: fresh, cursor: { start, mark: advance(cursor.mark, fresh) } satisfies Cursor, calls }
        })
      ),
    reply: (input) =>
      withSession(input.account, (session, author) =>
        Effect.gen(function* () {
          const post = yield* postUrnOf(input.target)
          const response = yield* call(session, (token) =>
            Api.rest(config, "POST", `socialActions/${Api.urnPath(post)}/comments`, token, {
              body: { actor: author, object: post, message: { text: input.text }, parentComment: input.platformCommentId }
            })
          )
          const created = toComment(response.json, author)
          const id = response.headers?.["x-restli-id"]
          if (created === undefined && id === undefined) return yield* Effect.fail(malformed("comments.create"))
          const now = yield* Clock.currentTimeMillis
          const comment: PlatformComment = created ?? {
            platformCommentId: `urn:li:comment:(${post},${id})`,
            parentPlatformCommentId: input.platformCommentId,
            authorHandle: author,
            authorDisplayName: null,
            authorPlatformId: author,
            text: input.text,
            createdAt: now,
            hidden: false,
            likeCount: null,
            fromOwner: true,
            permalink: null
          }
          return { comment }
        })
      ),
    setHidden: () => Effect.fail(unsupported("hide_unsupported")),
    remove: (input) =>
      withSession(input.account, (session, author) =>
        Effect.gen(function* () {
          const post = yield* postUrnOf(input.target)
          yield* call(session, (token) =>
            Api.rest(config, "DELETE", `socialActions/${Api.urnPath(post)}/comments/${encodeURIComponent(commentId(input.platformCommentId))}`, token, {
              query: { actor: author }
            })
          ).pipe(
            // Already gone: what was asked is done.
            Effect.catchIf(
              (f) => f.platformCode.startsWith("http_404") || f.platformCode.startsWith("NOT_FOUND"),
              () => Effect.void
            )
          )
          return {}
        })
      )
  }
}
