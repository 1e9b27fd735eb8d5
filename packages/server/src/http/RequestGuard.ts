/**
 * What every request meets before its route: the checks no single endpoint should have to repeat.
 *
 * - A JSON body sent with another `Content-Type` (`fetch` with a string body says `text/plain`,
 *   `curl -d` says form-urlencoded) is read as JSON: the API speaks nothing else, except media
 *   bytes (a part of a resumable upload, a `multipart/form-data` upload), which pass untouched.
 * - A NUL character, which no text column can hold, is refused up front: in the body as a 400
 *   naming the field, in a query parameter as a 400 naming it, in the path as a 404.
 * - The public approval and connect routes, which carry no key, are limited per kind of page
 *   (approval, connect, connect callback), per client address ({@link ClientAddress}: behind a
 *   trusted proxy, the address it forwards for) and per token, and answer with the
 *   `X-RateLimit-*` headers like the rest of the API: guessing approval links locks out neither
 *   the connect pages nor the callbacks, and no one link can be hammered from many addresses.
 * - An address no route serves is answered in the shared error shape, never an empty body: a
 *   path that exists with other methods is 405 `method_not_allowed` with an `Allow` header, any
 *   other 404 `route_not_found` naming the method and path ({@link RouteTable}).
 * - A body larger than its address accepts (`BodyLimits`) is a 413 `request_too_large`, and the
 *   connection is closed instead of reading the rest.
 *
 * @since 0.1.0
 */

import { hashSecret } from "@postwire/core"
import { ErrorDetail, PostwireError } from "@postwire/domain"
import { ByteSize, Cause, Effect } from "effect"
import {
  Headers,
  HttpIncomingMessage,
  HttpMethod,
  HttpRouter,
  HttpServerError,
  HttpServerRequest,
  HttpServerResponse
} from "effect/http"
import { ServerConfig } from "../config/ServerConfig.ts"
import { limitFor } from "./BodyLimits.ts"
import { errorResponse } from "./Failures.ts"
import { requestLocale } from "./Locale.ts"
import { RateLimiter } from "../limits/RateLimiter.ts"
import * as ClientAddress from "../config/ClientAddress.ts"
import { announce, countRequests, tightest } from "./RateLimits.ts"
import { RouteTable } from "./RouteTable.ts"

const isApi = (path: string) => path.startsWith("/v1/") || path.startsWith("/admin/")
// The connect pages and callbacks carry no key either.
const isPublicApproval = (path: string) =>
  path.startsWith("/v1/approvals/") || path.startsWith("/approve/") || path.startsWith("/connect/")

/**
 * The kind of a public page and the token it names (an approval or connect link's token, a
 * callback's `state`), each kind with its own budget.
 */
const publicPage = (url: string): { readonly kind: string; readonly token: string | undefined } => {
  const [path = "", query = ""] = url.split("?", 2)
  const segment = (prefix: string) => path.slice(prefix.length).split("/", 1)[0] || undefined
  if (path.startsWith("/v1/approvals/")) return { kind: "approval", token: segment("/v1/approvals/") }
  if (path.startsWith("/approve/")) return { kind: "approval", token: segment("/approve/") }
  if (path.startsWith("/connect/callback/") || path.startsWith("/connect/deauthorize/") || path.startsWith("/connect/sandbox/")) {
    return { kind: "callback", token: new URLSearchParams(query).get("state") || undefined }
  }
  return { kind: "connect", token: segment("/connect/") }
}

const isJson = (contentType: string | undefined) => {
  if (contentType === undefined) return true
  const type = contentType.split(";")[0]?.trim().toLowerCase() ?? ""
  return type === "application/json"
}

// Media bytes are not JSON and may be large: a part of a resumable upload is streamed to storage
// and a form upload goes to the multipart parser, neither read here.
const isBinaryUpload = (method: string, path: string, contentType: string | undefined) =>
  (method === "PUT" && path.startsWith("/v1/media/uploads/")) ||
  (path === "/v1/media" && (contentType ?? "").toLowerCase().startsWith("multipart/form-data"))

/** Where a NUL character sits in a parsed JSON value: `caption`, `targets[0].account_id`, … */
export const nulPath = (value: unknown, path = ""): string | undefined => {
  if (typeof value === "string") return value.includes("\0") ? path || "body" : undefined
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = nulPath(item, `${path}[${i}]`)
      if (found !== undefined) return found
    }
    return undefined
  }
  if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const at = path === "" ? key : `${path}.${key}`
      if (key.includes("\0")) return at
      const found = nulPath(item, at)
      if (found !== undefined) return found
    }
  }
  return undefined
}

const noNul = (field: string) =>
  new PostwireError({ code: "invalid_request", field, details: { detail: ErrorDetail.reason("nul_character") } })

/** The NUL problem of a request's address, if it has one. */
const addressProblem = (url: string): PostwireError | undefined => {
  if (!/%00/i.test(url)) return undefined
  const [path = "", query = ""] = url.split("?", 2)
  if (/%00/i.test(path)) return new PostwireError({ code: "not_found", details: { resource: ErrorDetail.resource("resource") } })
  for (const [name, value] of new URLSearchParams(query)) {
    if (name.includes("\0") || value.includes("\0")) return noNul(name.replaceAll("\0", ""))
  }
  return undefined
}

const isRouteNotFound = (error: unknown) =>
  HttpServerError.isHttpServerError(error) && error.reason._tag === "RouteNotFound"

/** A request's path as an error message quotes it: without its query, and at most 200 characters. */
const quotedPath = (url: string) => {
  const path = url.split("?", 1)[0] ?? ""
  return path.length > 200 ? `${path.slice(0, 200)}…` : path
}

