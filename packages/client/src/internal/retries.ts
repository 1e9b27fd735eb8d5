/**
 * When and how long the client waits before sending a request again.
 *
 * A request is sent again after a 429 (the server rejected it before doing anything), and after
 * a 5xx or a network failure only when repeating it cannot act twice: a GET, or a POST carrying an
 * `Idempotency-Key` (the server replays the stored answer for a key it has seen).
 *
 * @internal
 */
import { Clock, Effect, Random } from "effect"
import { HttpClient, type HttpClientError, type HttpClientRequest, type HttpClientResponse } from "effect/http"

/** First backoff delay; each later one doubles, up to {@link maxBackoffMillis}. */
export const initialBackoffMillis = 500
/** Longest backoff delay between two attempts. */
export const maxBackoffMillis = 8_000
/** A `Retry-After` longer than this is not waited for: the error is returned to the caller. */
export const maxRetryAfterSeconds = 60

/** Whether sending `request` twice has the same effect as sending it once. */
export const isReplayable = (request: HttpClientRequest.HttpClientRequest): boolean =>
  request.method === "GET" ||
  request.method === "HEAD" ||
  (request.method === "POST" && request.headers["idempotency-key"] !== undefined)

/** Seconds to wait from a `Retry-After` header: delta-seconds, or an HTTP date. */
export const parseRetryAfter = (header: string | undefined, nowMillis: number): number | undefined => {
  if (header === undefined) return undefined
  const trimmed = header.trim()
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed)
  const date = Date.parse(trimmed)
  return Number.isNaN(date) ? undefined : Math.max(0, (date - nowMillis) / 1000)
}

/** Exponential backoff for retry number `retry` (0 for the first), with up to 25% jitter taken off. */
const backoff = (retry: number) =>
  Effect.map(
    Random.next,
    (random) => Math.min(maxBackoffMillis, initialBackoffMillis * 2 ** retry) * (1 - random * 0.25)
  )

const isRetryableStatus = (status: number) => status === 429 || status >= 500

// Reading the body of an answer that is dropped frees its connection for the next attempt.
const discardBody = (response: HttpClientResponse.HttpClientResponse) => Effect.ignore(response.arrayBuffer)

const isNetworkFailure = (error: HttpClientError.HttpClientError) => error.reason._tag === "TransportError"

/**
 * Sends each request up to `1 + maxRetries` times. Every attempt sends the very same request
 * (headers included, so an `Idempotency-Key` set earlier stays the same across attempts).
 */
export const withRetries =
  (maxRetries: number) =>
  (client: HttpClient.HttpClient): HttpClient.HttpClient =>
    HttpClient.transform(client, (send, request) =>
      Effect.gen(function* () {
        const replayable = isReplayable(request)
        for (let retry = 0; ; retry++) {
          const outcome = yield* Effect.result(send)
          const attemptsLeft = retry < maxRetries
          if (outcome._tag === "Failure") {
            if (!(attemptsLeft && replayable && isNetworkFailure(outcome.failure))) {
              return yield* Effect.fail(outcome.failure)
            }
            yield* Effect.sleep(yield* backoff(retry))
            continue
          }
          const response = outcome.success
          if (!attemptsLeft || !isRetryableStatus(response.status)) return response
          if (response.status !== 429 && !replayable) return response
          const retryAfter = parseRetryAfter(response.headers["retry-after"], yield* Clock.currentTimeMillis)
          if (retryAfter !== undefined && retryAfter > maxRetryAfterSeconds) return response
          yield* discardBody(response)
          yield* Effect.sleep(retryAfter === undefined ? yield* backoff(retry) : retryAfter * 1000)
        }
      })
    )
