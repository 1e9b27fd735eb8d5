/**
 * Administration: workspaces, API keys, profiles and accounts. The admin API and the first
 * start call these; an embedding app may call them directly.
 *
 * @since 0.1.0
 */
import type { Ids as Id } from "@postwire/domain"
import { Effect, Option } from "effect"
import {
  type ApprovalLinks,
  allScopes,
  ErrorDetail,
  formatInstant,
  keyPrefix,
  type KeyKind,
  type LocalizedText,
  type Platform,
  PostwireError,
  type Scope
} from "@postwire/domain"
import { hashSecret, Ids } from "../ids/Ids.ts"
import * as PostEvents from "../posts/PostEvents.ts"
import { sealCredentials } from "../secrets/CredentialsCipher.ts"
import type { SimulateOptions } from "../store/AccountStore.ts"
import type { ApiKeyRecord, WorkspaceRecord } from "../store/WorkspaceStore.ts"
import { Store } from "../store/Store.ts"
import { EngineConfig, notServed } from "../EngineConfig.ts"
import { isErrorCode } from "@postwire/domain"

const now = Effect.clockWith((c) => c.currentTimeMillis)

const invalid = (field: string, detail: LocalizedText) =>
  new PostwireError({ code: "invalid_request", field, details: { detail } })

const domainName = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/

const checkedName = (input: string) => {
  const name = input.trim()
  return name === "" ? Effect.fail(invalid("name", ErrorDetail.reason("must_not_be_empty"))) : Effect.succeed(name)
}

/** Lower-cased, trimmed, each a domain name (`acme.com`: it and its subdomains), without repeats. */
const checkedDomains = (input: ReadonlyArray<string>) => {
  const domains = input.map((d) => d.trim().toLowerCase())
  const bad = domains.findIndex((d) => !domainName.test(d))
  return bad >= 0
    ? Effect.fail(invalid(`allowed_redirect_domains[${bad}]`, ErrorDetail.reason("domain_name")))
    : Effect.succeed([...new Set(domains)])
}

/** Creates a workspace. */
export const createWorkspace = Effect.fn("workspaces.create")(function* (input: {
  readonly name: string
  readonly allowedRedirectDomains?: ReadonlyArray<string> | undefined
}) {
  const store = yield* Store
  const name = yield* checkedName(input.name)
  const domains = yield* checkedDomains(input.allowedRedirectDomains ?? [])
  const id = yield* Ids.use((ids) => ids.make("workspace"))
  yield* store.createWorkspace({ id, name, allowedRedirectDomains: domains, createdAt: yield* now })
  return { id }
})

/** The workspace with this id, or `not_found`. */
export const requireWorkspace = Effect.fn("workspaces.require")(function* (workspaceId: Id.WorkspaceId) {
  const store = yield* Store
  const found = yield* store.getWorkspace(workspaceId)
  if (Option.isNone(found)) {
    return yield* Effect.fail(new PostwireError({ code: "not_found", details: { resource: ErrorDetail.resource("workspace") } }))
  }
  return found.value
})

/**
 * Changes a workspace's settings: what is given replaces what was (`allowedRedirectDomains`
 * replaces the whole list); what is left out stays. Answers the workspace as it is now.
 */
export const updateWorkspace = Effect.fn("workspaces.update")(function* (
  workspaceId: Id.WorkspaceId,
  input: { readonly name?: string | undefined; readonly allowedRedirectDomains?: ReadonlyArray<string> | undefined }
) {
  const store = yield* Store
  const current = yield* requireWorkspace(workspaceId)
  const updated = {
    ...current,
    name: input.name === undefined ? current.name : yield* checkedName(input.name),
    allowedRedirectDomains:
      input.allowedRedirectDomains === undefined ? current.allowedRedirectDomains : yield* checkedDomains(input.allowedRedirectDomains)
  }
  if (!(yield* store.updateWorkspace(updated))) {
    return yield* Effect.fail(new PostwireError({ code: "not_found", details: { resource: ErrorDetail.resource("workspace") } }))
  }
  return workspaceView(updated)
})

/** Issues an API key; the secret is returned once and only its hash is stored. */
export const createKey = Effect.fn("keys.create")(function* (
  workspaceId: Id.WorkspaceId,
  input: { readonly kind: KeyKind; readonly scopes: ReadonlyArray<Scope>; readonly approval_links?: ApprovalLinks | undefined }
) {
  const store = yield* Store
  yield* requireWorkspace(workspaceId)
  if (input.scopes.length === 0) return yield* Effect.fail(invalid("scopes", ErrorDetail.reason("scopes_at_least_one", { scopes: allScopes.join(", ") })))
  const id = yield* Ids.use((ids) => ids.make("key"))
  const key = keyPrefix[input.kind] + (yield* Ids.use((ids) => ids.secret(32)))
  yield* store.createApiKey({
    id,
    workspaceId,
    kind: input.kind,
    scopes: [...new Set(input.scopes)],
    approvalLinks: input.approval_links ?? "shown",
    hash: hashSecret(key),
    last4: key.slice(-4),
    createdAt: yield* now,
    revokedAt: null
  })
  return { id, key }
})

/** Creates a profile. */
export const createProfile = Effect.fn("profiles.create")(function* (workspaceId: Id.WorkspaceId, input: { readonly name: string }) {
  const store = yield* Store
  yield* requireWorkspace(workspaceId)
  const name = input.name.trim()
  if (name === "") return yield* Effect.fail(invalid("name", ErrorDetail.reason("must_not_be_empty")))
  const id = yield* Ids.use((ids) => ids.make("profile"))
  yield* store.createProfile({ id, workspaceId, name, createdAt: yield* now })
  return { id }
})

