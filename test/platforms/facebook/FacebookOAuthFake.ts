/**
 * A fake of Facebook Login for Pages (platforms-connect.md, "pages — Facebook Pages"): the login
 * dialog `/{ver}/dialog/oauth` whose consent page lists the person's Pages as checkboxes, the
 * code exchange and `fb_exchange_token` on `GET /{ver}/oauth/access_token`, `/me`,
 * `/{user-id}/permissions` (GET, and DELETE to revoke: every token of the consent dies),
 * `/{user-id}/accounts` with cursor paging (only the Pages the person ticked, each with a Page
 * token that does not expire when the user token is long-lived), `debug_token`, Graph error
 * envelopes, and `appsecret_proof` checked when sent.
 *
 * A refusal redirects with `error=access_denied&error_code=200&error_reason=user_denied` and the
 * state, followed by `#_=_` as Facebook does.
 *
 * Start and stop (see `OAuthFake.ts`): `await FacebookOAuthFake.start()` / `fake.stop()`, or
 * `yield* FacebookOAuthFake.scoped()`. Point `authorizeUrl` at `${fake.url}/v23.0/dialog/oauth` and
 * `graphUrl` at `${fake.url}/v23.0`. Routes: `authorize`, `consent`, `token` (code exchange),
 * `exchange` (fb_exchange_token), `me`, `permissions`, `revoke`, `accounts`, `debug_token`.
 */
import { createHmac } from "node:crypto"
import type { Effect, Scope } from "effect"
import { graphError } from "../meta/MetaLoginFake.ts"
import {
  consentAnswer,
  consentPage,
  errorPage,
  issueCode,
  listen,
  type OAuthFake,
  type OAuthReply,
  type OAuthRequest,
  remember,
  scopedFake,
  unversioned,
  withParams
} from "../fakes/OAuthFake.ts"

/** A Page the person manages. */
export interface FakePage {
  id: string
  name: string
  category: string
  tasks: Array<string>
  picture: string
}

/** The fake and the knobs a test turns. */
export interface FacebookOAuthFake extends OAuthFake {
  readonly appId: string
  readonly appSecret: string
  /** The person who logs in: app-scoped id and name. */
  person: { id: string; name: string }
  /** The Pages the person manages, offered on the consent page. */
  pages: Array<FakePage>
  /** Permissions the person turns off in the dialog ("Edit access"). */
  declinedScopes: Array<string>
  /** Pages per result page of `/accounts` (Graph's default is 25; `limit` lowers it). */
  pageSize: number
  /** Lifetimes the answers state: short-lived user token (about 1 to 2 h) and long-lived (about 60 days). */
  shortLifetimeSec: number
  longLifetimeSec: number
  /** Page tokens' lifetime: `null` (never) when made from a long-lived user token, as documented. */
  pageTokenLifetimeSec: number | null
  codeLifetimeSec: number
  /**
   * The app's "Facebook Login for Business" configurations: id → the permissions each asks for
   * (https://developers.facebook.com/docs/facebook-login/facebook-login-for-business). The
   * dialog given a `config_id` asks for its configuration's permissions, not `scope`.
   */
  configurations: Map<string, Array<string>>
  /**
   * The app is of the Business type with Facebook Login for Business: its dialog works only from
   * a saved configuration, and refuses a request without `config_id`.
   */
  loginForBusiness: boolean
}

const knownScopes = new Set([
  "pages_show_list",
  "pages_manage_posts",
  "pages_read_engagement",
  "pages_manage_engagement",
  "pages_manage_metadata",
  "business_management",
  "public_profile"
])

const routeOf = (request: OAuthRequest): string => {
  const path = unversioned(request.path)
  if (path === "/dialog/oauth") return "authorize"
  if (path === "/consent") return "consent"
  if (path === "/oauth/access_token") return request.params.grant_type === "fb_exchange_token" ? "exchange" : "token"
  if (path === "/me") return "me"
  if (path === "/debug_token") return "debug_token"
  if (/^\/[^/]+\/permissions$/.test(path)) return request.method === "DELETE" ? "revoke" : "permissions"
  if (/^\/[^/]+\/accounts$/.test(path)) return "accounts"
  return "unknown"
}

