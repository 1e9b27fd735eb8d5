/**
 * Accounts and profiles: reading them, with each account's quota.
 *
 * @since 0.1.0
 */
import type { Ids as Id } from "@postwire/domain"
import { Effect, Option } from "effect"
import {
  type Account,
  Comment,
  defaultPageSize,
  ErrorDetail,
  formatInstant,
  isErrorCode,
  type Locale,
  PostwireError,
  renderError
} from "@postwire/domain"
import { type Caller, refuseLiveToTestKey, sees } from "../Caller.ts"
import { EngineConfig, type EngineSettings, type PlatformCatalog } from "../EngineConfig.ts"
import { decodeCursor, encodeCursor, filterDigest } from "../posts/Cursor.ts"
import { quotaLimit, quotaWindow } from "../posts/Quota.ts"
import type { AccountRecord, ProfileRecord } from "../store/AccountStore.ts"
import type { Keyset } from "../store/Keyset.ts"
import { Store } from "../store/Store.ts"
import { type AccountConnectionRecord, ConnectStore } from "./ConnectStore.ts"

const day = 24 * 60 * 60 * 1000

/** The account's quota now: slots used in the last 24 hours, its limit, and when a slot frees. */
export const accountQuota = Effect.fn("accounts.quota")(function* (account: AccountRecord) {
  const store = yield* Store
  const settings = yield* EngineConfig
  const at = yield* Effect.clockWith((c) => c.currentTimeMillis)
  const { from, to } = quotaWindow(at)
  const usage = yield* store.countQuotaUsage(account.workspaceId, account.id, from, to)
  return {
    used: usage.used,
    limit: quotaLimit(account, settings),
    resets_at: usage.oldest === null ? null : formatInstant(usage.oldest + day)
  } satisfies Account.Quota
})

/** Why an account must be reconnected, in the shared error shape, and the call that makes a link. */
const reconnectView = (
  account: AccountRecord,
  connection: AccountConnectionRecord | undefined,
  locale: Locale,
  publicBaseUrl: string
): Account.Account["reconnect"] => {
  if (account.status !== "needs_reconnect") return null
  const stored = connection?.reconnectReason
  const code = stored !== undefined && stored !== null && isErrorCode(stored.code) ? stored.code : "token_expired"
  const reason = renderError(
    new PostwireError({ code, ...(stored?.platformCode ? { platformCode: stored.platformCode } : {}) }),
    locale,
    publicBaseUrl
  )
  return { reason, endpoint: `/v1/accounts/${account.id}/reconnect` }
}

/**
 * A profile picture's address as Postwire keeps and shows it: only an absolute `https:` address
 * (a `javascript:` or `data:` one in an `<img>` or a link of a client's page would be an attack,
 * a `http:` one mixed content); anything else is `null`.
 */
export const safeAvatarUrl = (raw: string | null | undefined): string | null => {
  if (raw === null || raw === undefined) return null
  try {
    return new URL(raw).protocol === "https:" ? raw : null
  } catch {
    return null
  }
}

const noComments: Comment.CommentCapabilities = { read: false, reply: false, hide: false, delete: false, push: false }

/**
 * What an account can do with comments: its platform's capabilities (the registry's rules); a
 * sandbox account everything but `push`, on the simulated platform.
 */
export const commentCapabilities = (platforms: PlatformCatalog, account: Pick<AccountRecord, "platform" | "sandbox">): Comment.CommentCapabilities =>
  account.sandbox
    ? Comment.sandboxCommentCapabilities
    : (platforms.get(account.platform)?.comments ?? noComments)

/** An account on the wire: the record, its quota, and what its connection knows (never a token). */
export const accountView = (
  account: AccountRecord,
  quota: Account.Quota,
  connection: AccountConnectionRecord | undefined,
  locale: Locale,
  settings: Pick<EngineSettings, "publicBaseUrl" | "platforms">
): Account.Account => ({
  id: account.id,
  profile_id: account.profileId,
  platform: account.platform,
  handle: account.handle,
  sandbox: account.sandbox,
  status: account.status,
  quota,
  created_at: formatInstant(account.createdAt),
  display_name: connection?.displayName ?? null,
  // Also hides an address stored before only https: ones were kept.
  avatar_url: safeAvatarUrl(connection?.avatarUrl),
  connected_at: connection === undefined ? null : formatInstant(connection.connectedAt),
  scopes: connection?.scopes ?? [],
  token_expires_at:
    connection?.tokenExpiresAt === undefined || connection.tokenExpiresAt === null || account.status === "disconnected"
      ? null
      : formatInstant(connection.tokenExpiresAt),
  // Only a platform whose connection reads a creator's options (TikTok's creator_info) has them.
  ...(connection?.privacyLevelOptions != null ? { privacy_level_options: connection.privacyLevelOptions } : {}),
  ...(connection?.maxVideoPostDurationSec != null ? { max_video_post_duration_sec: connection.maxVideoPostDurationSec } : {}),
  comments: commentCapabilities(settings.platforms, account),
  reconnect: reconnectView(account, connection, locale, settings.publicBaseUrl)
})

