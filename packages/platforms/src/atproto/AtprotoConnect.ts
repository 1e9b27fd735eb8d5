/**
 * Connecting a Bluesky account with its handle (or DID) and an app password: the password is
 * used once, for `com.atproto.server.createSession`, and never stored; what is sealed is the
 * session (its access and refresh tokens, the DID, the handle and the account's PDS from its DID
 * document). Renewal is `com.atproto.server.refreshSession` (the refresh token rotates);
 * disconnect is `com.atproto.server.deleteSession`, which ends the session on the PDS.
 * https://docs.bsky.app/docs/api/com-atproto-server-create-session
 * https://docs.bsky.app/docs/api/com-atproto-server-refresh-session
 * https://docs.bsky.app/docs/api/com-atproto-server-delete-session
 *
 * With the handle alone (no app password), the account connects through atproto OAuth when its
 * PDS offers it (`OAuth.ts`: discovery, PAR with PKCE, DPoP-bound tokens): `begin` redirects to
 * the account's authorization server with the DPoP key and the endpoints in the sealed `memo`,
 * `exchange` trades the code at the token endpoint (with a DPoP proof) and checks that the
 * token's `sub` is the DID the handle named. Renewal is the token endpoint's `refresh_token`
 * grant (DPoP), disconnect the revocation endpoint.
 *
 * | setting | environment | default |
 * |---|---|---|
 * | `serviceUrl` | `POSTWIRE_ATPROTO_SERVICE_URL` | `https://bsky.social` (the entryway that finds each account's PDS) |
 * | `plcUrl` | `POSTWIRE_ATPROTO_PLC_URL` | `https://plc.directory` (DID documents, for OAuth discovery) |
 * | `oauthClientId` | `POSTWIRE_ATPROTO_OAUTH_CLIENT_ID` | none: the document Postwire serves at `/connect/documents/atproto/client-metadata.json` on an https deployment; the loopback client on 127.0.0.1 |
 *
 * @since 0.5.0
 */
import type { JsonWebKey } from "node:crypto"
import type { BeginRequest, CodeExchange, ConnectedIdentity, ConnectFailure, ConnectFormField, TokenRefresh, TokenRevocation } from "@postwire/core"
import { Clock, Effect } from "effect"
import { connectFailure, fromPlatformFailure, malformedAnswer, type PlatformConnect, send, unavailable } from "../internal/ConnectWire.ts"
import { field, stringField, type Wire, type WireResponse } from "../internal/Wire.ts"
import * as OAuth from "./OAuth.ts"
import * as Xrpc from "./Xrpc.ts"

/** Connect settings. */
export interface Settings {
  /** Where sessions are created: a PDS or the entryway (`https://bsky.social`). */
  readonly serviceUrl: string
  /** The PLC directory that holds `did:plc` documents (OAuth discovery). */
  readonly plcUrl: string
  /**
   * The address of an OAuth client metadata document hosted elsewhere (`OAuth.clientMetadata`);
   * `null`: the one Postwire serves itself at `/connect/documents/atproto/client-metadata.json`
   * on an https deployment, the spec's loopback client on 127.0.0.1 or localhost, app passwords
   * only on a public http deployment.
   */
  readonly oauthClientId: string | null
}

/** Defaults: Bluesky's entryway and the public PLC directory. */
export const defaults: Settings = { serviceUrl: "https://bsky.social", plcUrl: "https://plc.directory", oauthClientId: null }

/** The connect page's fields (`connect.form`). */
export const form: ReadonlyArray<ConnectFormField> = [
  {
    name: "identifier",
    label: "Handle or DID",
    kind: "text",
    placeholder: "maya.bsky.social",
    help: "Your Bluesky handle without the @, or your DID.",
    required: true
  },
  {
    name: "password",
    label: "App password",
    kind: "password",
    placeholder: "xxxx-xxxx-xxxx-xxxx",
    help: "Create one in Bluesky under Settings → Privacy and security → App passwords. Postwire uses it once and does not keep it. Leave it empty to sign in on your server instead, where it offers that.",
    required: false
  }
]

