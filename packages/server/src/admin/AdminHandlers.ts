/**
 * Handlers and authentication of the admin API.
 *
 * @since 0.1.0
 */
import { timingSafeEqual } from "node:crypto"
import { Effect, Layer, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Accounts, type Caller, hashSecret, Workspaces } from "@postwire/core"
import { Ids, PostwireError } from "@postwire/domain"
import { ServerConfig } from "../config/ServerConfig.ts"
import { renderFailure, respond } from "../http/Failures.ts"
import { AdminApi, AdminAuthentication } from "./AdminApi.ts"
import { ApiKeyCache } from "../http/ApiKeyCache.ts"
import * as ClientAddress from "../config/ClientAddress.ts"
import { announce, countRequest, peekRequests } from "../http/RateLimits.ts"
import { RateLimiter } from "../limits/RateLimiter.ts"
import { AdminToken } from "./AdminToken.ts"

/** Constant-time comparison of a presented token with the stored digest. */
const matchesDigest = (token: string, digest: string): boolean => {
  const presented = Buffer.from(hashSecret(token), "hex")
  const expected = Buffer.from(digest, "hex")
  return presented.length === expected.length && timingSafeEqual(presented, expected)
}

/** Wrong admin tokens a client address may present per minute; then every admin request from it is refused until the window ends. */
export const adminFailuresPerMinute = 10

/**
 * The live admin authentication: the bearer must be the admin token. Wrong tokens are counted
 * per client address (shared by every instance on the database); an address that spent its
 * budget is answered 429 without its token being looked at, so guessing learns nothing more.
 */
export const AdminAuthenticationLive = Layer.effect(
  AdminAuthentication,
  Effect.gen(function* () {
    const admin = yield* AdminToken
    const config = yield* ServerConfig
    const limiter = yield* RateLimiter
    const fail = (error: PostwireError) => Effect.flatMap(renderFailure(error), Effect.fail)
    const limited = (state: { readonly retryAfter: number }) =>
      fail(new PostwireError({ code: "rate_limited", details: { retry_after: state.retryAfter } }))
    return AdminAuthentication.of({
      bearer: (httpEffect, { credential }) =>
        Effect.gen(function* () {
          const address = ClientAddress.of(yield* HttpServerRequest.HttpServerRequest, config.trustedProxies ?? ClientAddress.none)
          const bucket = `admin-failed:${address}`
          const before = yield* peekRequests(bucket, adminFailuresPerMinute).pipe(Effect.orDie)
          if (before.exceeded) {
            yield* announce(before)
            return yield* limited(before)
          }
          const token = Redacted.value(credential).trim()
          if (token === "" || !matchesDigest(token, admin.hash)) {
            const state = yield* countRequest(bucket, adminFailuresPerMinute).pipe(Effect.orDie)
            if (state.exceeded) {
              yield* announce(state)
              return yield* limited(state)
            }
            return yield* fail(new PostwireError({ code: "unauthorized" }))
          }
          return yield* httpEffect
        }).pipe(Effect.provideService(ServerConfig, config), Effect.provideService(RateLimiter, limiter)) as never
    })
  })
)

/** The admin handlers. */
export const AdminHandlers = HttpApiBuilder.group(AdminApi, "admin", (handlers) =>
  handlers
    .handle("createWorkspace", ({ payload }) =>
      respond(
        Workspaces.createWorkspace({ name: payload.name, allowedRedirectDomains: payload.allowed_redirect_domains })
      )
    )
    .handle("createKey", ({ params, payload }) => respond(Workspaces.createKey(Ids.unchecked("workspace", params.id), payload)))
    .handle("createProfile", ({ params, payload }) => respond(Workspaces.createProfile(Ids.unchecked("workspace", params.id), payload)))
    .handle("createAccount", ({ params, payload }) =>
      respond(
        Workspaces.createAccount(Ids.unchecked("workspace", params.id), {
          profileId: Ids.unchecked("profile", payload.profile_id),
          platform: payload.platform,
          sandbox: payload.sandbox,
          handle: payload.handle,
          dailyQuota: payload.daily_quota,
          simulate: payload.simulate,
          credentials: payload.credentials === undefined ? undefined : JSON.stringify(payload.credentials),
          externalId: payload.external_id
        })
      )
    )
    .handle("listWorkspaces", () => respond(Effect.map(Workspaces.listWorkspaces(), (data) => ({ data }))))
    .handle("getWorkspace", ({ params }) =>
      respond(Effect.map(Workspaces.requireWorkspace(Ids.unchecked("workspace", params.id)), Workspaces.workspaceView))
    )
    .handle("updateWorkspace", ({ params, payload }) =>
      respond(
        Workspaces.updateWorkspace(Ids.unchecked("workspace", params.id), {
          name: payload.name,
          allowedRedirectDomains: payload.allowed_redirect_domains
        })
      )
    )
    .handle("listKeys", ({ params }) => respond(Effect.map(Workspaces.listKeys(Ids.unchecked("workspace", params.id)), (data) => ({ data }))))
    .handle("revokeKey", ({ params }) =>
      respond(
        Workspaces.revokeKey(Ids.unchecked("workspace", params.id), Ids.unchecked("key", params.key_id)).pipe(
          // Refused from this instance's next request on, not when its cached copy runs out.
          Effect.tap((key) => Effect.flatMap(ApiKeyCache, (keys) => keys.forget(key.id)))
        )
      )
    )
    .handle("listAccounts", ({ params, query }) =>
      respond(Effect.flatMap(workspaceCaller(params.id), (caller) => Accounts.listAccounts(caller, query)))
    )
    .handle("listProfiles", ({ params, query }) =>
      respond(Effect.flatMap(workspaceCaller(params.id), (caller) => Accounts.listProfiles(caller, query)))
    )
)

/** The admin acting inside a workspace that exists. */
const workspaceCaller = (id: string) => {
  const workspaceId = Ids.unchecked("workspace", id)
  return Effect.map(Workspaces.requireWorkspace(workspaceId), (): Caller => ({ workspaceId, keyId: Ids.unchecked("key", "admin"), kind: "live" }))
}
