/**
 * The `CommentStore` service: the comments under published targets, and each target's comment
 * polling state, on the engine's database. One interface, an in-memory and a SQL
 * implementation, one conformance suite.
 *
 * A comment is stored once per account and platform comment id, whoever sees it first (a poll,
 * Meta's webhook, an answer made through the API): the insert skips a comment already there,
 * and only a comment actually inserted writes its `comment.created` event, in the same
 * transaction. So polls repeated after a crash, several instances, and a webhook racing a poll
 * neither lose nor duplicate a comment or its event.
 *
 * @since 0.3.0
 */

import type { Ids, Platform } from "@postwire/domain"
import { Context, type Effect, type Option } from "effect"
import type { ReconnectReason } from "../accounts/ConnectStore.ts"
import type { OutboxEvent } from "../store/Outbox.ts"
import type { Keyset } from "../store/Keyset.ts"
import type { StoreError } from "../store/StoreError.ts"

/** A stored comment. Times are epoch milliseconds. */
export interface CommentRecord {
  readonly id: Ids.CommentId
  readonly workspaceId: Ids.WorkspaceId
  readonly postId: Ids.PostId
  readonly targetId: Ids.TargetId
  readonly accountId: Ids.AccountId
  readonly platform: Platform
  readonly platformCommentId: string
  /** The `cmt_` id of the comment this one answers, when it is stored; `null` otherwise. */
  readonly parentId: Ids.CommentId | null
  /** The platform id of the comment this one answers; `null` for a comment under the post. */
  readonly parentPlatformCommentId: string | null
  readonly authorHandle: string
  readonly authorDisplayName: string | null
  readonly text: string
  /** When the platform says it was written. */
  readonly createdAt: number
  readonly hidden: boolean
  readonly likeCount: number | null
  readonly fromOwner: boolean
  readonly permalink: string | null
  /** When Postwire stored it. */
  readonly storedAt: number
}

/** Filters of a comment list; `from` inclusive, `to` exclusive, on `createdAt`. */
export interface CommentFilter {
  readonly postId?: Ids.PostId | undefined
  readonly targetId?: Ids.TargetId | undefined
  readonly accountId?: Ids.AccountId | undefined
  readonly platform?: Platform | undefined
  readonly hidden?: boolean | undefined
  readonly from?: number | undefined
  readonly to?: number | undefined
}

/** A published target whose comments are polled, and where its polling stands. */
export interface CommentPollState {
  readonly workspaceId: Ids.WorkspaceId
  readonly targetId: Ids.TargetId
  readonly postId: Ids.PostId
  readonly accountId: Ids.AccountId
  readonly platform: Platform
  /** The platform's id of the published item. */
  readonly platformPostId: string
  /** When the target published: the polling schedule follows the post's age. */
  readonly publishedAt: number
  /** What the last poll returned as its cursor; `null` before the first poll. */
  readonly cursor: unknown
  /** When to poll next; `null` once polling stopped (the target is too old). */
  readonly nextPollAt: number | null
  /** Polls failed in a row (backoff). */
  readonly failures: number
  readonly leaseOwner: string | null
  readonly leaseUntil: number | null
}

/** Names one polled target. */
export interface PollKey {
  readonly workspaceId: Ids.WorkspaceId
  readonly targetId: Ids.TargetId
}

/** A comment to store, with the ids it gets if it is new. */
export interface NewComment {
  /** The record to insert; `parentId` is resolved by the store from `parentPlatformCommentId`. */
  readonly record: CommentRecord
  /** The id of its `comment.created` event, written only if the comment is inserted. */
  readonly eventId: Ids.EventId
}

/** What a completed poll writes, when its lease is still held. */
export interface PollCompletion {
  readonly owner: string
  readonly at: number
  readonly cursor: unknown
  readonly nextPollAt: number | null
  /** Sealed credentials to store on the account (tokens rotate). */
  readonly credentials?: string | undefined
}

/** A batch of comments seen under one target. */
export interface CommentBatch {
  readonly workspaceId: Ids.WorkspaceId
  /** In order: a comment's parent, when in the batch, comes before it. */
  readonly comments: ReadonlyArray<NewComment>
  /** Builds the `comment.created` event of an inserted comment (its parent resolved). */
  readonly event: (comment: CommentRecord, eventId: Ids.EventId) => OutboxEvent
  /** The poll that found them: its state is saved in the same transaction, if still held. */
  readonly poll?: { readonly key: PollKey; readonly completion: PollCompletion } | undefined
}

/** What {@link CommentStoreShape.storeComments} did. */
export interface StoredComments {
  /** The comments inserted now (each with its event written), parents resolved. */
  readonly inserted: ReadonlyArray<CommentRecord>
  /** Whether the poll's state was saved (false when its lease was lost, or no poll was given). */
  readonly pollSaved: boolean
}

/** What a polling instance asks of {@link CommentStoreShape.claimDuePolls}. */
export interface PollClaimRequest {
  readonly owner: string
  /** Now: polls due at or before it are claimed. */
  readonly at: number
  readonly leaseUntil: number
  readonly limit: number
}

