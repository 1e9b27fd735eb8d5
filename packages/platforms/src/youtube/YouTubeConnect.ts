/**
 * Connecting a YouTube (video) channel: Google's OAuth 2.0 web server flow
 * (https://developers.google.com/identity/protocols/oauth2/web-server) with offline access
 * (`access_type=offline`, `prompt=consent`, so that a refresh token comes with every consent),
 * PKCE (S256), the code traded at `oauth2.googleapis.com/token`, the channel read with
 * `channels.list?part=snippet,contentDetails&mine=true`
 * (https://developers.google.com/youtube/v3/docs/channels/list), tokens refreshed with the
 * refresh token, and the grant revoked at `oauth2.googleapis.com/revoke` on disconnect.
 *
 * Scopes (https://developers.google.com/youtube/v3/guides/auth/server-side-web-apps#identify-access-scopes):
 * `youtube.upload` to publish, `youtube.force-ssl` to read and moderate comments. A consent
 * without `youtube.upload` is refused (`connect_refused`).
 *
 * Settings and their environment names:
 *
 * | setting | environment | default |
 * |---|---|---|
 * | `clientId` | `POSTWIRE_YOUTUBE_CLIENT_ID` | (none: required) |
 * | `clientSecret` | `POSTWIRE_YOUTUBE_CLIENT_SECRET` | (none: required) |
 * | `authorizeUrl` | `POSTWIRE_YOUTUBE_AUTHORIZE_URL` | `https://accounts.google.com/o/oauth2/v2/auth` |
 * | `tokenUrl` | `POSTWIRE_YOUTUBE_TOKEN_URL` | `https://oauth2.googleapis.com/token` |
 * | `revokeUrl` | `POSTWIRE_YOUTUBE_REVOKE_URL` | `https://oauth2.googleapis.com/revoke` |
 * | `apiUrl` | `POSTWIRE_YOUTUBE_API_URL` | `https://www.googleapis.com/youtube/v3` |
 *
 * @since 0.5.0
 */
import { createHash } from "node:crypto"
import type { CodeExchange, ConnectedIdentity, TokenRefresh, TokenRevocation } from "@postwire/core"
import { Clock, Effect, Redacted } from "effect"
import { HttpClientRequest } from "effect/http"
import * as Credentials from "./Credentials.ts"
import { connectFailure, expiry, lacking, malformedAnswer, type PlatformConnect, scopeList, send, unavailable } from "../internal/ConnectWire.ts"
import { field, stringField, type Wire, type WireResponse } from "../internal/Wire.ts"
import * as Google from "./GoogleApi.ts"

/** YouTube's connect settings. */
export interface Settings {
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  readonly authorizeUrl: string
  readonly tokenUrl: string
  readonly revokeUrl: string
  readonly apiUrl: string
  readonly scopes: ReadonlyArray<string>
}

/** The environment names of the settings the server must be given. */
export const settingNames = {
  clientId: "POSTWIRE_YOUTUBE_CLIENT_ID",
  clientSecret: "POSTWIRE_YOUTUBE_CLIENT_SECRET"
} as const

/** The scope that publishes. */
export const uploadScope = "https://www.googleapis.com/auth/youtube.upload"
/** The scope that reads and moderates comments. */
export const commentsScope = "https://www.googleapis.com/auth/youtube.force-ssl"

/** Defaults for everything but the app credentials. */
export const defaults = {
  authorizeUrl: "https://accounts.google.com/o/oauth2/v2/auth",
  tokenUrl: "https://oauth2.googleapis.com/token",
  revokeUrl: "https://oauth2.googleapis.com/revoke",
  apiUrl: "https://www.googleapis.com/youtube/v3",
  scopes: [uploadScope, commentsScope]
} as const

/** PKCE's S256 challenge: base64url of the verifier's SHA-256 (RFC 7636). */
export const codeChallenge = (verifier: string): string => createHash("sha256").update(verifier).digest("base64url")

/** A refusal at the token endpoint, as a connect failure. */
const tokenFailure = (response: WireResponse, reconnect: boolean) => {
  const error = Google.readError(response)
  if (response.status >= 500) return unavailable(error.reason)
  return reconnect
    ? connectFailure("token_expired", error.reason, { needsReconnect: error.reason !== "invalid_client" })
    : connectFailure("connect_failed", error.reason)
}

