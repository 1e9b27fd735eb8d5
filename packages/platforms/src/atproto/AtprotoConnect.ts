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
 * atproto OAuth (PAR, PKCE, DPoP) is not offered yet: see docs/decisions.md.
 *
 * | setting | environment | default |
 * |---|---|---|
 * | `serviceUrl` | `POSTWIRE_ATPROTO_SERVICE_URL` | `https://bsky.social` (the entryway that finds each account's PDS) |
 *
 * @since 0.5.0
 */
import type { ConnectedIdentity, ConnectFailure, ConnectFormField, TokenRefresh, TokenRevocation } from "@postwire/core"
import { Clock, Effect } from "effect"
import { connectFailure, fromPlatformFailure, malformedAnswer, type PlatformConnect, send, unavailable } from "../internal/ConnectWire.ts"
import type { Wire, WireResponse } from "../internal/Wire.ts"
import * as Xrpc from "./Xrpc.ts"

/** Connect settings. */
export interface Settings {
  /** Where sessions are created: a PDS or the entryway (`https://bsky.social`). */
  readonly serviceUrl: string
}

/** Defaults: Bluesky's entryway. */
export const defaults: Settings = { serviceUrl: "https://bsky.social" }

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
    help: "Create one in Bluesky under Settings → Privacy and security → App passwords. Postwire uses it once and does not keep it.",
    required: true
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
    begin: (request) => Effect.map(login(request.fields), (identities) => ({ _tag: "Connected" as const, identities })),
    exchange: () => Effect.fail(connectFailure("connect_failed", "no_redirect_flow")),
    login,
    refresh,
    revoke
  }
  return connector
}