const routes = (fake: FacebookOAuthFake) => {
  const invalidToken = graphError(400, 190, "Error validating access token: The session has been invalidated because the user changed their password or Facebook has changed the session for security reasons.", 460)
  const proofOk = (request: OAuthRequest, token: string) =>
    request.params.appsecret_proof === undefined ||
    request.params.appsecret_proof === createHmac("sha256", fake.appSecret).update(token).digest("hex")
  const user = (request: OAuthRequest) => {
    const token = fake.validToken(request.params.access_token, ["short", "long"])
    return token !== undefined && proofOk(request, token.token) ? token : undefined
  }
  const userIdOf = (path: string) => unversioned(path).split("/")[1]

  return {
    route: routeOf,
    handle: (route: string, request: OAuthRequest): OAuthReply => {
      const p = request.params
      switch (route) {
        case "authorize": {
          if (p.client_id !== fake.appId) return errorPage(400, "Invalid App ID")
          if (p.redirect_uri === undefined || !fake.redirectUris.includes(p.redirect_uri)) {
            return errorPage(400, "URL blocked: this redirect failed because the redirect URI is not whitelisted in the app's Client OAuth Settings.")
          }
          if (p.config_id !== undefined) {
            const configured = fake.configurations.get(p.config_id)
            if (configured === undefined) return errorPage(400, "Invalid config_id: this configuration does not exist for the app.")
            if (p.response_type !== "code") return errorPage(400, "Invalid response_type")
            const pending = remember(fake, { clientId: p.client_id, redirectUri: p.redirect_uri, state: p.state ?? null, scopes: [...configured], codeChallenge: null })
            return consentPage({ platform: "Facebook", appName: "Postwire", person: fake.person.name, pending, pages: fake.pages })
          }
          if (fake.loginForBusiness) {
            return errorPage(400, "Feature Unavailable: Facebook Login for Business needs a configuration (config_id) for this app.")
          }
          const scopes = (p.scope ?? "").split(",").filter((s) => s !== "")
          if (p.response_type !== "code" || scopes.some((s) => !knownScopes.has(s))) return errorPage(400, "Invalid Scopes")
          const pending = remember(fake, { clientId: p.client_id, redirectUri: p.redirect_uri, state: p.state ?? null, scopes, codeChallenge: null })
          return consentPage({ platform: "Facebook", appName: "Postwire", person: fake.person.name, pending, pages: fake.pages })
        }
        case "consent": {
          const answer = consentAnswer(fake, request)
          if (answer === undefined) return errorPage(400, "This authorization has expired")
          const { pending } = answer
          if (!answer.allowed) {
            return {
              redirect: withParams(
                pending.redirectUri,
                { error: "access_denied", error_code: "200", error_description: "Permissions error", error_reason: "user_denied", state: pending.state },
                "#_=_"
              )
            }
          }
          const granted = pending.scopes.filter((s) => !fake.declinedScopes.includes(s))
          const code = issueCode(fake, { ...pending, scopes: granted }, answer.pageIds)
          return { redirect: withParams(pending.redirectUri, { code: code.code, state: pending.state }, "#_=_") }
        }
        case "token": {
          if (p.client_id !== fake.appId || p.client_secret !== fake.appSecret) return graphError(400, 1, "Error validating client secret.")
          const code = fake.codes.get(p.code ?? "")
          if (code === undefined) return graphError(400, 100, "Invalid verification code format.")
          if (code.used) return graphError(400, 100, "This authorization code has been used.", 36009)
          if (code.issuedAt + fake.codeLifetimeSec * 1000 <= fake.now()) return graphError(400, 100, "This authorization code has expired.", 36007)
          if (code.redirectUri !== p.redirect_uri) {
            return graphError(400, 100, "Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request")
          }
          code.used = true
          const grant = `${fake.mint("grant_")}|${code.pageIds.join(",")}`
          const token = fake.issueToken({ kind: "short", scopes: code.scopes, grant, lifetimeSec: fake.shortLifetimeSec, prefix: "EAAshort" })
          return { status: 200, json: { access_token: token.token, token_type: "bearer", expires_in: fake.shortLifetimeSec } }
        }
        case "exchange": {
          if (p.client_id !== fake.appId || p.client_secret !== fake.appSecret) return graphError(400, 1, "Error validating client secret.")
          const short = fake.validToken(p.fb_exchange_token, ["short", "long"])
          if (short === undefined) return invalidToken
          const long = fake.issueToken({ kind: "long", scopes: short.scopes, grant: short.grant, lifetimeSec: fake.longLifetimeSec, prefix: "EAAlong" })
          return { status: 200, json: { access_token: long.token, token_type: "bearer", expires_in: fake.longLifetimeSec } }
        }
        case "me": {
          if (user(request) === undefined) return invalidToken
          return { status: 200, json: { id: fake.person.id, name: fake.person.name } }
        }
        case "permissions": {
          const token = user(request)
          if (token === undefined || userIdOf(request.path) !== fake.person.id) return invalidToken
          const asked = [...knownScopes].filter((s) => token.scopes.includes(s) || fake.declinedScopes.includes(s))
          return {
            status: 200,
            json: {
              data: [
                { permission: "public_profile", status: "granted" },
                ...asked.map((permission) => ({ permission, status: token.scopes.includes(permission) ? "granted" : "declined" }))
              ]
            }
          }
        }
        case "revoke": {
          const token = user(request)
          if (token === undefined || userIdOf(request.path) !== fake.person.id) return invalidToken
          fake.revokeGrant(token.grant)
          return { status: 200, json: { success: true } }
        }
        case "accounts": {
          const token = user(request)
          if (token === undefined || userIdOf(request.path) !== fake.person.id) return invalidToken
          if (!token.scopes.includes("pages_show_list")) return graphError(403, 200, "Requires pages_show_list permission")
          const chosen = new Set(token.grant.split("|")[1]?.split(",") ?? [])
          const pages = fake.pages.filter((page) => chosen.has(page.id))
          const size = Math.min(fake.pageSize, Number(p.limit ?? fake.pageSize))
          const from = p.after === undefined ? 0 : Number(Buffer.from(p.after, "base64url").toString("utf8"))
          const slice = pages.slice(from, from + size)
          const fields = p.fields ?? "id,name"
          const data = slice.map((page) => {
            const pageToken = fake.issueToken({
              kind: "page",
              scopes: token.scopes,
              grant: token.grant,
              pageId: page.id,
              lifetimeSec: token.kind === "long" ? fake.pageTokenLifetimeSec : fake.shortLifetimeSec,
              prefix: "EAApage"
            })
            return {
              id: page.id,
              name: page.name,
              ...(fields.includes("access_token") ? { access_token: pageToken.token } : {}),
              ...(fields.includes("category") ? { category: page.category, category_list: [{ id: "2500", name: page.category }] } : {}),
              ...(fields.includes("tasks") ? { tasks: page.tasks } : {}),
              ...(fields.includes("picture") ? { picture: { data: { url: page.picture, is_silhouette: false } } } : {})
            }
          })
          const cursor = (n: number) => Buffer.from(String(n)).toString("base64url")
          const next = from + size < pages.length
          return {
            status: 200,
            json: {
              data,
              paging: {
                cursors: { before: cursor(from), after: cursor(from + slice.length) },
                ...(next ? { next: `${fake.url}${request.path}?after=${cursor(from + slice.length)}&limit=${size}` } : {})
              }
            }
          }
        }
        case "debug_token": {
          if (p.access_token !== `${fake.appId}|${fake.appSecret}`) return graphError(400, 190, "Invalid OAuth access token - Cannot parse access token")
          const input = fake.tokens.get(p.input_token ?? "")
          const valid = fake.validToken(p.input_token) !== undefined
          return {
            status: 200,
            json: {
              data: {
                app_id: fake.appId,
                type: input?.kind === "page" ? "PAGE" : "USER",
                application: "Postwire",
                is_valid: valid,
                expires_at: input?.expiresAt == null ? 0 : Math.floor(input.expiresAt / 1000),
                scopes: input?.scopes ?? [],
                user_id: fake.person.id,
                ...(input?.pageId === undefined ? {} : { profile_id: input.pageId })
              }
            }
          }
        }
        default:
          return graphError(404, 803, `Unknown path ${request.path}`)
      }
    }
  }
}

