/**
 * Tokens kept alive: a worker loop that refreshes each connected account's platform token
 * before it expires, so an account used once a month never lapses.
 *
 * The rule: a token is refreshed once half of its lifetime has passed (TikTok's 24-hour access
 * token after 12 hours, a 2-hour one after an hour; Instagram's and Threads' 60-day long-lived
 * tokens after 30 days, and never before they are 24 hours old, which Meta requires). A token
 * that does not expire (a Facebook Page token) is not refreshed. A transient failure (the
 * platform is down) is tried again after 1, 5 and 30 minutes, then every 2 hours; a refresh the
 * platform refuses marks the account `needs_reconnect` and emits `account.needs_reconnect`
 * once. A TikTok account's creator options (privacy levels, longest video) are read again with
 * each new token, so the account detail shows them as they are now. Each platform's policy is
 * its plugin's (`AccountConnector.renewal`).
 *
 * Due refreshes are claimed with a lease (`FOR UPDATE SKIP LOCKED` in SQL) through an index on
 * the due time, so any number of worker instances share them and a crash loses nothing.
 *
 * @since 0.2.0
 */
import { Clock, Effect, Option } from "effect"
import type { Ids } from "../ids/Ids.ts"
import * as LeasedWork from "../internal/LeasedWork.ts"
import * as AccountEvents from "./AccountEvents.ts"
import { accountContext, CredentialsCipher } from "../secrets/CredentialsCipher.ts"
import { Store } from "../store/Store.ts"
import { AccountConnector, type RenewalPolicy } from "./AccountConnector.ts"
import { type AccountConnectionRecord, ConnectStore, type ConnectionKey } from "./ConnectStore.ts"

const minute = 60_000
const hour = 60 * minute

/**
 * When a token issued at `issuedAt` and expiring at `expiresAt` is refreshed: halfway through
 * its lifetime, not before the platform's `minimumAgeMs` (its plugin's `tokenRenewal`); `null`
 * when it does not expire.
 *
 * @example
 * ```ts
 * nextRefreshAt({}, t, t + 24 * 3_600_000)                                      // t + 12 h
 * nextRefreshAt({ minimumAgeMs: 24 * 3_600_000 }, t, t + 2 * 3_600_000)          // t + 24 h
 * ```
 */
export const nextRefreshAt = (policy: RenewalPolicy | undefined, issuedAt: number, expiresAt: number | null): number | null => {
  if (expiresAt === null) return null
  const halfway = issuedAt + Math.max(0, Math.floor((expiresAt - issuedAt) / 2))
  const minimumAgeMs = policy?.minimumAgeMs
  return minimumAgeMs === undefined ? halfway : Math.max(halfway, issuedAt + minimumAgeMs)
}

/** The wait before trying again after `failures` transient failures in a row: 1 m, 5 m, 30 m, then 2 h. */
export const retryDelayMs = (failures: number): number =>
  failures <= 1 ? minute : failures === 2 ? 5 * minute : failures === 3 ? 30 * minute : 2 * hour

/** How a worker instance refreshes tokens. */
export interface TokenRenewalSettings {
  /** This instance's name in every lease it takes; unique per process. */
  readonly owner: string
  /** Refreshes at once. */
  readonly concurrency: number
  /** How long a claim lasts; longer than a refresh with its retries takes. */
  readonly leaseMs: number
  /** How long to wait before looking again when nothing was due. */
  readonly idlePollMs: number
}

/** The defaults, for an instance named `owner`. */
export const defaults = (owner: string): TokenRenewalSettings => ({
  owner,
  concurrency: 4,
  leaseMs: 5 * minute,
  idlePollMs: 30_000
})

/** The services a refresh needs. */
export type TokenRenewalServices = Store | ConnectStore | AccountConnector | CredentialsCipher | Ids

/** How one refresh ended. */
export type RefreshOutcome = "refreshed" | "unchanged" | "deferred" | "needs_reconnect" | "lost"

const keyOf = (connection: AccountConnectionRecord): ConnectionKey => ({
  workspaceId: connection.workspaceId,
  accountId: connection.accountId
})

