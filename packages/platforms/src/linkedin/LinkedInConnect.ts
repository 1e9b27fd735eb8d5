/**
 * Connecting LinkedIn (professional) accounts: the three-legged OAuth 2.0 flow
 * (https://learn.microsoft.com/en-us/linkedin/shared/authentication/authorization-code-flow),
 * the member from `/v2/userinfo` (OpenID Connect, `openid profile`,
 * https://learn.microsoft.com/en-us/linkedin/consumer/integrations/self-serve/sign-in-with-linkedin-v2),
 * and, with `pages` on, the company pages the member administers
 * (`/rest/organizationAcls?q=roleAssignee`,
 * https://learn.microsoft.com/en-us/linkedin/marketing/community-management/organizations/organization-access-control-by-role):
 * one consent yields the member and each page, and the person chooses which to connect
 * (`capabilities.choosesAccounts`, as Facebook Pages).
 *
 * Tokens: access tokens live 60 days (`expires_in` 5,184,000); apps approved for programmatic
 * refresh also get a refresh token (365 days, not renewed by a refresh,
 * https://learn.microsoft.com/en-us/linkedin/shared/authentication/programmatic-refresh-tokens).
 * Without one, `refresh` refuses: the account goes `needs_reconnect` when the renewal comes due,
 * before the 60 days end (see the plugin's `tokenRenewal`).
 *
 * | setting | environment | default |
 * |---|---|---|
 * | `clientId` | `POSTWIRE_LINKEDIN_CLIENT_ID` | (none: required) |
 * | `clientSecret` | `POSTWIRE_LINKEDIN_CLIENT_SECRET` | (none: required) |
 * | `pages` | `POSTWIRE_LINKEDIN_PAGES` (`true`) | `false`: members only |
 * | `version` | `POSTWIRE_LINKEDIN_VERSION` | see `LinkedIn.defaults` |
 *
 * @since 0.5.0
 */
import type { CodeExchange, ConnectedIdentity, TokenRefresh, TokenRevocation } from "@postwire/core"
import { Clock, Effect, Redacted } from "effect"
import { HttpClientRequest } from "effect/http"
import { connectFailure, expiry, fromPlatformFailure, malformedAnswer, type PlatformConnect, scopeList, send } from "../internal/ConnectWire.ts"
import { field, numberField, stringField, type Wire, type WireResponse } from "../internal/Wire.ts"
import * as Api from "./LinkedInApi.ts"
import * as Creds from "./LinkedInCredentials.ts"

/** LinkedIn's connect settings. */
export interface Settings extends Api.RestSettings {
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  readonly authorizeUrl: string
  readonly tokenUrl: string
  readonly revokeUrl: string
  /** Also offer the company pages the member administers (the app has the Community Management API). */
  readonly pages: boolean
}

/** The environment names of the settings the server must be given. */
export const settingNames = {
  clientId: "POSTWIRE_LINKEDIN_CLIENT_ID",
  clientSecret: "POSTWIRE_LINKEDIN_CLIENT_SECRET"
} as const

/** Defaults for everything but the app credentials. */
export const defaults = {
  authorizeUrl: "https://www.linkedin.com/oauth/v2/authorization",
  tokenUrl: "https://www.linkedin.com/oauth/v2/accessToken",
  revokeUrl: "https://www.linkedin.com/oauth/v2/revoke",
  apiUrl: "https://api.linkedin.com",
  version: "202610",
  pages: false
} as const

/** A member's scopes ("Share on LinkedIn" and "Sign In with LinkedIn using OpenID Connect"). */
export const memberScopes: ReadonlyArray<string> = ["openid", "profile", "w_member_social"]

/** A page administrator's (Community Management API): post, read the page's posts and comments, list the pages. */
export const pageScopes: ReadonlyArray<string> = ["w_organization_social", "r_organization_social", "r_organization_admin"]

/** The page roles that may post for a page (posts-api, "Permissions"). */
const postingRoles = new Set(["ADMINISTRATOR", "CONTENT_ADMINISTRATOR", "DIRECT_SPONSORED_CONTENT_POSTER"])

/** At most this many pages are offered (one page of ACL results). */
const maxPages = 100

