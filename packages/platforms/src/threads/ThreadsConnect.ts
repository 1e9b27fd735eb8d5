/**
 * Connecting a Threads (textpost) account: the authorization page, the code exchange at
 * `graph.threads.net/oauth/access_token` (a 1-hour token), the long-lived token
 * (`th_exchange_token`, about 60 days), its refresh (`th_refresh_token`, for tokens at least 24 h
 * old), and the identity from `/me`.
 *
 * Settings and their environment names (the server reads them):
 *
 * | setting | environment | default |
 * |---|---|---|
 * | `appId` | `POSTWIRE_THREADS_APP_ID` | (none: required) |
 * | `appSecret` | `POSTWIRE_THREADS_APP_SECRET` | (none: required) |
 * | `authorizeUrl` | `POSTWIRE_THREADS_AUTHORIZE_URL` | `https://threads.com/oauth/authorize` |
 * | `tokenUrl` | `POSTWIRE_THREADS_TOKEN_URL` | `https://graph.threads.net/oauth/access_token` |
 * | `exchangeUrl` | `POSTWIRE_THREADS_EXCHANGE_URL` | `https://graph.threads.net/access_token` |
 * | `refreshUrl` | `POSTWIRE_THREADS_REFRESH_URL` (shared with publishing) | `https://graph.threads.net/refresh_access_token` |
 * | `graphUrl` | `POSTWIRE_THREADS_BASE_URL` (shared with publishing) | `https://graph.threads.net/v1.0` |
 * | `appSecretProof` | `POSTWIRE_THREADS_APPSECRET_PROOF` (shared with publishing) | `false` |
 * | `scopes` | | `threads_basic,threads_content_publish,threads_read_replies,threads_manage_replies,threads_delete` |
 *
 * `threads_read_replies` reads the replies under the account's posts, `threads_manage_replies`
 * answers and hides them, `threads_delete` deletes the account's own; a person who declines them
 * can still publish.
 *
 * Threads has no revoke API: `revoke` says `Unsupported`; the person removes the app in
 * Threads' settings (the app's deauthorize callback then tells the service).
 *
 * @since 0.2.0
 */
import type { CodeExchange, ConnectedIdentity } from "@postwire/core"
import { Clock, Effect, Redacted } from "effect"
import { HttpClientRequest } from "effect/http"
import * as Credentials from "../meta/Credentials.ts"
import {
  appSecretProof,
  expiry,
  malformedAnswer,
  metaConnectFailure,
  metaOk,
  type PlatformConnect,
  rawId,
  send
} from "../internal/ConnectWire.ts"
import { stringField, type Wire } from "../internal/Wire.ts"
import * as MetaToken from "../meta/MetaToken.ts"

/** Threads' connect settings. */
export interface Settings {
  /** The Threads App ID (the Threads use case's own id), not the Meta app id. */
  readonly appId: string
  readonly appSecret: Redacted.Redacted<string>
  readonly authorizeUrl: string
  readonly tokenUrl: string
  readonly exchangeUrl: string
  readonly refreshUrl: string
  /** The versioned Graph host for `/me`. */
  readonly graphUrl: string
  readonly scopes: ReadonlyArray<string>
  /**
   * Whether `/me` carries `appsecret_proof`. Default `false`: the Threads API documentation does
   * not mention it, and Meta's "Securing Requests" makes it optional unless the app requires it.
   */
  readonly appSecretProof?: boolean | undefined
}

/** The environment names of the settings the server must be given. */
export const settingNames = {
  appId: "POSTWIRE_THREADS_APP_ID",
  appSecret: "POSTWIRE_THREADS_APP_SECRET"
} as const

/** Defaults for everything but the app credentials. */
export const defaults = {
  authorizeUrl: "https://threads.com/oauth/authorize",
  tokenUrl: "https://graph.threads.net/oauth/access_token",
  exchangeUrl: "https://graph.threads.net/access_token",
  refreshUrl: "https://graph.threads.net/refresh_access_token",
  graphUrl: "https://graph.threads.net/v1.0",
  scopes: ["threads_basic", "threads_content_publish", "threads_read_replies", "threads_manage_replies", "threads_delete"]
} as const

