/**
 * Talking to Google's APIs for YouTube: the error body, its mapping to catalog codes, the token
 * refresh at `oauth2.googleapis.com/token`, and authorized calls through a `TokenSession`.
 *
 * Error bodies (https://developers.google.com/youtube/v3/docs/errors):
 * `{"error": {"code": 403, "message": "…", "errors": [{"domain": "youtube.quota", "reason":
 * "quotaExceeded", "message": "…"}]}}`. OAuth errors
 * (https://developers.google.com/identity/protocols/oauth2/web-server#exchange-authorization-code):
 * `{"error": "invalid_grant", "error_description": "…"}`.
 *
 * @internal
 */
import type { PlatformFailure } from "@postwire/core"
import type { ErrorCode } from "@postwire/domain"
import { Clock, Effect, Redacted } from "effect"
import { HttpClientRequest } from "effect/http"
import * as Credentials from "./Credentials.ts"
import * as TokenSession from "../internal/TokenSession.ts"
import { failure, field, malformed, numberField, stringField, type Wire, type WireResponse } from "../internal/Wire.ts"

/** The app's OAuth client and the token endpoint. */
export interface OAuthClient {
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  /** Default `https://oauth2.googleapis.com/token`. */
  readonly tokenUrl: string
}

/** A Google API error, read from its body. */
export interface GoogleError {
  readonly status: number
  /** The first `errors[].reason` (`quotaExceeded`, `invalidTitle`, …), or the OAuth `error`. */
  readonly reason: string
  readonly domain: string | undefined
  readonly message: string | undefined
}

/** Reads an error answer; the reason is `http_{status}` when the body names none. */
export const readError = (response: WireResponse): GoogleError => {
  const envelope = field(response.json, "error")
  if (typeof envelope === "string") {
    return { status: response.status, reason: envelope, domain: undefined, message: stringField(response.json, "error_description") }
  }
  const errors = field(envelope, "errors")
  const first = Array.isArray(errors) ? errors[0] : undefined
  return {
    status: response.status,
    reason: stringField(first, "reason") ?? stringField(envelope, "status") ?? `http_${response.status}`,
    domain: stringField(first, "domain"),
    message: stringField(envelope, "message")
  }
}

/** Reasons that say "later" (https://developers.google.com/youtube/v3/docs/errors, "Common errors"). */
const later = new Set(["rateLimitExceeded", "userRateLimitExceeded", "backendError", "internalError", "serviceUnavailable"])

/** The catalog code of a YouTube refusal. */
export const codeOf = (error: GoogleError): ErrorCode => {
  if (error.reason === "quotaExceeded" || error.reason === "uploadLimitExceeded" || error.reason === "dailyLimitExceeded") {
    return "quota_exceeded"
  }
  if (error.status === 401 || error.reason === "authError" || error.reason === "invalid_grant") return "token_expired"
  if (later.has(error.reason) || error.status >= 500 || error.status === 429) return "platform_unavailable"
  if (error.reason === "insufficientPermissions" || error.reason === "forbidden" || error.reason === "ACCESS_TOKEN_SCOPE_INSUFFICIENT") {
    return "permission_missing"
  }
  if (error.reason === "youtubeSignupRequired" || error.reason === "accountSuspended" || error.reason === "accountClosed") {
    return "account_restricted"
  }
  if (error.reason === "invalidTitle" || error.reason === "invalidDescription" || error.reason === "invalidTags") return "caption_invalid"
  return "media_invalid"
}

/** The failure of a refused call; `notPublished` when nothing could have been published. */
export const refusal = (response: WireResponse, extra: { readonly notPublished?: boolean; readonly state?: unknown } = {}): PlatformFailure => {
  const error = readError(response)
  const code = codeOf(error)
  return failure(code, error.reason, {
    details: { platform: "video" },
    ...(code === "platform_unavailable" || code === "token_expired" ? {} : { notPublished: extra.notPublished }),
    ...(extra.state === undefined ? {} : { state: extra.state })
  })
}

/** Whether an answer succeeded (2xx). */
export const ok = (response: WireResponse): boolean => response.status >= 200 && response.status < 300

/**
 * Refreshes an access token with the refresh token (Google does not rotate it: the answer has
 * none, the old one is kept). `invalid_grant` (revoked, expired, password changed) asks a reconnect;
 * `invalid_client` is the operator's to fix.
 * https://developers.google.com/identity/protocols/oauth2/web-server#offline
 */
export const refresh = (wire: Wire, client: OAuthClient) =>
  TokenSession.makeRefresher<Credentials.VideoCredentials>(
    (credentials) =>
      Effect.gen(function* () {
        const response = yield* wire.send(
          HttpClientRequest.post(client.tokenUrl).pipe(
            HttpClientRequest.bodyUrlParams({
              client_id: client.clientId,
              client_secret: Redacted.value(client.clientSecret),
              grant_type: "refresh_token",
              refresh_token: credentials.refresh_token
            })
          )
        )
        if (!ok(response)) {
          const error = readError(response)
          if (response.status >= 500) return yield* Effect.fail(failure("platform_unavailable", error.reason))
          if (error.reason === "invalid_client" || error.reason === "unauthorized_client") {
            return yield* Effect.fail(failure("token_expired", error.reason, { needsReconnect: false }))
          }
          return yield* Effect.fail(failure("token_expired", error.reason, { needsReconnect: true }))
        }
        const token = stringField(response.json, "access_token")
        if (token === undefined) return yield* Effect.fail(malformed("access_token"))
        const now = yield* Clock.currentTimeMillis
        const expiresIn = numberField(response.json, "expires_in")
        return {
          ...credentials,
          access_token: token,
          refresh_token: stringField(response.json, "refresh_token") ?? credentials.refresh_token,
          ...(expiresIn === undefined ? {} : { expires_at: now + expiresIn * 1000 })
        }
      }),
    (credentials) => credentials.refresh_token
  )

/** A session for one account's step: its credentials, refreshed first when expired. */
export const openSession = (
  refresher: TokenSession.Refresh<Credentials.VideoCredentials>,
  account: { readonly id: string; readonly credentials: string | null }
) =>
  Effect.gen(function* () {
    const credentials = yield* Credentials.decode(account.credentials)
    const session = yield* TokenSession.make({
      accountId: account.id,
      credentials,
      refresh: refresher,
      encode: (c) => Credentials.encode(c)
    })
    const now = yield* Clock.currentTimeMillis
    if (credentials.expires_at !== undefined && credentials.expires_at <= now + 60_000) yield* session.refreshNow
    return session
  })

/** The session type of one account's step. */
export type Session = TokenSession.TokenSession<Credentials.VideoCredentials>

/**
 * Sends an authorized request; a 401 comes back as `token_expired` (the session refreshes and
 * sends it again), any other refusal as the answer, for the caller to read.
 */
export const authed = (
  wire: Wire,
  session: Session,
  request: HttpClientRequest.HttpClientRequest
): Effect.Effect<WireResponse, PlatformFailure> =>
  session.authed((c) =>
    wire.send(HttpClientRequest.bearerToken(request, c.access_token)).pipe(
      Effect.flatMap((response) =>
        response.status === 401 ? Effect.fail(failure("token_expired", readError(response).reason)) : Effect.succeed(response)
      )
    )
  )