const refusal = (response: WireResponse, now: number): ConnectFailure => {
  const name = Xrpc.errorName(response) ?? `http_${response.status}`
  if (response.status === 429 || response.status >= 500) {
    return unavailable(name, response.status === 429 ? Xrpc.resetAt(response, now) : undefined)
  }
  return connectFailure("connect_failed", name)
}

/** The identity of a session answer. */
const identity = (session: Xrpc.AtprotoCredentials, displayName: string | null): ConnectedIdentity => ({
  platform: "atproto",
  platformAccountId: session.did,
  handle: session.handle,
  displayName,
  avatarUrl: null,
  credentials: Xrpc.encode(session),
  scopes: [],
  accessTokenExpiresAt: Xrpc.jwtExpiry(session.access_jwt),
  refreshTokenExpiresAt: Xrpc.jwtExpiry(session.refresh_jwt),
  creatorInfo: null,
  grantId: session.did
})

/** What an OAuth connect keeps (sealed) between `begin` and `exchange`. */
interface Memo {
  readonly did: string
  readonly handle: string | null
  readonly pds: string
  readonly issuer: string
  readonly token: string
  readonly revocation: string | null
  readonly client_id: string
  readonly dpop_jwk: JsonWebKey
  readonly nonce: string | null
}

const readMemo = (memo: string | undefined): Memo | undefined => {
  if (memo === undefined) return undefined
  try {
    const value = JSON.parse(memo) as Memo
    return typeof value.did === "string" && typeof value.token === "string" && typeof value.dpop_jwk === "object" ? value : undefined
  } catch {
    return undefined
  }
}

