/**
 * Speaking XRPC to an account's PDS: `GET|POST {service}/xrpc/{nsid}`, the session's access token
 * as a bearer token, and the protocol's error body `{"error": "Name", "message": "…"}` mapped
 * into Postwire's failures.
 * https://atproto.com/specs/xrpc
 *
 * Sessions: an access token lives about two hours, its refresh token about two months
 * (`com.atproto.server.refreshSession` with the refresh token as bearer answers a new pair; the
 * refresh token rotates). A call answered `ExpiredToken` (400 or 401) refreshes once and is made
 * again; the new pair comes back as a credentials update to store.
 * https://docs.bsky.app/docs/api/com-atproto-server-refresh-session
 *
 * Rate limits: a 429 `RateLimitExceeded` names in `ratelimit-reset` (epoch seconds) when the
 * account's window opens again: the step is taken again then (`retryAt`).
 * https://docs.bsky.app/docs/advanced-guides/rate-limits
 *
 * @since 0.5.0
 */
import type { CredentialsUpdate, PlatformFailure } from "@postwire/core"
import { ErrorDetail } from "@postwire/domain"
import { Clock, Effect, Schema } from "effect"
import { HttpClientRequest } from "effect/http"
import { failure, field, stringField, type Wire, type WireResponse } from "../internal/Wire.ts"

/** What Postwire keeps of a Bluesky account's session (sealed by the server; never the app password). */
export const AtprotoCredentials = Schema.Struct({
  /** The account's DID (`did:plc:…`). */
  did: Schema.String,
  handle: Schema.String,
  /** The account's PDS, from its DID document (`#atproto_pds`), without a trailing slash. */
  service: Schema.String,
  access_jwt: Schema.String,
  refresh_jwt: Schema.String
})
/** What Postwire keeps of a Bluesky account's session. */
export type AtprotoCredentials = typeof AtprotoCredentials.Type

/** The credentials JSON stored in `account.credentials`. */
export const encode = (credentials: AtprotoCredentials): string => JSON.stringify(credentials)

/** Reads an account's credentials; missing or unreadable ones need a reconnect. */
export const decode = (json: string | null): Effect.Effect<AtprotoCredentials, PlatformFailure> => {
  if (json === null) return Effect.fail(failure("token_expired", "credentials_missing", { needsReconnect: true }))
  try {
    return Schema.decodeUnknownEffect(AtprotoCredentials)(JSON.parse(json)).pipe(
      Effect.mapError(() => failure("token_expired", "credentials_invalid", { needsReconnect: true }))
    )
  } catch {
    return Effect.fail(failure("token_expired", "credentials_invalid", { needsReconnect: true }))
  }
}

/** The XRPC error name of an answer (`InvalidRequest`, `ExpiredToken`, …), if it has one. */
export const errorName = (response: WireResponse): string | undefined => stringField(response.json, "error")

/** The expiry (epoch ms) a JWT's `exp` claim names; `null` when it has none or is unreadable. */
export const jwtExpiry = (jwt: string): number | null => {
  const payload = jwt.split(".")[1]
  if (payload === undefined) return null
  try {
    const exp = field(JSON.parse(Buffer.from(payload, "base64url").toString("utf8")), "exp")
    return typeof exp === "number" ? exp * 1000 : null
  } catch {
    return null
  }
}

/** When the account's rate limit window opens again (epoch ms), from `ratelimit-reset`. */
export const resetAt = (response: WireResponse, now: number): number => {
  const reset = Number(response.headers?.["ratelimit-reset"])
  return Number.isFinite(reset) && reset > 0 ? Math.max(now + 1000, reset * 1000) : now + 60_000
}

const expired = (response: WireResponse) => {
  const name = errorName(response)
  return name === "ExpiredToken" || (response.status === 401 && name === undefined)
}

/**
 * A failed answer as a Postwire failure: 429 later (`retryAt`), 5xx later, a refused token a
 * reconnect, a taken-down or deactivated account restricted, anything else refused for good.
 */
export const toFailure = (response: WireResponse, now: number, refused: "media_invalid" | "content_rejected" = "content_rejected"): PlatformFailure => {
  const name = errorName(response) ?? `http_${response.status}`
  if (response.status === 429 || name === "RateLimitExceeded") {
    return failure("platform_unavailable", name, { retryAt: resetAt(response, now) })
  }
  if (response.status >= 500) return failure("platform_unavailable", name)
  if (name === "ExpiredToken" || name === "InvalidToken" || name === "AuthenticationRequired" || name === "AuthMissing" || response.status === 401) {
    return failure("token_expired", name, { needsReconnect: true })
  }
  if (name === "AccountTakedown" || name === "AccountDeactivated" || name === "RepoTakendown" || name === "RepoDeactivated" || name === "RepoSuspended") {
    return failure("account_restricted", name)
  }
  if (response.status === 413 || name === "BlobTooLarge" || name === "PayloadTooLarge") return failure("media_invalid", name)
  return failure(refused, name, { details: { platform: "atproto", detail: ErrorDetail.reason("platform_rejected_request") } })
}

