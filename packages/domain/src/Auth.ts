/**
 * Who is calling: API keys, their scopes, and the middleware the contract declares.
 *
 * @since 0.1.0
 */
import { Context, Schema } from "effect"
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import { httpErrors } from "./ApiError.ts"

/** A permission a key may hold. */
export const Scope = Schema.Literals(["posts:read", "posts:write", "webhooks:write", "accounts:write"])
export type Scope = typeof Scope.Type

/** Every scope, e.g. for the first-run test key. */
export const allScopes: ReadonlyArray<Scope> = ["posts:read", "posts:write", "webhooks:write", "accounts:write"]

/** Live keys publish to real accounts; test keys only to sandbox accounts. */
export const KeyKind = Schema.Literals(["live", "test"])
export type KeyKind = typeof KeyKind.Type

/** The prefix of a key of each kind. */
export const keyPrefix: Readonly<Record<KeyKind, string>> = { live: "svc_live_", test: "svc_test_" }

/** The authenticated caller of a request. */
export class CurrentKey extends Context.Service<
  CurrentKey,
  {
    readonly keyId: string
    readonly workspaceId: string
    readonly kind: KeyKind
    readonly scopes: ReadonlyArray<Scope>
  }
>()("postwire/CurrentKey") {}

/** Endpoint annotation: the scope the endpoint requires. */
export class RequiredScope extends Context.Service<RequiredScope, Scope>()("postwire/RequiredScope") {}

/** Endpoint annotation: the extra rate-limit bucket the endpoint counts against. */
export class RateLimitBucket extends Context.Service<RateLimitBucket, "posts.create">()("postwire/RateLimitBucket") {}

/**
 * Bearer authentication with an API key (`Authorization: Bearer svc_test_…`). It also checks
 * the endpoint's scope and the rate limits, and adds the `X-RateLimit-*` headers.
 */
export class Authentication extends HttpApiMiddleware.Service<Authentication, { provides: CurrentKey }>()(
  "postwire/Authentication",
  {
    security: { bearer: HttpApiSecurity.bearer },
    error: httpErrors
  }
) {}

/** Renders every failure, bad input included, in the shared error shape. */
export class ApiErrors extends HttpApiMiddleware.Service<ApiErrors>()("postwire/ApiErrors", {
  error: httpErrors
}) {}
