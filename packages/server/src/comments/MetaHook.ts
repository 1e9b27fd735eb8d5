/**
 * Meta's comment webhooks, as the server reads them: the `X-Hub-Signature-256` check on the raw
 * body, and the changes that carry comments (Instagram `comments`, Page `feed` items of kind
 * `comment`, Threads `replies`) as `PushedComment`s.
 *
 * The platform adapters' package will offer `verifyMetaSignature` and `parseMetaCommentHook`
 * with these shapes; this module keeps the server's own until then, so the route does not
 * change when it switches.
 *
 * @since 0.3.0
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import type { PlatformComment, PushedComment } from "@postwire/core"

/**
 * Whether `header` (`sha256=<hex>`) is the HMAC-SHA256 of the raw body under one of the app
 * secrets, compared in constant time.
 */
export const verifyMetaSignature = (
  rawBody: Uint8Array,
  header: string | undefined,
  appSecrets: ReadonlyArray<string>
): boolean => {
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(header?.trim() ?? "")
  if (match === null) return false
  const given = Buffer.from(match[1]!, "hex")
  let verified = false
  for (const secret of appSecrets) {
    const expected = createHmac("sha256", secret).update(rawBody).digest()
    // Every secret is tried, so the time taken does not tell which one matched.
    if (timingSafeEqual(expected, given)) verified = true
  }
  return verified
}

type Json = Readonly<Record<string, unknown>>

const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)
const str = (u: unknown): string | null => (typeof u === "string" && u !== "" ? u : typeof u === "number" ? String(u) : null)
const arrayOf = (u: unknown): ReadonlyArray<unknown> => (Array.isArray(u) ? u : [])

/** A Meta time: unix seconds, or an ISO 8601 / `+0000` string. */
const timeOf = (u: unknown, fallback: number): number => {
  if (typeof u === "number" && Number.isFinite(u)) return u < 1e12 ? u * 1000 : u
  if (typeof u === "string") {
    const parsed = Date.parse(u.replace(/([+-]\d{2})(\d{2})$/, "$1:$2"))
    if (!Number.isNaN(parsed)) return parsed
  }
  return fallback
}

const comment = (fields: Omit<PlatformComment, "hidden" | "likeCount" | "authorDisplayName"> & Partial<PlatformComment>): PlatformComment => ({
  hidden: false,
  likeCount: null,
  authorDisplayName: null,
  ...fields
})

/** An Instagram `comments` change under the professional account `accountId`. */
const instagramComment = (accountId: string | null, value: Json, time: number): PushedComment | undefined => {
  const id = str(value.id)
  const media = isObject(value.media) ? str(value.media.id) : null
  if (id === null || media === null) return undefined
  const from = isObject(value.from) ? value.from : {}
  const authorId = str(from.id)
  return {
    platform: "photo",
    accountExternalId: accountId,
    platformPostId: media,
    change: "added",
    comment: comment({
      platformCommentId: id,
      parentPlatformCommentId: str(value.parent_id),
      authorHandle: str(from.username) ?? "unknown",
      authorPlatformId: authorId,
      text: typeof value.text === "string" ? value.text : "",
      createdAt: timeOf(value.timestamp, time),
      fromOwner: authorId !== null && authorId === accountId,
      permalink: null
    })
  }
}

/** A Page `feed` change of item `comment` under the Page `pageId`. */
const pageComment = (pageId: string | null, value: Json, time: number): PushedComment | undefined => {
  if (value.item !== "comment") return undefined
  const id = str(value.comment_id)
  const post = str(value.post_id)
  if (id === null || post === null) return undefined
  const from = isObject(value.from) ? value.from : {}
  const authorId = str(from.id)
  const parent = str(value.parent_id)
  const verb = value.verb
  return {
    platform: "pages",
    accountExternalId: pageId,
    platformPostId: post,
    change: verb === "remove" || verb === "hide" ? "removed" : verb === "edited" || verb === "edit" ? "edited" : "added",
    comment: comment({
      platformCommentId: id,
      // A comment directly under the post names the post as its parent.
      parentPlatformCommentId: parent === null || parent === post ? null : parent,
      authorHandle: str(from.name) ?? "unknown",
      authorPlatformId: authorId,
      text: typeof value.message === "string" ? value.message : "",
      createdAt: timeOf(value.created_time, time),
      fromOwner: authorId !== null && authorId === pageId,
      permalink: null
    })
  }
}

/** A Threads `replies` value. */
const threadsReply = (value: Json, time: number): PushedComment | undefined => {
  const id = str(value.id)
  const root = isObject(value.root_post) ? value.root_post : undefined
  const rootId = root === undefined ? null : str(root.id)
  if (id === null || rootId === null || root === undefined) return undefined
  const owner = str(root.owner_id)
  const repliedTo = isObject(value.replied_to) ? str(value.replied_to.id) : null
  const username = str(value.username) ?? "unknown"
  return {
    platform: "textpost",
    accountExternalId: owner,
    platformPostId: rootId,
    change: "added",
    comment: comment({
      platformCommentId: id,
      parentPlatformCommentId: repliedTo === null || repliedTo === rootId ? null : repliedTo,
      authorHandle: username,
      authorPlatformId: null,
      text: typeof value.text === "string" ? value.text : "",
      createdAt: timeOf(value.timestamp, time),
      fromOwner: str(root.username) === username,
      permalink: str(value.permalink)
    })
  }
}

/**
 * The comments in a Meta webhook body: `{ object, entry: [{ id, time, changes: [{ field, value }] }] }`
 * for Instagram (`comments`) and Pages (`feed`), and Threads' `{ values: { field: "replies", value } }`.
 * Anything else (other fields, malformed changes) is skipped. `receivedAt` stands in for a
 * missing time.
 */
export const parseMetaCommentHook = (json: unknown, receivedAt: number = Date.now()): ReadonlyArray<PushedComment> => {
  if (!isObject(json)) return []
  const found: Array<PushedComment> = []
  const push = (c: PushedComment | undefined) => {
    if (c !== undefined) found.push(c)
  }
  for (const values of isObject(json.values) ? [json.values] : arrayOf(json.values)) {
    if (isObject(values) && values.field === "replies" && isObject(values.value)) {
      push(threadsReply(values.value, timeOf(json.time, receivedAt)))
    }
  }
  for (const entry of arrayOf(json.entry)) {
    if (!isObject(entry)) continue
    const accountId = str(entry.id)
    const time = timeOf(entry.time, receivedAt)
    for (const change of arrayOf(entry.changes)) {
      if (!isObject(change) || !isObject(change.value)) continue
      if (json.object === "instagram" && change.field === "comments") push(instagramComment(accountId, change.value, time))
      else if (json.object === "page" && change.field === "feed") push(pageComment(accountId, change.value, time))
      else if (change.field === "replies") push(threadsReply(change.value, time))
    }
  }
  return found
}
