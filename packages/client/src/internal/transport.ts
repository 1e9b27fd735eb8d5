/**
 * What the client adds to every request: the API key, the client's name, the language of error
 * messages, an `Idempotency-Key` on each POST, and retries.
 *
 * @internal
 */
import type { Locale } from "@postwire/domain"
import { Effect, type Redacted } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { withRetries } from "./retries.ts"

/** The settings the transport needs. */
export interface TransportOptions {
  readonly apiKey: string | Redacted.Redacted<string>
  readonly userAgent: string
  readonly locale: Locale | undefined
  readonly maxRetries: number
}

// Generated once per call, before the retries, so every attempt of the call carries the same key.
const addIdempotencyKey = (request: HttpClientRequest.HttpClientRequest) =>
  request.method === "POST" && request.headers["idempotency-key"] === undefined
    ? Effect.sync(() => HttpClientRequest.setHeader(request, "idempotency-key", crypto.randomUUID()))
    : Effect.succeed(request)

/** The `transformClient` of the generated client. */
export const transformClient =
  (options: TransportOptions) =>
  (client: HttpClient.HttpClient): HttpClient.HttpClient => {
    const identify = (request: HttpClientRequest.HttpClientRequest) => {
      const authorized = HttpClientRequest.acceptJson(
        HttpClientRequest.setHeader(HttpClientRequest.bearerToken(request, options.apiKey), "user-agent", options.userAgent)
      )
      return options.locale === undefined
        ? authorized
        : HttpClientRequest.setHeader(authorized, "accept-language", options.locale)
    }
    return client.pipe(
      HttpClient.mapRequest(identify),
      HttpClient.mapRequestEffect(addIdempotencyKey),
      withRetries(options.maxRetries)
    )
  }