/** Creates YouTube's connector. */
export const make = (settings: Settings, wire: Wire): PlatformConnect => {
  const api = settings.apiUrl.replace(/\/+$/, "")
  const missing = [
    ...(settings.clientId === "" ? [settingNames.clientId] : []),
    ...(Redacted.value(settings.clientSecret) === "" ? [settingNames.clientSecret] : [])
  ]

  const token = (params: Record<string, string>) =>
    send(
      wire,
      HttpClientRequest.post(settings.tokenUrl).pipe(
        HttpClientRequest.bodyUrlParams({ client_id: settings.clientId, client_secret: Redacted.value(settings.clientSecret), ...params })
      )
    )

  const exchange = Effect.fn("connect.video.exchange")(function* (request: CodeExchange) {
    const response = yield* token({
      code: request.code,
      code_verifier: request.codeVerifier,
      grant_type: "authorization_code",
      redirect_uri: request.redirectUri
    })
    if (!Google.ok(response)) return yield* Effect.fail(tokenFailure(response, false))
    const accessToken = stringField(response.json, "access_token")
    const refreshToken = stringField(response.json, "refresh_token")
    if (accessToken === undefined) return yield* Effect.fail(malformedAnswer("access_token"))
    // Offline access with prompt=consent always gives one; without it the account could not stay connected.
    if (refreshToken === undefined) return yield* Effect.fail(malformedAnswer("refresh_token"))
    const scopes = scopeList(field(response.json, "scope"))
    const without = lacking([uploadScope], scopes)
    if (without.length > 0) return yield* Effect.fail(connectFailure("connect_refused", `scope_declined:${without.join(",")}`))
    const now = yield* Clock.currentTimeMillis
    const expiresAt = expiry(now, typeof field(response.json, "expires_in") === "number" ? (field(response.json, "expires_in") as number) : undefined)
    const channels = yield* send(
      wire,
      HttpClientRequest.get(`${api}/channels`).pipe(
        HttpClientRequest.setUrlParams({ part: "snippet,contentDetails", mine: "true" }),
        HttpClientRequest.bearerToken(accessToken)
      )
    )
    if (!Google.ok(channels)) {
      const error = Google.readError(channels)
      return yield* Effect.fail(connectFailure("connect_failed", error.reason))
    }
    const items = field(channels.json, "items")
    const list = Array.isArray(items) ? items : []
    // A Google account without a channel: YouTube asks the person to create one first.
    if (list.length === 0) return yield* Effect.fail(connectFailure("connect_failed", "no_channel"))
    const ids = list.flatMap((c) => stringField(c, "id") ?? [])
    const identities: Array<ConnectedIdentity> = []
    for (const channel of list) {
      const id = stringField(channel, "id")
      const snippet = field(channel, "snippet")
      const title = stringField(snippet, "title")
      if (id === undefined || title === undefined) continue
      const credentials: Credentials.VideoCredentials = {
        access_token: accessToken,
        refresh_token: refreshToken,
        channel_id: id,
        scopes,
        ...(expiresAt === null ? {} : { expires_at: expiresAt }),
        ...(() => {
          const uploads = stringField(field(field(channel, "contentDetails"), "relatedPlaylists"), "uploads")
          return uploads === undefined ? {} : { uploads_playlist_id: uploads }
        })()
      }
      identities.push({
        platform: "video",
        platformAccountId: id,
        handle: (stringField(snippet, "customUrl") ?? title).replace(/^@/, ""),
        displayName: title,
        avatarUrl: stringField(field(field(snippet, "thumbnails"), "default"), "url") ?? null,
        credentials: Credentials.encode(credentials),
        scopes,
        accessTokenExpiresAt: expiresAt,
        refreshTokenExpiresAt: null,
        creatorInfo: null,
        // One consent, one refresh token: channels connected together share it.
        grantId: ids.join(",")
      })
    }
    if (identities.length === 0) return yield* Effect.fail(malformedAnswer("channels"))
    return identities
  })

  const decode = (json: string) =>
    Credentials.decode(json).pipe(Effect.mapError((f) => connectFailure("token_expired", f.platformCode, { needsReconnect: true })))

  const refresh = Effect.fn("connect.video.refresh")(function* (json: string) {
    const credentials = yield* decode(json)
    const response = yield* token({ grant_type: "refresh_token", refresh_token: credentials.refresh_token })
    if (!Google.ok(response)) return yield* Effect.fail(tokenFailure(response, true))
    const accessToken = stringField(response.json, "access_token")
    if (accessToken === undefined) return yield* Effect.fail(malformedAnswer("access_token"))
    const now = yield* Clock.currentTimeMillis
    const seconds = field(response.json, "expires_in")
    const expiresAt = expiry(now, typeof seconds === "number" ? seconds : undefined)
    const scope = field(response.json, "scope")
    const fresh: Credentials.VideoCredentials = {
      ...credentials,
      access_token: accessToken,
      refresh_token: stringField(response.json, "refresh_token") ?? credentials.refresh_token,
      ...(expiresAt === null ? {} : { expires_at: expiresAt })
    }
    return {
      _tag: "Refreshed",
      credentials: Credentials.encode(fresh),
      accessTokenExpiresAt: expiresAt,
      refreshTokenExpiresAt: null,
      scopes: scope === undefined ? null : scopeList(scope)
    } satisfies TokenRefresh
  })

  /** Revokes the refresh token, which ends the whole grant (https://developers.google.com/identity/protocols/oauth2/web-server#tokenrevoke). */
  const revoke = Effect.fn("connect.video.revoke")(function* (json: string) {
    const credentials = yield* decode(json)
    const response = yield* send(
      wire,
      HttpClientRequest.post(settings.revokeUrl).pipe(HttpClientRequest.bodyUrlParams({ token: credentials.refresh_token }))
    )
    if (Google.ok(response)) return { _tag: "Revoked" } satisfies TokenRevocation
    // A token Google no longer knows (revoked already, or by the person) has nothing left to revoke.
    if (Google.readError(response).reason === "invalid_token") return { _tag: "Revoked" } satisfies TokenRevocation
    return yield* Effect.fail(connectFailure("connect_failed", Google.readError(response).reason))
  })

  return {
    missing,
    authorizationUrl: (request) => {
      const url = new URL(settings.authorizeUrl)
      url.search = new URLSearchParams({
        client_id: settings.clientId,
        redirect_uri: request.redirectUri,
        response_type: "code",
        scope: settings.scopes.join(" "),
        access_type: "offline",
        prompt: "consent",
        include_granted_scopes: "true",
        state: request.state,
        code_challenge: codeChallenge(request.codeVerifier),
        code_challenge_method: "S256"
      }).toString()
      return url.toString()
    },
    exchange,
    refresh,
    revoke
  }
}
