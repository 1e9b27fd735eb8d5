/**
 * Connecting a sandbox account: the whole journey against the built-in simulated platform, with
 * no platform app. The authorization address is Postwire's own simulated consent page
 * (`SandboxConsent`), whose code this module reads back; the identities, tokens and lifetimes it
 * returns behave like the real platform's (TikTok-like tokens that last a day and refresh,
 * 60-day long-lived tokens for Instagram and Threads, Page tokens that do not expire), so the
 * service's refresh and disconnect paths run in the sandbox too.
 *
 * @since 0.2.0
 */
import { createHash } from "node:crypto"
import {
  type CodeExchange,
  type ConnectedIdentity,
  type ConnectFailure,
  type CreatorInfo,
  SandboxConsent,
  type TokenRefresh
} from "@postwire/core"
import { defaultMaxVideoDurationSec, type Platform, PrivacyLevel } from "@postwire/domain"
import { Clock, Effect, Schema } from "effect"
import { connectFailure, type PlatformConnect } from "../internal/ConnectWire.ts"
import * as Registry from "../Registry.ts"

/** Lifetimes of a platform's simulated tokens: access token and refresh token (`null`: none expires). */
export interface Lifetimes {
  readonly accessMs: number | null
  readonly refreshMs: number | null
}

const neverExpire: Lifetimes = { accessMs: null, refreshMs: null }

/** Lifetimes of the simulated tokens of the built-in platforms (each plugin's `sandbox.tokens`). */
export const lifetimes: Readonly<Record<Platform, Lifetimes>> = Object.fromEntries(
  Registry.builtins.map((plugin) => [plugin.name, plugin.sandbox?.tokens ?? neverExpire])
) as Record<Platform, Lifetimes>

/** The credentials of a sandbox account. */
export const SandboxCredentials = Schema.Struct({
  sandbox: Schema.Literal(true),
  platform: Schema.String,
  handle: Schema.String,
  access_token: Schema.String,
  refresh_token: Schema.optionalKey(Schema.String),
  expires_at: Schema.optionalKey(Schema.Number),
  refresh_expires_at: Schema.optionalKey(Schema.Number)
})
/** The credentials of a sandbox account. */
export type SandboxCredentials = typeof SandboxCredentials.Type

const token = (kind: string, platform: Platform, handle: string, now: number) =>
  `sbx_${kind}_${createHash("sha256").update(`${platform}:${handle}:${now}:${kind}`).digest("hex").slice(0, 32)}`

const issueCredentials = (platform: Platform, tokens: Lifetimes, handle: string, now: number): SandboxCredentials => {
  const { accessMs, refreshMs } = tokens
  return {
    sandbox: true,
    platform,
    handle,
    access_token: token("at", platform, handle, now),
    ...(accessMs === null ? {} : { expires_at: now + accessMs }),
    ...(refreshMs === null ? {} : { refresh_token: token("rt", platform, handle, now), refresh_expires_at: now + refreshMs })
  }
}

const decode = (json: string): Effect.Effect<SandboxCredentials, ConnectFailure> =>
  Effect.try({
    try: () => Schema.decodeUnknownSync(SandboxCredentials)(JSON.parse(json)),
    catch: () => connectFailure("token_expired", "credentials_invalid", { needsReconnect: true })
  })

/** The simulated creator's posting options: every privacy level, the default longest video. */
export const creatorInfoOf = (handle: string): CreatorInfo => ({
  nickname: handle,
  username: handle,
  privacyLevelOptions: PrivacyLevel.literals,
  commentDisabled: false,
  duetDisabled: false,
  stitchDisabled: false,
  maxVideoPostDurationSec: defaultMaxVideoDurationSec
})

/** The simulated platform's scope, for every sandbox identity. */
const scopes = [SandboxConsent.sandboxScope]

/** The sandbox connector of one platform. */
export interface SimulatedConnect extends PlatformConnect {
  readonly creatorInfo: (credentials: string) => Effect.Effect<CreatorInfo, ConnectFailure>
}

/**
 * Creates the sandbox connector of `platform`. `publicUrl` is the server's public address (the
 * consent page is there); `secret` signs and checks the simulated codes and must be the one the
 * consent page issues them with.
 */
export const make = (
  platform: Platform,
  options: {
    readonly publicUrl: string
    readonly secret: string
    readonly tokens?: Lifetimes | undefined
    /** The platform has a creator's posting options (its plugin's `capabilities.creatorInfo`): a sandbox account gets them. */
    readonly creatorInfo?: boolean | undefined
  }
): SimulatedConnect => {
  const tokens = options.tokens ?? lifetimes[platform] ?? neverExpire
  const exchange = Effect.fn("connect.sandbox.exchange")(function* (request: CodeExchange) {
    const now = yield* Clock.currentTimeMillis
    const read = SandboxConsent.read(request.code, {
      secret: options.secret,
      now,
      platform,
      redirectUri: request.redirectUri,
      codeVerifier: request.codeVerifier
    })
    if (read._tag === "Invalid") return yield* Effect.fail(connectFailure("connect_failed", `invalid_grant:${read.reason}`))
    return read.accounts.map((account): ConnectedIdentity => {
      const credentials = issueCredentials(platform, tokens, account.handle, now)
      return {
        platform,
        platformAccountId: `sbx_${platform}_${account.handle}`,
        handle: account.handle,
        displayName: account.displayName ?? account.handle,
        avatarUrl: null,
        credentials: JSON.stringify(credentials),
        scopes,
        accessTokenExpiresAt: credentials.expires_at ?? null,
        refreshTokenExpiresAt: credentials.refresh_expires_at ?? null,
        creatorInfo: options.creatorInfo === true ? creatorInfoOf(account.handle) : null,
        // One simulated person per consent: the first account names it.
        grantId: `sbx_person_${read.accounts[0]!.handle}`
      }
    })
  })

  const refresh = Effect.fn("connect.sandbox.refresh")(function* (json: string) {
    const credentials = yield* decode(json)
    if (credentials.expires_at === undefined) return { _tag: "NothingToRefresh" } satisfies TokenRefresh
    const now = yield* Clock.currentTimeMillis
    const deadline = credentials.refresh_expires_at ?? credentials.expires_at
    if (deadline <= now) {
      return yield* Effect.fail(connectFailure("token_expired", "invalid_grant", { needsReconnect: true }))
    }
    const fresh = issueCredentials(platform, tokens, credentials.handle, now)
    return {
      _tag: "Refreshed",
      credentials: JSON.stringify(fresh),
      accessTokenExpiresAt: fresh.expires_at ?? null,
      refreshTokenExpiresAt: fresh.refresh_expires_at ?? null,
      scopes
    } satisfies TokenRefresh
  })

  return {
    missing: [],
    authorizationUrl: (request) =>
      SandboxConsent.authorizeUrl(options.publicUrl, {
        platform,
        redirectUri: request.redirectUri,
        state: request.state,
        codeChallenge: SandboxConsent.codeChallenge(request.codeVerifier)
      }),
    exchange,
    refresh,
    revoke: (json) => Effect.as(decode(json), { _tag: "Revoked" as const }),
    creatorInfo: (json) => Effect.map(decode(json), (credentials) => creatorInfoOf(credentials.handle))
  }
}
