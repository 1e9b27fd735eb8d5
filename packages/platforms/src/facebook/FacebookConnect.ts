/**
 * Connecting Facebook Pages (pages) through Facebook Login: the login dialog (where the person
 * also picks which of their Pages the app may use), the code exchange, the long-lived user token
 * (`fb_exchange_token`), the granted permissions, and the chosen Pages from `/{user-id}/accounts`
 * (followed through every page of results), each with its own Page token. A Page token derived
 * from a long-lived user token does not expire: each one's expiry is read from `debug_token`
 * rather than assumed.
 *
 * Settings and their environment names (the server reads them):
 *
 * | setting | environment | default |
 * |---|---|---|
 * | `appId` | `POSTWIRE_META_APP_ID` | (none: required) |
 * | `appSecret` | `POSTWIRE_META_APP_SECRET` | (none: required) |
 * | `authorizeUrl` | `POSTWIRE_FACEBOOK_AUTHORIZE_URL` | `https://www.facebook.com/v23.0/dialog/oauth` |
 * | `graphUrl` | `POSTWIRE_FACEBOOK_BASE_URL` (shared with publishing) | `https://graph.facebook.com/v23.0` |
 * | `scopes` | | `pages_show_list,pages_manage_posts,pages_read_engagement,pages_manage_engagement` |
 * | `configId` | `POSTWIRE_FACEBOOK_CONFIG_ID` | (none: Facebook Login with `scope`) |
 *
 * `pages_read_engagement` reads the comments under the Page's posts, `pages_manage_engagement`
 * answers, hides and deletes them; a person who declines the latter can still publish.
 *
 * A Page the person cannot create content on (no `CREATE_CONTENT` task) is left out: it could
 * never publish.
 *
 * @since 0.2.0
 */
import type { CodeExchange, ConnectedIdentity, TokenRevocation } from "@postwire/core"
import { Clock, Effect, Redacted } from "effect"
import { HttpClientRequest } from "effect/http"
import * as Credentials from "./Credentials.ts"
import {
  appSecretProof,
  connectFailure,
  expiry,
  lacking,
  malformedAnswer,
  metaCode,
  metaConnectFailure,
  metaError,
  metaOk,
  metaTransient,
  type PlatformConnect,
  send
} from "../internal/ConnectWire.ts"
import { field, numberField, stringField, type Wire, type WireResponse } from "../internal/Wire.ts"
import * as MetaToken from "../meta/MetaToken.ts"

/** Facebook's connect settings. */
export interface Settings {
  /** The Meta app's id (Facebook Login). */
  readonly appId: string
  readonly appSecret: Redacted.Redacted<string>
  /** The login dialog. */
  readonly authorizeUrl: string
  /** The versioned Graph host (tokens, `/me`, Pages, `debug_token`, permissions). */
  readonly graphUrl: string
  readonly scopes: ReadonlyArray<string>
  /**
   * The configuration id of a "Facebook Login for Business" app
   * (https://developers.facebook.com/docs/facebook-login/facebook-login-for-business): when set,
   * the login dialog is sent `config_id` (with `override_default_response_type=true`) instead of
   * `scope`, and the configuration decides the permissions asked for. It must include
   * `pages_show_list`, `pages_manage_posts` and `pages_read_engagement`.
   */
  readonly configId?: string | undefined
}

/** The environment names of the settings the server must be given. */
export const settingNames = {
  appId: "POSTWIRE_META_APP_ID",
  appSecret: "POSTWIRE_META_APP_SECRET"
} as const

/** Defaults for everything but the app credentials. */
export const defaults = {
  authorizeUrl: "https://www.facebook.com/v23.0/dialog/oauth",
  graphUrl: "https://graph.facebook.com/v23.0",
  scopes: ["pages_show_list", "pages_manage_posts", "pages_read_engagement", "pages_manage_engagement"]
} as const

/** Without these the Pages cannot be listed or published to: the connect is refused. */
export const requiredScopes: ReadonlyArray<string> = ["pages_show_list", "pages_manage_posts", "pages_read_engagement"]

/** At most this many result pages of `/accounts` are followed (25 Pages each). */
const maxResultPages = 40

