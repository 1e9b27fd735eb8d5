/**
 * The request log (`POSTWIRE_LOG_REQUESTS=1`): one line per response with the method, the path
 * and the status. Effect's own logger would write the path as it came, and two paths carry a
 * credential: an approval link's token (`/approve/{token}`, `/v1/approvals/{token}/decision`)
 * and a connect link's (`/connect/{token}`, `/connect/{token}/start`).
 * This one writes `{token}` in its place, and never a query string (media addresses carry
 * their signature there).
 *
 * @since 0.1.0
 */
import { type Cause, Effect, Option } from "effect"
import { HttpServerError, HttpServerRequest, type HttpServerResponse } from "effect/http"

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

/** Logs every response of `httpApp`; a failure's cause is logged with it unless the client went away. */
export const requestLog = <E, R>(
  httpApp: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const exit = yield* Effect.exit(httpApp)
    const [status, cause] =
      exit._tag === "Success"
        ? [exit.value.status, Option.none<Cause.Cause<E>>()]
        : (([response, rest]) => [response.status, rest] as const)(HttpServerError.causeResponseStripped(exit.cause))
    const annotations = { "http.method": request.method, "http.url": loggablePath(request.url), "http.status": status }
    const line =
      Option.isSome(cause) && !isClientAbort(cause.value)
        ? Effect.logError("Sent HTTP response", cause.value)
        : Effect.log("Sent HTTP response")
    yield* Effect.annotateLogs(line, annotations)
    return yield* exit
  }).pipe(Effect.withLogSpan("http.span"))