/** Creates LinkedIn's connector. */
export const make = (settings: Settings, wire: Wire): PlatformConnect => {
  const secret = () => Redacted.value(settings.clientSecret)
  const missing = [...(settings.clientId === "" ? [settingNames.clientId] : []), ...(secret() === "" ? [settingNames.clientSecret] : [])]

  /** An OAuth answer's tokens, or the refusal (`{"error", "error_description"}`). */
  const tokens = (response: WireResponse, refusedAs: "connect_failed" | "token_expired") => {
    const accessToken = stringField(response.json, "access_token")
    if (response.status >= 200 && response.status < 300 && accessToken !== undefined) {
      return Effect.succeed({
        accessToken,
        expiresIn: numberField(response.json, "expires_in"),
        refreshToken: stringField(response.json, "refresh_token"),
        refreshExpiresIn: numberField(response.json, "refresh_token_expires_in"),
        scopes: scopeList(field(response.json, "scope"))
      })
    }
    const error = stringField(response.json, "error") ?? `http_${response.status}`
    return Effect.fail(connectFailure(refusedAs, error, { needsReconnect: refusedAs === "token_expired" }))
  }

  const tokenRequest = (params: Record<string, string>) =>
    HttpClientRequest.post(settings.tokenUrl).pipe(
      HttpClientRequest.bodyUrlParams({ ...params, client_id: settings.clientId, client_secret: secret() })
    )

  /** A REST read with the member's token; a refusal ends the connect with its code. */
  const read = (request: HttpClientRequest.HttpClientRequest) =>
    Effect.flatMap(send(wire, request), (response) =>
      Effect.gen(function* () {
        if (Api.ok(response)) return response.json
        return yield* Effect.fail(fromPlatformFailure(Api.refusal(response, yield* Clock.currentTimeMillis, settings.version)))
      })
    )

  /** The pages the member may post for, with their names. */
  const pagesOf = (token: string) =>
    Effect.gen(function* () {
      const acls = yield* read(
        Api.rest(settings, "GET", "organizationAcls", token, { query: { q: "roleAssignee", state: "APPROVED", count: String(maxPages) } })
      )
      const elements = field(acls, "elements")
      if (!Array.isArray(elements)) return yield* Effect.fail(malformedAnswer("organizationAcls"))
      const urns = [
        ...new Set(
          elements
            .filter((e) => postingRoles.has(stringField(e, "role") ?? ""))
            .flatMap((e) => stringField(e, "organization") ?? stringField(e, "organizationTarget") ?? [])
        )
      ]
      return yield* Effect.forEach(urns, (urn) =>
        Effect.map(read(Api.rest(settings, "GET", `organizations/${urn.split(":").pop()}`, token)), (org) => ({
          urn,
          name: stringField(org, "localizedName") ?? urn,
          vanityName: stringField(org, "vanityName")
        }))
      )
    })

  const exchange = Effect.fn("connect.professional.exchange")(function* (request: CodeExchange) {
    const response = yield* send(
      wire,
      tokenRequest({ grant_type: "authorization_code", code: request.code, redirect_uri: request.redirectUri })
    )
    const granted = yield* tokens(response, "connect_failed")
    const now = yield* Clock.currentTimeMillis
    const me = yield* send(wire, HttpClientRequest.get(`${settings.apiUrl.replace(/\/+$/, "")}/v2/userinfo`).pipe(HttpClientRequest.bearerToken(granted.accessToken)))
    if (!Api.ok(me)) return yield* Effect.fail(fromPlatformFailure(Api.refusal(me, now)))
    const sub = stringField(me.json, "sub")
    if (sub === undefined) return yield* Effect.fail(malformedAnswer("userinfo"))
    const member = `urn:li:person:${sub}`
    const accessExpiresAt = expiry(now, granted.expiresIn)
    const refreshExpiresAt = granted.refreshToken === undefined ? null : expiry(now, granted.refreshExpiresIn)
    const credentials = Creds.encode({
      access_token: granted.accessToken,
      ...(accessExpiresAt === null ? {} : { expires_at: accessExpiresAt }),
      ...(granted.refreshToken === undefined ? {} : { refresh_token: granted.refreshToken }),
      ...(refreshExpiresAt === null ? {} : { refresh_expires_at: refreshExpiresAt }),
      member,
      scopes: granted.scopes
    })
    const common = {
      platform: Api.platform,
      credentials,
      scopes: granted.scopes,
      accessTokenExpiresAt: accessExpiresAt,
      // Without a refresh token the person must connect again when the access token ends.
      refreshTokenExpiresAt: granted.refreshToken === undefined ? accessExpiresAt : refreshExpiresAt,
      creatorInfo: null,
      grantId: sub
    } as const
    const name = stringField(me.json, "name") ?? [stringField(me.json, "given_name"), stringField(me.json, "family_name")].filter(Boolean).join(" ")
    const identities: Array<ConnectedIdentity> = []
    if (granted.scopes.includes("w_member_social")) {
      identities.push({
        ...common,
        platformAccountId: member,
        handle: name === "" ? sub : name,
        displayName: name === "" ? null : name,
        avatarUrl: stringField(me.json, "picture") ?? null
      })
    }
    if (settings.pages && granted.scopes.includes("r_organization_admin") && granted.scopes.includes("w_organization_social")) {
      for (const page of yield* pagesOf(granted.accessToken)) {
        identities.push({ ...common, platformAccountId: page.urn, handle: page.vanityName ?? page.name, displayName: page.name, avatarUrl: null })
      }
    }
    return identities
  })

  const refresh = Effect.fn("connect.professional.refresh")(function* (json: string) {
    const credentials = yield* Creds.decode(json).pipe(Effect.mapError(() => connectFailure("token_expired", "credentials_invalid", { needsReconnect: true })))
    // No programmatic refresh for this app: the 60 days end, and only the person can renew them.
    if (credentials.refresh_token === undefined) {
      return yield* Effect.fail(connectFailure("token_expired", "no_refresh_token", { needsReconnect: true }))
    }
    const response = yield* send(wire, tokenRequest({ grant_type: "refresh_token", refresh_token: credentials.refresh_token }))
    const granted = yield* tokens(response, "token_expired")
    const now = yield* Clock.currentTimeMillis
    const accessExpiresAt = expiry(now, granted.expiresIn)
    // A refresh does not renew the refresh token's own lifetime (programmatic-refresh-tokens).
    const refreshExpiresAt = granted.refreshExpiresIn === undefined ? (credentials.refresh_expires_at ?? null) : expiry(now, granted.refreshExpiresIn)
    const renewed: Creds.ProfessionalCredentials = {
      ...credentials,
      access_token: granted.accessToken,
      ...(accessExpiresAt === null ? {} : { expires_at: accessExpiresAt }),
      refresh_token: granted.refreshToken ?? credentials.refresh_token,
      ...(refreshExpiresAt === null ? {} : { refresh_expires_at: refreshExpiresAt })
    }
    return {
      _tag: "Refreshed",
      credentials: Creds.encode(renewed),
      accessTokenExpiresAt: accessExpiresAt,
      refreshTokenExpiresAt: refreshExpiresAt,
      scopes: granted.scopes.length === 0 ? null : granted.scopes
    } satisfies TokenRefresh
  })

  const revoke = Effect.fn("connect.professional.revoke")(function* (json: string) {
    const credentials = yield* Creds.decode(json).pipe(Effect.mapError(() => connectFailure("token_expired", "credentials_invalid", { needsReconnect: true })))
    const response = yield* send(
      wire,
      HttpClientRequest.post(settings.revokeUrl).pipe(
        HttpClientRequest.bodyUrlParams({ client_id: settings.clientId, client_secret: secret(), token: credentials.access_token })
      )
    )
    if (response.status >= 200 && response.status < 300) return { _tag: "Revoked" } satisfies TokenRevocation
    return yield* Effect.fail(connectFailure("connect_failed", stringField(response.json, "error") ?? `http_${response.status}`))
  })

  return {
    missing,
    authorizationUrl: (request) => {
      const url = new URL(settings.authorizeUrl)
      url.search = new URLSearchParams({
        response_type: "code",
        client_id: settings.clientId,
        redirect_uri: request.redirectUri,
        state: request.state,
        scope: [...memberScopes, ...(settings.pages ? pageScopes : [])].join(" ")
      }).toString()
      return url.toString()
    },
    exchange,
    refresh,
    revoke
  }
}
