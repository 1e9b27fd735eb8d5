/**
 * atproto OAuth for Bluesky accounts, where the account's server offers it: discovery from the
 * handle (handle → DID → DID document → PDS → its protected-resource metadata → its authorization
 * server's metadata), a pushed authorization request (PAR) with PKCE (S256), and DPoP-bound tokens
 * (ES256 proofs, retried once with the server's `DPoP-Nonce`) for the token endpoint and for every
 * call to the PDS.
 * https://atproto.com/specs/oauth
 * https://datatracker.ietf.org/doc/html/rfc9449 (DPoP)
 * https://datatracker.ietf.org/doc/html/rfc9126 (PAR)
 *
 * Postwire is a public client (`token_endpoint_auth_method: none`). On a loopback address (local
 * use, tests) its client id is the spec's loopback client id `http://localhost?redirect_uri=…&scope=…`
 * (the redirect on `127.0.0.1`); a public deployment serves `clientMetadata(...)` at an https
 * address of its own and names it in `POSTWIRE_ATPROTO_OAUTH_CLIENT_ID` (without it, its Bluesky
 * accounts connect with app passwords only).
 *
 * @since 0.6.0
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type JsonWebKey, randomBytes, sign } from "node:crypto"
import type { PlatformFailure } from "@postwire/core"
import { Effect } from "effect"
import { HttpClientRequest } from "effect/http"
import { failure, field, stringField, type Wire, type WireResponse } from "../internal/Wire.ts"

/** The scopes Postwire asks for: the account's repository and the transitional generic scope. */
export const scope = "atproto transition:generic"

/** What Postwire keeps of an OAuth session besides its tokens (sealed with them). */
export interface OAuthBinding {
  readonly issuer: string
  readonly token_endpoint: string
  readonly revocation_endpoint: string | null
  readonly client_id: string
  /** The DPoP private key (a P-256 JWK); the tokens are bound to it. */
  readonly dpop_jwk: JsonWebKey
}

/** The authorization server of an account, from discovery. */
export interface Discovery {
  readonly did: string
  readonly pds: string
  readonly issuer: string
  readonly par: string
  readonly authorize: string
  readonly token: string
  readonly revocation: string | null
}

const b64url = (bytes: Buffer | Uint8Array | string) => Buffer.from(bytes).toString("base64url")

/** A fresh DPoP key (ES256, P-256) as a private JWK. */
export const newKey = (): JsonWebKey => generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "jwk" })

/** The PKCE S256 challenge of a verifier. */
export const challenge = (verifier: string): string => b64url(createHash("sha256").update(verifier).digest())

/** A DPoP proof for one request (`htu` without query and fragment; `ath` for a resource call). */
export const proof = (jwk: JsonWebKey, method: string, url: string, nowMs: number, nonce: string | undefined, accessToken?: string): string => {
  const key = createPrivateKey({ key: jwk, format: "jwk" })
  const pub = createPublicKey(key).export({ format: "jwk" })
  const header = { typ: "dpop+jwt", alg: "ES256", jwk: { kty: pub.kty, crv: pub.crv, x: pub.x, y: pub.y } }
  const target = new URL(url)
  const claims = {
    jti: b64url(randomBytes(16)),
    htm: method,
    htu: `${target.origin}${target.pathname}`,
    iat: Math.floor(nowMs / 1000),
    ...(nonce === undefined ? {} : { nonce }),
    ...(accessToken === undefined ? {} : { ath: b64url(createHash("sha256").update(accessToken).digest()) })
  }
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`
  const signature = sign("sha256", Buffer.from(input), { key, dsaEncoding: "ieee-p1363" })
  return `${input}.${b64url(signature)}`
}

/** Whether an answer asks for a DPoP nonce (authorization server: 400 body; resource server: 401 header). */
const wantsNonce = (response: WireResponse): boolean =>
  stringField(response.json, "error") === "use_dpop_nonce" || (response.headers?.["www-authenticate"] ?? "").includes("use_dpop_nonce")

/** The loopback client id for a callback address on 127.0.0.1 or localhost; `undefined` for any other address. */
export const loopbackClientId = (redirectUri: string): string | undefined => {
  const url = new URL(redirectUri)
  if (url.hostname === "127.0.0.1" || url.hostname === "[::1]" || url.hostname === "localhost") {
    return `http://localhost?${new URLSearchParams({ redirect_uri: redirectUri, scope })}`
  }
  return undefined
}

/** Where Postwire serves its client metadata document (`GET /connect/documents/atproto/…`). */
export const metadataPath = "/connect/documents/atproto/client-metadata.json"

/**
 * The client id of a deployment whose callback is `redirectUri`: the loopback client on
 * 127.0.0.1 or localhost; the configured address when one is set; otherwise, on an https
 * deployment, the metadata document Postwire serves itself (`metadataPath`); `null` on a
 * public http deployment (atproto OAuth needs https: app passwords only).
 */
