/**
 * The accounts-and-profiles part of the `Store`: profiles and the social accounts connected in
 * them, with the records they are stored as.
 *
 * @since 0.1.0
 */
import type { Effect, Option } from "effect"
import type { Ids, Platform } from "@postwire/domain"
import type { Keyset } from "./Keyset.ts"
import type { OutboxEvent } from "./Outbox.ts"
import type { StoreError } from "./StoreError.ts"

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

/** Filters of an account list. */
export interface AccountFilter {
  readonly profileId?: Ids.ProfileId | undefined
  readonly platform?: Platform | undefined
}

/** Reads and writes of profiles and accounts. */
export interface AccountStoreShape {
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
}
