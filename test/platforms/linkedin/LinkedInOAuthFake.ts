/**
 * A fake of LinkedIn's OAuth 2.0 (three-legged, authorization code) and the identity calls a
 * connect makes, as documented:
 *
 * - `GET /oauth/v2/authorization` (`response_type=code`, `client_id`, `redirect_uri` registered
 *   with the app, `state`, space-separated `scope`) and its consent page; a refusal redirects
 *   with `error=user_cancelled_authorize` and the state; a scope the app was not granted
 *   redirects with `error=unauthorized_scope_error`
 *   https://learn.microsoft.com/en-us/linkedin/shared/authentication/authorization-code-flow
 * - `POST /oauth/v2/accessToken` (form): `authorization_code` → `access_token`, `expires_in`
 *   (5,184,000: 60 days), `scope` (comma-separated), and for apps with programmatic refresh
 *   `refresh_token`, `refresh_token_expires_in` (365 days, not renewed by a refresh); errors
 *   `{"error", "error_description"}`
 *   https://learn.microsoft.com/en-us/linkedin/shared/authentication/programmatic-refresh-tokens
 * - `POST /oauth/v2/revoke` (form `client_id`, `client_secret`, `token`)
 * - `GET /v2/userinfo` (OpenID Connect: `sub`, `name`, `picture`)
 *   https://learn.microsoft.com/en-us/linkedin/consumer/integrations/self-serve/sign-in-with-linkedin-v2
 * - `GET /rest/organizationAcls?q=roleAssignee` (needs `r_organization_admin`) and
 *   `GET /rest/organizations/{id}`, with the version headers required
 *   https://learn.microsoft.com/en-us/linkedin/marketing/community-management/organizations/organization-access-control-by-role
 *
 * Routes: `authorize`, `consent`, `token`, `refresh`, `revoke`, `userinfo`, `acls`, `organization`.
 */
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

/** A company page and the member's role on it. */
export interface FakeOrganization {
  readonly id: string
  readonly localizedName: string
  readonly vanityName: string
  role: string
}

/** The fake and the knobs a test turns. */
export interface LinkedInOAuthFake extends OAuthFake {
  readonly clientId: string
  readonly clientSecret: string
  /** The member who signs in. */
  person: { sub: string; name: string; picture: string }
  /** The pages the member has a role on. */
  organizations: Array<FakeOrganization>
  /** The scopes the app's products grant (others are refused at the authorization page). */
  appScopes: Array<string>
  /** The app has programmatic refresh (refresh tokens). */
  refreshTokens: boolean
  readonly accessLifetimeSec: number
  readonly refreshLifetimeSec: number
}

const apiError = (status: number, code: string | undefined, message: string, serviceErrorCode?: number): OAuthReply => ({
  status,
  json: { status, ...(serviceErrorCode === undefined ? {} : { serviceErrorCode }), ...(code === undefined ? {} : { code }), message }
})

const oauthError = (status: number, error: string, description: string): OAuthReply => ({
  status,
  json: { error, error_description: description }
})

/** Starts the fake (Promise API). */
export const start = async (): Promise<LinkedInOAuthFake> => {
  let fake!: LinkedInOAuthFake
  await listen((base) => {
    fake = Object.assign(base, {
      clientId: "86linkedinclient",
      clientSecret: "linkedin-client-secret",
      person: { sub: "Xk4mR2pQ9a", name: "Dewi Lestari", picture: "https://media.licdn.example/dewi.jpg" },
      organizations: [
        { id: "2414183", localizedName: "Roti Bakery", vanityName: "roti-bakery", role: "ADMINISTRATOR" },
        { id: "5515715", localizedName: "Kopi Co", vanityName: "kopi-co", role: "CONTENT_ADMINISTRATOR" },
        { id: "9090909", localizedName: "Analytics Only", vanityName: "analytics-only", role: "ANALYST" }
      ],
      appScopes: ["openid", "profile", "email", "w_member_social", "w_organization_social", "r_organization_social", "r_organization_admin"],
      refreshTokens: true,
      accessLifetimeSec: 5_184_000,
      refreshLifetimeSec: 31_536_000
    })
    return {
      route: (request: OAuthRequest) => {
        const { path } = request
        if (path === "/oauth/v2/authorization") return "authorize"
        if (path === "/consent") return "consent"
        if (path === "/oauth/v2/accessToken") return request.params.grant_type === "refresh_token" ? "refresh" : "token"
        if (path === "/oauth/v2/revoke") return "revoke"
        if (path === "/v2/userinfo") return "userinfo"
        if (path === "/rest/organizationAcls") return "acls"
        if (path.startsWith("/rest/organizations/")) return "organization"
        return "unknown"
      },
      handle: (route: string, request: OAuthRequest) => handle(fake, route, request)
    }
  })
  return fake
}

