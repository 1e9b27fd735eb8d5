/**
 * Handlers and authentication of the admin API.
 *
 * @since 0.1.0
 */
import { timingSafeEqual } from "node:crypto"
import { Effect, Layer, Redacted } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Accounts, type Caller, hashSecret, Workspaces } from "@postwire/core"
import { Ids, PostwireError } from "@postwire/domain"
import { ServerConfig } from "../config/ServerConfig.ts"
import { renderFailure, respond } from "../http/Failures.ts"
import { AdminApi, AdminAuthentication } from "./AdminApi.ts"
import { ApiKeyCache } from "../http/ApiKeyCache.ts"
import { AdminToken } from "./AdminToken.ts"

/** Constant-time comparison of a presented token with the stored digest. */
const matchesDigest = (token: string, digest: string): boolean => {
  const presented = Buffer.from(hashSecret(token), "hex")
  const expected = Buffer.from(digest, "hex")
  return presented.length === expected.length && timingSafeEqual(presented, expected)
}

/** The live admin authentication: the bearer must be the admin token. */
export const AdminAuthenticationLive = Layer.effect(
  AdminAuthentication,
  Effect.gen(function* () {
    const admin = yield* AdminToken
    const config = yield* ServerConfig
    return AdminAuthentication.of({
      bearer: (httpEffect, { credential }) =>
        Effect.gen(function* () {
          const token = Redacted.value(credential).trim()
          if (token === "" || !matchesDigest(token, admin.hash)) {
            return yield* Effect.flatMap(renderFailure(new PostwireError({ code: "unauthorized" })), Effect.fail)
          }
          return yield* httpEffect
        }).pipe(Effect.provideService(ServerConfig, config)) as never
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
