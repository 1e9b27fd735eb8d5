/**
 * YouTube comments through the Data API (scope `youtube.force-ssl`):
 *
 * - read: `commentThreads.list?part=snippet,replies&videoId=…&order=time`
 *   (https://developers.google.com/youtube/v3/docs/commentThreads/list), newest first, pages
 *   followed with `pageToken` until a page holds only what an earlier poll returned; the replies
 *   a thread carries (`replies.comments`, YouTube gives up to five) come with it;
 * - reply: `comments.insert?part=snippet` with `snippet.parentId`
 *   (https://developers.google.com/youtube/v3/docs/comments/insert); an answer to the video
 *   itself is a new thread (`commentThreads.insert`);
 * - hide: `comments.setModerationStatus` with `heldForReview` (unhide: `published`)
 *   (https://developers.google.com/youtube/v3/docs/comments/setModerationStatus); `rejected`
 *   is not used, it cannot be undone from Postwire;
 * - delete: `comments.delete` (https://developers.google.com/youtube/v3/docs/comments/delete),
 *   which YouTube allows for the channel's own comments; another person's comment is removed
 *   from the video by moderating it `rejected`, which is what a channel owner can do.
 *
 * Each call is counted in the project's day (1 unit a list, 50 a write).
 *
 * @since 0.5.0
 */
import type { AccountRecord, PlatformComment, PlatformFailure } from "@postwire/core"
import { Clock, Effect, Schema } from "effect"
import { HttpClientRequest } from "effect/http"
import {
  advance,
  type CommentAdapter,
  type Config,
  distinct,
  isNew,
  lateMs,
  Mark,
  noMark,
  parseTimestamp,
  platformPostIdOf
} from "../comments/CommentAdapter.ts"
import * as TokenSession from "../internal/TokenSession.ts"
import { field, malformed, numberField, stringField, type Wire } from "../internal/Wire.ts"
import * as Google from "./GoogleApi.ts"

/** What a YouTube poll saves. */
export const Cursor = Schema.Struct({ mark: Mark })
export type Cursor = typeof Cursor.Type

/** Reads one comment resource (https://developers.google.com/youtube/v3/docs/comments#resource). */
export const toComment = (
  item: unknown,
  parent: string | null,
  account: Pick<AccountRecord, "externalId">,
  videoId: string
): PlatformComment | undefined => {
  const id = stringField(item, "id")
  const snippet = field(item, "snippet")
  if (id === undefined) return undefined
  const author = stringField(field(snippet, "authorChannelId"), "value") ?? null
  const handle = stringField(snippet, "authorDisplayName") ?? ""
  return {
    platformCommentId: id,
    parentPlatformCommentId: parent,
    authorHandle: handle.replace(/^@/, ""),
    authorDisplayName: handle === "" ? null : handle,
    authorPlatformId: author,
    text: stringField(snippet, "textOriginal") ?? stringField(snippet, "textDisplay") ?? "",
    createdAt: parseTimestamp(stringField(snippet, "publishedAt")) ?? 0,
    hidden: (() => {
      const status = stringField(snippet, "moderationStatus")
      return status === "heldForReview" || status === "rejected" || status === "likelySpam"
    })(),
    likeCount: numberField(snippet, "likeCount") ?? null,
    fromOwner: author !== null && author === account.externalId,
    permalink: `https://www.youtube.com/watch?v=${videoId}&lc=${id}`
  }
}

