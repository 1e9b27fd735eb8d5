/**
 * What the engine stores: plain records, independent of any database. Times are epoch
 * milliseconds; every record that grows with use carries `workspaceId`.
 *
 * @since 0.1.0
 */
import type { ApprovalLinks, ErrorCode, ErrorDetails, Ids, KeyKind, Platform, Post as PostWire, Scope } from "@postwire/domain"

/** A tenant: everything else belongs to exactly one workspace. */
export interface WorkspaceRecord {
  readonly id: Ids.WorkspaceId
  readonly name: string
  /** Domains (and their subdomains) an approval `redirect_url` may point to. */
  readonly allowedRedirectDomains: ReadonlyArray<string>
  readonly createdAt: number
}

/** An API key; the secret itself is never stored, only its SHA-256 hex digest. */
export interface ApiKeyRecord {
  readonly id: Ids.KeyId
  readonly workspaceId: Ids.WorkspaceId
  readonly kind: KeyKind
  readonly scopes: ReadonlyArray<Scope>
  /** Whether the key's answers, events and delivery log carry approval links (`hidden`: never). */
  readonly approvalLinks: ApprovalLinks
  readonly hash: string
  /** The last four characters of the key, to tell keys apart in listings. */
  readonly last4: string
  readonly createdAt: number
  readonly revokedAt: number | null
}

/** A profile groups accounts. */
export interface ProfileRecord {
  readonly id: Ids.ProfileId
  readonly workspaceId: Ids.WorkspaceId
  readonly name: string
  readonly createdAt: number
}

/** How the simulated platform behaves for a sandbox account. */
export interface SimulateOptions {
  /** A normalized platform code to fail with (e.g. `platform_unavailable`). */
  readonly error?: string | undefined
  /** Fail only the first `times` attempts, then succeed. Absent: always fail. */
  readonly times?: number | undefined
  readonly max_video_duration_sec?: number | undefined
  readonly privacy_level_options?: ReadonlyArray<string> | undefined
  /**
   * Comments the simulated platform makes under each published target: comment `i` (from 1)
   * appears `i * every_seconds` after the target published, up to `count`.
   */
  readonly comments?: { readonly count: number; readonly every_seconds: number } | undefined
  /** A normalized code every metrics reading of the simulated platform fails with (e.g. `token_expired`). */
  readonly analytics_error?: string | undefined
}

/** A connected social account. */
export interface AccountRecord {
  readonly id: Ids.AccountId
  readonly workspaceId: Ids.WorkspaceId
  readonly profileId: Ids.ProfileId
  readonly platform: Platform
  readonly handle: string
  readonly sandbox: boolean
  readonly status: "connected" | "needs_reconnect" | "disconnected"
  /** Per-account override of the platform's daily quota. */
  readonly dailyQuota: number | null
  readonly simulate: SimulateOptions | null
  /** Platform credentials, encrypted by the server; opaque to the engine. */
  readonly credentials: string | null
  /** The platform's own id of the account (ig-user-id, page id, open_id). */
  readonly externalId: string | null
  readonly createdAt: number
}

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

/** An event written to the outbox in the same transaction as the change that caused it. */
export interface OutboxEvent {
  readonly id: Ids.EventId
  readonly workspaceId: Ids.WorkspaceId
  readonly type: string
  readonly createdAt: number
  readonly livemode: boolean
  readonly data: Readonly<Record<string, unknown>>
}
