/**
 * Who is calling: API keys, their scopes, and the middleware the contract declares.
 *
 * @since 0.1.0
 */
import { Context, Schema } from "effect"
import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import { httpErrors } from "./ApiError.ts"
import type { KeyId, WorkspaceId } from "./Ids.ts"

/** A permission a key may hold. */
export const Scope = Schema.Literals(["posts:read", "posts:write", "webhooks:write", "webhooks:read", "accounts:write", "comments:write", "analytics:read"])
export type Scope = typeof Scope.Type

/** Every scope, e.g. for the first-run test key. */
export const allScopes: ReadonlyArray<Scope> = ["posts:read", "posts:write", "webhooks:write", "webhooks:read", "accounts:write", "comments:write", "analytics:read"]

/** Scopes that come with another: `webhooks:write` implies `webhooks:read`. */
export const impliedScopes: Readonly<Partial<Record<Scope, ReadonlyArray<Scope>>>> = {
  "webhooks:write": ["webhooks:read"]
}

/**
 * Whether a key holding `scopes` may call an endpoint that requires `required`, implied scopes
 * included.
 *
 * @example
 * ```ts
 * grantsScope(["webhooks:write"], "webhooks:read") // true
 * ```
 */
export const grantsScope = (scopes: ReadonlyArray<Scope>, required: Scope): boolean =>
  scopes.some((held) => held === required || (impliedScopes[held]?.includes(required) ?? false))

/** Live keys publish to real accounts; test keys only to sandbox accounts. */
export const KeyKind = Schema.Literals(["live", "test"])
export type KeyKind = typeof KeyKind.Type

/** The prefix of a key of each kind. */
export const keyPrefix: Readonly<Record<KeyKind, string>> = { live: "svc_live_", test: "svc_test_" }

/**
 * Whether a key's answers carry approval links. A key made with `hidden` never sees one: in its
 * answers (`approval.url` is `null`), in the events it reads (`approval_url` is `null`) and in
 * the delivery log; so an agent or integration holding it can create posts but never approve
 * them. Keys made before the option existed, and keys made without it, are `shown`.
 */
export const ApprovalLinks = Schema.Literals(["shown", "hidden"])
export type ApprovalLinks = typeof ApprovalLinks.Type

/**
 * The request header with which a caller asks not to be shown approval links, whatever its key
 * allows (the MCP tool server always sends it): `Postwire-Approval-Links: hidden`.
 */
export const approvalLinksHeader = "postwire-approval-links"

/** The authenticated caller of a request. */
export class CurrentKey extends Context.Service<
  CurrentKey,
  {
    readonly keyId: KeyId
    readonly workspaceId: WorkspaceId
    readonly kind: KeyKind
    readonly scopes: ReadonlyArray<Scope>
    /** Whether this request's answers may carry approval links (the key's option, or the request's header). */
    readonly approvalLinks: ApprovalLinks
  }
>()("postwire/CurrentKey") {}

/** Endpoint annotation: the scope the endpoint requires. */
export class RequiredScope extends Context.Service<RequiredScope, Scope>()("postwire/RequiredScope") {}

/** Endpoint annotation: the extra rate-limit bucket the endpoint counts against. */
export class RateLimitBucket extends Context.Service<RateLimitBucket, "posts.create">()("postwire/RateLimitBucket") {}

/**
 * The API key as an HTTP bearer credential. The scheme is spelled `bearer`, lowercase as OpenAPI
 * writes it, so that API viewers send `Authorization: Bearer …` (the server accepts any case).
 */
export const apiKeyBearer = HttpApiSecurity.http({ scheme: "bearer" }).pipe(
  HttpApiSecurity.annotate(OpenApi.Format, "API key (svc_live_… or svc_test_…)"),
  HttpApiSecurity.annotate(
    OpenApi.Description,
    "An API key sent as `Authorization: Bearer svc_test_…`. Live keys (`svc_live_…`) publish to real accounts, test " +
      "keys (`svc_test_…`) only to sandbox accounts. A missing or unknown key is 401 `unauthorized`; a key without the " +
      "endpoint's scope (`posts:read`, `posts:write` or `webhooks:write`) is 403 `insufficient_scope`."
  )
)

/**
 * Bearer authentication with an API key (`Authorization: Bearer svc_test_…`). It also checks
 * the endpoint's scope and the rate limits, and adds the `X-RateLimit-*` headers.
 */
export class Authentication extends HttpApiMiddleware.Service<Authentication, { provides: CurrentKey }>()(
  "postwire/Authentication",
  {
    security: { bearer: apiKeyBearer },
    error: httpErrors
  }
) {}

/** Renders every failure, bad input included, in the shared error shape. */
export class ApiErrors extends HttpApiMiddleware.Service<ApiErrors>()("postwire/ApiErrors", {
  error: httpErrors
}) {}
