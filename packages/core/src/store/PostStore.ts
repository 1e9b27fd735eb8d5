/**
 * The posts part of the `Store`: posts with their targets and approval, the media items they
 * name, and the quota counted over their targets, with the records they are stored as. A post
 * and the events its change causes are written in one transaction (the outbox).
 *
 * @since 0.1.0
 */
import type { Effect, Option } from "effect"
import type { ErrorCode, ErrorDetails, Ids, Platform, Post as PostWire } from "@postwire/domain"
import type { AccountRecord, ProfileRecord } from "./AccountStore.ts"
import type { Keyset } from "./Keyset.ts"
import type { OutboxEvent } from "./Outbox.ts"
import type { StoreError, VersionConflict } from "./StoreError.ts"

/** Why a media item failed, as data: rendered into the shared error shape when read. */
export interface MediaFailure {
  readonly code: ErrorCode
  readonly field?: string | undefined
  readonly details?: ErrorDetails | undefined
}

/**
 * A media item; its bytes live in the `BlobStore` under `blobKey`. While it is `processing`,
 * `kind` and `mime` are what the upload announced (or a guess from its name), not yet read from
 * the bytes; they are exact once it is `ready`.
 */
export interface MediaRecord {
  readonly id: Ids.MediaId
  readonly workspaceId: Ids.WorkspaceId
  readonly kind: "image" | "video"
  readonly mime: string
  readonly sizeBytes: number
  readonly filename: string | null
  readonly width: number | null
  readonly height: number | null
  readonly durationSeconds: number | null
  readonly blobKey: string
  /** Hex SHA-256 of the bytes; empty while processing and for files assembled in storage. */
  readonly sha256: string
  readonly createdAt: number
  /** `processing` until the bytes are all there and sniffed; absent on records written before 0.3 (ready). */
  readonly status?: "processing" | "ready" | "failed" | undefined
  /** The video track's codec (`avc1`, `hvc1`, …). */
  readonly codec?: string | null | undefined
  /** Why it failed: a catalog code and its details, rendered in the reader's language when read. */
  readonly error?: MediaFailure | null | undefined
  /** The address a URL import fetches from. */
  readonly sourceUrl?: string | null | undefined
  readonly updatedAt?: number | undefined
}

/**
 * Why a target failed, as data: the catalog code, the values its message is filled with, the
 * platform's own code and whether a retry can succeed. Rendered into the shared error shape (in
 * the reader's language, the current catalog's words, the current public address of the error
 * reference) every time it is read; stored as this JSON object in `targets.error`.
 */
export interface TargetFailure {
  readonly code: ErrorCode
  readonly details?: ErrorDetails | undefined
  readonly platform_code?: string | undefined
  readonly retryable: boolean
}

/** Status of a target. */
export type TargetStatus = PostWire.TargetStatus

/** Status of a post, derived from its targets. */
export type PostStatus = PostWire.PostStatus

/** A post: caption plus media for its targets. */
export interface PostRecord {
  readonly id: Ids.PostId
  readonly workspaceId: Ids.WorkspaceId
  readonly profileId: Ids.ProfileId
  readonly caption: string
  readonly media: ReadonlyArray<Ids.MediaId>
  readonly scheduledAt: number | null
  readonly aiGenerated: boolean
  readonly approvalMode: "link" | "none"
  readonly notify: { readonly email?: string | undefined; readonly locale?: "en" | "id" | undefined } | null
  /** Derived from the targets at every write, so lists can filter on it. */
  readonly status: PostStatus
  /** When the post publishes: `scheduledAt`, or `createdAt` when unscheduled. Lists sort on it. */
  readonly publishAt: number
  readonly createdAt: number
  readonly updatedAt: number
  /** Optimistic concurrency: bumped by every save. */
  readonly version: number
  /**
   * The W3C `traceparent` of the span that created the post, kept while tracing was on: each
   * publishing step's trace links to it. Absent otherwise.
   */
  readonly traceParent?: string | undefined
}

