/**
 * The `ConnectStore` service: what connecting accounts keeps beside the `Store`. Connect links
 * (single use, found by the hash of their token or of the OAuth `state` they started), each
 * connected account's connection (identity, granted scopes, token expiry, creator options), and
 * the token refresh queue, claimed with a lease like the publisher's targets.
 *
 * It works on the same database as the `Store`: a connect writes the account, its connection,
 * its `account.connected` event and the link's completion in one transaction.
 *
 * @since 0.2.0
 */
import { Context, type Effect, type Option } from "effect"
import type { Ids, Platform } from "@postwire/domain"
import type { AccountRecord } from "../store/AccountStore.ts"
import type { OutboxEvent } from "../store/Outbox.ts"
import type { StoreError } from "../store/StoreError.ts"

/** A link a person opens to connect an account (or reconnect one). */
export interface ConnectLinkRecord {
  readonly id: Ids.ConnectLinkId
  readonly workspaceId: Ids.WorkspaceId
  readonly profileId: Ids.ProfileId
  readonly platform: Platform
  readonly sandbox: boolean
  /** Where the person returns, already checked against the workspace's allowed domains. */
  readonly redirectUrl: string | null
  /** A reconnect link: the account it renews. */
  readonly accountId: Ids.AccountId | null
  /** SHA-256 hex of the link's token; the token itself is never stored. */
  readonly tokenHash: string
  /** SHA-256 hex of the OAuth `state` of the authorization in progress. */
  readonly stateHash: string | null
  /** The PKCE code verifier of the authorization in progress, sealed. */
  readonly codeVerifier: string | null
  /** Facebook: the Pages the person may pick from, sealed (they carry Page tokens). */
  readonly pendingChoice: string | null
  readonly expiresAt: number
  /** When the connect finished (connected, or failed for good); the link is used up then. */
  readonly completedAt: number | null
  /** The accounts it connected. */
  readonly accountIds: ReadonlyArray<Ids.AccountId>
  /** `key:<key id>` of the API key that made the link. */
  readonly createdBy: string
  readonly createdAt: number
}

/** Why an account must be connected again, stored as data and rendered when read. */
export interface ReconnectReason {
  readonly code: string
  readonly platformCode: string | null
}

/** What Postwire knows of an account connected through a link. */
export interface AccountConnectionRecord {
  readonly workspaceId: Ids.WorkspaceId
  readonly accountId: Ids.AccountId
  readonly platform: Platform
  readonly sandbox: boolean
  /** The platform's id of the account; one connection per identity and workspace. */
  readonly externalId: string
  /**
   * The platform's id of the person who consented (Meta's app-scoped user id, TikTok's open_id):
   * a deauthorization names it, and accounts from one consent (Facebook Pages) share it.
   */
  readonly grantId: string
  readonly displayName: string | null
  readonly avatarUrl: string | null
  readonly scopes: ReadonlyArray<string>
  readonly connectedAt: number
  readonly tokenExpiresAt: number | null
  /** When the person must reconnect at the latest (TikTok's refresh token expiry). */
  readonly refreshExpiresAt: number | null
  readonly privacyLevelOptions: ReadonlyArray<string> | null
  readonly maxVideoPostDurationSec: number | null
  /** When the token is next refreshed; `null`: nothing to refresh. */
  readonly refreshAt: number | null
  /** Refreshes failed in a row for a transient reason (backoff). */
  readonly refreshFailures: number
  readonly leaseOwner: string | null
  readonly leaseUntil: number | null
  readonly reconnectReason: ReconnectReason | null
  readonly disconnectedAt: number | null
}

/** One account a connect writes: a new one, or the renewal of the one with the same identity. */
export interface ConnectedAccount {
  /** `insert` creates `account`; `renew` updates the stored account of that id. */
  readonly mode: "insert" | "renew"
  /** The account as it is after the connect (credentials sealed). */
  readonly account: AccountRecord
  readonly connection: AccountConnectionRecord
}

/** A due refresh, leased to one worker. */
export interface RefreshClaim {
  readonly owner: string
  readonly at: number
  readonly leaseUntil: number
  readonly limit: number
}

/** Names a connection. */
export interface ConnectionKey {
  readonly workspaceId: Ids.WorkspaceId
  readonly accountId: Ids.AccountId
}

/** A successful refresh. */
export interface RefreshDone {
  readonly at: number
  /** New sealed credentials, when the platform gave new tokens. */
  readonly credentials: string | undefined
  readonly tokenExpiresAt: number | null
  readonly refreshExpiresAt: number | null
  readonly scopes: ReadonlyArray<string> | null
  readonly refreshAt: number | null
  /** TikTok: the creator's options read again with the new token; absent when not read. */
  readonly creator?: { readonly privacyLevelOptions: ReadonlyArray<string>; readonly maxVideoPostDurationSec: number } | undefined
}

