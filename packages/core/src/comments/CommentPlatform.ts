/**
 * The `CommentPlatform` service: everything Postwire says to a platform about the comments under
 * a published target: read what is new since the last poll, answer as the account, hide, unhide
 * and delete.
 *
 * One implementation serves the whole server and routes by the account's platform and sandbox
 * flag (sandbox accounts get the built-in simulated platform's comments). The engine never reads
 * tokens: accounts arrive with their credentials opened, exactly as for {@link PlatformClient}.
 *
 * Polling is incremental: `poll` is given the cursor it returned last time (`null` the first
 * time) and returns only comments the platform made visible since, with a new cursor to save.
 * A poll costs one or two platform calls in the steady state; it never re-reads a whole thread.
 * The same comment may still be returned twice (after a crash, or when a platform webhook saw it
 * first): the engine stores each platform comment id once.
 *
 * Times are epoch milliseconds.
 *
 * @since 0.3.0
 */
import { Context, type Effect } from "effect"
import type { Platform } from "@postwire/domain"
import type { CredentialsUpdate, PlatformFailure } from "../platform/PlatformFailure.ts"
import type { AccountRecord } from "../store/AccountStore.ts"
import type { PostRecord, TargetRecord } from "../store/PostStore.ts"

/** One comment as the platform reports it. */
export interface PlatformComment {
  /** The platform's own id of the comment (ig-comment-id, Page comment id, Threads reply id). */
  readonly platformCommentId: string
  /**
   * The platform id of the comment this one answers; `null` for a comment directly under the
   * published item.
   */
  readonly parentPlatformCommentId: string | null
  /** The author's handle (username; for a Facebook user, the name the platform gives). */
  readonly authorHandle: string
  /** The author's display name when the platform gives one besides the handle. */
  readonly authorDisplayName: string | null
  /** The author's platform id when the platform gives it. */
  readonly authorPlatformId: string | null
  readonly text: string
  /** When the platform says it was written (epoch ms). */
  readonly createdAt: number
  readonly hidden: boolean
  /** Likes, when the platform gives a count; `null` otherwise. */
  readonly likeCount: number | null
  /** The account itself wrote it (an answer made through Postwire or in the platform's app). */
  readonly fromOwner: boolean
  /** The comment's public address when the platform has one. */
  readonly permalink: string | null
}

/** What a platform lets an app of Postwire's kind do with comments. */
export interface CommentCapabilities {
  /** Comments can be listed (TikTok: `false`, its public APIs give no comment access). */
  readonly read: boolean
  readonly reply: boolean
  readonly hide: boolean
  readonly delete: boolean
  /** The platform pushes new comments to a webhook (Meta's `comments`, `feed`, `replies`). */
  readonly push: boolean
}

/** One incremental read of a published target's comments. */
export interface CommentPollInput {
  readonly post: PostRecord
  /** A published target: its `platformPostId` names the item whose comments are read. */
  readonly target: TargetRecord
  /** The target's account, credentials opened. */
  readonly account: AccountRecord
  /** What the previous poll returned as `cursor`; `null` on the first poll. Opaque JSON. */
  readonly cursor: unknown
}

/** The result of one poll. */
export interface CommentPoll {
  /** Comments made visible since the previous poll (replies included), any order. */
  readonly comments: ReadonlyArray<PlatformComment>
  /** Save this and give it to the next poll. Opaque JSON. */
  readonly cursor: unknown
  /** How many platform calls the poll made (counted against the account's hourly budget). */
  readonly calls: number
  /** Tokens refreshed while polling: store them. */
  readonly credentials?: CredentialsUpdate | undefined
}

/** Acting on one comment as the account. */
export interface CommentActionInput {
  readonly post: PostRecord
  readonly target: TargetRecord
  /** The target's account, credentials opened. */
  readonly account: AccountRecord
  readonly platformCommentId: string
}

/** A comment change a platform pushed to `POST /platform-hooks/meta`. */
export interface PushedComment {
  readonly platform: Platform
  /** The platform's id of the account the comment is under (ig-user-id, page id, threads user id). */
  readonly accountExternalId: string | null
  /** The platform's id of the published item (media id, Page post id, Threads root post id). */
  readonly platformPostId: string
  /** `removed`: the platform says the comment was deleted (Page `feed` verb `remove`). */
  readonly change: "added" | "edited" | "removed"
  readonly comment: PlatformComment
}

/** Reads and moderates comments on platforms. */
export class CommentPlatform extends Context.Service<
  CommentPlatform,
  {
    /** What the platform allows; sandbox accounts can do everything but `push`. */
    readonly capabilities: (platform: Platform, sandbox: boolean) => CommentCapabilities
    /** Reads what is new under a published target since the previous poll. */
    readonly poll: (input: CommentPollInput) => Effect.Effect<CommentPoll, PlatformFailure>
    /** Publishes `text` as the account's answer to the comment; returns the answer. */
    readonly reply: (
      input: CommentActionInput & { readonly text: string }
    ) => Effect.Effect<
      { readonly comment: PlatformComment; readonly credentials?: CredentialsUpdate | undefined },
      PlatformFailure
    >
    /** Hides (`true`) or unhides (`false`) the comment on the platform. */
    readonly setHidden: (
      input: CommentActionInput & { readonly hidden: boolean }
    ) => Effect.Effect<{ readonly credentials?: CredentialsUpdate | undefined }, PlatformFailure>
    /** Deletes the comment on the platform where it allows. */
    readonly remove: (
      input: CommentActionInput
    ) => Effect.Effect<{ readonly credentials?: CredentialsUpdate | undefined }, PlatformFailure>
  }
>()("postwire/CommentPlatform") {}
