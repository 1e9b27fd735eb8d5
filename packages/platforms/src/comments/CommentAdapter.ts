/**
 * A platform's comment adapter: its settings, the operations each implements, Meta's
 * timestamps, the "seen up to" mark that keeps a poll from returning a comment twice, and the
 * normalized refusals of actions a platform does not allow.
 *
 * @since 0.3.0
 */
import type { CommentCapabilities, CommentPlatform, PlatformComment, PlatformFailure, TargetRecord } from "@postwire/core"
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
  /** Threads: wait between checks of a reply container that is not ready yet. */
  readonly replyPollIntervalMs: number
  /** Threads: checks of a reply container before giving up (`platform_unavailable`, retryable). */
  readonly replyMaxChecks: number
}

/** Defaults: 50 a page, 20 pages a poll, a Threads reply waits up to 10 × 2 s. */
export const defaults: Config = {
  pageSize: 50,
  maxPagesPerPoll: 20,
  replyPollIntervalMs: 2_000,
  replyMaxChecks: 10
}

/** The comment operations of one platform. */
export type CommentOperations = Pick<CommentPlatform["Service"], "poll" | "reply" | "setHidden" | "remove">

/** A platform's comment adapter: what it allows, and the operations. */
export interface CommentAdapter extends CommentOperations {
  readonly capabilities: CommentCapabilities
}

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
 * What a poll has already returned: the newest platform time seen, and the ids seen at exactly
 * that time (Meta's times are whole seconds, so two comments can share one).
 */
export const Mark = Schema.Struct({
  at: Schema.Number,
  ids: Schema.Array(Schema.String)
})
/** What a poll has already returned. */
export type Mark = typeof Mark.Type

/** No comment seen yet. */
export const noMark: Mark = { at: Number.NEGATIVE_INFINITY, ids: [] }

/** A comment is new when it is later than the mark, or at the mark and not seen there. */
export const isNew = (mark: Mark, comment: PlatformComment): boolean =>
  comment.createdAt > mark.at || (comment.createdAt === mark.at && !mark.ids.includes(comment.platformCommentId))

/** The mark after returning `comments` (the ids at the mark are kept to at most 200). */
export const advance = (mark: Mark, comments: ReadonlyArray<PlatformComment>): Mark => {
  let at = mark.at
  for (const c of comments) if (c.createdAt > at) at = c.createdAt
  const ids = new Set(at === mark.at ? mark.ids : [])
  for (const c of comments) if (c.createdAt === at) ids.add(c.platformCommentId)
  return { at, ids: [...ids].slice(-200) }
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
