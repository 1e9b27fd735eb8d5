/**
 * A fake of TikTok's Login Kit and OAuth endpoints (platforms-connect.md, "shortvideo — TikTok"):
 * the authorization page `/v2/auth/authorize/` (client key, registered redirect address, known
 * scopes, PKCE S256 with a HEX challenge), the consent page, `/v2/oauth/token/` with the
 * `authorization_code` and `refresh_token` grants (refresh tokens rotate: the old one dies),
 * OAuth errors `{error, error_description, log_id}`, `/v2/user/info/` (`username` only with
 * `user.info.profile`), `creator_info`, and `/v2/oauth/revoke/`.
 *
 * Start and stop (see `OAuthFake.ts`): `await TikTokOAuthFake.start()` / `fake.stop()`, or
 * `yield* TikTokOAuthFake.scoped()`. Point `authorizeUrl` at `${fake.url}/v2/auth/authorize/`
 * and `apiUrl` at `fake.url`. Routes for `count`: `authorize`, `consent`, `token`
 * (`token:authorization_code`, `token:refresh_token` by grant), `user_info`, `creator_info`,
 * `revoke`.
 */
import { createHash } from "node:crypto"
import type { Effect, Scope } from "effect"
import {
  bearer,
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
  withParams
} from "../fakes/OAuthFake.ts"

/** The TikTok user who logs in on the consent page. */
export interface TikTokPerson {
  open_id: string
  union_id: string
  display_name: string
  username: string
  avatar_url: string
}

/** The fake and the knobs a test turns. */
export interface TikTokOAuthFake extends OAuthFake {
  readonly clientKey: string
  readonly clientSecret: string
  person: TikTokPerson
  /** What creator_info answers. */
  creator: {
    creator_username: string
    creator_nickname: string
    privacy_level_options: Array<string>
    comment_disabled: boolean
    duet_disabled: boolean
    stitch_disabled: boolean
    max_video_post_duration_sec: number
  }
  /** Lifetimes the token answers state (TikTok's documents disagree: 2 h / 180 d or 24 h / 365 d). */
  accessLifetimeSec: number
  refreshLifetimeSec: number
  /** Scopes the person leaves unticked on the consent page. */
  declinedScopes: Array<string>
  /** HTTP status of OAuth error answers (UNCONFIRMED in TikTok's documents: 400 by default, 200 seen). */
  oauthErrorStatus: number
  /** How long a code may be exchanged. */
  codeLifetimeSec: number
}

const knownScopes = new Set(["user.info.basic", "user.info.profile", "user.info.stats", "video.publish", "video.upload", "video.list"])

const logId = "20261125154500ABCDEF0123456789"

const oauthError = (fake: TikTokOAuthFake, error: string, description: string): OAuthReply => ({
  status: fake.oauthErrorStatus,
  json: { error, error_description: description, log_id: logId }
})

const apiOk = (data: unknown): OAuthReply => ({ status: 200, json: { data, error: { code: "ok", message: "", log_id: logId } } })

const apiError = (status: number, code: string, message: string): OAuthReply => ({
  status,
  json: { data: {}, error: { code, message, log_id: logId } }
})

const routeOf = (request: OAuthRequest): string => {
  switch (request.path) {
    case "/v2/auth/authorize/":
      return "authorize"
    case "/consent":
      return "consent"
    case "/v2/oauth/token/":
      return `token:${request.params.grant_type ?? ""}`
    case "/v2/user/info/":
      return "user_info"
    case "/v2/post/publish/creator_info/query/":
      return "creator_info"
    case "/v2/oauth/revoke/":
      return "revoke"
    default:
      return "unknown"
  }
}

const hexSha256 = (s: string) => createHash("sha256").update(s).digest("hex")

