/**
 * Connecting a TikTok (shortvideo) account: Login Kit's authorization page with PKCE, the
 * authorization-code and refresh-token grants of `/v2/oauth/token/`, the identity from
 * `/v2/user/info/`, the creator's posting options from `creator_info`, and `/v2/oauth/revoke/`.
 *
 * Settings and their environment names (the server reads them):
 *
 * | setting | environment | default |
 * |---|---|---|
 * | `clientKey` | `POSTWIRE_TIKTOK_CLIENT_KEY` | (none: required) |
 * | `clientSecret` | `POSTWIRE_TIKTOK_CLIENT_SECRET` | (none: required) |
 * | `authorizeUrl` | `POSTWIRE_TIKTOK_AUTHORIZE_URL` | `https://www.tiktok.com/v2/auth/authorize/` |
 * | `apiUrl` | `POSTWIRE_TIKTOK_BASE_URL` (the publishing API's host) | `https://open.tiktokapis.com` |
 * | `scopes` | | `user.info.basic,user.info.profile,video.publish,video.upload,video.list` |
 *
 * Lifetimes come from each answer's `expires_in` and `refresh_expires_in` (TikTok's documents
 * disagree: 2 h / 180 days or 24 h / 365 days). Refresh tokens rotate: every refresh returns the
 * newest, and the old one stops working.
 *
 * @since 0.2.0
 */
import { type CodeExchange, type ConnectedIdentity, type ConnectFailure, type CreatorInfo, SandboxConsent } from "@postwire/core"
import { Clock, Effect, Redacted } from "effect"
import { HttpClientRequest } from "effect/http"
import * as Credentials from "./Credentials.ts"
import {
  connectFailure,
  expiry,
  lacking,
  malformedAnswer,
  type PlatformConnect,
  scopeList,
  send,
  unavailable
} from "../internal/ConnectWire.ts"
import * as TokenSession from "../internal/TokenSession.ts"
import { field, numberField, stringField, type Wire, type WireResponse } from "../internal/Wire.ts"
import * as TikTok from "./TikTok.ts"

/** TikTok's connect settings. */
export interface Settings {
  readonly clientKey: string
  readonly clientSecret: Redacted.Redacted<string>
  /** The Login Kit authorization page. */
  readonly authorizeUrl: string
  /** The Open API host (token, revoke, user info, creator info). */
  readonly apiUrl: string
  /** The scopes asked for. */
  readonly scopes: ReadonlyArray<string>
}

/** The environment names of the settings the server must be given. */
export const settingNames = {
  clientKey: "POSTWIRE_TIKTOK_CLIENT_KEY",
  clientSecret: "POSTWIRE_TIKTOK_CLIENT_SECRET"
} as const

/** Defaults for everything but the app credentials. */
export const defaults = {
  authorizeUrl: "https://www.tiktok.com/v2/auth/authorize/",
  apiUrl: "https://open.tiktokapis.com",
  scopes: ["user.info.basic", "user.info.profile", "video.publish", "video.upload", "video.list"]
} as const

/** Without these the account cannot be identified or post directly: the connect is refused. */
export const requiredScopes: ReadonlyArray<string> = ["user.info.basic", "video.publish"]

/** TikTok's OAuth error answer `{error, error_description, log_id}`, whatever the HTTP status. */
const oauthError = (response: WireResponse): string | undefined => {
  const error = field(response.json, "error")
  // The API envelope also has an `error` object (`{code: "ok"}`); the OAuth one is a string.
  return typeof error === "string" && error !== "" ? error : undefined
}

/** Reads a token answer (code exchange or refresh) into credentials, or the failure it states. */
const tokenAnswer = (
  response: WireResponse,
  now: number,
  onRefusal: (error: string) => ConnectFailure
): Effect.Effect<{ readonly credentials: Credentials.ShortVideoCredentials; readonly openId: string; readonly scopes: ReadonlyArray<string> }, ConnectFailure> => {
  const error = oauthError(response)
  if (error !== undefined) return Effect.fail(onRefusal(error))
  const accessToken = stringField(response.json, "access_token")
  const refreshToken = stringField(response.json, "refresh_token")
  const openId = stringField(response.json, "open_id")
  if (response.status >= 400) return Effect.fail(onRefusal(`http_${response.status}`))
  if (accessToken === undefined || refreshToken === undefined || openId === undefined) {
    return Effect.fail(malformedAnswer("token"))
  }
  const scopes = scopeList(field(response.json, "scope"))
  const expiresAt = expiry(now, numberField(response.json, "expires_in"))
  const refreshExpiresAt = expiry(now, numberField(response.json, "refresh_expires_in"))
  return Effect.succeed({
    openId,
    scopes,
    credentials: {
      access_token: accessToken,
      refresh_token: refreshToken,
      open_id: openId,
      scopes,
      ...(expiresAt === null ? {} : { expires_at: expiresAt }),
      ...(refreshExpiresAt === null ? {} : { refresh_expires_at: refreshExpiresAt })
    }
  })
}