/** Creates Facebook's connector. */
export const make = (settings: Settings, wire: Wire): PlatformConnect => {
  const graph = settings.graphUrl.replace(/\/+$/, "")
  const secret = () => Redacted.value(settings.appSecret)
  const missing = [
    ...(settings.appId === "" ? [settingNames.appId] : []),
    ...(secret() === "" ? [settingNames.appSecret] : [])
  ]

  /** A Graph call with a token and its `appsecret_proof`. */
  const graphRequest = (method: "GET" | "DELETE", path: string, params: Record<string, string>, token: string) => {
    const all = {
      ...params,
      access_token: token,
      appsecret_proof: appSecretProof(secret(), token)
    }
    const url = `${graph}/${path.replace(/^\/+/, "")}`
    return (method === "GET" ? HttpClientRequest.get(url) : HttpClientRequest.delete(url)).pipe(
      HttpClientRequest.setUrlParams(all)
    )
  }

  const read = (path: string, params: Record<string, string>, token: string) =>
    Effect.flatMap(send(wire, graphRequest("GET", path, params, token)), (response: WireResponse) =>
      metaOk(response) ? Effect.succeed(response.json) : Effect.fail(metaConnectFailure(response))
    )

  /** Every Page the person gave the app, following the result cursors. */
  const pagesOf = (userId: string, token: string) =>
    Effect.gen(function* () {
      const pages: Array<unknown> = []
      let after: string | undefined
      for (let n = 0; n < maxResultPages; n++) {
        const body = yield* read(
          `${userId}/accounts`,
          { fields: "id,name,access_token,category,tasks,picture{url}", limit: "25", ...(after === undefined ? {} : { after }) },
          token
        )
        const data = field(body, "data")
        if (!Array.isArray(data)) return yield* Effect.fail(malformedAnswer("accounts"))
        pages.push(...data)
        const paging = field(body, "paging")
        after = stringField(field(paging, "cursors"), "after")
        if (field(paging, "next") === undefined || after === undefined || data.length === 0) break
      }
      return pages
    })

  /**
   * When a token expires, by `debug_token` with the app token: `null` for never. Should Meta refuse
   * to say, the documented answer stands (a Page token from a long-lived user token never
   * expires); only a transient failure ends the connect, to be tried again.
   */
  const tokenExpiry = (token: string) =>
    read("debug_token", { input_token: token }, `${settings.appId}|${secret()}`).pipe(
      Effect.map((body) => {
        const expiresAt = numberField(field(body, "data"), "expires_at")
        return expiresAt === undefined || expiresAt === 0 ? null : expiresAt * 1000
      }),
      Effect.catchIf(
        (f) => f.code !== "platform_unavailable",
        () => Effect.succeed(null)
      )
    )

  const exchange = Effect.fn("connect.pages.exchange")(function* (request: CodeExchange) {
    const short = yield* MetaToken.exchange(wire, {
      url: `${graph}/oauth/access_token`,
      params: { client_id: settings.appId, redirect_uri: request.redirectUri, client_secret: secret(), code: request.code }
    })
    const long = yield* MetaToken.exchange(wire, {
      url: `${graph}/oauth/access_token`,
      params: {
        grant_type: "fb_exchange_token",
        client_id: settings.appId,
        client_secret: secret(),
        fb_exchange_token: short.accessToken
      }
    })
    const now = yield* Clock.currentTimeMillis
    const userExpiresAt = expiry(now, long.expiresIn)
    const me = yield* read("me", { fields: "id,name" }, long.accessToken)
    const userId = stringField(me, "id")
    if (userId === undefined) return yield* Effect.fail(malformedAnswer("me"))
    const permissions = field(yield* read(`${userId}/permissions`, {}, long.accessToken), "data")
    const scopes = (Array.isArray(permissions) ? permissions : [])
      .filter((p) => stringField(p, "status") === "granted")
      .flatMap((p) => stringField(p, "permission") ?? [])
    const without = lacking(requiredScopes, scopes)
    if (without.length > 0) return yield* Effect.fail(connectFailure("connect_refused", `scope_declined:${without.join(",")}`))
    const pages = yield* pagesOf(userId, long.accessToken)
    const identities: Array<ConnectedIdentity> = []
    for (const page of pages) {
      const id = stringField(page, "id")
      const name = stringField(page, "name")
      const pageToken = stringField(page, "access_token")
      const tasks = field(page, "tasks")
      if (id === undefined || name === undefined || pageToken === undefined) continue
      if (Array.isArray(tasks) && !tasks.includes("CREATE_CONTENT")) continue
      const expiresAt = yield* tokenExpiry(pageToken)
      const credentials: Credentials.PagesCredentials = {
        page_access_token: pageToken,
        user_access_token: long.accessToken,
        user_id: userId,
        scopes,
        ...(userExpiresAt === null ? {} : { user_expires_at: userExpiresAt })
      }
      identities.push({
        platform: "pages",
        platformAccountId: id,
        handle: name,
        displayName: name,
        avatarUrl: stringField(field(field(page, "picture"), "data"), "url") ?? null,
        credentials: Credentials.encode(credentials),
        scopes,
        accessTokenExpiresAt: expiresAt,
        refreshTokenExpiresAt: null,
        creatorInfo: null,
        grantId: userId
      })
    }
    return identities
  })

  const revoke = Effect.fn("connect.pages.revoke")(function* (json: string) {
    const credentials = yield* Credentials.decode(json).pipe(
      Effect.mapError((f) => connectFailure("token_expired", f.platformCode, { needsReconnect: true }))
    )
    if (credentials.user_access_token === undefined || credentials.user_id === undefined) {
      // Pasted by hand with only a Page token: there is no consent of a person to withdraw.
      return { _tag: "Unsupported" } satisfies TokenRevocation
    }
    const response = yield* send(wire, graphRequest("DELETE", `${credentials.user_id}/permissions`, {}, credentials.user_access_token))
    if (metaOk(response)) return { _tag: "Revoked" } satisfies TokenRevocation
    const error = metaError(response.json)
    // A token Meta no longer accepts has no permissions left to withdraw.
    if (error?.code === 190) return { _tag: "Revoked" } satisfies TokenRevocation
    if (error !== undefined && metaTransient(error)) return yield* Effect.fail(metaConnectFailure(response))
    return yield* Effect.fail(connectFailure("connect_failed", error === undefined ? `http_${response.status}` : metaCode(error)))
  })

  return {
    missing,
    authorizationUrl: (request) => {
      const url = new URL(settings.authorizeUrl)
      const configId = settings.configId ?? ""
      url.search = new URLSearchParams({
        client_id: settings.appId,
        redirect_uri: request.redirectUri,
        state: request.state,
        response_type: "code",
        ...(configId === ""
          ? {
              scope: settings.scopes.join(","),
              // Asks again for permissions the person declined before (a reconnect).
              auth_type: "rerequest"
            }
          : {
              // Facebook Login for Business: the saved configuration names the token type and
              // the permissions, in place of `scope`; a configuration giving system-user tokens
              // answers with a code only when the default response type is overridden.
              config_id: configId,
              override_default_response_type: "true"
            })
      }).toString()
      return url.toString()
    },
    exchange,
    // A Page token from a long-lived user token does not expire: there is nothing to renew.
    refresh: () => Effect.succeed({ _tag: "NothingToRefresh" as const }),
    revoke
  }
}