/** Consent given for a shortvideo direct target, and who gave it. */
export interface ConsentRecord {
  readonly consent: PostWire.Consent
  /** `key:<key id>` or `approval:<approval id>`. */
  readonly givenBy: string
  readonly givenAt: number
}

/** One account a post goes to; each target has its own status and fails alone. */
export interface TargetRecord {
  readonly id: Ids.TargetId
  readonly workspaceId: Ids.WorkspaceId
  readonly postId: Ids.PostId
  readonly accountId: Ids.AccountId
  readonly platform: Platform
  readonly status: TargetStatus
  readonly options: PostWire.TargetOptions
  readonly consent: ConsentRecord | null
  readonly permalink: string | null
  readonly publishedAt: number | null
  readonly error: TargetFailure | null
  readonly attempts: number
  /** The platform's container or publish id and anything needed to resume after a crash. */
  readonly platformState: unknown
  /** When the target may next be tried (scheduled time, or a retry's backoff). */
  readonly dueAt: number | null
  /** Worker lease: who holds the target and until when. */
  readonly leaseOwner: string | null
  readonly leaseUntil: number | null
  readonly updatedAt: number
  /**
   * Since when the platform may have published this target without having said so (a publish
   * was sent; its answer may be lost): the target is then never reported failed while the
   * platform might have published it. `null` (or absent) otherwise; cleared when it completes.
   */
  readonly unconfirmedSince?: number | null | undefined
  /**
   * The platform's id of the published item, when known (comment polling reads it; the
   * publisher records it with the target's comment polling state).
   */
  readonly platformPostId?: string | null | undefined
}

/** The approval link of a post. */
export interface ApprovalRecord {
  readonly id: Ids.ApprovalId
  readonly workspaceId: Ids.WorkspaceId
  readonly postId: Ids.PostId
  /** SHA-256 hex of the link's token; the token itself is never stored. */
  readonly tokenHash: string
  readonly status: "pending" | "approved" | "rejected" | "expired"
  readonly expiresAt: number
  readonly decidedAt: number | null
  readonly reason: string | null
  readonly createdAt: number
}

/** A post with everything that belongs to it, loaded and saved as one. */
export interface PostAggregate {
  readonly post: PostRecord
  readonly targets: ReadonlyArray<TargetRecord>
  readonly approval: ApprovalRecord | null
}

/** Filters of a post list; `from` inclusive, `to` exclusive, on `publishAt`. */
export interface PostFilter {
  readonly status?: PostStatus | undefined
  readonly profileId?: Ids.ProfileId | undefined
  readonly platform?: Platform | undefined
  readonly from?: number | undefined
  readonly to?: number | undefined
}

/** Usage of an account's quota in a window. */
export interface QuotaUsage {
  /** Targets counted in the window. */
  readonly used: number
  /** The earliest counted instant, so callers know when the window frees a slot. */
  readonly oldest: number | null
}

/** What planning a create reads, in one round trip: see `StoreShape.readPlanInputs`. */
export interface PlanInputs {
  readonly profile: Option.Option<ProfileRecord>
  /** The accounts found, in the order asked (as `getAccounts`). */
  readonly accounts: ReadonlyArray<AccountRecord>
  /** The media found, in the order asked (as `getMediaItems`). */
  readonly media: ReadonlyArray<MediaRecord>
  /** Each asked account's quota usage in the window (as `countQuotaUsage`), by account id. */
  readonly usage: ReadonlyMap<string, QuotaUsage>
}

/** A cap on an account's counted targets in `[from, to)`, checked as a post is inserted. */
export interface QuotaCap {
  readonly accountId: Ids.AccountId
  readonly from: number
  readonly to: number
  readonly limit: number
}

