/**
 * Connecting an Instagram (photo) professional account through Instagram Login: the
 * authorization page, the code exchange at `api.instagram.com/oauth/access_token` (its answer
 * wrapped in `data[]` or not: both are seen), the long-lived token (`ig_exchange_token`, about
 * 60 days), its refresh (`ig_refresh_token`, for tokens at least 24 h old), and the identity from
 * `/me`.
 *
 * Settings and their environment names (the server reads them):
 *
 * | setting | environment | default |
 * |---|---|---|
 * | `appId` | `POSTWIRE_INSTAGRAM_APP_ID` | (none: required) |
 * | `appSecret` | `POSTWIRE_INSTAGRAM_APP_SECRET` | (none: required) |
 * | `authorizeUrl` | `POSTWIRE_INSTAGRAM_AUTHORIZE_URL` | `https://www.instagram.com/oauth/authorize` |
 * | `tokenUrl` | `POSTWIRE_INSTAGRAM_TOKEN_URL` | `https://api.instagram.com/oauth/access_token` |
 * | `exchangeUrl` | `POSTWIRE_INSTAGRAM_EXCHANGE_URL` | `https://graph.instagram.com/access_token` |
 * | `refreshUrl` | `POSTWIRE_INSTAGRAM_REFRESH_URL` (shared with publishing) | `https://graph.instagram.com/refresh_access_token` |
 * | `graphUrl` | `POSTWIRE_INSTAGRAM_BASE_URL` (shared with publishing) | `https://graph.instagram.com/v23.0` |
 * | `appSecretProof` | `POSTWIRE_INSTAGRAM_APPSECRET_PROOF` (shared with publishing) | `auto`: `appsecret_proof` only on `graph.facebook.com` |
 * | `scopes` | | `instagram_business_basic,instagram_business_content_publish,instagram_business_manage_comments` |
 *
 * `instagram_business_manage_comments` reads, answers, hides and deletes comments; a person who
 * declines it can still publish (comment calls then fail `permission_missing`).
 *
 * Instagram Login has no revoke API: `revoke` says `Unsupported`; the person removes the app in
 * Instagram's settings, and Meta's deauthorization callback tells the service.
 *
 * @since 0.2.0
 */
import type { CodeExchange, ConnectedIdentity } from "@postwire/core"
import { Clock, Effect, Redacted } from "effect"
import { HttpClientRequest } from "effect/http"
import * as Credentials from "../meta/Credentials.ts"
import {
  appSecretProof,
  connectFailure,
  expiry,
  lacking,
  malformedAnswer,
  metaConnectFailure,
  metaOk,
  type PlatformConnect,
  rawId,
  scopeList,
  send
} from "../internal/ConnectWire.ts"
import { field, stringField, type Wire } from "../internal/Wire.ts"
import * as MetaToken from "../meta/MetaToken.ts"
import * as Instagram from "./Instagram.ts"

/** Instagram's connect settings. */
export interface Settings {
  /** The Instagram App ID (Instagram Login), not the Meta app id. */
  readonly appId: string
  readonly appSecret: Redacted.Redacted<string>
  readonly authorizeUrl: string
  /** The short-lived token's endpoint. */
  readonly tokenUrl: string
  /** The long-lived token's endpoint (`grant_type=ig_exchange_token`). */
  readonly exchangeUrl: string
  /** The refresh endpoint (`grant_type=ig_refresh_token`). */
  readonly refreshUrl: string
  /** The versioned Graph host for `/me`. */
  readonly graphUrl: string
  readonly scopes: ReadonlyArray<string>
  /** Whether `/me` carries `appsecret_proof` (see `Instagram.AppSecretProof`); default `auto`. */
  readonly appSecretProof?: Instagram.AppSecretProof | undefined
}

/** The environment names of the settings the server must be given. */
export const settingNames = {
  appId: "POSTWIRE_INSTAGRAM_APP_ID",
  appSecret: "POSTWIRE_INSTAGRAM_APP_SECRET"
} as const

/** Defaults for everything but the app credentials. */
export const defaults = {
  authorizeUrl: "https://www.instagram.com/oauth/authorize",
  tokenUrl: "https://api.instagram.com/oauth/access_token",
  exchangeUrl: "https://graph.instagram.com/access_token",
  refreshUrl: "https://graph.instagram.com/refresh_access_token",
  graphUrl: "https://graph.instagram.com/v23.0",
  appSecretProof: "auto",
  scopes: ["instagram_business_basic", "instagram_business_content_publish", "instagram_business_manage_comments"]
} as const

/** Without these nothing can be published: the connect is refused. */
export const requiredScopes: ReadonlyArray<string> = ["instagram_business_basic", "instagram_business_content_publish"]

