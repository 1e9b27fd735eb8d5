/**
 * What the Instagram Login and Threads fakes share (platforms-connect.md, "photo — Instagram" and
 * "textpost — Threads"): the authorization page and consent (refusal as
 * `error=access_denied&error_reason=user_denied`; the code followed by `#_`), the code exchange
 * (`POST /oauth/access_token`, form), the long-lived exchange (`GET /access_token`), the refresh
 * (`GET /refresh_access_token`, only for tokens at least 24 h old and unexpired, on the fake's
 * clock), `/me`, Meta's error bodies, and `appsecret_proof` checked when sent.
 *
 * Routes for `count`: `authorize`, `consent`, `token`, `exchange`, `refresh`, `me`.
 */
import { createHmac } from "node:crypto"
import {
  consentAnswer,
  consentPage,
  errorPage,
  type IssuedToken,
  issueCode,
  type OAuthFake,
  type OAuthReply,
  type OAuthRequest,
  remember,
  unversioned,
  withParams
} from "../fakes/OAuthFake.ts"

/** The knobs the two fakes share. */
export interface MetaLoginKnobs {
  readonly appId: string
  readonly appSecret: string
  /** Scopes the person leaves unticked. */
  declinedScopes: Array<string>
  /** Lifetimes the answers state: the short-lived token (1 h) and the long-lived one (60 days). */
  shortLifetimeSec: number
  longLifetimeSec: number
  /** How long a code may be exchanged (1 h). */
  codeLifetimeSec: number
}

/** What differs between Instagram and Threads. */
export interface MetaLoginSpec {
  readonly platformName: string
  readonly knownScopes: ReadonlySet<string>
  readonly exchangeGrant: string
  readonly refreshGrant: string
  /** The short-lived token answer, raw (long integer ids). */
  readonly tokenAnswer: (token: IssuedToken) => string
  /** `/me`'s fields. */
  readonly me: (fields: ReadonlyArray<string>) => Record<string, unknown>
  readonly personName: () => string
}

/** A Graph error envelope. */
export const graphError = (status: number, code: number, message: string, subcode?: number): OAuthReply => ({
  status,
  json: {
    error: { message, type: "OAuthException", code, ...(subcode === undefined ? {} : { error_subcode: subcode }), fbtrace_id: "AbCdEf123" }
  }
})

/** Instagram Login's flat error body. */
const flatError = (message: string): OAuthReply => ({
  status: 400,
  json: { error_type: "OAuthException", code: 400, error_message: message }
})

const dayMs = 24 * 60 * 60 * 1000