/** Whether an answer succeeded (2xx). */
export const ok = (response: WireResponse): boolean => response.status >= 200 && response.status < 300

/** An XRPC request: a query (GET with parameters) or a procedure (POST with JSON or bytes). */
export type Call =
  | { readonly _tag: "query"; readonly nsid: string; readonly params: Readonly<Record<string, string | ReadonlyArray<string>>> }
  | { readonly _tag: "procedure"; readonly nsid: string; readonly json: unknown }
  | { readonly _tag: "upload"; readonly nsid: string; readonly bytes: Uint8Array; readonly contentType: string }

/** The HTTP request of a call. */
export const request = (service: string, call: Call, token: string | undefined): HttpClientRequest.HttpClientRequest => {
  const url = `${service.replace(/\/+$/, "")}/xrpc/${call.nsid}`
  const auth = token === undefined ? (r: HttpClientRequest.HttpClientRequest) => r : HttpClientRequest.bearerToken(token)
  switch (call._tag) {
    case "query": {
      const search = new URLSearchParams()
      for (const [key, value] of Object.entries(call.params)) {
        if (typeof value === "string") search.append(key, value)
        else for (const v of value) search.append(key, v)
      }
      const query = search.toString()
      return auth(HttpClientRequest.get(query === "" ? url : `${url}?${query}`))
    }
    case "procedure":
      return call.json === undefined
        ? auth(HttpClientRequest.post(url))
        : auth(HttpClientRequest.post(url).pipe(HttpClientRequest.bodyUint8Array(new TextEncoder().encode(JSON.stringify(call.json)), "application/json")))
    case "upload":
      return auth(HttpClientRequest.post(url).pipe(HttpClientRequest.bodyUint8Array(call.bytes, call.contentType)))
  }
}

/** The session answer (`createSession`, `refreshSession`): tokens, DID, handle and the DID document's PDS. */
export const sessionOf = (body: unknown, fallbackService: string): AtprotoCredentials | undefined => {
  const did = stringField(body, "did")
  const handle = stringField(body, "handle")
  const access = stringField(body, "accessJwt")
  const refresh = stringField(body, "refreshJwt")
  if (did === undefined || handle === undefined || access === undefined || refresh === undefined) return undefined
  return { did, handle, service: pdsOf(field(body, "didDoc")) ?? fallbackService.replace(/\/+$/, ""), access_jwt: access, refresh_jwt: refresh }
}

/** The `#atproto_pds` service endpoint of a DID document (https://atproto.com/specs/did#did-documents). */
export const pdsOf = (didDoc: unknown): string | undefined => {
  const services = field(didDoc, "service")
  if (!Array.isArray(services)) return undefined
  for (const s of services) {
    const id = stringField(s, "id")
    if (id?.endsWith("#atproto_pds")) return stringField(s, "serviceEndpoint")?.replace(/\/+$/, "")
  }
  return undefined
}

/** An account's session on the wire: calls made with its access token, refreshed once when expired. */
export interface Session {
  /** Makes a call as the account; refreshes the session once when the PDS says the token expired. */
  readonly call: (call: Call) => Effect.Effect<WireResponse, PlatformFailure>
  /** The session as it stands (after any refresh). */
  readonly current: () => AtprotoCredentials
  /** The credentials to store when the session was refreshed; none otherwise. */
  readonly update: () => CredentialsUpdate | undefined
}

/** Refreshes a session with its refresh token. */
export const refresh = (wire: Wire, credentials: AtprotoCredentials): Effect.Effect<AtprotoCredentials, PlatformFailure> =>
  Effect.gen(function* () {
    const response = yield* wire.send(request(credentials.service, { _tag: "procedure", nsid: "com.atproto.server.refreshSession", json: undefined }, credentials.refresh_jwt))
    const now = yield* Clock.currentTimeMillis
    if (!ok(response)) {
      const f = toFailure(response, now)
      return yield* Effect.fail(f.code === "content_rejected" ? failure("token_expired", f.platformCode, { needsReconnect: true }) : f)
    }
    const next = sessionOf(response.json, credentials.service)
    if (next === undefined) return yield* Effect.fail(failure("platform_unavailable", "malformed_response:refreshSession"))
    return { ...next, service: credentials.service }
  })

/** Opens an account's session from its stored credentials. */
export const session = (wire: Wire, accountId: string, json: string | null): Effect.Effect<Session, PlatformFailure> =>
  Effect.map(decode(json), (stored) => {
    let credentials = stored
    let refreshed = false
    const renew = Effect.map(refresh(wire, credentials), (next) => {
      credentials = next
      refreshed = true
    })
    const call = (c: Call): Effect.Effect<WireResponse, PlatformFailure> =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const exp = jwtExpiry(credentials.access_jwt)
        if (!refreshed && exp !== null && exp <= now + 30_000) yield* renew
        const first = yield* wire.send(request(credentials.service, c, credentials.access_jwt))
        if (!expired(first) || refreshed) return first
        yield* renew
        return yield* wire.send(request(credentials.service, c, credentials.access_jwt))
      })
    return {
      call,
      current: () => credentials,
      update: () => (refreshed ? { accountId, credentials: encode(credentials) } : undefined)
    }
  })
