/**
 * The one place where failures become HTTP error bodies.
 *
 * @since 0.1.0
 */
import { Cause, Effect } from "effect"
import type { HttpServerRequest } from "effect/http"
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
 * Runs a use-case for a handler: domain failures become their status class; anything else
 * unexpected (a database outage) is logged and answered as a 500 in the shared shape.
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
      return Effect.logError("unexpected failure", cause).pipe(
        Effect.andThen(renderFailure(new PostwireError({ code: "internal_error" }))),
        Effect.flatMap(Effect.fail)
      )
    })
  )
