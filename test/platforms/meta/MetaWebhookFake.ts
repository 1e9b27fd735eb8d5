/**
 * Meta's webhook deliveries as Meta sends them (platforms-connect.md, "Meta webhooks"): the JSON
 * body of each object kind, and the `X-Hub-Signature-256` header, `sha256=` and the hex
 * HMAC-SHA256 of the raw body with the app secret.
 */
import { createHmac } from "node:crypto"
import type { FakeComment } from "./CommentFake.ts"
import { metaTime } from "./CommentFake.ts"

/** A delivery: the raw body bytes and the signature header Meta sends with them. */
export interface SignedDelivery {
  readonly raw: Uint8Array
  readonly text: string
  readonly header: string
}

/** Serializes `body` and signs it with `secret`, like Meta. */
export const sign = (body: unknown, secret: string): SignedDelivery => {
  const text = typeof body === "string" ? body : JSON.stringify(body)
  const raw = new TextEncoder().encode(text)
  return { raw, text, header: `sha256=${createHmac("sha256", secret).update(raw).digest("hex")}` }
}

const seconds = (millis: number) => Math.floor(millis / 1000)

/** Instagram `comments` for a comment of the Instagram fake (`igUserId`: the account). */
export const instagramComment = (igUserId: string, comment: FakeComment) => ({
  object: "instagram",
  entry: [
    {
      id: igUserId,
      time: seconds(comment.createdAt),
      changes: [
        {
          field: "comments",
          value: {
            from: { id: comment.authorId, username: comment.username },
            media: { id: comment.rootId, media_product_type: "FEED" },
            id: comment.id,
            ...(comment.parentId === null ? {} : { parent_id: comment.parentId }),
            text: comment.text
          }
        }
      ]
    }
  ]
})

/** Page `feed` with a comment item, for a comment of the Pages fake. */
export const pageComment = (pageId: string, comment: FakeComment, verb: "add" | "edited" | "remove" = "add") => ({
  object: "page",
  entry: [
    {
      id: pageId,
      time: seconds(comment.createdAt),
      changes: [
        {
          field: "feed",
          value: {
            from: { id: comment.authorId, name: comment.username },
            post: { status_type: "added_photos", is_published: true, updated_time: metaTime(comment.createdAt), id: comment.rootId },
            message: comment.text,
            post_id: comment.rootId,
            comment_id: comment.id,
            created_time: seconds(comment.createdAt),
            item: "comment",
            parent_id: comment.parentId ?? comment.rootId,
            verb
          }
        }
      ]
    }
  ]
})

/** Threads `replies` for a reply of the Threads fake. */
export const threadsReply = (threadsUserId: string, ownerUsername: string, reply: FakeComment) => ({
  app_id: "1234567890",
  topic: "moderate",
  target_id: threadsUserId,
  time: seconds(reply.createdAt),
  subscription_id: "9876543210",
  has_uid_field: false,
  values: {
    value: {
      id: reply.id,
      username: reply.username,
      text: reply.text,
      media_type: "TEXT_POST",
      permalink: `https://www.threads.net/@${reply.username}/post/R${reply.id.slice(-8)}`,
      replied_to: { id: reply.parentId ?? reply.rootId },
      root_post: { id: reply.rootId, owner_id: threadsUserId, username: ownerUsername },
      shortcode: `R${reply.id.slice(-8)}`,
      timestamp: metaTime(reply.createdAt)
    },
    field: "replies"
  }
})
