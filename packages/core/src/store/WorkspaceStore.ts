/**
 * The workspaces-and-keys part of the `Store`: tenants, their API keys, and the installation's
 * settings, with the records they are stored as.
 *
 * @since 0.1.0
 */
import type { Effect, Option } from "effect"
import type { ApprovalLinks, Ids, KeyKind, Scope } from "@postwire/domain"
import type { StoreError } from "./StoreError.ts"

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

/** Reads and writes of workspaces, their keys, and the installation's settings. */
export interface WorkspaceStoreShape {
  readonly createWorkspace: (workspace: WorkspaceRecord) => Effect.Effect<void, StoreError>
  readonly getWorkspace: (id: Ids.WorkspaceId) => Effect.Effect<Option.Option<WorkspaceRecord>, StoreError>
  /** Replaces a workspace's settings (`name`, `allowedRedirectDomains`); false when there is no such workspace. */
  readonly updateWorkspace: (workspace: WorkspaceRecord) => Effect.Effect<boolean, StoreError>
  readonly countWorkspaces: () => Effect.Effect<number, StoreError>
  readonly createApiKey: (key: ApiKeyRecord) => Effect.Effect<void, StoreError>
  /** Finds a key by the SHA-256 hex of its secret; revoked keys are returned too (check `revokedAt`). */
  readonly findApiKeyByHash: (hash: string) => Effect.Effect<Option.Option<ApiKeyRecord>, StoreError>

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
