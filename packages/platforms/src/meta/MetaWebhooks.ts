/**
 * Meta's comment webhooks, as pure functions: checking a delivery's signature, and reading the
 * comment changes out of its body.
 *
 * - Instagram: `object: "instagram"`, field `comments`: `entry[].id` is the ig-user-id, the value
 *   names the comment (`id`, `text`, `from{id,username}`, `media{id}`, `parent_id`).
 * - Facebook Pages: `object: "page"`, field `feed` with `item: "comment"` and `verb` `add`,
 *   `edited` or `remove`: `entry[].id` is the Page id, the value carries `comment_id`, `post_id`,
 *   `parent_id`, `from{id,name}`, `message`, `created_time`.
 * - Threads: its own shape, `{app_id, topic, target_id, time, values: {field: "replies", value:
 *   {id, username, text, permalink, replied_to{id}, root_post{id,owner_id,username}, timestamp}}}`
 *   (one such object, a list of them, or `values` as a list).
 *
 * Anything else (other objects, fields, items, verbs; malformed entries) is skipped, never thrown
 * on: the platforms add fields and kinds over time, and a delivery must never fail on them.
 *
 * @example
 * ```ts
 * import { parseMetaCommentHook, verifyMetaSignature } from "@postwire/platforms"
 *
 * if (verifyMetaSignature(rawBody, request.headers["x-hub-signature-256"], [appSecret])) {
 *   const changes = parseMetaCommentHook(JSON.parse(new TextDecoder().decode(rawBody)))
 * }
 * ```
 *
 * @since 0.3.0
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import type { PlatformComment, PushedComment } from "@postwire/core"
import { field, numberField, stringField } from "../internal/Wire.ts"
import { parseTimestamp } from "../comments/CommentAdapter.ts"

/**
 * Checks `X-Hub-Signature-256` (`sha256=<hex HMAC-SHA256 of the raw body>`) against every listed
 * app secret (several during a rotation, or one per Meta app: Facebook/Instagram and Threads),
 * in constant time. A missing or malformed header, or no secret, is `false`.
 */
export const verifyMetaSignature = (
  rawBody: Uint8Array,
  header: string | undefined,
  appSecrets: ReadonlyArray<string>
): boolean => {
  if (header === undefined) return false
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(header.trim())
  if (match === null) return false
  const given = Buffer.from(match[1]!.toLowerCase(), "hex")
  let valid = false
  // Every secret is tried, whichever matches, so the time taken does not tell which one did.
  for (const secret of appSecrets) {
    if (secret === "") continue
    const expected = createHmac("sha256", secret).update(rawBody).digest()
    if (timingSafeEqual(expected, given)) valid = true
  }
  return valid
}

const listOf = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])

/** Entry times are Unix seconds (milliseconds on some products): epoch milliseconds. */
const entryTime = (value: unknown): number | undefined => {
  const n = numberField(value, "time")
  if (n === undefined) return undefined
  return n < 1e12 ? n * 1000 : n
}

const instagramComment = (entry: unknown, value: unknown, receivedAt: number): PushedComment | undefined => {
  const id = stringField(value, "id")
  const mediaId = stringField(field(value, "media"), "id")
  if (id === undefined || mediaId === undefined) return undefined
  const accountId = stringField(entry, "id") ?? null
  const from = field(value, "from")
  const authorId = stringField(from, "id") ?? null
  const comment: PlatformComment = {
    platformCommentId: id,
    parentPlatformCommentId: stringField(value, "parent_id") ?? null,
    authorHandle: stringField(from, "username") ?? "",
    authorDisplayName: null,
    authorPlatformId: authorId,
    text: stringField(value, "text") ?? "",
    createdAt: parseTimestamp(stringField(value, "timestamp")) ?? entryTime(entry) ?? receivedAt,
    hidden: false,
    likeCount: null,
    fromOwner: authorId !== null && authorId === accountId,
    permalink: null
  }
  return { platform: "photo", accountExternalId: accountId, platformPostId: mediaId, change: "added", comment }
}

const verbs: Readonly<Record<string, PushedComment["change"]>> = { add: "added", edited: "edited", remove: "removed" }

