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
import type { JsonWebKey } from "node:crypto"
import type { CredentialsUpdate, PlatformFailure } from "@postwire/core"
import { ErrorDetail } from "@postwire/domain"
import { Clock, Effect, Schema } from "effect"
import { HttpClientRequest } from "effect/http"
import { failure, field, stringField, type Wire, type WireResponse } from "../internal/Wire.ts"
import * as Credentials from "../Credentials.ts"
import * as OAuth from "./OAuth.ts"

/** What Postwire keeps of a Bluesky account's session (sealed by the server; never the app password). */
export const AtprotoCredentials = Schema.Struct({
  /** The account's DID (`did:plc:…`). */
  did: Schema.String,
  handle: Schema.String,
  /** The account's PDS, from its DID document (`#atproto_pds`), without a trailing slash. */
  service: Schema.String,
  access_jwt: Schema.String,
  refresh_jwt: Schema.String,
  /**
   * Present for an account connected through atproto OAuth: the authorization server, the client
   * id and the DPoP key the tokens are bound to (`access_jwt`/`refresh_jwt` then hold the OAuth
   * access and refresh tokens).
   */
  oauth: Schema.optionalKey(
    Schema.Struct({
      issuer: Schema.String,
      token_endpoint: Schema.String,
      revocation_endpoint: Schema.NullOr(Schema.String),
      client_id: Schema.String,
      dpop_jwk: Schema.Record(Schema.String, Schema.Unknown)
    })
  )
})
/** What Postwire keeps of a Bluesky account's session. */
export type AtprotoCredentials = typeof AtprotoCredentials.Type

const stored = Credentials.codec(AtprotoCredentials)
/** The credentials JSON stored in `account.credentials`. */
export const encode = stored.encode
/** Reads an account's credentials; missing or unreadable ones need a reconnect. */
export const decode = stored.decode

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

/** The DPoP key of an OAuth session. */
const keyOf = (oauth: NonNullable<AtprotoCredentials["oauth"]>) => oauth.dpop_jwk as JsonWebKey

/** Refreshes an OAuth session at its token endpoint, with a DPoP proof (the refresh token rotates). */
const refreshOAuth = (wire: Wire, credentials: AtprotoCredentials, oauth: NonNullable<AtprotoCredentials["oauth"]>, nonces: Map<string, string>) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const response = yield* OAuth.sendWithProof(wire, keyOf(oauth), nonces, now, () =>
      OAuth.form(oauth.token_endpoint, { grant_type: "refresh_token", refresh_token: credentials.refresh_jwt, client_id: oauth.client_id })
    )
    const access = stringField(response.json, "access_token")
    const refreshed = stringField(response.json, "refresh_token")
    if (ok(response) && access !== undefined && refreshed !== undefined) {
      if (stringField(response.json, "sub") !== undefined && stringField(response.json, "sub") !== credentials.did) {
        return yield* Effect.fail(failure("token_expired", "oauth_subject_changed", { needsReconnect: true }))
      }
      return { ...credentials, access_jwt: access, refresh_jwt: refreshed }
    }
    if (response.status === 429 || response.status >= 500) return yield* Effect.fail(toFailure(response, now))
    return yield* Effect.fail(failure("token_expired", stringField(response.json, "error") ?? `http_${response.status}`, { needsReconnect: true }))
  })

/** Refreshes a session with its refresh token. */
export const refresh = (wire: Wire, credentials: AtprotoCredentials, nonces: Map<string, string> = new Map()): Effect.Effect<AtprotoCredentials, PlatformFailure> =>
  Effect.gen(function* () {
    if (credentials.oauth !== undefined) return yield* refreshOAuth(wire, credentials, credentials.oauth, nonces)
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
    const nonces = new Map<string, string>()
    const renew = Effect.suspend(() => refresh(wire, credentials, nonces)).pipe(
      Effect.tap((next) =>
        Effect.sync(() => {
          credentials = next
          refreshed = true
        })
      ),
      Effect.asVoid
    )
    // An OAuth session's calls carry `Authorization: DPoP …` and a proof bound to the token.
    const send = (c: Call) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const oauth = credentials.oauth
        if (oauth === undefined) return wire.send(request(credentials.service, c, credentials.access_jwt))
        const token = credentials.access_jwt
        return OAuth.sendWithProof(wire, keyOf(oauth), nonces, now, () => HttpClientRequest.setHeader(request(credentials.service, c, undefined), "authorization", `DPoP ${token}`), token)
      })
    const call = (c: Call): Effect.Effect<WireResponse, PlatformFailure> =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const exp = jwtExpiry(credentials.access_jwt)
        if (!refreshed && exp !== null && exp <= now + 30_000) yield* renew
        const first = yield* send(c)
        if (!expired(first) || refreshed) return first
        yield* renew
        return yield* send(c)
      })
    return {
      call,
      current: () => credentials,
      update: () => (refreshed ? { accountId, credentials: encode(credentials) } : undefined)
    }
  })
