/**
 * Comments on the wire: the comment, the list query, the reply request, what each platform lets
 * Postwire do with comments, and the answer of a delete.
 *
 * @since 0.3.0
 */
import { Schema } from "effect"
import { AccountId, PostId, TargetId } from "./Ids.ts"
import { ListEnvelope, PageLimit } from "./List.ts"
import { Platform as PlatformSchema } from "./Platform.ts"
import { Instant, InstantInput } from "./Timestamp.ts"

/** Who wrote a comment. */
export const CommentAuthor = Schema.Struct({
  /** The author's handle on the platform (a Facebook user's name, as the platform gives it). */
  handle: Schema.String.annotate({ description: "The author's handle on the platform (a Facebook user's name, as the platform gives it)." }),
  /** The author's display name when the platform gives one besides the handle. */
  display_name: Schema.optionalKey(
    Schema.String.annotate({ description: "The author's display name when the platform gives one besides the handle." })
  )
}).annotate({ description: "Who wrote the comment." })
export type CommentAuthor = typeof CommentAuthor.Type

/** A comment under a published target, or an answer to one. */
export const Comment = Schema.Struct({
  /** Unique identifier of the comment, `cmt_…`. */
  id: Schema.String.annotate({ description: "Unique identifier of the comment, `cmt_…`." }),
  /** The post the comment is under, `post_…`. */
  post_id: Schema.String.annotate({ description: "The post the comment is under, `post_…`." }),
  /** The published target the comment is under, `tgt_…`. */
  target_id: Schema.String.annotate({ description: "The published target the comment is under, `tgt_…`." }),
  /** The account the target was published with, `acc_…`. */
  account_id: Schema.String.annotate({ description: "The account the target was published with, `acc_…`." }),
  /** The platform of the account. */
  platform: PlatformSchema.annotate({ description: "The platform of the account." }),
  /** The platform's own id of the comment. */
  platform_comment_id: Schema.String.annotate({ description: "The platform's own id of the comment." }),
  /** The comment this one answers, `cmt_…`; `null` for a comment directly under the post. */
  parent_id: Schema.NullOr(Schema.String).annotate({
    description: "The comment this one answers, `cmt_…`; `null` for a comment directly under the post."
  }),
  author: CommentAuthor,
  /** The comment's text. */
  text: Schema.String.annotate({ description: "The comment's text." }),
  /** When the comment was written, as the platform says, ISO 8601 in UTC with milliseconds. */
  created_at: Instant.annotate({ description: "When the comment was written, as the platform says, ISO 8601 in UTC with milliseconds." }),
  /** Whether the comment is hidden from the public on the platform. */
  hidden: Schema.Boolean.annotate({ description: "Whether the comment is hidden from the public on the platform." }),
  /** Likes, when the platform gives a count; `null` otherwise. */
  like_count: Schema.NullOr(Schema.Int).annotate({ description: "Likes, when the platform gives a count; `null` otherwise." }),
  /** `true` when the account itself wrote it (an answer made through Postwire or in the platform's app). */
  from_owner: Schema.Boolean.annotate({
    description: "`true` when the account itself wrote it (an answer made through Postwire or in the platform's app)."
  }),
  /** The comment's public address when the platform has one; `null` otherwise. */
  permalink: Schema.NullOr(Schema.String).annotate({
    description: "The comment's public address when the platform has one; `null` otherwise."
  })
}).annotate({ description: "A comment under a published post, or an answer to one. The data of `comment.created`." })
export type Comment = typeof Comment.Type