/** Creates the YouTube comment adapter. */
export const make = (options: {
  readonly wire: Wire
  readonly apiUrl: string
  readonly config: Config
  readonly refresher: TokenSession.Refresh<import("./Credentials.ts").VideoCredentials>
  /** Counts units against the project's day. */
  readonly charge: (units: number) => Effect.Effect<unknown>
  readonly costs: { readonly list: number; readonly write: number }
}): CommentAdapter => {
  const { wire, config, charge, costs } = options
  const api = options.apiUrl.replace(/\/+$/, "")

  const inSession = <A extends object>(
    account: AccountRecord,
    step: (session: Google.Session) => Effect.Effect<A, PlatformFailure>
  ) =>
    Effect.flatMap(Google.openSession(options.refresher, account), (session) => TokenSession.withCredentials(session, step(session)))

  const call = (session: Google.Session, request: HttpClientRequest.HttpClientRequest, units: number) =>
    Effect.gen(function* () {
      const response = yield* Google.authed(wire, session, request)
      yield* charge(units)
      if (!Google.ok(response)) return yield* Effect.fail(Google.refusal(response))
      return response.json
    })

  const poll: CommentAdapter["poll"] = (input) =>
    Effect.suspend((): ReturnType<CommentAdapter["poll"]> => {
      const videoId = platformPostIdOf(input.target)
      const saved = input.cursor === null ? null : Schema.decodeUnknownOption(Cursor)(input.cursor)
      const mark = saved === null || saved._tag === "None" ? noMark : saved.value.mark
      if (videoId === null) return Effect.succeed({ comments: [] as ReadonlyArray<PlatformComment>, cursor: input.cursor, calls: 0 })
      return inSession(input.account, (session) =>
        Effect.gen(function* () {
          const found: Array<PlatformComment> = []
          let pageToken: string | undefined
          let pages = 0
          while (pages < config.maxPagesPerPoll) {
            const body = yield* call(
              session,
              HttpClientRequest.get(`${api}/commentThreads`).pipe(
                HttpClientRequest.setUrlParams({
                  part: "snippet,replies",
                  videoId,
                  order: "time",
                  textFormat: "plainText",
                  maxResults: String(Math.min(100, config.pageSize)),
                  ...(pageToken === undefined ? {} : { pageToken })
                })
              ),
              costs.list
            )
            pages += 1
            const items = field(body, "items")
            let older = true
            for (const thread of Array.isArray(items) ? items : []) {
              const top = toComment(field(field(thread, "snippet"), "topLevelComment"), null, input.account, videoId)
              if (top === undefined) continue
              if (top.createdAt > mark.at - lateMs) older = false
              if (isNew(mark, top)) found.push(top)
              const replies = field(field(thread, "replies"), "comments")
              for (const r of Array.isArray(replies) ? replies : []) {
                const reply = toComment(r, top.platformCommentId, input.account, videoId)
                if (reply !== undefined && isNew(mark, reply)) found.push(reply)
              }
            }
            pageToken = stringField(body, "nextPageToken")
            if (pageToken === undefined || older) break
          }
          const comments = distinct(found)
          return { comments, cursor: { mark: advance(mark, comments) } satisfies Cursor, calls: pages }
        })
      )
    }).pipe(Effect.withSpan("platforms.video.comments.poll"))

  const reply: CommentAdapter["reply"] = (input) =>
    inSession(input.account, (session) =>
      Effect.gen(function* () {
        const videoId = platformPostIdOf(input.target)
        const toVideo = input.platformCommentId === videoId
        const body = toVideo
          ? { snippet: { videoId, topLevelComment: { snippet: { textOriginal: input.text } } } }
          : { snippet: { parentId: input.platformCommentId, textOriginal: input.text } }
        const answer = yield* call(
          session,
          HttpClientRequest.post(`${api}/${toVideo ? "commentThreads" : "comments"}`).pipe(
            HttpClientRequest.setUrlParams({ part: "snippet" }),
            HttpClientRequest.bodyUint8Array(new TextEncoder().encode(JSON.stringify(body)), "application/json; charset=UTF-8")
          ),
          costs.write
        )
        const resource = toVideo ? field(field(answer, "snippet"), "topLevelComment") : answer
        const comment = toComment(resource, toVideo ? null : input.platformCommentId, input.account, videoId ?? "")
        if (comment === undefined) return yield* Effect.fail(malformed("comment id"))
        const now = yield* Clock.currentTimeMillis
        return { comment: { ...comment, fromOwner: true, createdAt: comment.createdAt === 0 ? now : comment.createdAt } }
      })
    ).pipe(Effect.withSpan("platforms.video.comments.reply"))

  const moderate = (session: Google.Session, id: string, status: "heldForReview" | "published" | "rejected") =>
    call(
      session,
      HttpClientRequest.post(`${api}/comments/setModerationStatus`).pipe(HttpClientRequest.setUrlParams({ id, moderationStatus: status })),
      costs.write
    )

  const setHidden: CommentAdapter["setHidden"] = (input) =>
    inSession(input.account, (session) =>
      Effect.as(moderate(session, input.platformCommentId, input.hidden ? "heldForReview" : "published"), {})
    ).pipe(Effect.withSpan("platforms.video.comments.hide"))

  const remove: CommentAdapter["remove"] = (input) =>
    inSession(input.account, (session) =>
      Effect.gen(function* () {
        const response = yield* Google.authed(
          wire,
          session,
          HttpClientRequest.delete(`${api}/comments`).pipe(HttpClientRequest.setUrlParams({ id: input.platformCommentId }))
        )
        yield* charge(costs.write)
        if (Google.ok(response)) return {}
        // Not the channel's own comment: the owner removes it from the video by rejecting it.
        if (response.status === 403 && Google.readError(response).reason === "forbidden") {
          yield* moderate(session, input.platformCommentId, "rejected")
          return {}
        }
        return yield* Effect.fail(Google.refusal(response))
      })
    ).pipe(Effect.withSpan("platforms.video.comments.delete"))

  return { poll, reply, setHidden, remove }
}