/** Refreshes one claimed connection's token and records what happened. */
export const refreshToken = Effect.fn("tokens.refresh")(
  function* (settings: TokenRenewalSettings, connection: AccountConnectionRecord) {
    const store = yield* Store
    const connections = yield* ConnectStore
    const connector = yield* AccountConnector
    const cipher = yield* CredentialsCipher
    const at = yield* Clock.currentTimeMillis
    const key = keyOf(connection)
    const found = yield* store.getAccount(connection.workspaceId, connection.accountId)
    const account = Option.getOrUndefined(found)
    const context = accountContext(connection.workspaceId, connection.accountId)
    const credentials =
      account?.credentials == null ? Option.none<string>() : cipher.open(account.credentials, context)

    const refuse = (code: string, platformCode: string | null) =>
      Effect.gen(function* () {
        const events = account === undefined ? [] : [yield* AccountEvents.needsReconnect(account, code, at)]
        const held = yield* connections.refuseRefresh(key, settings.owner, { code, platformCode }, events)
        yield* Effect.logInfo("token refresh refused: the account needs reconnecting", { code, platform_code: platformCode })
        return held ? ("needs_reconnect" as const) : ("lost" as const)
      })

    if (account === undefined || Option.isNone(credentials)) return yield* refuse("token_expired", "credentials_missing")

    const result = yield* connector
      .refresh({ platform: account.platform, sandbox: account.sandbox, credentials: credentials.value })
      .pipe(Effect.result)
    if (result._tag === "Failure") {
      const failure = result.failure
      if (failure.needsReconnect) return yield* refuse(failure.code, failure.platformCode)
      const failures = connection.refreshFailures + 1
      // A rate limit that names its time (Meta's Business Use Case throttles) is not asked before it.
      const retryAt = Math.max(at + retryDelayMs(failures), failure.retryAt ?? 0)
      yield* Effect.logWarning("token refresh failed, will retry", {
        code: failure.code,
        platform_code: failure.platformCode,
        failures
      })
      const held = yield* connections.deferRefresh(key, settings.owner, retryAt, failures)
      return held ? ("deferred" as const) : ("lost" as const)
    }
    const refreshed = result.success
    if (refreshed._tag === "NothingToRefresh") {
      const held = yield* connections.recordRefresh(key, settings.owner, {
        at,
        credentials: undefined,
        tokenExpiresAt: connection.tokenExpiresAt,
        refreshExpiresAt: connection.refreshExpiresAt,
        scopes: null,
        refreshAt: null
      })
      return held ? ("unchanged" as const) : ("lost" as const)
    }
    // TikTok: the creator's options change (a private account, a longer limit): read them again
    // with the new token, so the account detail stays current. Not reading them is no failure.
    const policy = connector.renewal?.(account.platform)
    const creator =
      policy?.readsCreatorInfo === true
        ? yield* connector
            .creatorInfo({ platform: account.platform, sandbox: account.sandbox, credentials: refreshed.credentials })
            .pipe(
              Effect.map((info) => ({
                privacyLevelOptions: info.privacyLevelOptions,
                maxVideoPostDurationSec: info.maxVideoPostDurationSec
              })),
              Effect.tapError((failure) =>
                Effect.logWarning("reading the creator's options failed", { code: failure.code, platform_code: failure.platformCode })
              ),
              Effect.option,
              Effect.map(Option.getOrUndefined)
            )
        : undefined
    const held = yield* connections.recordRefresh(key, settings.owner, {
      at,
      credentials: cipher.seal(refreshed.credentials, context),
      tokenExpiresAt: refreshed.accessTokenExpiresAt,
      refreshExpiresAt: refreshed.refreshTokenExpiresAt,
      scopes: refreshed.scopes,
      refreshAt: nextRefreshAt(policy, at, refreshed.accessTokenExpiresAt),
      creator
    })
    if (held) yield* Effect.logInfo("token refreshed")
    return held ? ("refreshed" as const) : ("lost" as const)
  },
  (effect, _settings, connection) => Effect.annotateLogs(effect, { account_id: connection.accountId })
)

/**
 * One round: claims the refreshes that are due (up to `settings.concurrency`) and runs them,
 * concurrently, waiting for all. For an app that drives the engine itself, and for tests; a
 * server runs {@link start}.
 */
export const refreshDueTokens = Effect.fn("tokens.round")(function* (settings: TokenRenewalSettings) {
  const connections = yield* ConnectStore
  return yield* LeasedWork.round(
    settings,
    (claim) => connections.claimDueRefreshes(claim),
    (connection) => refreshToken(settings, connection),
    "token refresh failed unexpectedly"
  )
})

/**
 * Runs the refresh loop in the current scope until it closes: a round whenever the previous one
 * claimed all it could, otherwise after `idlePollMs`.
 *
 * @example
 * ```ts
 * const TokensLive = Layer.effectDiscard(TokenRenewal.start(TokenRenewal.defaults("worker-1")))
 * ```
 */
export const start = Effect.fn("tokens.start")(function* (settings: TokenRenewalSettings) {
  yield* LeasedWork.loop(settings, refreshDueTokens(settings), "token refresh round failed")
})
