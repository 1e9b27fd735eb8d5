/**
 * The one place where failures become HTTP error bodies.
 *
 * @since 0.1.0
 */
import { Cause, Effect } from "effect"
import type { HttpServerRequest } from "effect/http"
import { SqlError } from "effect/sql"
import { StoreError } from "@postwire/core"
import { type HttpError, PostwireError, toHttpError } from "@postwire/domain"
import { ServerConfig } from "../config/ServerConfig.ts"
import { requestLocale } from "./Locale.ts"

/** Renders a domain failure in the request's language. */
export const renderFailure = (
  error: PostwireError
): Effect.Effect<HttpError, never, HttpServerRequest.HttpServerRequest | ServerConfig> =>
  Effect.gen(function* () {
    const config = yield* ServerConfig
    const locale = yield* requestLocale
    return toHttpError(error, locale, config.publicUrl)
  })

/**
 * The store failure in `cause`, when the database is what failed: a `StoreError` (or a bare
 * `SqlError`) as the failure or as a defect (a transaction whose connection died).
 */
export const databaseFailure = (cause: Cause.Cause<unknown>): StoreError | SqlError.SqlError | undefined => {
  for (const reason of cause.reasons) {
    const value = Cause.isFailReason(reason) ? reason.error : Cause.isDieReason(reason) ? reason.defect : undefined
    if (value instanceof StoreError || SqlError.isSqlError(value)) return value
  }
  return undefined
}

/**
 * A 503 `service_unavailable` for a request the database could not serve, with one warning
 * line naming the operation and why (no stack: a lost database is an outage, not a bug).
 */
export const databaseUnavailable = (
  failure: StoreError | SqlError.SqlError
): Effect.Effect<HttpError, never, HttpServerRequest.HttpServerRequest | ServerConfig> => {
  const cause: unknown = failure instanceof StoreError ? failure.cause : failure
  return Effect.logWarning("database unavailable: answered 503 service_unavailable", {
    operation: failure instanceof StoreError ? failure.operation : "query",
    reason: cause instanceof Error ? cause.message : String(cause)
  }).pipe(Effect.andThen(renderFailure(new PostwireError({ code: "service_unavailable" }))))
}

/**
 * Runs a use-case for a handler: domain failures become their status class; a database that
 * does not answer is a 503 `service_unavailable` (retryable) with one warning line; anything
 * else unexpected is logged and answered as a 500 in the shared shape.
 */
export const respond = <A, R>(
  effect: Effect.Effect<A, unknown, R>
): Effect.Effect<A, HttpError, R | HttpServerRequest.HttpServerRequest | ServerConfig> =>
  effect.pipe(
    Effect.catchCause((cause) => {
      const failure = Cause.findErrorOption(cause)
      if (failure._tag === "Some" && failure.value instanceof PostwireError) {
        return Effect.flatMap(renderFailure(failure.value), Effect.fail)
      }
      if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
      const database = databaseFailure(cause)
      if (database !== undefined) return Effect.flatMap(databaseUnavailable(database), Effect.fail)
      return Effect.logError("unexpected failure", cause).pipe(
        Effect.andThen(renderFailure(new PostwireError({ code: "internal_error" }))),
        Effect.flatMap(Effect.fail)
      )
    })
  )
