/**
 * The `Store` service: every read and write the engine makes. One interface, several
 * implementations (in memory, PostgreSQL, the embedded database), one conformance suite.
 *
 * Each method is atomic on its own: a post and the events its change causes are written in
 * one transaction (the outbox), and a save fails with {@link VersionConflict} when someone
 * else saved the post first.
 *
 * @since 0.1.0
 */
import { Context, Data, type Effect, type Option } from "effect"
import type { Ids, Platform } from "@postwire/domain"
import type {
  AccountRecord,
  ApiKeyRecord,
  MediaRecord,
  OutboxEvent,
  PostAggregate,
  PostStatus,
  ProfileRecord,
  WorkspaceRecord
} from "./Records.ts"

/** The database failed; never a user's fault. */
export class StoreError extends Data.TaggedError("StoreError")<{
  readonly operation: string
  readonly cause: unknown
}> {
  /** `{operation}: {the cause's message}`, so a log line or a thrown error says what failed. */
  override get message(): string {
    return `${this.operation}: ${causeText(this.cause)}`
  }
}

/** The first line of what a database failure said (a driver error, a string, anything). */
const causeText = (cause: unknown): string => {
  const text =
    cause instanceof Error
      ? cause.message || cause.name
      : typeof cause === "object" && cause !== null && "message" in cause && typeof cause.message === "string"
        ? cause.message
        : String(cause)
  return text.split("\n", 1)[0] || "the database failed"
}

/** Someone else saved the post since it was read. */
export class VersionConflict extends Data.TaggedError("VersionConflict")<{
  readonly postId: Ids.PostId
}> {}

/** A keyset position in a list ordered newest first: `(sortKey desc, id desc)`. */
export interface Keyset {
  readonly sortKey: number
  readonly id: string
}

/** Filters of a post list; `from` inclusive, `to` exclusive, on `publishAt`. */
export interface PostFilter {
  readonly status?: PostStatus | undefined
  readonly profileId?: Ids.ProfileId | undefined
  readonly platform?: Platform | undefined
  readonly from?: number | undefined
  readonly to?: number | undefined
}

/** Filters of an account list. */
export interface AccountFilter {
  readonly profileId?: Ids.ProfileId | undefined
  readonly platform?: Platform | undefined
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
  /**
   * Counts the cap's usage itself instead (a kind of post: Facebook's reels), without the post
   * being inserted: run under the same locks as the other caps' counts, in the insert's
   * transaction, so concurrent inserts cannot together exceed it.
   */
  readonly count?: Effect.Effect<number, StoreError> | undefined
}

/** Every read and write of the engine. */
export interface StoreShape {
  // Workspaces and keys
  readonly createWorkspace: (workspace: WorkspaceRecord) => Effect.Effect<void, StoreError>
  readonly getWorkspace: (id: Ids.WorkspaceId) => Effect.Effect<Option.Option<WorkspaceRecord>, StoreError>
  /** Replaces a workspace's settings (`name`, `allowedRedirectDomains`); false when there is no such workspace. */
  readonly updateWorkspace: (workspace: WorkspaceRecord) => Effect.Effect<boolean, StoreError>
  readonly countWorkspaces: () => Effect.Effect<number, StoreError>
  readonly createApiKey: (key: ApiKeyRecord) => Effect.Effect<void, StoreError>
  /** Finds a key by the SHA-256 hex of its secret; revoked keys are returned too (check `revokedAt`). */
  readonly findApiKeyByHash: (hash: string) => Effect.Effect<Option.Option<ApiKeyRecord>, StoreError>

  // Profiles and accounts
  readonly createProfile: (profile: ProfileRecord) => Effect.Effect<void, StoreError>
  readonly getProfile: (workspaceId: Ids.WorkspaceId, id: Ids.ProfileId) => Effect.Effect<Option.Option<ProfileRecord>, StoreError>
  /** Newest first, after the keyset position when given (`sortKey` is `createdAt`). */
  readonly listProfiles: (
    workspaceId: Ids.WorkspaceId,
    after: Keyset | undefined,
    limit: number
  ) => Effect.Effect<ReadonlyArray<ProfileRecord>, StoreError>
  readonly createAccount: (account: AccountRecord) => Effect.Effect<void, StoreError>
  readonly getAccount: (workspaceId: Ids.WorkspaceId, id: Ids.AccountId) => Effect.Effect<Option.Option<AccountRecord>, StoreError>
  /** Accounts with these ids in this workspace; ids of other workspaces are simply absent. */
  readonly getAccounts: (
    workspaceId: Ids.WorkspaceId,
    ids: ReadonlyArray<Ids.AccountId>
  ) => Effect.Effect<ReadonlyArray<AccountRecord>, StoreError>
  readonly listAccounts: (
    workspaceId: Ids.WorkspaceId,
    filter: AccountFilter,
    after: Keyset | undefined,
    limit: number
  ) => Effect.Effect<ReadonlyArray<AccountRecord>, StoreError>
  readonly updateAccountStatus: (
    workspaceId: Ids.WorkspaceId,
    id: Ids.AccountId,
    status: AccountRecord["status"],
    events: ReadonlyArray<OutboxEvent>
  ) => Effect.Effect<void, StoreError>

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

  // Outbox
  /** Events of a workspace in the order they were written (for tests and replay). */
  readonly listEvents: (workspaceId: Ids.WorkspaceId) => Effect.Effect<ReadonlyArray<OutboxEvent>, StoreError>

  // Settings
  /** Stores a value under `name` unless one is there; returns the value that is stored. */
  readonly ensureSetting: (name: string, value: string) => Effect.Effect<string, StoreError>
  /** The value stored under `name`, if any. */
  readonly readSetting: (name: string) => Effect.Effect<Option.Option<string>, StoreError>
  /** Deletes `name` if it still holds `value`; true when it was deleted. */
  readonly deleteSetting: (name: string, value: string) => Effect.Effect<boolean, StoreError>

  // Administration (the admin API and command line)
  /** Every workspace, oldest first. */
  readonly listWorkspaces: () => Effect.Effect<ReadonlyArray<WorkspaceRecord>, StoreError>
  /** Every key of a workspace, revoked ones included, oldest first. */
  readonly listApiKeys: (workspaceId: Ids.WorkspaceId) => Effect.Effect<ReadonlyArray<ApiKeyRecord>, StoreError>
  /**
   * Revokes a key at `at`; a key revoked before keeps its first `revokedAt`. Returns the key as
   * stored afterwards, `None` when the workspace has no such key.
   */
  readonly revokeApiKey: (workspaceId: Ids.WorkspaceId, id: Ids.KeyId, at: number) => Effect.Effect<Option.Option<ApiKeyRecord>, StoreError>
}

/** The engine's storage. */
export class Store extends Context.Service<Store, StoreShape>()("postwire/Store") {}