/** Reads and writes of posts and the media items they name. */
export interface PostStoreShape {
  // Media
  readonly createMedia: (media: MediaRecord) => Effect.Effect<void, StoreError>
  readonly getMedia: (workspaceId: Ids.WorkspaceId, id: Ids.MediaId) => Effect.Effect<Option.Option<MediaRecord>, StoreError>
  readonly getMediaItems: (
    workspaceId: Ids.WorkspaceId,
    ids: ReadonlyArray<Ids.MediaId>
  ) => Effect.Effect<ReadonlyArray<MediaRecord>, StoreError>

  // Posts
  /** Inserts a new post with its targets, approval and events, in one transaction. */
  readonly insertPost: (post: PostAggregate, events: ReadonlyArray<OutboxEvent>) => Effect.Effect<void, StoreError>
  /**
   * Inserts a new post like `insertPost`, but only while each cap still has room for one more
   * target: counted (as `countQuotaUsage` counts) and inserted atomically, so concurrent inserts
   * on the same accounts cannot together exceed a cap. Answers the account of the first full
   * cap (nothing inserted), or none when the post was inserted.
   */
  readonly insertPostWithinQuota: (
    post: PostAggregate,
    events: ReadonlyArray<OutboxEvent>,
    caps: ReadonlyArray<QuotaCap>
  ) => Effect.Effect<Option.Option<Ids.AccountId>, StoreError>
  /**
   * Runs `effect` once the transaction the caller runs in commits, or at once when there is none
   * (and always at once in memory). For what must not happen for a write that a surrounding
   * transaction may still roll back: the approval e-mail of a post created under an
   * `Idempotency-Key`, whose post commits together with the key's stored answer.
   */
  readonly afterCommit: <R>(effect: Effect.Effect<void, never, R>) => Effect.Effect<void, never, R>
  readonly getPost: (workspaceId: Ids.WorkspaceId, id: Ids.PostId) => Effect.Effect<Option.Option<PostAggregate>, StoreError>
  /**
   * Saves a changed post (its row, every target, its approval) and the events the change
   * causes, in one transaction. The caller increments `post.version`; the save succeeds only
   * while the stored version is `post.version - 1`, else it fails with `VersionConflict`.
   */
  readonly savePost: (
    post: PostAggregate,
    events: ReadonlyArray<OutboxEvent>
  ) => Effect.Effect<void, StoreError | VersionConflict>
  /**
   * Finds the post whose current approval has this token digest; the approval page knows no
   * workspace, only the token. A replaced approval's token is no longer found.
   */
  readonly findApprovalByTokenHash: (
    tokenHash: string
  ) => Effect.Effect<Option.Option<{ readonly workspaceId: Ids.WorkspaceId; readonly postId: Ids.PostId }>, StoreError>
  /** Newest `publishAt` first, ties by id descending, after the keyset position when given. */
  readonly listPosts: (
    workspaceId: Ids.WorkspaceId,
    filter: PostFilter,
    after: Keyset | undefined,
    limit: number
  ) => Effect.Effect<ReadonlyArray<PostAggregate>, StoreError>
  /**
   * Targets of the account counted against its quota whose instant lies in `[from, to)`:
   * every target not `cancelled`, `rejected` or `failed`, at its `publishedAt`, or else at its
   * post's `publishAt`.
   */
  readonly countQuotaUsage: (
    workspaceId: Ids.WorkspaceId,
    accountId: Ids.AccountId,
    from: number,
    to: number
  ) => Effect.Effect<QuotaUsage, StoreError>
  /**
   * Optional: `getProfile`, `getAccounts`, `getMediaItems` and `countQuotaUsage` of every asked
   * account over `[from, to)`, read together (one statement on SQL stores). Stores without it
   * are read with those four.
   */
  readonly readPlanInputs?: (
    workspaceId: string,
    profileId: string,
    accountIds: ReadonlyArray<string>,
    mediaIds: ReadonlyArray<string>,
    from: number,
    to: number
  ) => Effect.Effect<PlanInputs, StoreError>
}