/** The API envelope `{data, error: {code: "ok"}}`: `data`, or the failure its code states. */
const apiData = (response: WireResponse): Effect.Effect<unknown, ConnectFailure> => {
  const code = stringField(field(response.json, "error"), "code")
  if (code === "ok" && response.status < 300) return Effect.succeed(field(response.json, "data"))
  const platformCode = code ?? `http_${response.status}`
  switch (code) {
    case "access_token_invalid":
      // Expired (a 2-hour token) or revoked: only a refresh can tell, so this alone asks no reconnect.
      return Effect.fail(connectFailure("token_expired", platformCode))
    case "scope_not_authorized":
    case "scope_permission_missed":
      return Effect.fail(connectFailure("permission_missing", platformCode, { needsReconnect: true }))
    case "rate_limit_exceeded":
    case "internal_error":
      return Effect.fail(unavailable(platformCode))
    default:
      return Effect.fail(connectFailure("connect_failed", platformCode))
  }
}

/** The creator's posting options from `creator_info`'s data. */
export const readCreatorInfo = (data: unknown): CreatorInfo => {
  const options = field(data, "privacy_level_options")
  return {
    nickname: stringField(data, "creator_nickname") ?? "",
    username: stringField(data, "creator_username") ?? "",
    privacyLevelOptions: Array.isArray(options) ? options.filter((o): o is string => typeof o === "string") : [],
    commentDisabled: field(data, "comment_disabled") === true,
    duetDisabled: field(data, "duet_disabled") === true,
    stitchDisabled: field(data, "stitch_disabled") === true,
    maxVideoPostDurationSec: numberField(data, "max_video_post_duration_sec") ?? Number.POSITIVE_INFINITY
  }
}

/** TikTok's connector, with `creatorInfo` besides the common calls. */
export interface TikTokConnect extends PlatformConnect {
  readonly creatorInfo: (credentials: string) => Effect.Effect<CreatorInfo, ConnectFailure>
}

const decodeCredentials = (json: string): Effect.Effect<Credentials.ShortVideoCredentials, ConnectFailure> =>
  Credentials.decode(json).pipe(
    Effect.mapError((f) => connectFailure("token_expired", f.platformCode, { needsReconnect: true }))
  )

