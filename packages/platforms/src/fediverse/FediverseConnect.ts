/**
 * Connecting a Mastodon account. The person types their server's address on the hosted connect
 * page; Postwire then:
 *
 * 0. checks the address: `https://` only, and every address the name resolves to public (no
 *    loopback, private, link-local or metadata address; `ServerAddress.ts`), so a connect link
 *    cannot make Postwire call inside its own network;
 * 1. registers an app on that server once (`POST /api/v1/apps` with `client_name`,
 *    `redirect_uris`, `scopes`, `website`; https://docs.joinmastodon.org/methods/apps/#create),
 *    kept per server and callback address in this process, and carried sealed with the connect
 *    session (the `memo`) and with the account's credentials, so no store is needed: a restarted
 *    server registers again on the next connect to that server;
 * 2. sends the person to `{server}/oauth/authorize` (`response_type=code`, `client_id`,
 *    `redirect_uri`, `scope`, `state`, and a PKCE `code_challenge` with `S256`, which servers
 *    from 4.3 check and older ones ignore; https://docs.joinmastodon.org/methods/oauth/#authorize);
 * 3. trades the code at `POST {server}/oauth/token` (`grant_type=authorization_code`;
 *    https://docs.joinmastodon.org/methods/oauth/#token) for a token that does not expire, and
 *    reads the account with `GET /api/v1/accounts/verify_credentials`
 *    (https://docs.joinmastodon.org/methods/accounts/#verify_credentials);
 * 4. on disconnect, revokes the token with `POST {server}/oauth/revoke` (`client_id`,
 *    `client_secret`, `token`; https://docs.joinmastodon.org/methods/oauth/#revoke).
 *
 * Scopes (https://docs.joinmastodon.org/api/oauth-scopes/): `read:accounts` (who connected),
 * `read:statuses` (replies, and finding a status whose answer was lost), `write:statuses`,
 * `write:media`.
 *
 * @since 0.5.0
 */
import { createHash } from "node:crypto"
import type { AuthorizationRequest, BeginAnswer, BeginRequest, ConnectFailure, ConnectedIdentity, ConnectFormField, UrlSafety } from "@postwire/core"
import { ErrorDetail } from "@postwire/domain"
import { Effect } from "effect"
import { HttpClientRequest } from "effect/http"
import { connectFailure, malformedAnswer, type PlatformConnect, scopeList, send, unavailable } from "../internal/ConnectWire.ts"
import { stringField, type Wire, type WireResponse } from "../internal/Wire.ts"
import * as Api from "./Api.ts"
import * as FediverseCredentials from "./FediverseCredentials.ts"
import * as ServerAddress from "./ServerAddress.ts"
import * as Reasons from "./Reasons.ts"

/** Mastodon's connect settings. */
export interface Settings {
  /** The app's name on each server (shown to the person on the authorization page). */
  readonly clientName: string
  /** The app's website on each server; none: not sent. */
  readonly website?: string | undefined
  readonly scopes: ReadonlyArray<string>
  /**
   * Whether a server on a loopback address (`127.0.0.1`, `localhost`, `[::1]`) may be reached,
   * over `http://` or `https://`: development and tests only. Default `false`: only `https://`
   * servers whose every address is public. Private and link-local addresses are never reached.
   */
  readonly allowLoopback?: boolean | undefined
}

/** Defaults. */
export const defaults: Settings = {
  clientName: "Postwire",
  scopes: ["read:accounts", "read:statuses", "write:statuses", "write:media"]
}

/** The connect page's field: the server's address. */
export const serverField = ServerAddress.serverField

/** The app registered on a server (what a connect session and the credentials carry). */
export interface App {
  readonly server: string
  readonly client_id: string
  readonly client_secret: string
}

/** The server's address from what the person typed (see `ServerAddress.serverAddress`). */
export const serverAddress = ServerAddress.serverAddress

/** The PKCE challenge of a verifier (S256). */
const challenge = (verifier: string) => createHash("sha256").update(verifier).digest("base64url")