/** Starts the fake for the length of a scope (Effect API). */
export const scoped = (): Effect.Effect<LinkedInOAuthFake, never, Scope.Scope> => scopedFake(start)

const issueTokens = (fake: LinkedInOAuthFake, scopes: ReadonlyArray<string>, grant: string) => {
  const access = fake.issueToken({ kind: "access", scopes, grant, lifetimeSec: fake.accessLifetimeSec, prefix: "AQV" })
  const refresh = fake.refreshTokens ? fake.issueToken({ kind: "refresh", scopes, grant, lifetimeSec: fake.refreshLifetimeSec, prefix: "AQX" }) : undefined
  return { access, refresh }
}

const handle = (fake: LinkedInOAuthFake, route: string, request: OAuthRequest): OAuthReply => {
  const p = request.params
  switch (route) {
    case "authorize": {
      if (p.client_id !== fake.clientId) return errorPage(400, "The passed in client_id is invalid")
      if (p.redirect_uri === undefined || !fake.redirectUris.includes(p.redirect_uri)) return errorPage(400, "The redirect_uri does not match the registered value")
      if (p.response_type !== "code") return errorPage(400, "response_type must be code")
      const scopes = (p.scope ?? "").split(" ").filter((s) => s !== "")
      const unknown = scopes.filter((s) => !fake.appScopes.includes(s))
      if (unknown.length > 0) {
        return {
          redirect: withParams(p.redirect_uri, {
            error: "unauthorized_scope_error",
            error_description: `Scope "${unknown[0]}" is not authorized for your application`,
            state: p.state
          })
        }
      }
      const pending = remember(fake, { clientId: fake.clientId, redirectUri: p.redirect_uri, state: p.state ?? null, scopes, codeChallenge: null })
      return consentPage({ platform: "LinkedIn", appName: "Postwire", person: fake.person.name, pending })
    }
    case "consent": {
      const answer = consentAnswer(fake, request)
      if (answer === undefined) return errorPage(400, "unknown authorization")
      const { pending, allowed } = answer
      if (!allowed) {
        return {
          redirect: withParams(pending.redirectUri, {
            error: "user_cancelled_authorize",
            error_description: "The user cancelled the authorization",
            state: pending.state
          })
        }
      }
      const code = issueCode(fake, pending)
      return { redirect: withParams(pending.redirectUri, { code: code.code, state: pending.state }) }
    }
    case "token": {
      if (p.client_id !== fake.clientId || p.client_secret !== fake.clientSecret) return oauthError(401, "invalid_client", "Client authentication failed")
      const code = fake.codes.get(p.code ?? "")
      if (p.grant_type !== "authorization_code" || code === undefined || code.used || code.redirectUri !== p.redirect_uri || fake.now() - code.issuedAt > 30 * 60_000) {
        return oauthError(
          400,
          "invalid_request",
          "Unable to retrieve access token: appid/redirect uri/code verifier does not match authorization code. Or authorization code expired. Or external member binding exists"
        )
      }
      code.used = true
      const { access, refresh } = issueTokens(fake, code.scopes, fake.person.sub)
      return {
        status: 200,
        json: {
          access_token: access.token,
          expires_in: fake.accessLifetimeSec,
          scope: code.scopes.join(","),
          ...(refresh === undefined ? {} : { refresh_token: refresh.token, refresh_token_expires_in: fake.refreshLifetimeSec })
        }
      }
    }
    case "refresh": {
      if (p.client_id !== fake.clientId || p.client_secret !== fake.clientSecret) return oauthError(401, "invalid_client", "Client authentication failed")
      const refresh = fake.validToken(p.refresh_token, ["refresh"])
      if (refresh === undefined) return oauthError(400, "invalid_request", "The provided authorization grant or refresh token is invalid, expired or revoked.")
      const access = fake.issueToken({ kind: "access", scopes: refresh.scopes, grant: refresh.grant, lifetimeSec: fake.accessLifetimeSec, prefix: "AQV" })
      return {
        status: 200,
        json: {
          access_token: access.token,
          expires_in: fake.accessLifetimeSec,
          refresh_token: refresh.token,
          // The refresh token's lifetime is not renewed: what is left of it.
          refresh_token_expires_in: Math.floor(((refresh.expiresAt ?? 0) - fake.now()) / 1000),
          scope: refresh.scopes.join(",")
        }
      }
    }
    case "revoke": {
      if (p.client_id !== fake.clientId || p.client_secret !== fake.clientSecret) return oauthError(401, "invalid_client", "Client authentication failed")
      const token = fake.tokens.get(p.token ?? "")
      if (token !== undefined) fake.revokeGrant(token.grant)
      return { status: 200, json: {} }
    }
    case "userinfo": {
      const token = fake.validToken(bearer(request), ["access"])
      if (token === undefined) return apiError(401, "EXPIRED_ACCESS_TOKEN", "The token used in the request has expired", 65602)
      if (!token.scopes.includes("openid")) return apiError(403, "ACCESS_DENIED", "Not enough permissions to access: userinfo.GET.NO_VERSION", 100)
      const [given, family] = fake.person.name.split(" ")
      return {
        status: 200,
        json: { sub: fake.person.sub, name: fake.person.name, given_name: given, family_name: family, picture: fake.person.picture, locale: { country: "ID", language: "id" } }
      }
    }
    case "acls":
    case "organization": {
      const version = request.headers["linkedin-version"]
      if (version === undefined || version === "") {
        return apiError(400, "VERSION_MISSING", "A version must be present. Please specify a version by adding the LinkedIn-Version header.")
      }
      if (request.headers["x-restli-protocol-version"] !== "2.0.0") return apiError(400, undefined, "Rest.li protocol version 2.0.0 is required")
      const token = fake.validToken(bearer(request), ["access"])
      if (token === undefined) return apiError(401, "EXPIRED_ACCESS_TOKEN", "The token used in the request has expired", 65602)
      if (!token.scopes.includes("r_organization_admin")) return apiError(403, "ACCESS_DENIED", "Not enough permissions to access: organizationAcls.FINDER-roleAssignee", 100)
      if (route === "acls") {
        if (p.q !== "roleAssignee") return apiError(400, undefined, "q=roleAssignee is required")
        const elements = fake.organizations.map((o) => ({
          roleAssignee: `urn:li:person:${fake.person.sub}`,
          state: "APPROVED",
          role: o.role,
          organization: `urn:li:organization:${o.id}`
        }))
        return { status: 200, json: { elements, paging: { start: 0, count: elements.length, total: elements.length } } }
      }
      const org = fake.organizations.find((o) => request.path.endsWith(`/${o.id}`))
      if (org === undefined) return apiError(404, "NOT_FOUND", "Organization not found")
      return { status: 200, json: { id: Number(org.id), localizedName: org.localizedName, vanityName: org.vanityName } }
    }
    default:
      return apiError(404, "NOT_FOUND", `No resource found for ${request.method} ${request.path}`)
  }
}