/** Query of `GET /v1/comments`. */
export const ListCommentsQuery = Schema.Struct({
  /** Only comments under this post, `post_…`. */
  post_id: Schema.optionalKey(PostId.annotate({ description: "Only comments under this post, `post_…`." })),
  /** Only comments under this target, `tgt_…`. */
  target_id: Schema.optionalKey(TargetId.annotate({ description: "Only comments under this target, `tgt_…`." })),
  /** Only comments under posts of this account, `acc_…`. */
  account_id: Schema.optionalKey(AccountId.annotate({ description: "Only comments under posts of this account, `acc_…`." })),
  /** Only comments on this platform. */
  platform: Schema.optionalKey(PlatformSchema.annotate({ description: "Only comments on this platform." })),
  /** Only comments written at or after this ISO 8601 instant with an offset. */
  from: Schema.optionalKey(
    InstantInput.annotate({ description: "Only comments written at or after this ISO 8601 instant with an offset." })
  ),
  /** Only comments written before this instant (exclusive). With `from`, it must be after `from` and at most 92 days later (else 400 `invalid_range`). */
  to: Schema.optionalKey(
    InstantInput.annotate({
      description:
        "Only comments written before this instant (exclusive). With `from`, it must be after `from` and at most 92 days later (else 400 `invalid_range`)."
    })
  ),
  /** `true`: only hidden comments; `false`: only visible ones. */
  hidden: Schema.optionalKey(
    Schema.Literals(["true", "false"]).annotate({ description: "`true`: only hidden comments; `false`: only visible ones." })
  ),
  limit: Schema.optionalKey(PageLimit),
  /** `cursor.next` of the previous page, with the same filters; valid 24 hours (else 400 `invalid_cursor`). */
  cursor: Schema.optionalKey(
    Schema.String.annotate({
      description: "`cursor.next` of the previous page, with the same filters; valid 24 hours (else 400 `invalid_cursor`)."
    })
  )
})
export type ListCommentsQuery = typeof ListCommentsQuery.Type

/** A page of comments, newest first. */
export const CommentList = ListEnvelope(Comment)
export type CommentList = typeof CommentList.Type

/** Body of `POST /v1/comments/{id}/replies`. */
export const ReplyToCommentRequest = Schema.Struct({
  /** The answer's text, 1 to 2,200 characters, published as the account. */
  text: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(2200)).annotate({
    description: "The answer's text, 1 to 2,200 characters, published as the account."
  })
}).annotate({ description: "An answer to publish under a comment.", examples: [{ text: "Terima kasih! See you at the shop this weekend 🙏" }] })
export type ReplyToCommentRequest = typeof ReplyToCommentRequest.Type

/** The answer of `DELETE /v1/comments/{id}`. */
export const DeletedComment = Schema.Struct({
  /** The deleted comment's id, `cmt_…`. */
  id: Schema.String.annotate({ description: "The deleted comment's id, `cmt_…`." }),
  /** Always `true`. */
  deleted: Schema.Literal(true).annotate({ description: "Always `true`." })
}).annotate({ description: "The comment was deleted on the platform and is no longer listed." })
export type DeletedComment = typeof DeletedComment.Type

/** What the platform lets Postwire do with an account's comments. */
export const CommentCapabilities = Schema.Struct({
  /** Comments are read (TikTok: `false`: its public APIs give no comment access; its targets list no comments). */
  read: Schema.Boolean.annotate({
    description: "Comments are read (TikTok: `false`: its public APIs give no comment access; its targets list no comments)."
  }),
  /** Answers can be published with `POST /v1/comments/{id}/replies`. */
  reply: Schema.Boolean.annotate({ description: "Answers can be published with `POST /v1/comments/{id}/replies`." }),
  /** Comments can be hidden and shown again. */
  hide: Schema.Boolean.annotate({ description: "Comments can be hidden and shown again." }),
  /** Comments can be deleted. */
  delete: Schema.Boolean.annotate({ description: "Comments can be deleted." }),
  /** The platform pushes new comments to Postwire (Meta's webhooks) besides polling. */
  push: Schema.Boolean.annotate({ description: "The platform pushes new comments to Postwire (Meta's webhooks) besides polling." })
}).annotate({ description: "What Postwire can do with the account's comments on its platform." })
export type CommentCapabilities = typeof CommentCapabilities.Type

/** A comment action, as the capability flags name them. */
export type CommentAction = "reply" | "hide" | "delete"

/**
 * What a sandbox account may do with comments, whatever its platform: everything but `push`, on
 * the simulated platform. A live account's capabilities are its platform plugin's
 * (`rules.comments`).
 */
export const sandboxCommentCapabilities: CommentCapabilities = { read: true, reply: true, hide: true, delete: true, push: false }