export const clientIdFor = (redirectUri: string, configured: string | null): string | null => {
  const loopback = loopbackClientId(redirectUri)
  if (loopback !== undefined) return loopback
  if (configured !== null) return configured
  // The public base address (with any path prefix) the callback hangs under.
  const base = redirectUri.replace(/\/connect\/callback\/atproto$/, "")
  return new URL(redirectUri).protocol === "https:" ? `${base}${metadataPath}` : null
}

/**
 * The client metadata document a public deployment serves at its client id (the address given
 * as `POSTWIRE_ATPROTO_OAUTH_CLIENT_ID`, https): `client_id` must be that very address.
 */
export const clientMetadata = (publicUrl: string, clientId: string) => {
  const base = publicUrl.replace(/\/+$/, "")
  return {
    client_id: clientId,
    client_name: "Postwire",
    client_uri: base,
    redirect_uris: [`${base}/connect/callback/atproto`],
    scope,
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    application_type: "web",
    dpop_bound_access_tokens: true
  }
}

/** Sends a request with a DPoP proof; once more with the server's nonce when it asks for one. */
export const sendWithProof = (
  wire: Wire,
  jwk: JsonWebKey,
  nonces: Map<string, string>,
  nowMs: number,
  build: () => HttpClientRequest.HttpClientRequest,
  accessToken?: string
): Effect.Effect<WireResponse, PlatformFailure> =>
  Effect.gen(function* () {
    const attempt = () => {
      const base = build()
      const origin = new URL(base.url).origin
      const withProof = HttpClientRequest.setHeader(base, "DPoP", proof(jwk, base.method, base.url, nowMs, nonces.get(origin), accessToken))
      return Effect.map(wire.send(withProof), (response) => {
        const nonce = response.headers?.["dpop-nonce"]
        if (nonce !== undefined) nonces.set(origin, nonce)
        return response
      })
    }
    const first = yield* attempt()
    return wantsNonce(first) ? yield* attempt() : first
  })

const getJson = (wire: Wire, url: string) =>
  Effect.map(wire.send(HttpClientRequest.get(url).pipe(HttpClientRequest.acceptJson)), (r) => (r.status === 200 ? r.json : undefined))

/**
 * Finds the account's authorization server; `undefined` when its PDS offers no OAuth (no
 * protected-resource metadata): the account then connects with an app password.
 */
export const discover = (
  wire: Wire,
  settings: { readonly serviceUrl: string; readonly plcUrl: string },
  identifier: string
): Effect.Effect<Discovery | undefined, PlatformFailure> =>
  Effect.gen(function* () {
    const service = settings.serviceUrl.replace(/\/+$/, "")
    let did = identifier
    if (!identifier.startsWith("did:")) {
      const resolved = yield* getJson(wire, `${service}/xrpc/com.atproto.identity.resolveHandle?${new URLSearchParams({ handle: identifier })}`)
      const found = stringField(resolved, "did")
      if (found === undefined) return yield* Effect.fail(failure("content_rejected", "handle_not_found"))
      did = found
    }
    const docUrl = did.startsWith("did:web:")
      ? `https://${decodeURIComponent(did.slice("did:web:".length))}/.well-known/did.json`
      : `${settings.plcUrl.replace(/\/+$/, "")}/${did}`
    const doc = yield* getJson(wire, docUrl)
    const services = field(doc, "service")
    const pds = Array.isArray(services)
      ? services.flatMap((s) => (stringField(s, "id")?.endsWith("#atproto_pds") ? [stringField(s, "serviceEndpoint") ?? ""] : []))[0]?.replace(/\/+$/, "")
      : undefined
    if (pds === undefined || pds === "") return yield* Effect.fail(failure("content_rejected", "did_document_without_pds"))
    const resource = yield* getJson(wire, `${pds}/.well-known/oauth-protected-resource`)
    const servers = field(resource, "authorization_servers")
    const issuer = Array.isArray(servers) && typeof servers[0] === "string" ? servers[0].replace(/\/+$/, "") : undefined
    if (issuer === undefined) return undefined
    const meta = yield* getJson(wire, `${issuer}/.well-known/oauth-authorization-server`)
    const par = stringField(meta, "pushed_authorization_request_endpoint")
    const authorize = stringField(meta, "authorization_endpoint")
    const token = stringField(meta, "token_endpoint")
    // The metadata must name the issuer it was asked of (RFC 8414 section 3.3).
    if (stringField(meta, "issuer")?.replace(/\/+$/, "") !== issuer || par === undefined || authorize === undefined || token === undefined) {
      return yield* Effect.fail(failure("platform_unavailable", "malformed_response:oauth-authorization-server"))
    }
    return { did, pds, issuer, par, authorize, token, revocation: stringField(meta, "revocation_endpoint") ?? null }
  })

/** A form POST. */
/**
 * Whether the callback's `iss` names the issuer Postwire resolved: exactly, but for a trailing
 * slash (RFC 9207 compares by simple string comparison; the issuer was stored without it).
 */
export const sameIssuer = (received: string, expected: string): boolean => received.replace(/\/+$/, "") === expected.replace(/\/+$/, "")

export const form = (url: string, body: Record<string, string>) =>
  HttpClientRequest.post(url).pipe(HttpClientRequest.bodyUrlParams(body), HttpClientRequest.acceptJson)