/** Creates TikTok's connector. */
export const make = (settings: Settings, wire: Wire): TikTokConnect => {
  const api = settings.apiUrl.replace(/\/+$/, "")
  const missing = [
    ...(settings.clientKey === "" ? [settingNames.clientKey] : []),
    ...(Redacted.value(settings.clientSecret) === "" ? [settingNames.clientSecret] : [])
  ]

  const tokenRequest = (params: Record<string, string>) =>
    HttpClientRequest.post(`${api}/v2/oauth/token/`).pipe(
      HttpClientRequest.bodyUrlParams({
        client_key: settings.clientKey,
        client_secret: Redacted.value(settings.clientSecret),
        ...params
      })
    )

  const bearerPost = (path: string, token: string) =>
    send(
      wire,
      HttpClientRequest.post(`${api}${path}`).pipe(
        HttpClientRequest.bearerToken(token),
        HttpClientRequest.setHeader("content-type", "application/json; charset=UTF-8")
      )
    ).pipe(Effect.flatMap(apiData))

  const creatorInfoWith = (token: string) =>
    bearerPost("/v2/post/publish/creator_info/query/", token).pipe(Effect.map(readCreatorInfo))

  const exchange = Effect.fn("connect.shortvideo.exchange")(function* (request: CodeExchange) {
    const response = yield* send(
      wire,
      tokenRequest({
        code: request.code,
        grant_type: "authorization_code",
        redirect_uri: request.redirectUri,
        code_verifier: request.codeVerifier
      })
    )
    const now = yield* Clock.currentTimeMillis
    const token = yield* tokenAnswer(response, now, (error) =>
      error === "access_denied" ? connectFailure("connect_refused", error) : connectFailure("connect_failed", error)
    )
    const without = lacking(requiredScopes, token.scopes)
    if (token.scopes.length > 0 && without.length > 0) {
      return yield* Effect.fail(connectFailure("connect_refused", `scope_declined:${without.join(",")}`))
    }
    const fields = ["open_id", "avatar_url", "display_name", ...(token.scopes.includes("user.info.profile") ? ["username"] : [])]
    const user = yield* send(
      wire,
      HttpClientRequest.get(`${api}/v2/user/info/`).pipe(
        HttpClientRequest.setUrlParams({ fields: fields.join(",") }),
        HttpClientRequest.bearerToken(token.credentials.access_token)
      )
    ).pipe(
      Effect.flatMap(apiData),
      Effect.map((data) => field(data, "user"))
    )
    const creator = yield* creatorInfoWith(token.credentials.access_token)
    const displayName = stringField(user, "display_name") ?? (creator.nickname || null)
    const handle = stringField(user, "username") || creator.username || displayName || token.openId
    const identity: ConnectedIdentity = {
      platform: "shortvideo",
      platformAccountId: stringField(user, "open_id") ?? token.openId,
      handle,
      displayName,
      avatarUrl: stringField(user, "avatar_url") ?? null,
      credentials: Credentials.encode(token.credentials),
      scopes: token.scopes,
      accessTokenExpiresAt: token.credentials.expires_at ?? null,
      refreshTokenExpiresAt: token.credentials.refresh_expires_at ?? null,
      creatorInfo: creator,
      grantId: token.openId
    }
    return [identity]
  })

  // The renewal's refresh shares the process's flight with publishing and analytics
  // (`TikTok.refreshFlight`): a refresh token one of them just spent is not sent again.
  const refreshCredentials = TokenSession.makeRefresher<Credentials.ShortVideoCredentials, ConnectFailure>(
    (credentials) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        if (credentials.refresh_expires_at !== undefined && credentials.refresh_expires_at <= now) {
          return yield* Effect.fail(connectFailure("token_expired", "refresh_token_expired", { needsReconnect: true }))
        }
        const response = yield* send(wire, tokenRequest({ grant_type: "refresh_token", refresh_token: credentials.refresh_token }))
        const token = yield* tokenAnswer(response, now, (error) =>
          error === "invalid_client" || error === "unauthorized_client"
            ? // The app's credentials are wrong: the operator fixes that, not the person.
              connectFailure("connect_failed", error, { retryable: true })
            : connectFailure("token_expired", error, { needsReconnect: true })
        )
        // Keep what the answer leaves out (an answer without scope keeps the granted ones).
        return {
          ...token.credentials,
          scopes: token.scopes.length > 0 ? token.scopes : (credentials.scopes ?? []),
          ...(token.credentials.refresh_expires_at === undefined && credentials.refresh_expires_at !== undefined
            ? { refresh_expires_at: credentials.refresh_expires_at }
            : {})
        }
      }),
    (credentials) => credentials.refresh_token,
    TikTok.refreshFlight(api, settings.clientKey)
  )

  const refresh = Effect.fn("connect.shortvideo.refresh")(function* (json: string) {
    const fresh = yield* refreshCredentials(yield* decodeCredentials(json))
    return {
      _tag: "Refreshed" as const,
      credentials: Credentials.encode(fresh),
      accessTokenExpiresAt: fresh.expires_at ?? null,
      refreshTokenExpiresAt: fresh.refresh_expires_at ?? null,
      scopes: fresh.scopes ?? null
    }
  })

  const revoke = Effect.fn("connect.shortvideo.revoke")(function* (json: string) {
    const credentials = yield* decodeCredentials(json)
    const response = yield* send(
      wire,
      HttpClientRequest.post(`${api}/v2/oauth/revoke/`).pipe(
        HttpClientRequest.bodyUrlParams({
          client_key: settings.clientKey,
          client_secret: Redacted.value(settings.clientSecret),
          token: credentials.access_token
        })
      )
    )
    const envelopeCode = stringField(field(response.json, "error"), "code")
    const error = oauthError(response) ?? (envelopeCode === "ok" ? undefined : envelopeCode)
    if (response.status < 300 && error === undefined) return { _tag: "Revoked" as const }
    // A token TikTok no longer knows is as good as revoked.
    if (error === "invalid_grant" || error === "access_token_invalid") return { _tag: "Revoked" as const }
    return yield* Effect.fail(connectFailure("connect_failed", error ?? `http_${response.status}`))
  })

  return {
    missing,
    authorizationUrl: (request) => {
      const url = new URL(settings.authorizeUrl)
      url.search = new URLSearchParams({
        client_key: settings.clientKey,
        scope: settings.scopes.join(","),
        response_type: "code",
        redirect_uri: request.redirectUri,
        state: request.state,
        code_challenge: SandboxConsent.codeChallenge(request.codeVerifier),
        code_challenge_method: "S256"
      }).toString()
      return url.toString()
    },
    exchange,
    refresh,
    revoke,
    creatorInfo: (json) =>
      Effect.gen(function* () {
        const credentials = yield* decodeCredentials(json)
        const now = yield* Clock.currentTimeMillis
        if (credentials.expires_at !== undefined && credentials.expires_at <= now) {
          return yield* Effect.fail(connectFailure("token_expired", "access_token_expired"))
        }
        return yield* creatorInfoWith(credentials.access_token)
      }).pipe(Effect.withSpan("connect.shortvideo.creatorInfo"))
  }
}