/**
 * Account types that Instagram Login for Business serves, in upper case. Meta's Instagram Login
 * documentation writes the `account_type` values as "Business or Media_Creator" while integrators
 * see `BUSINESS` / `MEDIA_CREATOR`: the answer is compared without regard to letter case.
 * https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/business-login
 */
const professional = new Set(["BUSINESS", "MEDIA_CREATOR"])

/**
 * The short-lived token answer, documented as `{"data": [{access_token, user_id, permissions}]}`
 * and seen unwrapped too. `user_id` is a long integer: read from the raw text.
 */
const shortLived = (json: unknown, text: string) => {
  const data = field(json, "data")
  const entry = Array.isArray(data) ? data[0] : json
  return {
    accessToken: stringField(entry, "access_token"),
    userId: rawId(text, "user_id") ?? stringField(entry, "user_id"),
    permissions: scopeList(field(entry, "permissions"))
  }
}

/** Creates Instagram's connector. */
export const make = (settings: Settings, wire: Wire): PlatformConnect => {
  const graph = settings.graphUrl.replace(/\/+$/, "")
  const missing = [
    ...(settings.appId === "" ? [settingNames.appId] : []),
    ...(Redacted.value(settings.appSecret) === "" ? [settingNames.appSecret] : [])
  ]

  const exchange = Effect.fn("connect.photo.exchange")(function* (request: CodeExchange) {
    const response = yield* send(
      wire,
      HttpClientRequest.post(settings.tokenUrl).pipe(
        HttpClientRequest.bodyUrlParams({
          client_id: settings.appId,
          client_secret: Redacted.value(settings.appSecret),
          grant_type: "authorization_code",
          redirect_uri: request.redirectUri,
          // Instagram appends `#_` to the code in the redirect; it is not part of the code.
          code: request.code.replace(/#_$/, "")
        })
      )
    )
    if (!metaOk(response)) return yield* Effect.fail(metaConnectFailure(response))
    const short = shortLived(response.json, response.text)
    if (short.accessToken === undefined) return yield* Effect.fail(malformedAnswer("token"))
    const without = lacking(requiredScopes, short.permissions)
    if (short.permissions.length > 0 && without.length > 0) {
      return yield* Effect.fail(connectFailure("connect_refused", `scope_declined:${without.join(",")}`))
    }
    const long = yield* MetaToken.exchange(wire, {
      url: settings.exchangeUrl,
      params: { grant_type: "ig_exchange_token", client_secret: Redacted.value(settings.appSecret), access_token: short.accessToken }
    })
    const me = yield* send(
      wire,
      HttpClientRequest.get(`${graph}/me`).pipe(
        HttpClientRequest.setUrlParams({
          fields: "id,user_id,username,name,account_type,profile_picture_url",
          access_token: long.accessToken,
          ...(Instagram.sendsProof(settings.appSecretProof, graph)
            ? { appsecret_proof: appSecretProof(Redacted.value(settings.appSecret), long.accessToken) }
            : {})
        })
      )
    )
    if (!metaOk(me)) return yield* Effect.fail(metaConnectFailure(me))
    const accountType = stringField(me.json, "account_type")
    if (accountType !== undefined && !professional.has(accountType.toUpperCase())) {
      return yield* Effect.fail(connectFailure("connect_failed", `account_type:${accountType}`))
    }
    const userId = rawId(me.text, "user_id") ?? short.userId
    const username = stringField(me.json, "username")
    if (userId === undefined || username === undefined) return yield* Effect.fail(malformedAnswer("me"))
    const now = yield* Clock.currentTimeMillis
    const expiresAt = expiry(now, long.expiresIn)
    const scopes = short.permissions.length > 0 ? short.permissions : settings.scopes
    const credentials: Credentials.LongLivedToken = {
      access_token: long.accessToken,
      issued_at: now,
      user_id: userId,
      scopes,
      ...(expiresAt === null ? {} : { expires_at: expiresAt })
    }
    const identity: ConnectedIdentity = {
      platform: "photo",
      platformAccountId: userId,
      handle: username,
      displayName: stringField(me.json, "name") ?? null,
      avatarUrl: stringField(me.json, "profile_picture_url") ?? null,
      credentials: Credentials.encode(credentials),
      scopes,
      accessTokenExpiresAt: expiresAt,
      refreshTokenExpiresAt: null,
      creatorInfo: null,
      grantId: rawId(me.text, "id") ?? userId
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
        response_type: "code",
        scope: settings.scopes.join(","),
        state: request.state,
        enable_fb_login: "0",
        force_authentication: "1"
      }).toString()
      return url.toString()
    },
    exchange,
    refresh: (json) =>
      MetaToken.refresh(wire, {
        url: settings.refreshUrl,
        grantType: "ig_refresh_token",
        credentials: json
      }).pipe(Effect.withSpan("connect.photo.refresh")),
    revoke: () => Effect.succeed({ _tag: "Unsupported" as const })
  }
}