/** A poll put off: failed, out of budget, or its account unusable. */
export interface PollDeferral {
  readonly at: number
  /** When to poll next; `null` stops polling the target. */
  readonly nextPollAt: number | null
  /** Failures in a row from now on (0 when the poll was only put off for the budget). */
  readonly failures: number
  /** Sealed credentials to store on the account (tokens rotate). */
  readonly credentials?: string | undefined
  /**
   * The platform refused the account's token or permission: a `connected` account becomes
   * `needs_reconnect`, with `reason` kept on its connection and `events`
   * (`account.needs_reconnect`) written with the change. An account in any other status is left
   * as it is, and the events are not written.
   */
  readonly reconnect?: { readonly reason: ReconnectReason; readonly events: ReadonlyArray<OutboxEvent> } | undefined
}

/** A change a platform reported for a stored comment (Meta's `edited`, `removed`). */
export interface CommentChange {
  readonly text?: string | undefined
  readonly hidden?: boolean | undefined
  /** Deleted on the platform: no longer listed. */
  readonly deleted?: boolean | undefined
}

/** Every read and write of comments. */
export interface CommentStoreShape {
  /** Newest `createdAt` first, ties by id descending, after the keyset position when given. Deleted comments are left out. */
  readonly listComments: (
    workspaceId: Ids.WorkspaceId,
    filter: CommentFilter,
    after: Keyset | undefined,
    limit: number
  ) => Effect.Effect<ReadonlyArray<CommentRecord>, StoreError>
  /** A comment that is not deleted. */
  readonly getComment: (workspaceId: Ids.WorkspaceId, id: Ids.CommentId) => Effect.Effect<Option.Option<CommentRecord>, StoreError>
  /**
   * Inserts each comment not stored yet under its account (by platform comment id) with its
   * event, resolves parents, and saves the poll's state when its lease is still held, in one
   * transaction. Comments already stored are left as they are.
   */
  readonly storeComments: (batch: CommentBatch) => Effect.Effect<StoredComments, StoreError>
  /** Applies a change to a stored comment (by account and platform id); `None` when it is not stored. */
  readonly changeComment: (
    workspaceId: Ids.WorkspaceId,
    accountId: Ids.AccountId,
    platformCommentId: string,
    change: CommentChange
  ) => Effect.Effect<Option.Option<CommentRecord>, StoreError>

  /** Starts polling a published target's comments (idempotent: an existing state is kept). */
  readonly trackTarget: (state: CommentPollState) => Effect.Effect<void, StoreError>
  /** The polling state of a target. */
  readonly getPollState: (key: PollKey) => Effect.Effect<Option.Option<CommentPollState>, StoreError>
  /**
   * Leases up to `limit` polls due at `at` (by `nextPollAt`, earliest first) when nobody holds
   * them or their lease ran out; rows locked by another instance are skipped.
   */
  readonly claimDuePolls: (request: PollClaimRequest) => Effect.Effect<ReadonlyArray<CommentPollState>, StoreError>
  /** Gives the lease up and sets the next poll. False when `owner` no longer holds it. */
  readonly deferPoll: (key: PollKey, owner: string, deferral: PollDeferral) => Effect.Effect<boolean, StoreError>
  /**
   * The polled targets of a published item, found by the platform's ids (a pushed comment names
   * no workspace): the item's id, and the account's platform id when given.
   */
  readonly findPolledTargets: (
    platform: Platform,
    accountExternalId: string | null,
    platformPostId: string
  ) => Effect.Effect<ReadonlyArray<CommentPollState>, StoreError>

  /**
   * Counts `calls` platform calls against the account's budget for the hour starting at
   * `windowStart`, only if the calls made in that hour so far are fewer than `budget`. Returns
   * whether they were counted. Atomic: concurrent polls of one account never overdraw it by
   * more than the last poll's extra calls.
   */
  readonly takeCallBudget: (
    workspaceId: Ids.WorkspaceId,
    accountId: Ids.AccountId,
    windowStart: number,
    budget: number,
    calls: number
  ) => Effect.Effect<boolean, StoreError>
  /** Calls counted in the account's hour starting at `windowStart`. */
  readonly callsUsed: (workspaceId: Ids.WorkspaceId, accountId: Ids.AccountId, windowStart: number) => Effect.Effect<number, StoreError>
  /** Adds calls made beyond the ones taken up front (a poll that needed two calls). */
  readonly addCalls: (workspaceId: Ids.WorkspaceId, accountId: Ids.AccountId, windowStart: number, calls: number) => Effect.Effect<void, StoreError>

  /** Stores an account's sealed credentials (refreshed during a comment call). */
  readonly updateAccountCredentials: (workspaceId: Ids.WorkspaceId, accountId: Ids.AccountId, credentials: string) => Effect.Effect<void, StoreError>
}

/** The comments' storage. */
export class CommentStore extends Context.Service<CommentStore, CommentStoreShape>()("postwire/CommentStore") {}