const pageComment = (entry: unknown, value: unknown, receivedAt: number): PushedComment | undefined => {
  if (stringField(value, "item") !== "comment") return undefined
  const change = verbs[stringField(value, "verb") ?? ""]
  const id = stringField(value, "comment_id")
  const postId = stringField(value, "post_id")
  if (change === undefined || id === undefined || postId === undefined) return undefined
  const pageId = stringField(entry, "id") ?? null
  const from = field(value, "from")
  const authorId = stringField(from, "id") ?? null
  const parent = stringField(value, "parent_id")
  const created = field(value, "created_time")
  const comment: PlatformComment = {
    platformCommentId: id,
    parentPlatformCommentId: parent === undefined || parent === postId ? null : parent,
    authorHandle: stringField(from, "name") ?? "",
    authorDisplayName: stringField(from, "name") ?? null,
    authorPlatformId: authorId,
    text: stringField(value, "message") ?? "",
    createdAt:
      typeof created === "number"
        ? created < 1e12
          ? created * 1000
          : created
        : (parseTimestamp(typeof created === "string" ? created : undefined) ?? entryTime(entry) ?? receivedAt),
    hidden: false,
    likeCount: null,
    fromOwner: authorId !== null && authorId === pageId,
    permalink: null
  }
  return { platform: "pages", accountExternalId: pageId, platformPostId: postId, change, comment }
}

const threadsReply = (delivery: unknown, value: unknown, receivedAt: number): PushedComment | undefined => {
  const id = stringField(value, "id")
  const root = field(value, "root_post")
  const rootId = stringField(root, "id")
  if (id === undefined || rootId === undefined) return undefined
  const repliedTo = stringField(field(value, "replied_to"), "id")
  const username = stringField(value, "username") ?? ""
  const owner = stringField(root, "username")
  const comment: PlatformComment = {
    platformCommentId: id,
    parentPlatformCommentId: repliedTo === undefined || repliedTo === rootId ? null : repliedTo,
    authorHandle: username,
    authorDisplayName: null,
    authorPlatformId: null,
    text: stringField(value, "text") ?? "",
    createdAt: parseTimestamp(stringField(value, "timestamp")) ?? entryTime(delivery) ?? receivedAt,
    hidden: false,
    likeCount: null,
    fromOwner: owner !== undefined && username !== "" && username === owner,
    permalink: stringField(value, "permalink") ?? null
  }
  return {
    platform: "textpost",
    accountExternalId: stringField(root, "owner_id") ?? stringField(delivery, "target_id") ?? null,
    platformPostId: rootId,
    change: "added",
    comment
  }
}

const threadsDelivery = (delivery: unknown, receivedAt: number): ReadonlyArray<PushedComment> => {
  const values = field(delivery, "values")
  const out: Array<PushedComment> = []
  for (const change of Array.isArray(values) ? values : [values]) {
    if (stringField(change, "field") !== "replies") continue
    const pushed = threadsReply(delivery, field(change, "value"), receivedAt)
    if (pushed !== undefined) out.push(pushed)
  }
  return out
}

/**
 * The comment changes of a Meta webhook body (already JSON-parsed). Unknown objects, fields,
 * items and verbs are skipped; malformed input gives an empty list. `receivedAt` (epoch ms) stands
 * in for a comment time the delivery does not give.
 */
export const parseMetaCommentHook = (body: unknown, receivedAt: number = Date.now()): ReadonlyArray<PushedComment> => {
  try {
    if (Array.isArray(body)) return body.flatMap((delivery) => [...threadsDelivery(delivery, receivedAt)])
    const object = stringField(body, "object")
    if (object === undefined) return field(body, "values") === undefined ? [] : threadsDelivery(body, receivedAt)
    const out: Array<PushedComment> = []
    for (const entry of listOf(field(body, "entry"))) {
      for (const change of listOf(field(entry, "changes"))) {
        const name = stringField(change, "field")
        const value = field(change, "value")
        const pushed =
          object === "instagram" && name === "comments"
            ? instagramComment(entry, value, receivedAt)
            : object === "page" && name === "feed"
              ? pageComment(entry, value, receivedAt)
              : undefined
        if (pushed !== undefined) out.push(pushed)
      }
    }
    return out
  } catch {
    return []
  }
}