/** Input of {@link createAccount}. */
export interface CreateAccountInput {
  readonly profileId: Id.ProfileId
  readonly platform: Platform
  readonly sandbox: boolean
  readonly handle?: string | undefined
  readonly dailyQuota?: number | undefined
  readonly simulate?: SimulateOptions | undefined
  /** The platform credentials as plain JSON; stored sealed (`CredentialsCipher`). */
  readonly credentials?: string | undefined
  readonly externalId?: string | undefined
}

/** Connects an account; emits `account.connected`. */
export const createAccount = Effect.fn("accounts.create")(function* (workspaceId: Id.WorkspaceId, input: CreateAccountInput) {
  const store = yield* Store
  yield* requireWorkspace(workspaceId)
  const profile = yield* store.getProfile(workspaceId, input.profileId)
  if (Option.isNone(profile)) {
    return yield* Effect.fail(new PostwireError({ code: "not_found", field: "profile_id", details: { resource: ErrorDetail.resource("profile") } }))
  }
  const settings = yield* EngineConfig
  if (!settings.platforms.has(input.platform)) return yield* Effect.fail(notServed(settings, input.platform))
  if (input.simulate !== undefined && !input.sandbox) {
    return yield* Effect.fail(invalid("simulate", ErrorDetail.reason("sandbox_only")))
  }
  if (input.simulate?.error !== undefined && !isErrorCode(input.simulate.error)) {
    return yield* Effect.fail(invalid("simulate.error", ErrorDetail.reason("normalized_platform_code")))
  }
  if (input.dailyQuota !== undefined && (!Number.isInteger(input.dailyQuota) || input.dailyQuota < 1)) {
    return yield* Effect.fail(invalid("daily_quota", ErrorDetail.reason("positive_integer")))
  }
  const id = yield* Ids.use((ids) => ids.make("account"))
  const at = yield* now
  const handle = input.handle?.trim() || `${input.platform}-${id.slice(-6).toLowerCase()}`
  const event = yield* PostEvents.makeEvent(
    workspaceId,
    "account.connected",
    { account_id: id, profile_id: input.profileId, platform: input.platform, handle },
    !input.sandbox,
    at
  )
  yield* store.createAccount({
    id,
    workspaceId,
    profileId: input.profileId,
    platform: input.platform,
    handle,
    sandbox: input.sandbox,
    status: "connected",
    dailyQuota: input.dailyQuota ?? null,
    simulate: input.simulate ?? null,
    credentials: input.credentials === undefined ? null : yield* sealCredentials(input.credentials, workspaceId, id),
    externalId: input.externalId ?? null,
    createdAt: at
  })
  // The connected event is recorded with the account's first status change path.
  yield* store.updateAccountStatus(workspaceId, id, "connected", [event])
  return { id }
})

/** A workspace as the admin API shows it. */
export interface WorkspaceView {
  readonly id: string
  readonly name: string
  readonly allowed_redirect_domains: ReadonlyArray<string>
  readonly created_at: string
}

/** Every workspace, oldest first. */
export const listWorkspaces = Effect.fn("workspaces.list")(function* () {
  const store = yield* Store
  const workspaces = yield* store.listWorkspaces()
  return workspaces.map(workspaceView)
})

/** A workspace record as the admin API shows it. */
export const workspaceView = (w: WorkspaceRecord): WorkspaceView => ({
  id: w.id,
  name: w.name,
  allowed_redirect_domains: w.allowedRedirectDomains,
  created_at: formatInstant(w.createdAt)
})

/** An API key as the admin API shows it: never its secret, only its last four characters. */
export interface KeyView {
  readonly id: string
  readonly kind: KeyKind
  readonly scopes: ReadonlyArray<Scope>
  /** Whether the key's answers carry approval links. */
  readonly approval_links: ApprovalLinks
  readonly last4: string
  readonly created_at: string
  /** When it was revoked; `null` while it is valid. */
  readonly revoked_at: string | null
}

const keyView = (key: ApiKeyRecord): KeyView => ({
  id: key.id,
  kind: key.kind,
  scopes: key.scopes,
  approval_links: key.approvalLinks,
  last4: key.last4,
  created_at: formatInstant(key.createdAt),
  revoked_at: key.revokedAt === null ? null : formatInstant(key.revokedAt)
})

/** The keys of a workspace, revoked ones included, oldest first. */
export const listKeys = Effect.fn("keys.list")(function* (workspaceId: Id.WorkspaceId) {
  const store = yield* Store
  yield* requireWorkspace(workspaceId)
  return (yield* store.listApiKeys(workspaceId)).map(keyView)
})

/**
 * Revokes a key: requests with it are refused from now on (a server that caches keys forgets
 * it when the revocation goes through it, and refuses it within its cache's lifetime otherwise).
 * Revoking a revoked key changes nothing.
 */
export const revokeKey = Effect.fn("keys.revoke")(function* (workspaceId: Id.WorkspaceId, keyId: Id.KeyId) {
  const store = yield* Store
  yield* requireWorkspace(workspaceId)
  const revoked = yield* store.revokeApiKey(workspaceId, keyId, yield* now)
  if (Option.isNone(revoked)) {
    return yield* Effect.fail(new PostwireError({ code: "not_found", details: { resource: ErrorDetail.resource("api_key") } }))
  }
  return keyView(revoked.value)
})
