/**
 * The language of a request: `Accept-Language: id` selects Indonesian.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import { type Locale, localeFromAcceptLanguage } from "@postwire/domain"

/** The locale of the current request. */
export const requestLocale: Effect.Effect<Locale, never, HttpServerRequest.HttpServerRequest> = Effect.map(
  HttpServerRequest.HttpServerRequest,
  (request) => localeFromAcceptLanguage(request.headers["accept-language"])
)
