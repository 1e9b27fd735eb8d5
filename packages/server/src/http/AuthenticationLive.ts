/**
 * The `Authentication` middleware: resolves the bearer key, counts rate limits, checks the
 * endpoint's scope, and provides the caller.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import { hashSecret, Store } from "@postwire/core"
import { approvalLinksHeader, Authentication, CurrentKey, grantsScope, PostwireError, RateLimitBucket, RequiredScope } from "@postwire/domain"
import { ServerConfig } from "../config/ServerConfig.ts"
import { ApiKeyCache } from "./ApiKeyCache.ts"
import { withApprovalLinksHidden } from "./ApprovalLinkVisibility.ts"
import * as ClientAddress from "../config/ClientAddress.ts"
import { renderFailure } from "./Failures.ts"
import { RateLimiter } from "../limits/RateLimiter.ts"
import { announce, countRequest, countRequests, tightest } from "./RateLimits.ts"

/** The live `Authentication` middleware. */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const store = yield* Store
    const config = yield* ServerConfig
    const keys = yield* ApiKeyCache
    const fail = (error: PostwireError) => Effect.flatMap(renderFailure(error), Effect.fail)
    const provided = Context.make(Store, store).pipe(Context.add(ServerConfig, config), Context.add(RateLimiter, yield* RateLimiter))

    return Authentication.of({
      bearer: (httpEffect, { credential, endpoint }) =>
        Effect.gen(function* () {
          const token = Redacted.value(credential).trim()
          const found = token === "" ? Option.none() : yield* keys.find(hashSecret(token))
          if (Option.isNone(found) || found.value.revokedAt !== null) {
            // Unknown callers are limited per address, which also slows down key guessing.
            const address = ClientAddress.of(yield* HttpServerRequest.HttpServerRequest, config.trustedProxies ?? ClientAddress.none)
            const state = yield* countRequest(`ip:${address}`, config.rateLimitPerKey).pipe(Effect.orDie)
            yield* announce(state)
            if (state.exceeded) {
              return yield* fail(new PostwireError({ code: "rate_limited", details: { retry_after: state.retryAfter } }))
            }
            return yield* fail(new PostwireError({ code: "unauthorized" }))
          }
          const key = found.value
          const bucket = Context.getOrUndefined(endpoint.annotations, RateLimitBucket)
          const states = yield* countRequests([
            { bucket: `key:${key.id}`, limit: config.rateLimitPerKey },
            ...(bucket === undefined ? [] : [{ bucket: `${bucket}:${key.id}`, limit: config.rateLimitPostsCreate }])
          ]).pipe(Effect.orDie)
          const state = tightest(states)
          yield* announce(state)
          if (state.exceeded) {
            return yield* fail(new PostwireError({ code: "rate_limited", details: { retry_after: state.retryAfter } }))
          }
          const scope = Context.getOrUndefined(endpoint.annotations, RequiredScope)
          if (scope !== undefined && !grantsScope(key.scopes, scope)) {
            return yield* fail(new PostwireError({ code: "insufficient_scope", details: { scope } }))
          }
          // A caller may always ask to see less: the MCP tool server hides links whatever its key allows.
          const request = yield* HttpServerRequest.HttpServerRequest
          const approvalLinks = key.approvalLinks === "hidden" || request.headers[approvalLinksHeader]?.trim().toLowerCase() === "hidden"
            ? "hidden"
            : "shown"
          const answered = Effect.provideService(httpEffect, CurrentKey, {
            keyId: key.id,
            workspaceId: key.workspaceId,
            kind: key.kind,
            scopes: key.scopes,
            approvalLinks
          })
          return yield* approvalLinks === "hidden" ? withApprovalLinksHidden(answered) : answered
        }).pipe(Effect.provideContext(provided) as never)
    })
  })
)
