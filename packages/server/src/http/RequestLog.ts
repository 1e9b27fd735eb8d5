/**
 * What the server does around every request, outermost: gives it its request id (the
 * `X-Request-Id` header of the response and `error.request_id` of an error body), counts it in
 * the HTTP metrics under its route template, and (`POSTWIRE_LOG_REQUESTS=1`) logs one line per
 * response with the request id, method, route, path, status and duration.
 *
 * Effect's own logger would write the path as it came, and two paths carry a credential: an
 * approval link's token (`/approve/{token}`, `/v1/approvals/{token}/decision`) and a connect
 * link's (`/connect/{token}`, `/connect/{token}/start`). This one writes `{token}` in its place,
 * and never a query string (media addresses carry their signature there).
 *
 * @since 0.1.0
 */
import { type Cause, Clock, Effect, Option } from "effect"
import { HttpBody, HttpEffect, HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import { MatchedRoute, recordRequest } from "../observability/HttpMetrics.ts"
import * as RequestId from "../observability/RequestId.ts"

const credentialInPath: ReadonlyArray<readonly [RegExp, string]> = [
  [/^\/approve\/[^/]+/, "/approve/{token}"],
  [/^\/v1\/approvals\/[^/]+/, "/v1/approvals/{token}"],
  // A connect link's token; the callback, sandbox and deauthorization routes carry none in their path.
  [/^\/connect\/(?!callback\/|sandbox\/|deauthorize\/)[^/]+/, "/connect/{token}"]
]

/** The path of `url` as the log writes it: no query, no fragment, no approval token. */
export const loggablePath = (url: string): string => {
  const path = url.split(/[?#]/, 1)[0] ?? ""
  for (const [pattern, replacement] of credentialInPath) {
    if (pattern.test(path)) return path.replace(pattern, replacement)
  }
  return path
}

const isClientAbort = (cause: Cause.Cause<unknown>) =>
  cause.reasons.length > 0 && cause.reasons.every((reason) => reason._tag === "Interrupt")

/** The response with its request id: the `X-Request-Id` header, and `error.request_id` in an error body. */
export const withRequestId = (
  response: HttpServerResponse.HttpServerResponse,
  requestId: string
): HttpServerResponse.HttpServerResponse => {
  const identified = HttpServerResponse.setHeader(response, "x-request-id", requestId)
  const body = response.body
  if (response.status < 400 || body._tag !== "Uint8Array" || !body.contentType.includes("json")) return identified
  let parsed: unknown
  try {
    parsed = JSON.parse(new TextDecoder().decode(body.body))
  } catch {
    return identified
  }
  if (typeof parsed !== "object" || parsed === null || !("error" in parsed)) return identified
  const error = (parsed as { error: unknown }).error
  if (typeof error !== "object" || error === null || Array.isArray(error)) return identified
  const text = JSON.stringify({ ...parsed, error: { ...error, request_id: requestId } })
  return HttpServerResponse.setBody(identified, HttpBody.text(text, body.contentType))
}

/** Observes every request of `httpApp`: request id, metrics, and (when `logRequests`) the request log. */
export const observeRequests =
  (logRequests: boolean) =>
  <E, R>(
    httpApp: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const requestId = RequestId.fromHeader(request.headers["x-request-id"])
      const started = yield* Clock.currentTimeNanos
      const matched = { template: undefined as string | undefined }
      yield* HttpEffect.appendPreResponseHandler((_request, response) => Effect.succeed(withRequestId(response, requestId)))
      yield* Effect.annotateCurrentSpan("postwire.request_id", requestId)
      const exit = yield* Effect.exit(
        httpApp.pipe(
          // Every line logged while the request is served carries its id.
          Effect.annotateLogs({ request_id: requestId }),
          Effect.provideService(MatchedRoute, matched),
          Effect.provideService(RequestId.CurrentRequestId, requestId)
        )
      )
      const [status, cause] =
        exit._tag === "Success"
          ? [exit.value.status, Option.none<Cause.Cause<E>>()]
          : (([response, rest]) => [response.status, rest] as const)(HttpServerError.causeResponseStripped(exit.cause))
      const durationMs = Number((yield* Clock.currentTimeNanos) - started) / 1e6
      const route = matched.template ?? "unmatched"
      yield* recordRequest({ route, method: request.method, status, seconds: durationMs / 1000 })
      if (logRequests) {
        const line =
          Option.isSome(cause) && !isClientAbort(cause.value)
            ? Effect.logError("Sent HTTP response", cause.value)
            : Effect.log("Sent HTTP response")
        yield* Effect.annotateLogs(line, {
          request_id: requestId,
          method: request.method,
          route,
          path: loggablePath(request.url),
          status,
          duration_ms: Math.round(durationMs * 1000) / 1000
        })
      }
      return yield* exit
    })

/** The request log alone, as before: {@link observeRequests} with logging on. */
export const requestLog = observeRequests(true)