/** Creates Threads' connector. */
export const make = (settings: Settings, wire: Wire): PlatformConnect => {
  const graph = settings.graphUrl.replace(/\/+$/, "")
  const missing = [
    ...(settings.appId === "" ? [settingNames.appId] : []),
    ...(Redacted.value(settings.appSecret) === "" ? [settingNames.appSecret] : [])
  ]

  const exchange = Effect.fn("connect.textpost.exchange")(function* (request: CodeExchange) {
    const response = yield* send(
      wire,
      HttpClientRequest.post(settings.tokenUrl).pipe(
        HttpClientRequest.bodyUrlParams({
          client_id: settings.appId,
          client_secret: Redacted.value(settings.appSecret),
          code: request.code.replace(/#_$/, ""),
          grant_type: "authorization_code",
          redirect_uri: request.redirectUri
        })
      )
    )
    if (!metaOk(response)) return yield* Effect.fail(metaConnectFailure(response))
    const shortToken = stringField(response.json, "access_token")
    if (shortToken === undefined) return yield* Effect.fail(malformedAnswer("token"))
    const long = yield* MetaToken.exchange(wire, {
      url: settings.exchangeUrl,
      params: { grant_type: "th_exchange_token", client_secret: Redacted.value(settings.appSecret), access_token: shortToken }
    })
    const me = yield* send(
      wire,
      HttpClientRequest.get(`${graph}/me`).pipe(
        HttpClientRequest.setUrlParams({
          fields: "id,username,name,threads_profile_picture_url",
          access_token: long.accessToken,
          ...(settings.appSecretProof === true
            ? { appsecret_proof: appSecretProof(Redacted.value(settings.appSecret), long.accessToken) }
            : {})
        })
      )
    )
    if (!metaOk(me)) return yield* Effect.fail(metaConnectFailure(me))
    const userId = rawId(me.text, "id") ?? rawId(response.text, "user_id")
    const username = stringField(me.json, "username")
    if (userId === undefined || username === undefined) return yield* Effect.fail(malformedAnswer("me"))
    const now = yield* Clock.currentTimeMillis
    const expiresAt = expiry(now, long.expiresIn)
    // Threads' token answers list no permissions: the ones asked for are the ones granted.
    const scopes = settings.scopes
    const credentials: Credentials.LongLivedToken = {
      access_token: long.accessToken,
      issued_at: now,
      user_id: userId,
      scopes,
      ...(expiresAt === null ? {} : { expires_at: expiresAt })
    }
    const identity: ConnectedIdentity = {
      platform: "textpost",
      platformAccountId: userId,
      handle: username,
      displayName: stringField(me.json, "name") ?? null,
      avatarUrl: stringField(me.json, "threads_profile_picture_url") ?? null,
      credentials: Credentials.encode(credentials),
      scopes,
      accessTokenExpiresAt: expiresAt,
      refreshTokenExpiresAt: null,
      creatorInfo: null,
      grantId: userId
    }
    return [identity]
  })

  return {
    missing,
    authorizationUrl: (request) => {
      const url = new URL(settings.authorizeUrl)
      url.search = new URLSearchParams({
        client_id: settings.appId,
        redirect_uri: request.redirectUri,
        scope: settings.scopes.join(","),
        response_type: "code",
        state: request.state
      }).toString()
      return url.toString()
    },
    exchange,
    refresh: (json) =>
      MetaToken.refresh(wire, {
        url: settings.refreshUrl,
        grantType: "th_refresh_token",
        credentials: json
      }).pipe(Effect.withSpan("connect.textpost.refresh")),
    revoke: () => Effect.succeed({ _tag: "Unsupported" as const })
  }
}