/** The wire form of an account, read with its connection and quota now. */
export const viewAccount = Effect.fn("accounts.view")(function* (account: AccountRecord, locale: Locale) {
  const connections = yield* ConnectStore
  const settings = yield* EngineConfig
  const connection = yield* connections.getConnection(account.workspaceId, account.id)
  return accountView(account, yield* accountQuota(account), Option.getOrUndefined(connection), locale, settings)
})

/** A profile on the wire. */
export const profileView = (profile: ProfileRecord): Account.Profile => ({
  id: profile.id,
  name: profile.name,
  created_at: formatInstant(profile.createdAt)
})

/** One account with its quota. */
export const getAccount = Effect.fn("accounts.get")(function* (caller: Caller, id: Id.AccountId, locale: Locale = "en") {
  const store = yield* Store
  const found = yield* store.getAccount(caller.workspaceId, id)
  if (Option.isNone(found)) {
    return yield* Effect.fail(new PostwireError({ code: "not_found", details: { resource: ErrorDetail.resource("account") } }))
  }
  yield* refuseLiveToTestKey(caller, !found.value.sandbox)
  return yield* viewAccount(found.value, locale)
})

/** Pages through a keyset list with a cursor bound to its filters. */
const page = Effect.fn("lists.page")(function* <A>(
  scope: string,
  filters: Readonly<Record<string, unknown>>,
  query: { readonly cursor?: string | undefined; readonly limit?: number | undefined },
  load: (after: Keyset | undefined, limit: number) => Effect.Effect<ReadonlyArray<A>, unknown>,
  keyOf: (a: A) => Keyset
) {
  const settings = yield* EngineConfig
  const at = yield* Effect.clockWith((c) => c.currentTimeMillis)
  const digest = filterDigest(scope, filters)
  let after: Keyset | undefined
  if (query.cursor !== undefined) {
    const decoded = decodeCursor(settings.keyring, query.cursor, digest, at, settings.cursorTtlMs)
    if (Option.isNone(decoded)) return yield* Effect.fail(new PostwireError({ code: "invalid_cursor", field: "cursor" }))
    after = decoded.value
  }
  const limit = query.limit ?? defaultPageSize
  const rows = yield* load(after, limit + 1)
  const items = rows.slice(0, limit)
  const last = items[items.length - 1]
  const hasMore = rows.length > limit && last !== undefined
  return {
    items,
    cursor: { next: hasMore ? encodeCursor(settings.keyring, keyOf(last), digest, at) : null, has_more: hasMore }
  }
})

/** Accounts of the workspace, newest first. */
export const listAccounts = Effect.fn("accounts.list")(function* (
  caller: Caller,
  query: Account.ListAccountsQuery,
  locale: Locale = "en"
) {
  const store = yield* Store
  const connectStore = yield* ConnectStore
  const settings = yield* EngineConfig
  const filter = { profileId: query.profile_id, platform: query.platform }
  const result = yield* page(
    `accounts:${caller.workspaceId}`,
    filter,
    query,
    (after, limit) => store.listAccounts(caller.workspaceId, filter, after, limit),
    (a: AccountRecord) => ({ sortKey: a.createdAt, id: a.id })
  )
  const connections = yield* connectStore.getConnections(
    caller.workspaceId,
    result.items.map((a) => a.id)
  )
  const byAccount = new Map(connections.map((c) => [c.accountId, c]))
  const data: Array<Account.Account> = []
  for (const a of result.items) {
    // A test key sees only sandbox accounts; the cursor still follows the page as stored.
    if (!sees(caller, !a.sandbox)) continue
    data.push(accountView(a, yield* accountQuota(a), byAccount.get(a.id), locale, settings))
  }
  return { data, cursor: result.cursor }
})

/** Profiles of the workspace, newest first. */
export const listProfiles = Effect.fn("profiles.list")(function* (caller: Caller, query: Account.ListProfilesQuery) {
  const store = yield* Store
  const result = yield* page(
    `profiles:${caller.workspaceId}`,
    {},
    query,
    (after, limit) => store.listProfiles(caller.workspaceId, after, limit),
    (p: ProfileRecord) => ({ sortKey: p.createdAt, id: p.id })
  )
  return { data: result.items.map(profileView), cursor: result.cursor }
})