const routes = (fake: TikTokOAuthFake) => ({
  route: routeOf,
  handle: (route: string, request: OAuthRequest): OAuthReply => {
    const p = request.params
    switch (route) {
      case "authorize": {
        if (p.client_key !== fake.clientKey) return errorPage(400, "client_key")
        if (p.redirect_uri === undefined || !fake.redirectUris.includes(p.redirect_uri)) return errorPage(400, "redirect_uri")
        const back = (params: Record<string, string>) => ({ redirect: withParams(p.redirect_uri!, { ...params, state: p.state }) })
        if (p.response_type !== "code") return back({ error: "unsupported_response_type", error_description: "response_type" })
        const scopes = (p.scope ?? "").split(",").filter((s) => s !== "")
        if (scopes.length === 0 || scopes.some((s) => !knownScopes.has(s))) {
          return back({ error: "invalid_scope", error_description: "scope" })
        }
        if (p.code_challenge_method !== "S256" || !/^[0-9a-f]{64}$/.test(p.code_challenge ?? "")) {
          return back({ error: "invalid_request", error_description: "code_challenge" })
        }
        const pending = remember(fake, {
          clientId: p.client_key,
          redirectUri: p.redirect_uri,
          state: p.state ?? null,
          scopes,
          codeChallenge: p.code_challenge!
        })
        return consentPage({ platform: "TikTok", appName: "Postwire", person: fake.person.display_name, pending })
      }
      case "consent": {
        const answer = consentAnswer(fake, request)
        if (answer === undefined) return errorPage(400, "authorization expired")
        const { pending } = answer
        if (!answer.allowed) {
          return {
            redirect: withParams(pending.redirectUri, {
              error: "access_denied",
              error_description: "The user denied the request",
              state: pending.state
            })
          }
        }
        const granted = pending.scopes.filter((s) => !fake.declinedScopes.includes(s))
        const code = issueCode(fake, { ...pending, scopes: granted })
        return { redirect: withParams(pending.redirectUri, { code: code.code, scopes: granted.join(","), state: pending.state }) }
      }
      case "token:authorization_code":
      case "token:refresh_token": {
        if (p.client_key !== fake.clientKey || p.client_secret !== fake.clientSecret) {
          return oauthError(fake, "invalid_client", "Client key or secret is invalid.")
        }
        if (route === "token:authorization_code") {
          const code = fake.codes.get(p.code ?? "")
          if (code === undefined || code.used || code.issuedAt + fake.codeLifetimeSec * 1000 <= fake.now()) {
            return oauthError(fake, "invalid_grant", "Authorization code is expired or was used.")
          }
          if (code.redirectUri !== p.redirect_uri) return oauthError(fake, "invalid_grant", "redirect_uri does not match.")
          if (code.codeChallenge !== null && hexSha256(p.code_verifier ?? "") !== code.codeChallenge) {
            return oauthError(fake, "invalid_grant", "Code verifier is invalid.")
          }
          code.used = true
          return tokenAnswer(fake, code.scopes, fake.mint("grant_"))
        }
        const refresh = fake.validToken(p.refresh_token, ["refresh"])
        if (refresh === undefined) return oauthError(fake, "invalid_grant", "Refresh token is invalid or expired.")
        // Rotation: the refresh token just spent dies.
        refresh.revoked = true
        return tokenAnswer(fake, refresh.scopes, refresh.grant)
      }
      case "user_info": {
        const token = fake.validToken(bearer(request), ["access"])
        if (token === undefined) return apiError(401, "access_token_invalid", "The access token is invalid or not found in the request.")
        const fields = (p.fields ?? "").split(",")
        const needsProfile = fields.some((f) => ["username", "bio_description", "profile_deep_link", "is_verified"].includes(f))
        if (!token.scopes.includes("user.info.basic") || (needsProfile && !token.scopes.includes("user.info.profile"))) {
          return apiError(401, "scope_not_authorized", "The user did not authorize the scope required for completing this request.")
        }
        const user: Record<string, string> = {}
        for (const f of fields) if (f in fake.person) user[f] = fake.person[f as keyof TikTokPerson]
        return apiOk({ user })
      }
      case "creator_info": {
        const token = fake.validToken(bearer(request), ["access"])
        if (token === undefined) return apiError(401, "access_token_invalid", "The access token is invalid or not found in the request.")
        if (!token.scopes.includes("video.publish")) return apiError(401, "scope_not_authorized", "video.publish")
        return apiOk(fake.creator)
      }
      case "revoke": {
        if (p.client_key !== fake.clientKey || p.client_secret !== fake.clientSecret) {
          return oauthError(fake, "invalid_client", "Client key or secret is invalid.")
        }
        const token = fake.tokens.get(p.token ?? "")
        if (token !== undefined) fake.revokeGrant(token.grant)
        return { status: 200, json: {} }
      }
      default:
        return apiError(404, "not_found", request.path)
    }
  }
})

const tokenAnswer = (fake: TikTokOAuthFake, scopes: ReadonlyArray<string>, grant: string): OAuthReply => {
  const access = fake.issueToken({ kind: "access", scopes, grant, lifetimeSec: fake.accessLifetimeSec, prefix: "act." })
  const refresh = fake.issueToken({ kind: "refresh", scopes, grant, lifetimeSec: fake.refreshLifetimeSec, prefix: "rft." })
  return {
    status: 200,
    json: {
      access_token: access.token,
      expires_in: fake.accessLifetimeSec,
      open_id: fake.person.open_id,
      refresh_expires_in: fake.refreshLifetimeSec,
      refresh_token: refresh.token,
      scope: scopes.join(","),
      token_type: "Bearer"
    }
  }
}

/** Starts the fake (Promise API). */
export const start = async (): Promise<TikTokOAuthFake> => {
  let fake!: TikTokOAuthFake
  await listen((base) => {
    fake = Object.assign(base, {
      clientKey: "aw_fake_client_key",
      clientSecret: "fake-client-secret",
      person: {
        open_id: "-000OPEN-id-of-creator",
        union_id: "union-1",
        display_name: "Dewi Creator",
        username: "dewi.creates",
        avatar_url: "https://p16.tiktokcdn.example/avatar.jpeg"
      },
      creator: {
        creator_username: "dewi.creates",
        creator_nickname: "Dewi Creator",
        privacy_level_options: ["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "SELF_ONLY"],
        comment_disabled: false,
        duet_disabled: true,
        stitch_disabled: false,
        max_video_post_duration_sec: 300
      },
      accessLifetimeSec: 7200,
      refreshLifetimeSec: 15_552_000,
      declinedScopes: [],
      oauthErrorStatus: 400,
      codeLifetimeSec: 600
    })
    return routes(fake)
  })
  return fake
}

/** Starts the fake for the length of a scope (Effect API). */
export const scoped = (): Effect.Effect<TikTokOAuthFake, never, Scope.Scope> => scopedFake(start)
