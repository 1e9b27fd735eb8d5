/**
 * What the four platforms' connect modules share: the shape of one platform's connector, the
 * failure constructor, sending a request so that only an answer that surely did nothing is
 * retried, reading OAuth and Graph error bodies, and expiries from `expires_in`.
 *
 * @internal
 */
import { createHmac } from "node:crypto"
import {
  type AuthorizationRequest,
  type BeginAnswer,
  type BeginRequest,
  type CodeExchange,
  ConnectFailure,
  type ConnectedIdentity,
  type PlatformFailure,
  type TokenRefresh,
  type TokenRevocation
} from "@postwire/core"
import { type ErrorCode, ErrorCatalog, type ErrorDetails } from "@postwire/domain"
import { Duration, Effect, Schedule } from "effect"
import type { HttpClientRequest } from "effect/http"
import * as GraphError from "../meta/GraphError.ts"
import { field, numberField, stringField, type Wire, type WireResponse } from "./Wire.ts"

/** One platform's side of the `AccountConnector`. */
export interface PlatformConnect {
  /** Settings still missing, by their environment names. */
  readonly missing: ReadonlyArray<string>
  readonly authorizationUrl: (request: AuthorizationRequest) => string
  /**
   * Starts a connect with the fields of the plugin's `connect.form`: `Redirect` to the
   * platform (its `memo` comes back in `exchange`), or `Connected` with the identities at once
   * (an app password traded for a session). Absent: `authorizationUrl` is the redirect.
   */
  readonly begin?: ((request: BeginRequest) => Effect.Effect<BeginAnswer, ConnectFailure>) | undefined
  readonly exchange: (request: CodeExchange) => Effect.Effect<ReadonlyArray<ConnectedIdentity>, ConnectFailure>
  readonly refresh: (credentials: string) => Effect.Effect<TokenRefresh, ConnectFailure>
  readonly revoke: (credentials: string) => Effect.Effect<TokenRevocation, ConnectFailure>
}

/** A connect failure whose `retryable` comes from the catalog unless given. */
export const connectFailure = (
  code: ErrorCode,
  platformCode: string,
  extra: {
    readonly needsReconnect?: boolean | undefined
    readonly retryable?: boolean | undefined
    readonly details?: ErrorDetails | undefined
  } = {}
): ConnectFailure =>
  new ConnectFailure({
    code,
    platformCode,
    details: extra.details,
    needsReconnect: extra.needsReconnect ?? false,
    retryable: extra.retryable ?? ErrorCatalog[code].retryable
  })

/**
 * A transient failure: the platform did not answer usefully, try again later (not before
 * `retryAt` when its rate limit named a time).
 */
export const unavailable = (platformCode: string, retryAt?: number): ConnectFailure =>
  retryAt === undefined
    ? connectFailure("platform_unavailable", platformCode, { retryable: true })
    : new ConnectFailure({ code: "platform_unavailable", platformCode, needsReconnect: false, retryable: true, retryAt })

/** An answer that lacks what it must carry. */
export const malformedAnswer = (what: string): ConnectFailure => unavailable(`malformed_response:${what}`)

/** Turns an adapter failure (a Graph call, a transport error) into a connect failure. */
export const fromPlatformFailure = (f: PlatformFailure): ConnectFailure => {
  switch (f.code) {
    case "platform_unavailable":
      return unavailable(f.platformCode, f.retryAt)
    case "token_expired":
      return connectFailure("token_expired", f.platformCode, { needsReconnect: true })
    case "permission_missing":
      return connectFailure("permission_missing", f.platformCode, { needsReconnect: true })
    default:
      return connectFailure("connect_failed", f.platformCode)
  }
}

/**
 * Sends one request. A 5xx or 429 answer (the platform did nothing) is retried with the wire's
 * backoff; a lost answer is not, because the platform may have acted on it (a code is single use,
 * a TikTok refresh token rotates): the caller gets `platform_unavailable` and decides.
 */
export const send = (wire: Wire, request: HttpClientRequest.HttpClientRequest): Effect.Effect<WireResponse, ConnectFailure> =>
  wire.send(request).pipe(
    Effect.mapError(fromPlatformFailure),
    Effect.flatMap((response) =>
      response.status >= 500 || response.status === 429
        ? Effect.fail(unavailable(`http_${response.status}`))
        : Effect.succeed(response)
    ),
    Effect.retry({
      schedule: Schedule.exponential(Duration.millis(wire.retry.baseDelayMs)),
      times: Math.max(0, wire.retry.attempts - 1),
      while: (f: ConnectFailure) => f.platformCode.startsWith("http_")
    })
  )

/** An epoch-millisecond expiry from an answer's lifetime in seconds; `null` when absent. */
export const expiry = (now: number, seconds: number | undefined): number | null =>
  seconds === undefined || seconds <= 0 ? null : now + seconds * 1000