/** Creates the connector's operations. */
export const make = (settings: Settings, wire: Wire) => {
  const service = settings.serviceUrl.replace(/\/+$/, "")

  /** Creates a session with the identifier and app password; the password is not kept. */
  const login = (fields: Readonly<Record<string, string>>) =>
    Effect.gen(function* () {
      const identifier = (fields.identifier ?? "").trim().replace(/^@/, "")
      const password = fields.password ?? ""
      if (identifier === "" || password === "") {
        return yield* Effect.fail(connectFailure("connect_failed", identifier === "" ? "identifier_missing" : "password_missing"))
      }
      const response = yield* send(
        wire,
        Xrpc.request(service, { _tag: "procedure", nsid: "com.atproto.server.createSession", json: { identifier, password } }, undefined)
      )
      const now = yield* Clock.currentTimeMillis
      if (!Xrpc.ok(response)) return yield* Effect.fail(refusal(response, now))
      const session = Xrpc.sessionOf(response.json, service)
      if (session === undefined) return yield* Effect.fail(malformedAnswer("createSession"))
      return [identity(session, null)] as ReadonlyArray<ConnectedIdentity>
    }).pipe(Effect.withSpan("connect.atproto.login"))

  /** Starts an OAuth connect: discovery, then the pushed authorization request. */
  const authorize = (request: BeginRequest, identifier: string) =>
    Effect.gen(function* () {
      const found = yield* Effect.mapError(OAuth.discover(wire, settings, identifier), fromPlatformFailure)
      // A server without OAuth: the app password is the only way in.
      if (found === undefined) return yield* Effect.fail(connectFailure("connect_failed", "password_missing"))
      const clientId = OAuth.clientIdFor(request.redirectUri, settings.oauthClientId)
      // A public Postwire on plain http: atproto OAuth needs https, the app password is the way in.
      if (clientId === null) return yield* Effect.fail(connectFailure("connect_failed", "password_missing"))
      const jwk = OAuth.newKey()
      const nonces = new Map<string, string>()
      const now = yield* Clock.currentTimeMillis
      const pushed = yield* Effect.mapError(
        OAuth.sendWithProof(wire, jwk, nonces, now, () =>
          OAuth.form(found.par, {
            client_id: clientId,
            response_type: "code",
            redirect_uri: request.redirectUri,
            scope: OAuth.scope,
            state: request.state,
            code_challenge: OAuth.challenge(request.codeVerifier),
            code_challenge_method: "S256",
            ...(identifier.startsWith("did:") ? { login_hint: found.did } : { login_hint: identifier })
          })
        ),
        fromPlatformFailure
      )
      const requestUri = stringField(pushed.json, "request_uri")
      if (!Xrpc.ok(pushed) || requestUri === undefined) {
        if (pushed.status >= 500 || pushed.status === 429) return yield* Effect.fail(unavailable(`http_${pushed.status}`))
        return yield* Effect.fail(connectFailure("connect_failed", stringField(pushed.json, "error") ?? `http_${pushed.status}`))
      }
      const memo: Memo = {
        did: found.did,
        handle: identifier.startsWith("did:") ? null : identifier,
        pds: found.pds,
        issuer: found.issuer,
        token: found.token,
        revocation: found.revocation,
        client_id: clientId,
        dpop_jwk: jwk,
        nonce: nonces.get(new URL(found.token).origin) ?? null
      }
      // `state` is in the pushed request; it is repeated on the address because Postwire binds
      // the connection to this browser by the address's `state` (the server ignores it there).
      const url = `${found.authorize}?${new URLSearchParams({ client_id: clientId, request_uri: requestUri, state: request.state })}`
      return { _tag: "Redirect" as const, url, memo: JSON.stringify(memo) }
    }).pipe(Effect.withSpan("connect.atproto.authorize"))

  /** Trades the callback's code for DPoP-bound tokens. */
  const exchange = (request: CodeExchange) =>
    Effect.gen(function* () {
      const memo = readMemo(request.memo)
      if (memo === undefined) return yield* Effect.fail(connectFailure("connect_failed", "no_redirect_flow"))
      // The answer must come from the server the person was sent to: atproto OAuth requires the
      // callback's `iss` (RFC 9207) and the client to compare it with the issuer it resolved
      // (https://atproto.com/specs/oauth, "Authorization Request"; a mix-up attack otherwise).
      if (request.issuer === undefined || !OAuth.sameIssuer(request.issuer, memo.issuer)) {
        return yield* Effect.fail(connectFailure("connect_failed", "oauth_issuer_mismatch"))
      }
      const nonces = new Map<string, string>(memo.nonce === null ? [] : [[new URL(memo.token).origin, memo.nonce]])
      const now = yield* Clock.currentTimeMillis
      const answer = yield* Effect.mapError(
        OAuth.sendWithProof(wire, memo.dpop_jwk, nonces, now, () =>
          OAuth.form(memo.token, {
            grant_type: "authorization_code",
            code: request.code,
            redirect_uri: request.redirectUri,
            code_verifier: request.codeVerifier,
            client_id: memo.client_id
          })
        ),
        fromPlatformFailure
      )
      const access = stringField(answer.json, "access_token")
      const refreshToken = stringField(answer.json, "refresh_token")
      const sub = stringField(answer.json, "sub")
      if (!Xrpc.ok(answer)) {
        if (answer.status >= 500 || answer.status === 429) return yield* Effect.fail(unavailable(`http_${answer.status}`))
        return yield* Effect.fail(connectFailure("connect_failed", stringField(answer.json, "error") ?? `http_${answer.status}`))
      }
      if (access === undefined || refreshToken === undefined || sub === undefined) return yield* Effect.fail(malformedAnswer("token"))
      // The token must be for the account the handle named (atproto OAuth: check `sub`).
      if (sub !== memo.did) return yield* Effect.fail(connectFailure("connect_failed", "oauth_subject_mismatch"))
      const expiresIn = Number(field(answer.json, "expires_in"))
      const session: Xrpc.AtprotoCredentials = {
        did: sub,
        handle: memo.handle ?? sub,
        service: memo.pds,
        access_jwt: access,
        refresh_jwt: refreshToken,
        oauth: { issuer: memo.issuer, token_endpoint: memo.token, revocation_endpoint: memo.revocation, client_id: memo.client_id, dpop_jwk: memo.dpop_jwk as Record<string, unknown> }
      }
      const base = identity(session, null)
      return [
        {
          ...base,
          scopes: (stringField(answer.json, "scope") ?? "").split(" ").filter((s) => s !== ""),
          accessTokenExpiresAt: Number.isFinite(expiresIn) && expiresIn > 0 ? now + expiresIn * 1000 : base.accessTokenExpiresAt
        }
      ] as ReadonlyArray<ConnectedIdentity>
    }).pipe(Effect.withSpan("connect.atproto.exchange"))

  const refresh = (json: string): Effect.Effect<TokenRefresh, ConnectFailure> =>
    Effect.gen(function* () {
      const stored = yield* Xrpc.decode(json)
      const next = yield* Xrpc.refresh(wire, stored)
      return {
        _tag: "Refreshed" as const,
        credentials: Xrpc.encode(next),
        accessTokenExpiresAt: Xrpc.jwtExpiry(next.access_jwt),
        refreshTokenExpiresAt: Xrpc.jwtExpiry(next.refresh_jwt),
        scopes: null
      }
    }).pipe(Effect.mapError(fromPlatformFailure), Effect.withSpan("connect.atproto.refresh"))

  const revoke = (json: string): Effect.Effect<TokenRevocation, ConnectFailure> =>
    Effect.gen(function* () {
      const stored = yield* Effect.mapError(Xrpc.decode(json), fromPlatformFailure)
      if (stored.oauth !== undefined) {
        // RFC 7009: the refresh token revoked (and the access tokens of its grant with it). The
        // grant is bound to the DPoP key: the authorization server takes the revocation only with
        // a proof of that key (the reference PDS refuses it otherwise, and the tokens live on).
        const oauth = stored.oauth
        const endpoint = oauth.revocation_endpoint
        if (endpoint === null) return { _tag: "Revoked" as const }
        const answer = yield* Effect.mapError(
          OAuth.sendWithProof(wire, oauth.dpop_jwk as JsonWebKey, new Map(), yield* Clock.currentTimeMillis, () =>
            OAuth.form(endpoint, { token: stored.refresh_jwt, token_type_hint: "refresh_token", client_id: oauth.client_id })
          ),
          fromPlatformFailure
        )
        // A grant that is gone already (expired, revoked) is as good as revoked.
        if (Xrpc.ok(answer) || stringField(answer.json, "error") === "invalid_grant") return { _tag: "Revoked" as const }
        return yield* Effect.fail(refusal(answer, yield* Clock.currentTimeMillis))
      }
      const response = yield* send(
        wire,
        Xrpc.request(stored.service, { _tag: "procedure", nsid: "com.atproto.server.deleteSession", json: undefined }, stored.refresh_jwt)
      )
      // A session already ended (expired or revoked token) is as good as deleted.
      const name = Xrpc.errorName(response)
      if (Xrpc.ok(response) || name === "ExpiredToken" || name === "InvalidToken" || response.status === 401) {
        return { _tag: "Revoked" as const }
      }
      return yield* Effect.fail(refusal(response, yield* Clock.currentTimeMillis))
    }).pipe(Effect.withSpan("connect.atproto.revoke"))

  const connector: PlatformConnect & { readonly login: typeof login } = {
    missing: [],
    // Never asked: `begin` connects without a redirect.
    authorizationUrl: () => `${service}/xrpc/com.atproto.server.createSession`,
    begin: (request) => {
      const identifier = (request.fields.identifier ?? "").trim().replace(/^@/, "")
      if (identifier !== "" && (request.fields.password ?? "") === "") return authorize(request, identifier)
      return Effect.map(login(request.fields), (identities) => ({ _tag: "Connected" as const, identities }))
    },
    exchange,
    login,
    refresh,
    revoke
  }
  return connector
}