/** Starts the fake (Promise API). */
export const start = async (): Promise<FacebookOAuthFake> => {
  let fake!: FacebookOAuthFake
  await listen((base) => {
    fake = Object.assign(base, {
      appId: "556677889900",
      appSecret: "meta-app-secret",
      person: { id: "10160123456789012", name: "Budi Santoso" },
      pages: [
        { id: "101000000000001", name: "Kopi Budi", category: "Coffee shop", tasks: ["ANALYZE", "ADVERTISE", "MODERATE", "CREATE_CONTENT", "MANAGE"], picture: "https://scontent.fbcdn.example/kopi.jpg" },
        { id: "101000000000002", name: "Budi Bikes", category: "Bicycle shop", tasks: ["ANALYZE", "ADVERTISE", "MODERATE", "CREATE_CONTENT"], picture: "https://scontent.fbcdn.example/bikes.jpg" }
      ],
      declinedScopes: [],
      pageSize: 25,
      shortLifetimeSec: 5_400,
      longLifetimeSec: 5_183_944,
      pageTokenLifetimeSec: null,
      codeLifetimeSec: 600,
      configurations: new Map(),
      loginForBusiness: false
    })
    return routes(fake)
  })
  return fake
}

/** Starts the fake for the length of a scope (Effect API). */
export const scoped = (): Effect.Effect<FacebookOAuthFake, never, Scope.Scope> => scopedFake(start)