/** A scope list given as a comma or space separated string, or as an array. */
export const scopeList = (value: unknown): ReadonlyArray<string> => {
  if (Array.isArray(value)) return value.filter((s): s is string => typeof s === "string" && s !== "")
  if (typeof value === "string") return value.split(/[\s,]+/).filter((s) => s !== "")
  return []
}

/** The scopes among `required` that `granted` lacks. */
export const lacking = (required: ReadonlyArray<string>, granted: ReadonlyArray<string>): ReadonlyArray<string> =>
  required.filter((scope) => !granted.includes(scope))

/**
 * A Meta error, from either form: the Graph envelope `{"error": {code, error_subcode, type,
 * message}}` or Instagram Login's flat `{"error_type", "code", "error_message"}`.
 */
export interface MetaError {
  readonly code: number | undefined
  readonly subcode: number | undefined
  readonly type: string | undefined
  readonly transient: boolean
}

/** Reads a Meta error body; `undefined` when the body is not one. */
export const metaError = (body: unknown): MetaError | undefined => {
  const envelope = field(body, "error")
  if (typeof envelope === "object" && envelope !== null) {
    return {
      code: numberField(envelope, "code"),
      subcode: numberField(envelope, "error_subcode"),
      type: stringField(envelope, "type"),
      transient: field(envelope, "is_transient") === true
    }
  }
  const type = stringField(body, "error_type")
  if (type !== undefined) return { code: numberField(body, "code"), subcode: undefined, type, transient: false }
  return undefined
}

/** The support code of a Meta error: `190`, `190/463`, or the type when there is no number. */
export const metaCode = (error: MetaError): string =>
  error.code === undefined ? (error.type ?? "unknown") : error.subcode === undefined ? String(error.code) : `${error.code}/${error.subcode}`

/** Rate limits (application, user, Page, custom): always "later", whatever the error's type. */
const metaThrottling = new Set([4, 17, 32, 341, 613])
/** "Unknown error" and "service unavailable": transient, except as an OAuth refusal (code 1 also says "Error validating client secret"). */
const metaServerErrors = new Set([1, 2])

/**
 * Whether a Meta error says "try again later": the platform rate limits (4, 17, 32, 341, 613),
 * the Business Use Case throttles (80000–80014,
 * https://developers.facebook.com/docs/graph-api/overview/rate-limiting#buc-rate-limits),
 * `is_transient`, and the server's unknown errors.
 */
export const metaTransient = (error: MetaError): boolean =>
  error.transient ||
  (error.code !== undefined &&
    (metaThrottling.has(error.code) ||
      GraphError.isBusinessUseCaseThrottle(error.code) ||
      (metaServerErrors.has(error.code) && error.type !== "OAuthException")))

/** A transient Meta refusal; a Business Use Case throttle waits for the time its header gives. */
const metaUnavailable = (error: MetaError, response: WireResponse, now: number): ConnectFailure =>
  unavailable(
    metaCode(error),
    error.code !== undefined && GraphError.isBusinessUseCaseThrottle(error.code)
      ? GraphError.regainAccessAt(response.headers, now)
      : undefined
  )

/**
 * A Meta refusal while connecting (code exchange, identity): throttling retries later, anything
 * else ends the connect.
 */
export const metaConnectFailure = (response: WireResponse, now: number = Date.now()): ConnectFailure => {
  const error = metaError(response.json)
  if (error === undefined) return connectFailure("connect_failed", `http_${response.status}`)
  if (metaTransient(error)) return metaUnavailable(error, response, now)
  return connectFailure("connect_failed", metaCode(error))
}

/**
 * A Meta refusal of a long-lived token's refresh: throttling retries later (a Business Use Case
 * throttle not before the time it names); anything else (190: expired, revoked, changed
 * password) means the person must connect again.
 */
export const metaRefreshFailure = (response: WireResponse, now: number = Date.now()): ConnectFailure => {
  const error = metaError(response.json)
  if (error !== undefined && metaTransient(error)) return metaUnavailable(error, response, now)
  return connectFailure("token_expired", error === undefined ? `http_${response.status}` : metaCode(error), {
    needsReconnect: true
  })
}

/** Whether a Meta answer succeeded: a 2xx without an error body. */
export const metaOk = (response: WireResponse): boolean =>
  response.status >= 200 && response.status < 300 && metaError(response.json) === undefined

/** Long integer ids (Instagram's `user_id`) read from the raw text, JSON numbers lose their last digits. */
export const rawId = (text: string, key: string): string | undefined =>
  new RegExp(`"${key}"\\s*:\\s*"?(\\d+)`).exec(text)?.[1]

/** Meta's `appsecret_proof`: HMAC-SHA256 of the token with the app secret, for apps that require it. */
export const appSecretProof = (appSecret: string, token: string): string =>
  createHmac("sha256", appSecret).update(token).digest("hex")