/** A refusal of the server's OAuth endpoints (`{"error": "invalid_grant", ...}`) while connecting. */
const refused = (response: WireResponse) =>
  response.status === 429
    ? unavailable("rate_limited", Api.resetAt(response.headers))
    : connectFailure("connect_failed", stringField(response.json, "error") ?? `http_${response.status}`)

const atField = ServerAddress.atField

const badAddress = () => atField("server_address", Reasons.reason("fediverse_server_address"))

/** The hosted connect page's field: the server's address (`connect.form` of the plugin). */
export const form: ReadonlyArray<ConnectFormField> = [
  {
    name: serverField,
    label: "Your Mastodon server",
    kind: "url",
    placeholder: "mastodon.social",
    help: "The address of the server your account is on: the part after the second @ of your handle.",
    required: true,
    maxLength: 253
  }
]

/** Mastodon's connector: `begin` (the address, the app, the authorize URL), then `exchange` with the memo. */
export interface FediverseConnector extends PlatformConnect {
  readonly begin: (request: BeginRequest) => Effect.Effect<BeginAnswer, ConnectFailure>
}

/** Creates Mastodon's connector. */
export const make = (
  settings: Settings,
  wire: Wire,
  resolver: UrlSafety.Resolver["Service"] = ServerAddress.systemResolver
): FediverseConnector => {
  const apps = new Map<string, App>()

  /** Sends to the typed server: an address that answers nothing is the person's to fix. */
  const sendTo = (request: HttpClientRequest.HttpClientRequest) =>
    send(wire, request).pipe(
      Effect.mapError((f) =>
        f.platformCode === "network_error" || f.platformCode === "timeout"
          ? atField("server_unreachable", ErrorDetail.reason("url_unreachable"))
          : f
      )
    )

  const register = (server: string, redirectUri: string) =>
    Effect.gen(function* () {
      const key = `${server} ${redirectUri}`
      const known = apps.get(key)
      if (known !== undefined) return known
      const response = yield* sendTo(
        HttpClientRequest.post(`${server}/api/v1/apps`).pipe(
          HttpClientRequest.acceptJson,
          HttpClientRequest.bodyText(
            Api.form({ client_name: settings.clientName, redirect_uris: redirectUri, scopes: settings.scopes.join(" "), website: settings.website }).toString(),
            "application/x-www-form-urlencoded"
          )
        )
      )
      // Not a Mastodon server (no apps API there): say so at the field.
      if (response.status === 404 || response.status === 405 || (Api.ok(response) && typeof response.json !== "object")) {
        return yield* Effect.fail(atField(`apps_http_${response.status}`, ErrorDetail.reason("url_answered", { status: response.status })))
      }
      if (!Api.ok(response)) return yield* Effect.fail(refused(response))
      const clientId = stringField(response.json, "client_id")
      const clientSecret = stringField(response.json, "client_secret")
      if (clientId === undefined || clientSecret === undefined) return yield* Effect.fail(malformedAnswer("app"))
      const app: App = { server, client_id: clientId, client_secret: clientSecret }
      apps.set(key, app)
      return app
    })

  const authorizeUrl = (app: App, request: AuthorizationRequest): string => {
    const url = new URL(`${app.server}/oauth/authorize`)
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: app.client_id,
      redirect_uri: request.redirectUri,
      scope: settings.scopes.join(" "),
      state: request.state,
      code_challenge: challenge(request.codeVerifier),
      code_challenge_method: "S256"
    }).toString()
    return url.toString()
  }

  const begin: FediverseConnector["begin"] = (request) =>
    Effect.gen(function* () {
      const typed = request.fields[serverField] ?? ""
      const allowLoopback = settings.allowLoopback === true
      const server = serverAddress(typed)
      if (server === undefined) return yield* Effect.fail(badAddress())
      // Nothing is sent to an address inside Postwire's own network.
      yield* ServerAddress.checkServer(server, { allowLoopback, resolver })
      const app = yield* register(server, request.redirectUri)
      return { _tag: "Redirect" as const, url: authorizeUrl(app, request), memo: JSON.stringify(app) }
    }).pipe(Effect.withSpan("connect.fediverse.begin"))

  const readMemo = (memo: string | undefined): App | undefined => {
    if (memo === undefined) return undefined
    try {
      const app = JSON.parse(memo) as unknown
      const server = stringField(app, "server")
      const clientId = stringField(app, "client_id")
      const clientSecret = stringField(app, "client_secret")
      return server === undefined || clientId === undefined || clientSecret === undefined
        ? undefined
        : { server, client_id: clientId, client_secret: clientSecret }
    } catch {
      return undefined
    }
  }

  const exchange: PlatformConnect["exchange"] = (request) =>
    Effect.gen(function* () {
      const app = readMemo(request.memo)
      if (app === undefined) return yield* Effect.fail(connectFailure("connect_failed", "connect_memo_missing"))
      const response = yield* send(
        wire,
        HttpClientRequest.post(`${app.server}/oauth/token`).pipe(
          HttpClientRequest.acceptJson,
          HttpClientRequest.bodyText(
            Api.form({
              grant_type: "authorization_code",
              code: request.code,
              client_id: app.client_id,
              client_secret: app.client_secret,
              redirect_uri: request.redirectUri,
              code_verifier: request.codeVerifier,
              scope: settings.scopes.join(" ")
            }).toString(),
            "application/x-www-form-urlencoded"
          )
        )
      )
      if (!Api.ok(response)) return yield* Effect.fail(refused(response))
      const token = stringField(response.json, "access_token")
      if (token === undefined) return yield* Effect.fail(malformedAnswer("token"))
      const granted = scopeList(stringField(response.json, "scope") ?? settings.scopes.join(" "))
      const me = yield* send(
        wire,
        HttpClientRequest.get(`${app.server}/api/v1/accounts/verify_credentials`).pipe(HttpClientRequest.bearerToken(token), HttpClientRequest.acceptJson)
      )
      if (!Api.ok(me)) return yield* Effect.fail(refused(me))
      const id = stringField(me.json, "id")
      const username = stringField(me.json, "username")
      if (id === undefined || username === undefined) return yield* Effect.fail(malformedAnswer("verify_credentials"))
      const host = new URL(app.server).host
      const display = stringField(me.json, "display_name")
      const identity: ConnectedIdentity = {
        platform: Api.platform,
        // Ids are per server: the server names the account.
        platformAccountId: `${id}@${host}`,
        handle: `${username}@${host}`,
        displayName: display === undefined || display === "" ? null : display,
        avatarUrl: stringField(me.json, "avatar") ?? null,
        credentials: FediverseCredentials.encode({
          server: app.server,
          access_token: token,
          client_id: app.client_id,
          client_secret: app.client_secret,
          account_id: id,
          scopes: granted
        }),
        scopes: granted,
        accessTokenExpiresAt: null,
        refreshTokenExpiresAt: null,
        creatorInfo: null,
        grantId: `${id}@${host}`
      }
      return [identity]
    }).pipe(Effect.withSpan("connect.fediverse.exchange"))

  const revoke: PlatformConnect["revoke"] = (json) =>
    Effect.gen(function* () {
      const credentials = yield* FediverseCredentials.decode(json).pipe(
        Effect.mapError(() => connectFailure("connect_failed", "credentials_invalid"))
      )
      const response = yield* send(
        wire,
        HttpClientRequest.post(`${credentials.server}/oauth/revoke`).pipe(
          HttpClientRequest.acceptJson,
          HttpClientRequest.bodyText(
            Api.form({ client_id: credentials.client_id, client_secret: credentials.client_secret, token: credentials.access_token }).toString(),
            "application/x-www-form-urlencoded"
          )
        )
      )
      if (!Api.ok(response)) return yield* Effect.fail(refused(response))
      return { _tag: "Revoked" as const }
    }).pipe(Effect.withSpan("connect.fediverse.revoke"))

  return {
    missing: [],
    // Without the connect page's form (`begin`), there is no server to send the person to.
    authorizationUrl: (request) => `${request.redirectUri}?error=invalid_request&error_description=server_address_required&state=${encodeURIComponent(request.state)}`,
    begin,
    exchange,
    refresh: () => Effect.succeed({ _tag: "NothingToRefresh" as const }),
    revoke
  }
}
