/**
 * Comments under LinkedIn posts through the Comments API
 * (https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/comments-api):
 * `GET /rest/socialActions/{post urn}/comments` (the post's top-level comments, `start`/`count`
 * paging), `GET /rest/socialActions/{comment urn}/comments` (the answers to a comment: "Get
 * Comments on Comments", same page), an answer `POST /rest/socialActions/{comment urn}/comments`
 * with `object` the post and `parentComment` the comment answered ("Create a Comment", nested), and
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
 * LinkedIn lists a post's comments oldest first. A poll reads the post's top-level list (one call
 * per `pageSize` comments); a comment the cursor does not know yet is new. Each comment carries
 * `commentsSummary.totalFirstLevelComments`, the number of answers under it: where that is more
 * than the cursor has read of that comment's thread, the answers after those are read with
 * `GET /rest/socialActions/{comment urn}/comments?start=…` and returned with their parent
 * (`parentComment`), so they show under it and can be answered in turn. A comment without the
 * summary has its thread read on every poll. The shared mark drops anything returned before.
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
  /** The top-level comments seen, each with how many answers under it were read. */
  threads: Schema.Array(Schema.Struct({ urn: Schema.String, read: Schema.Number })),
  mark: Mark
})
/** What a LinkedIn poll saves. */
export type Cursor = typeof Cursor.Type

/** The comment's own id from its URN (`urn:li:comment:(urn:li:activity:1,2)` → `2`). */
export const commentId = (urn: string): string => /,([^,()]+)\)$/.exec(urn)?.[1] ?? urn

/** The most threads a cursor keeps (the newest); older threads' new answers are not read. */
export const threadsMax = 1_000

/**
 * Reads one comment of the wire format; `undefined` when it names none. `parent`: the comment
 * whose thread it was read from, when the answer does not name its `parentComment`.
 */
export const toComment = (item: unknown, author: string, parent: string | null = null): PlatformComment | undefined => {
  const urn = stringField(item, "commentUrn") ?? stringField(item, "$URN")
  if (urn === undefined) return undefined
  const actor = stringField(item, "actor") ?? ""
  return {
    platformCommentId: urn,
    parentPlatformCommentId: stringField(item, "parentComment") ?? parent,
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
          const cursor = decodeCursor(Cursor, input.cursor) ?? { threads: [], mark: noMark }
          const scopes = yield* Effect.map(Creds.decode(input.account.credentials), (c) => c.scopes)
          // An app without the read permission of this author (a basic app's member) has nothing
          // to read: no call is made, and the account stays connected.
          if (scopes !== undefined && !scopes.includes(readScope(author))) return { comments: [], cursor, calls: 0 }
          let calls = 0
          const found: Array<PlatformComment> = []
          const threads = new Map(cursor.threads.map((t) => [t.urn, t.read]))
          /** Reads a list (`socialActions/{urn}/comments`) from `start`, page by page, within the poll's pages. */
          const list = (urn: string, start: number) =>
            Effect.gen(function* () {
              const items: Array<unknown> = []
              let at = start
              while (calls < comments.maxPagesPerPoll) {
                const response = yield* call(session, (token) =>
                  Api.rest(config, "GET", `socialActions/${Api.urnPath(urn)}/comments`, token, {
                    query: { start: String(at), count: String(comments.pageSize) }
                  })
                ).pipe(
                  // Refused reading: the app lacks the permission, which no reconnect grants.
                  Effect.mapError((f) => (f.code === "permission_missing" ? amend(f, { needsReconnect: false }) : f))
                )
                calls += 1
                const elements = field(response.json, "elements")
                const page = Array.isArray(elements) ? elements : []
                items.push(...page)
                at += page.length
                if (page.length < comments.pageSize) break
              }
              return items
            })
          const topLevel = yield* list(post, 0)
          for (const item of topLevel) {
            const comment = toComment(item, author)
            if (comment === undefined) continue
            if (!threads.has(comment.platformCommentId)) {
              found.push(comment)
              threads.set(comment.platformCommentId, 0)
            }
            const read = threads.get(comment.platformCommentId) ?? 0
            const answers = numberField(field(item, "commentsSummary"), "totalFirstLevelComments")
            if (answers !== undefined && answers <= read) continue
            const replies = yield* list(comment.platformCommentId, read)
            for (const reply of replies) {
              const answer = toComment(reply, author, comment.platformCommentId)
              if (answer !== undefined) found.push(answer)
            }
            threads.set(comment.platformCommentId, read + replies.length)
          }
          const fresh = distinct(found).filter((c) => isNew(cursor.mark, c, Number.POSITIVE_INFINITY))
          const kept = [...threads.entries()].slice(-threadsMax).map(([urn, read]) => ({ urn, read }))
          return { comments: fresh, cursor: { threads: kept, mark: advance(cursor.mark, fresh) } satisfies Cursor, calls }
        })
      ),
    reply: (input) =>
      withSession(input.account, (session, author) =>
        Effect.gen(function* () {
          const post = yield* postUrnOf(input.target)
          // An answer is a comment on the comment answered, listed under it.
          const response = yield* call(session, (token) =>
            Api.rest(config, "POST", `socialActions/${Api.urnPath(input.platformCommentId)}/comments`, token, {
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
