/**
 * What the client adds to every request: the API key, the client's name, the language of error
 * messages, an `Idempotency-Key` on each POST the server deduplicates, and retries.
 *
 * @internal
 */
import type { Locale } from "@postwire/domain"
import { Effect, type Redacted } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { withRetries } from "./retries.ts"

/** The settings the transport needs. */
export interface TransportOptions {
  /** `undefined` for the public approvals endpoint, whose token in the path is the credential. */
  readonly apiKey: string | Redacted.Redacted<string> | undefined
  readonly userAgent: string
  readonly locale: Locale | undefined
  readonly maxRetries: number
  /**
   * Whether each POST gets an `Idempotency-Key`. Only where the server deduplicates on it: a POST
   * without one is not sent again after a 5xx or a network failure, so it cannot act twice.
   */
  readonly idempotencyKeys: boolean
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
      const named = HttpClientRequest.acceptJson(HttpClientRequest.setHeader(request, "user-agent", options.userAgent))
      const authorized = options.apiKey === undefined ? named : HttpClientRequest.bearerToken(named, options.apiKey)
      return options.locale === undefined
        ? authorized
        : HttpClientRequest.setHeader(authorized, "accept-language", options.locale)
    }
    const identified = HttpClient.mapRequest(client, identify)
    const keyed = options.idempotencyKeys ? HttpClient.mapRequestEffect(identified, addIdempotencyKey) : identified
    return withRetries(options.maxRetries)(keyed)
  }