const isBodyTooLarge = (error: unknown) =>
  HttpServerError.isHttpServerError(error) &&
  error.reason._tag === "RequestParseError" &&
  (error.reason as { readonly reason?: string }).reason === "BodyTooLarge"

/** The declared length of a request's body, when it declares one. */
const declaredLength = (request: HttpServerRequest.HttpServerRequest): number | undefined => {
  const header = request.headers["content-length"]
  return header !== undefined && /^\d+$/.test(header) ? Number(header) : undefined
}

/** The request checks, as global middleware of the router. */
export const RequestGuard = HttpRouter.middleware(
  Effect.gen(function* () {
    const config = yield* ServerConfig
    const rateLimits = yield* RateLimiter
    const routes = yield* RouteTable

    const answer = (error: PostwireError) =>
      Effect.map(requestLocale, (locale) => errorResponse(error, locale, config.publicUrl))

    // Closing, not reading on: the rest of an oversized body is never worth receiving.
    const tooLarge = (limit: number) =>
      Effect.map(answer(new PostwireError({ code: "request_too_large", field: "body", details: { limit } })), (response) =>
        HttpServerResponse.setHeader(response, "connection", "close")
      )

    return (httpEffect) =>
      Effect.gen(function* () {
        let request = yield* HttpServerRequest.HttpServerRequest
        const path = request.url.split("?", 1)[0] ?? ""

        if (isApi(path)) {
          const problem = addressProblem(request.url)
          if (problem !== undefined) return yield* answer(problem)
        }

        if (isPublicApproval(path)) {
          const address = ClientAddress.of(request, config.trustedProxies ?? ClientAddress.none)
          const { kind, token } = publicPage(request.url)
          // A token's digest names its bucket: the limits' table never holds a link's secret.
          const states = yield* countRequests([
            { bucket: `public:${kind}:${address}`, limit: config.rateLimitPublic },
            ...(token === undefined ? [] : [{ bucket: `public:${kind}:token:${hashSecret(token)}`, limit: config.rateLimitPublic }])
          ]).pipe(Effect.provideService(RateLimiter, rateLimits), Effect.orDie)
          const state = tightest(states)
          yield* announce(state)
          if (state.exceeded) {
            const error = new PostwireError({ code: "rate_limited", details: { retry_after: state.retryAfter } })
            if (path.startsWith("/v1/")) return yield* answer(error)
            return HttpServerResponse.text(
              `Too many requests: try again in ${state.retryAfter} seconds.\nTerlalu banyak permintaan: coba lagi dalam ${state.retryAfter} detik.\n`,
              { status: 429 }
            )
          }
        }

        const limit = HttpMethod.hasBody(request.method) ? limitFor(path, config.bodyLimits) : undefined
        if (limit !== undefined) {
          const declared = declaredLength(request)
          if (declared !== undefined && declared > limit) return yield* tooLarge(limit)
        }

        // A part is bytes whatever type the client names (or none): the contract takes octet-stream.
        if (request.method === "PUT" && path.startsWith("/v1/media/uploads/")) {
          request = request.modify({ headers: Headers.set(request.headers, "content-type", "application/octet-stream") })
        }
        if (isApi(path) && HttpMethod.hasBody(request.method) && !isBinaryUpload(request.method, path, request.headers["content-type"])) {
          if (!isJson(request.headers["content-type"])) {
            request = request.modify({ headers: Headers.set(request.headers, "content-type", "application/json") })
          }
          // Read once here, within the limit; the request keeps the text for the route that decodes it.
          const read = yield* request.text.pipe(
            Effect.provideService(HttpIncomingMessage.MaxBodySize, limit === undefined ? undefined : ByteSize.bytes(BigInt(limit))),
            Effect.map((text) => ({ text, tooLarge: false })),
            Effect.catch((error) => Effect.succeed({ text: "", tooLarge: isBodyTooLarge(error) }))
          )
          if (read.tooLarge && limit !== undefined) return yield* tooLarge(limit)
          const text = read.text
          if (text.includes("\\u0000")) {
            const field = (() => {
              try {
                return nulPath(JSON.parse(text))
              } catch {
                return undefined
              }
            })()
            if (field !== undefined) return yield* answer(noNul(field))
          }
        }

        return yield* httpEffect.pipe(
          Effect.provideService(HttpServerRequest.HttpServerRequest, request),
          // Routes that read their own body (the approval and connect forms) read within the limit too.
          Effect.provideService(HttpIncomingMessage.MaxBodySize, limit === undefined ? undefined : ByteSize.bytes(BigInt(limit)))
        )
      }).pipe(
        Effect.catchCause((cause) => {
          const failure = Cause.findErrorOption(cause)
          if (failure._tag === "None" || !isRouteNotFound(failure.value)) return Effect.failCause(cause)
          return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
            const allowed = routes.allowed(request.url)
            // The route exists for this method: only its id is longer than any id can be.
            if (allowed.includes(request.method)) {
              return answer(new PostwireError({ code: "not_found", details: { resource: ErrorDetail.resource("resource") } }))
            }
            const where = { method: request.method, path: quotedPath(request.url) }
            if (allowed.length === 0) return answer(new PostwireError({ code: "route_not_found", details: where }))
            const allow = allowed.join(", ")
            return Effect.map(answer(new PostwireError({ code: "method_not_allowed", details: { ...where, allow } })), (response) =>
              HttpServerResponse.setHeader(response, "allow", allow)
            )
          })
        })
      )
  }),
  { global: true }
)