/** The routes of a Meta login fake. */
export const metaLoginRoutes = (fake: OAuthFake & MetaLoginKnobs, spec: MetaLoginSpec) => {
  const proofOk = (request: OAuthRequest, token: string) =>
    request.params.appsecret_proof === undefined ||
    request.params.appsecret_proof === createHmac("sha256", fake.appSecret).update(token).digest("hex")

  const route = (request: OAuthRequest): string => {
    const path = unversioned(request.path)
    if (path === "/oauth/authorize") return "authorize"
    if (path === "/consent") return "consent"
    if (path === "/oauth/access_token") return "token"
    if (path === "/access_token") return "exchange"
    if (path === "/refresh_access_token") return "refresh"
    if (path === "/me") return "me"
    return "unknown"
  }

  const handle = (name: string, request: OAuthRequest): OAuthReply => {
    const p = request.params
    switch (name) {
      case "authorize": {
        if (p.client_id !== fake.appId) return errorPage(400, "Invalid app ID")
        if (p.redirect_uri === undefined || !fake.redirectUris.includes(p.redirect_uri)) {
          return errorPage(400, "Invalid redirect_uri: the address is not in the app's valid OAuth redirect URIs")
        }
        const scopes = (p.scope ?? "").split(/[\s,]+/).filter((s) => s !== "")
        if (p.response_type !== "code" || scopes.length === 0 || scopes.some((s) => !spec.knownScopes.has(s))) {
          return errorPage(400, "Invalid scope or response type")
        }
        const pending = remember(fake, { clientId: p.client_id, redirectUri: p.redirect_uri, state: p.state ?? null, scopes, codeChallenge: null })
        return consentPage({ platform: spec.platformName, appName: "Postwire", person: spec.personName(), pending })
      }
      case "consent": {
        const answer = consentAnswer(fake, request)
        if (answer === undefined) return errorPage(400, "This authorization has expired")
        const { pending } = answer
        if (!answer.allowed) {
          return {
            redirect: withParams(pending.redirectUri, {
              error: "access_denied",
              error_reason: "user_denied",
              error_description: "The user denied your request.",
              state: pending.state
            })
          }
        }
        const code = issueCode(fake, { ...pending, scopes: pending.scopes.filter((s) => !fake.declinedScopes.includes(s)) })
        // Meta appends `#_` to the redirect: it is not part of the code.
        return { redirect: withParams(pending.redirectUri, { code: code.code, state: pending.state }, "#_") }
      }
      case "token": {
        if (request.method !== "POST") return flatError("Unsupported get request.")
        if (p.client_id !== fake.appId || p.client_secret !== fake.appSecret) return flatError("Invalid platform app")
        if (p.grant_type !== "authorization_code") return flatError("Unsupported grant_type")
        const code = fake.codes.get(p.code ?? "")
        if (code === undefined || code.used || code.issuedAt + fake.codeLifetimeSec * 1000 <= fake.now()) {
          return flatError("Matching code was not found or was already used")
        }
        if (code.redirectUri !== p.redirect_uri) return flatError("Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request")
        code.used = true
        const token = fake.issueToken({ kind: "short", scopes: code.scopes, grant: fake.mint("grant_"), lifetimeSec: fake.shortLifetimeSec, prefix: "IGQshort" })
        return { status: 200, raw: spec.tokenAnswer(token) }
      }
      case "exchange": {
        if (p.grant_type !== spec.exchangeGrant) return graphError(400, 100, "Unsupported grant type")
        if (p.client_secret !== fake.appSecret) return graphError(400, 101, "Error validating client secret.")
        const short = fake.validToken(p.access_token, ["short"])
        if (short === undefined) return graphError(400, 190, "Error validating access token: Session has expired or the token is invalid.")
        const long = fake.issueToken({ kind: "long", scopes: short.scopes, grant: short.grant, lifetimeSec: fake.longLifetimeSec, prefix: "IGQlong" })
        return { status: 200, json: { access_token: long.token, token_type: "bearer", expires_in: fake.longLifetimeSec } }
      }
      case "refresh": {
        if (p.grant_type !== spec.refreshGrant) return graphError(400, 100, "Unsupported grant type")
        const long = fake.validToken(p.access_token, ["long"])
        if (long === undefined) return graphError(400, 190, "Error validating access token: Session has expired.", 463)
        if (fake.now() - long.issuedAt < dayMs) return graphError(400, 100, "The token must be at least 24 hours old to be refreshed.")
        const fresh = fake.issueToken({ kind: "long", scopes: long.scopes, grant: long.grant, lifetimeSec: fake.longLifetimeSec, prefix: "IGQlong" })
        return { status: 200, json: { access_token: fresh.token, token_type: "bearer", expires_in: fake.longLifetimeSec } }
      }
      case "me": {
        const token = fake.validToken(p.access_token, ["short", "long"])
        if (token === undefined) return graphError(400, 190, "Error validating access token: Session has expired or the token is invalid.")
        if (!proofOk(request, token.token)) return graphError(400, 100, "Invalid appsecret_proof provided in the API argument")
        return { status: 200, json: spec.me((p.fields ?? "id").split(",")) }
      }
      default:
        return graphError(404, 803, `Unknown path ${request.path}`)
    }
  }

  return { route, handle }
}