/** The connect store's reads and writes. */
export interface ConnectStoreShape {
  /** Stores a new link. */
  readonly createLink: (link: ConnectLinkRecord) => Effect.Effect<void, StoreError>
  /** The link whose token has this digest (links of every workspace: the page knows only the token). */
  readonly findLinkByToken: (tokenHash: string) => Effect.Effect<Option.Option<ConnectLinkRecord>, StoreError>
  /** The link whose authorization in progress has this `state` digest. */
  readonly findLinkByState: (stateHash: string) => Effect.Effect<Option.Option<ConnectLinkRecord>, StoreError>
  /**
   * Starts (or restarts) the authorization of an open link: its new state digest and sealed
   * verifier replace the previous ones, whose callback then finds nothing. False when the link
   * is completed.
   */
  readonly startAuthorization: (
    workspaceId: Ids.WorkspaceId,
    linkId: Ids.ConnectLinkId,
    stateHash: string,
    codeVerifier: string
  ) => Effect.Effect<boolean, StoreError>
  /** Keeps the sealed choice (Facebook Pages) the person picks from next. False when the link is completed. */
  readonly savePendingChoice: (
    workspaceId: Ids.WorkspaceId,
    linkId: Ids.ConnectLinkId,
    pendingChoice: string
  ) => Effect.Effect<boolean, StoreError>
  /**
   * Finishes a link: writes every account (insert or renew) with its connection, and the
   * events, and marks the link completed, in one transaction. False (nothing written) when the
   * link was completed already: a link connects once.
   */
  readonly completeLink: (
    workspaceId: Ids.WorkspaceId,
    linkId: Ids.ConnectLinkId,
    at: number,
    accounts: ReadonlyArray<ConnectedAccount>,
    events: ReadonlyArray<OutboxEvent>
  ) => Effect.Effect<boolean, StoreError>
  /** Marks a link used without connecting anything (the person refused, the platform failed for good). */
  readonly closeLink: (workspaceId: Ids.WorkspaceId, linkId: Ids.ConnectLinkId, at: number) => Effect.Effect<boolean, StoreError>

  /** The connection of an account, when it was connected through a link. */
  readonly getConnection: (
    workspaceId: Ids.WorkspaceId,
    accountId: Ids.AccountId
  ) => Effect.Effect<Option.Option<AccountConnectionRecord>, StoreError>
  /** The connections of these accounts (absent ones are left out). */
  readonly getConnections: (
    workspaceId: Ids.WorkspaceId,
    accountIds: ReadonlyArray<Ids.AccountId>
  ) => Effect.Effect<ReadonlyArray<AccountConnectionRecord>, StoreError>
  /** The connection of a platform identity in a workspace, disconnected ones included. */
  readonly findConnectionByIdentity: (
    workspaceId: Ids.WorkspaceId,
    platform: Platform,
    sandbox: boolean,
    externalId: string
  ) => Effect.Effect<Option.Option<AccountConnectionRecord>, StoreError>
  /** Every live connection of one consent, across workspaces (Meta's deauthorization names only the person). */
  readonly findConnectionsByGrant: (
    platform: Platform,
    grantId: string
  ) => Effect.Effect<ReadonlyArray<AccountConnectionRecord>, StoreError>

  /**
   * Disconnects an account: status `disconnected`, credentials erased, no refresh, and the
   * events, in one transaction. False (nothing written) when it was disconnected already.
   */
  readonly disconnectAccount: (
    workspaceId: Ids.WorkspaceId,
    accountId: Ids.AccountId,
    at: number,
    events: ReadonlyArray<OutboxEvent>
  ) => Effect.Effect<boolean, StoreError>

  /**
   * Leases up to `limit` connections whose refresh is due (`refreshAt <= at`) and whose account
   * is connected, earliest first, when nobody holds them or their lease ran out. Rows locked by
   * another instance are skipped.
   */
  readonly claimDueRefreshes: (claim: RefreshClaim) => Effect.Effect<ReadonlyArray<AccountConnectionRecord>, StoreError>
  /** Stores a refresh's new tokens and next refresh time, and gives the lease up. False when `owner` lost it. */
  readonly recordRefresh: (key: ConnectionKey, owner: string, done: RefreshDone) => Effect.Effect<boolean, StoreError>
  /** Counts a transient failure and makes the refresh due again at `refreshAt`. False when `owner` lost it. */
  readonly deferRefresh: (
    key: ConnectionKey,
    owner: string,
    refreshAt: number,
    failures: number
  ) => Effect.Effect<boolean, StoreError>
  /**
   * The platform refused the refresh: the account becomes `needs_reconnect` with the reason,
   * refreshing stops, and the events are written, unless the account was no longer connected
   * (then nothing but the lease changes, so the event is sent once). False when `owner` lost it.
   */
  readonly refuseRefresh: (
    key: ConnectionKey,
    owner: string,
    reason: ReconnectReason,
    events: ReadonlyArray<OutboxEvent>
  ) => Effect.Effect<boolean, StoreError>

  /** Posts with a target of this account that is `queued` or `scheduled`, by id. */
  readonly postsWaitingOnAccount: (workspaceId: Ids.WorkspaceId, accountId: Ids.AccountId) => Effect.Effect<ReadonlyArray<Ids.PostId>, StoreError>
  /** Deletes a profile with no accounts and no posts that are not finished; false when it has some (nothing deleted). */
  readonly deleteProfile: (workspaceId: Ids.WorkspaceId, profileId: Ids.ProfileId) => Effect.Effect<ProfileDeletion, StoreError>
  /** Renames a profile; false when it does not exist. */
  readonly renameProfile: (workspaceId: Ids.WorkspaceId, profileId: Ids.ProfileId, name: string) => Effect.Effect<boolean, StoreError>
}

/** What deleting a profile did. */
export type ProfileDeletion =
  | { readonly _tag: "Deleted" }
  | { readonly _tag: "NotFound" }
  | { readonly _tag: "HasAccounts"; readonly count: number }
  | { readonly _tag: "HasUnfinishedPosts" }

/** Connect links, connections and the refresh queue. */
export class ConnectStore extends Context.Service<ConnectStore, ConnectStoreShape>()("postwire/ConnectStore") {}

/** Post statuses that are finished: a profile with only these may be deleted. */
export const finishedPostStatuses: ReadonlyArray<string> = [
  "published",
  "failed",
  "cancelled",
  "rejected",
  "partially_published"
]
