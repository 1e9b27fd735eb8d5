/**
 * Meta's long-lived user tokens (Instagram Login, Threads, Facebook Login): trading a
 * short-lived token for a long-lived one, and refreshing a long-lived one before it lapses.
 *
 * A long-lived token lasts about 60 days (the answer's `expires_in` says how long), can be
 * refreshed once it is at least 24 hours old and while it is still valid, and is dead for good
 * once expired: only connecting again helps.
 *
 * @since 0.2.0
 */
import type { ConnectFailure, TokenRefresh } from "@postwire/core"
import { Clock, Effect } from "effect"
import { HttpClientRequest } from "effect/http"
import * as Credentials from "./Credentials.ts"
import { connectFailure, expiry, malformedAnswer, metaConnectFailure, metaOk, metaRefreshFailure, send } from "../internal/ConnectWire.ts"
import { numberField, stringField, type Wire } from "../internal/Wire.ts"

/** Meta refreshes only tokens at least this old. */
export const minimumAgeMs = 24 * 60 * 60 * 1000

/** A long-lived token as the exchange answered it. */
export interface LongLivedToken {
  readonly accessToken: string
  /** Seconds, from the answer; `undefined` when it gave none. */
  readonly expiresIn: number | undefined
}

/** `GET {url}?grant_type=…&…`: the long-lived token `{access_token, token_type, expires_in}`. */
export const exchange = (
  wire: Wire,
  options: { readonly url: string; readonly params: Readonly<Record<string, string>> }
): Effect.Effect<LongLivedToken, ConnectFailure> =>
  Effect.gen(function* () {
    const response = yield* send(wire, HttpClientRequest.get(options.url).pipe(HttpClientRequest.setUrlParams(options.params)))
    if (!metaOk(response)) return yield* Effect.fail(metaConnectFailure(response))
    const accessToken = stringField(response.json, "access_token")
    if (accessToken === undefined) return yield* Effect.fail(malformedAnswer("long_lived_token"))
    return { accessToken, expiresIn: numberField(response.json, "expires_in") }
  })

/**
 * Refreshes an Instagram or Threads long-lived token. An expired token is not sent (Meta cannot
 * refresh it): the person must reconnect. A token younger than 24 hours is not sent either: the
 * failure is retryable, the refresh is simply early.
 */
export const refresh = (
  wire: Wire,
  options: {
    readonly url: string
    readonly grantType: string
    readonly credentials: string
  }
): Effect.Effect<TokenRefresh, ConnectFailure> =>
  Effect.gen(function* () {
    const credentials = yield* Credentials.decode(options.credentials).pipe(
      Effect.mapError((f) => connectFailure("token_expired", f.platformCode, { needsReconnect: true }))
    )
    const now = yield* Clock.currentTimeMillis
    if (credentials.expires_at !== undefined && credentials.expires_at <= now) {
      return yield* Effect.fail(connectFailure("token_expired", "token_expired_before_refresh", { needsReconnect: true }))
    }
    if (credentials.issued_at !== undefined && now - credentials.issued_at < minimumAgeMs) {
      return yield* Effect.fail(connectFailure("connect_failed", "token_too_young", { retryable: true }))
    }
    const response = yield* send(
      wire,
      HttpClientRequest.get(options.url).pipe(
        HttpClientRequest.setUrlParams({ grant_type: options.grantType, access_token: credentials.access_token })
      )
    )
    if (!metaOk(response)) return yield* Effect.fail(metaRefreshFailure(response, now))
    const accessToken = stringField(response.json, "access_token")
    if (accessToken === undefined) return yield* Effect.fail(malformedAnswer("refreshed_token"))
    const expiresAt = expiry(now, numberField(response.json, "expires_in"))
    const { expires_at: _old, ...kept } = credentials
    const fresh: Credentials.LongLivedToken = {
      ...kept,
      access_token: accessToken,
      issued_at: now,
      ...(expiresAt === null ? {} : { expires_at: expiresAt })
    }
    return {
      _tag: "Refreshed",
      credentials: Credentials.encode(fresh),
      accessTokenExpiresAt: expiresAt,
      refreshTokenExpiresAt: null,
      scopes: null
    } satisfies TokenRefresh
  })
