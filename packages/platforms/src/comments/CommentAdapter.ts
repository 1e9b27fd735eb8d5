/**
 * A platform's comment adapter: its settings, the operations each implements, Meta's
 * timestamps, the "seen up to" mark that keeps a poll from returning a comment twice, and the
 * normalized refusals of actions a platform does not allow.
 *
 * @since 0.3.0
 */
import type { CommentPlatform, PlatformComment, PlatformFailure, TargetRecord } from "@postwire/core"
import { ErrorDetail } from "@postwire/domain"
import { Schema } from "effect"
import { failure, field, numberField, stringField } from "../internal/Wire.ts"

/** Settings of the comment adapters (all platforms). */
export interface Config {
  /** Comments asked per page (Meta's `limit`). */
  readonly pageSize: number
  /**
   * The most pages one poll reads. The first poll of a big thread, or a burst, may need more: the
   * rest is read by the next polls (Facebook, Threads) or left to webhooks (Instagram, see
   * docs/comments-platforms.md).
   */
  readonly maxPagesPerPoll: number
  /** Threads: wait between status checks of a reply container that is not ready yet. */
  readonly replyPollIntervalMs: number
  /**
   * Threads: status checks of a reply container before giving up (`platform_unavailable`,
   * retryable); the first is made at once, the container of a text reply is usually ready.
   */
  readonly replyMaxChecks: number
}

/**
 * Defaults: 50 a page, 20 pages a poll, a Threads reply waits up to 15 × 2 s: the 30 seconds
 * Threads recommends waiting before publishing a container
 * (https://developers.facebook.com/documentation/threads/retrieve-and-manage-replies/create-replies).
 */
export const defaults: Config = {
  pageSize: 50,
  maxPagesPerPoll: 20,
  replyPollIntervalMs: 2_000,
  replyMaxChecks: 15
}

/** The comment operations of one platform. */
export type CommentOperations = Pick<CommentPlatform["Service"], "poll" | "reply" | "setHidden" | "remove">

/**
 * A platform's comment adapter: the operations. What each platform allows is its plugin's
 * `rules.comments`, the one source the API and the router both read.
 */
export type CommentAdapter = CommentOperations

/** Meta writes offsets without a colon (`+0000`); epoch milliseconds, or `undefined`. */
export const parseTimestamp = (value: string | undefined): number | undefined => {
  if (value === undefined) return undefined
  const millis = Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, "$1:$2"))
  return Number.isFinite(millis) ? millis : undefined
}

/** The account's handle without its `@`, for comparing with a platform username. */
export const bareHandle = (handle: string): string => handle.replace(/^@/, "").toLowerCase()

/** The items of a Graph list answer (`data`), or none. */
export const dataOf = (body: unknown): ReadonlyArray<unknown> => {
  const data = field(body, "data")
  return Array.isArray(data) ? data : []
}

/** Meta's paging of a list answer: the `after` cursor, and whether a next page exists. */
export const pagingOf = (body: unknown): { readonly after: string | undefined; readonly next: boolean } => {
  const paging = field(body, "paging")
  return { after: stringField(field(paging, "cursors"), "after"), next: typeof field(paging, "next") === "string" }
}

/**
 * What polls have already returned: the newest platform time seen, and the comments returned
 * lately (id and time), so that a comment listed again is not returned twice. Plain JSON.
 */
export const Mark = Schema.Struct({
  /** The newest comment time returned (epoch ms); 0 before any. */
  at: Schema.Number,
  recent: Schema.Array(Schema.Struct({ id: Schema.String, at: Schema.Number }))
})
/** What polls have already returned. */
export type Mark = typeof Mark.Type

/** No comment seen yet. */
export const noMark: Mark = { at: 0, recent: [] }

/**
 * How much older than the newest one returned a comment may be and still be new: platforms list
 * a comment a little after its time, so one can appear behind a newer one already returned.
 */
export const lateMs = 5 * 60_000

/** The most recently returned comments a mark keeps. */
const recentMax = 500

/**
 * A comment is new when it was not returned lately and is not older than the mark by more than
 * `windowMs` (`Infinity` where the platform's cursor already says it comes after the last read).
 */
export const isNew = (mark: Mark, comment: PlatformComment, windowMs: number = lateMs): boolean =>
  comment.createdAt > mark.at - windowMs && !mark.recent.some((r) => r.id === comment.platformCommentId)

/** The mark after returning `comments`: the newest time, and what came within {@link lateMs} of it. */
export const advance = (mark: Mark, comments: ReadonlyArray<PlatformComment>): Mark => {
  let at = mark.at
  for (const c of comments) if (c.createdAt > at) at = c.createdAt
  const recent = [...mark.recent, ...comments.map((c) => ({ id: c.platformCommentId, at: c.createdAt }))]
    .filter((r) => r.at > at - lateMs)
    .sort((x, y) => x.at - y.at)
    .slice(-recentMax)
  return { at, recent }
}

/** Keeps one comment per platform id (a page boundary may repeat one). */
export const distinct = (comments: ReadonlyArray<PlatformComment>): ReadonlyArray<PlatformComment> => {
  const seen = new Map<string, PlatformComment>()
  for (const c of comments) seen.set(c.platformCommentId, c)
  return [...seen.values()]
}

/** Reads a saved cursor; anything unreadable counts as none (the next poll starts over). */
export const decodeCursor = <A>(schema: Schema.Codec<A>, cursor: unknown): A | null => {
  if (cursor === null || cursor === undefined) return null
  const result = Schema.decodeUnknownExit(schema)(cursor)
  return result._tag === "Success" ? result.value : null
}

/** A number field that may come as a string. */
export const countField = (value: unknown, key: string): number | undefined => {
  const n = numberField(value, key)
  if (n !== undefined) return n
  const s = stringField(value, key)
  return s === undefined || !/^\d+$/.test(s) ? undefined : Number(s)
}

/**
 * An action the platform does not offer for this comment (TikTok has no comment API, Threads
 * hides only replies made directly to the post): `invalid_state`, never retried.
 */
export const unsupported = (platformCode: string): PlatformFailure =>
  failure("invalid_state", platformCode, {
    retryable: false,
    details: { resource: ErrorDetail.resource("resource"), detail: ErrorDetail.reason("platform_rejected_request") }
  })

/**
 * The platform's id of a published target's item: the target's `platformPostId` when the store
 * carries it, else what the publish left in the target's state (`media_id` of Instagram and
 * Threads, `post_id` or `video_id` of a Page). `null` when neither names it.
 */
export const platformPostIdOf = (target: TargetRecord): string | null => {
  const stored = (target as { readonly platformPostId?: unknown }).platformPostId
  if (typeof stored === "string" && stored !== "") return stored
  const state = target.platformState
  return stringField(state, "media_id") ?? stringField(state, "post_id") ?? stringField(state, "video_id") ?? null
}
