/**
 * The one place where failures become answers. Every kind of failure the server meets has one
 * entry here, which names the catalog code it is answered with; the answer is always the shared
 * error shape `{ "error": { code, message, message_id, … } }` with the catalog's status, and
 * nothing unexpected leaks a stack trace.
 *
 * | kind of failure | answer |
 * |---|---|
 * | a domain failure (`PostwireError`) from a use-case, middleware or page | its own code and status, in the request's language |
 * | a database that does not answer | 503 `service_unavailable` (retryable), one warning line |
 * | a request that does not match the contract | 400 `invalid_request` naming each field |
 * | a body that is not JSON | 400 `invalid_request` naming `body` |
 * | a `multipart/form-data` body the parser refused | 400 `invalid_request` or 413 `payload_too_large` / `request_too_large` |
 * | an upload part streamed past its limit | 413 `request_too_large` |
 * | an answer that does not match the contract (a server bug) | 500 `internal_error`, logged |
 * | anything else unexpected | 500 `internal_error`, logged with its cause |
 * | a request Node's HTTP parser refuses | 400 `invalid_request` or 431 `headers_too_large` on the socket, in English, then close |
 * | a request that arrives while the server is still starting | 503 `not_ready` with `Retry-After` (`GET /health` is 200) |
 *
 * Three renderings of the same shape: {@link renderFailure} for the API's handlers and
 * middleware (an `HttpError`), {@link errorResponse} for routes outside the API (a response),
 * and {@link errorBody} for answers written before a request reaches Effect.
 *
 * @since 0.1.0
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { Duplex } from "node:stream"
import { Cause, Effect, Layer } from "effect"
import { type HttpServerRequest, HttpServerResponse, Multipart } from "effect/http"
import { HttpApiError } from "effect/http-api"
import { SqlError } from "effect/sql"
import { StoreError } from "@postwire/core"
import {
  ApiErrors,
  ErrorDetail,
  type HttpError,
  type Locale,
  localeFromAcceptLanguage,
  Media as MediaWire,
  PostwireError,
  RequestIssues,
  renderError,
  toHttpError
} from "@postwire/domain"
import { ServerConfig } from "../config/ServerConfig.ts"
import * as RequestId from "../observability/RequestId.ts"
import { requestLocale } from "./Locale.ts"

// ---------------------------------------------------------------------------------------------
// Renderings
// ---------------------------------------------------------------------------------------------

/** Renders a domain failure in the request's language, as the API's error class for its status. */
export const renderFailure = (
  error: PostwireError
): Effect.Effect<HttpError, never, HttpServerRequest.HttpServerRequest | ServerConfig> =>
  Effect.gen(function* () {
    const config = yield* ServerConfig
    const locale = yield* requestLocale
    return toHttpError(error, locale, config.publicUrl)
  })

/** A domain failure as a JSON response with its catalog status, for routes outside the API. */
export const errorResponse = (
  error: PostwireError,
  locale: Locale,
  publicUrl: string,
  headers?: Readonly<Record<string, string>>
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.jsonUnsafe(
    { error: renderError(error, locale, publicUrl) },
    { status: error.httpStatus, ...(headers === undefined ? {} : { headers }) }
  )

/** The JSON text of an error body with its request id, for answers written on Node's own objects. */
export const errorBody = (error: PostwireError, locale: Locale, publicUrl: string, requestId: string): string =>
  JSON.stringify({ error: { ...renderError(error, locale, publicUrl), request_id: requestId } })

const fail = (error: PostwireError) => Effect.flatMap(renderFailure(error), Effect.fail)

// ---------------------------------------------------------------------------------------------
// A database that does not answer: 503 `service_unavailable`
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Anything unexpected: 500 `internal_error`, logged
// ---------------------------------------------------------------------------------------------

/** A 500 `internal_error` for a failure nobody expected, logged with `what` and its cause. */
const unexpected = (what: string, cause: unknown) =>
  Effect.logError(what, cause).pipe(Effect.andThen(fail(new PostwireError({ code: "internal_error" }))))

// ---------------------------------------------------------------------------------------------
// A request that does not match the contract: 400 `invalid_request` naming the field
// ---------------------------------------------------------------------------------------------

/** `["targets", 0, "account_id"]` → `targets[0].account_id`. */
export const fieldPath = (path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>): string =>
  path
    .map((segment) => (typeof segment === "object" && segment !== null && "key" in segment ? segment.key : segment))
    .reduce<string>((out, key) => {
      if (typeof key === "number") return `${out}[${key}]`
      const name = String(key)
      return out === "" ? name : `${out}.${name}`
    }, "")

const slotField: Record<string, string> = {
  Payload: "body",
  Body: "body",
  Query: "query",
  Params: "path",
  Headers: "headers"
}

const headerName = (name: string) => name.replace(/(^|-)(\w)/g, (_, dash: string, c: string) => dash + c.toUpperCase())

/** Turns a request decoding failure into `invalid_request` failures, one per problem. */
export const schemaErrorToFailure = (error: HttpApiError.HttpApiSchemaError): PostwireError => {
  const issues = RequestIssues.describe(error.cause.issue).map((issue) => {
    const path = fieldPath(issue.path)
    const field = path === "" ? (slotField[error.kind] ?? "body") : error.kind === "Headers" ? headerName(path) : path
    return new PostwireError({ code: "invalid_request", field, details: { detail: issue.detail } })
  })
  const first =
    issues[0] ??
    new PostwireError({ code: "invalid_request", field: "body", details: { detail: ErrorDetail.reason("malformed") } })
  return issues.length > 1 ? new PostwireError({ ...first, code: first.code, issues }) : first
}

// ---------------------------------------------------------------------------------------------
// A body that is not JSON: 400 `invalid_request` naming `body`
// ---------------------------------------------------------------------------------------------

const isRequestParseError = (u: unknown): boolean =>
  typeof u === "object" && u !== null && "_tag" in u && (u as { _tag: unknown })._tag === "HttpServerError" &&
  "reason" in u

const notJson = () =>
  new PostwireError({ code: "invalid_request", field: "body", details: { detail: ErrorDetail.reason("json_object") } })

// ---------------------------------------------------------------------------------------------
// A form or an upload part the server cannot take: 400 or 413
// ---------------------------------------------------------------------------------------------

const { maxInlineUploadBytes } = MediaWire

/**
 * A `multipart/form-data` body the parser refused (no boundary, cut short, a part without
 * headers, over a limit) is the client's mistake: a 4xx naming the body, not a 500.
 */
const multipartProblem = (cause: Cause.Cause<unknown>): PostwireError | undefined => {
  const defect = Cause.findDefect(cause)
  if (defect._tag !== "Success" || !Multipart.isMultipartError(defect.success)) return undefined
  switch (defect.success.reason._tag) {
    case "InternalError":
      return undefined
    case "FileTooLarge":
      return new PostwireError({ code: "payload_too_large", field: "file", details: { limit: maxInlineUploadBytes } })
    case "Parse":
      return new PostwireError({ code: "invalid_request", field: "body", details: { detail: ErrorDetail.reason("malformed") } })
    default:
      return new PostwireError({ code: "request_too_large", field: "body", details: { limit: maxInlineUploadBytes } })
  }
}

/** A part streamed past its limit without declaring its length. */
const partTooLarge = () =>
  new PostwireError({ code: "request_too_large", field: "body", details: { limit: MediaWire.uploadPartBytes } })

// ---------------------------------------------------------------------------------------------
// The API's handlers and middleware
// ---------------------------------------------------------------------------------------------

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
      if (failure._tag === "Some" && failure.value instanceof PostwireError) return fail(failure.value)
      if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
      const database = databaseFailure(cause)
      if (database !== undefined) return Effect.flatMap(databaseUnavailable(database), Effect.fail)
      return unexpected("unexpected failure", cause)
    })
  )

/**
 * The live `ApiErrors` middleware, around every endpoint of the API: bad input becomes a 400
 * naming the field, a database that does not answer a 503, anything unexpected a 500; an
 * answer a handler already rendered passes through.
 */
export const ApiErrorsLive = Layer.effect(
  ApiErrors,
  Effect.gen(function* () {
    const config = yield* ServerConfig
    return (httpEffect) =>
      httpEffect.pipe(
        Effect.catchCause((cause) => {
          const failure = Cause.findErrorOption(cause)
          if (failure._tag === "Some") {
            const error: unknown = failure.value
            if (HttpApiError.HttpApiSchemaError.is(error)) {
              if (error.kind === "Body" || error.kind === "ResponseHeaders") return unexpected("response encoding failed", error.cause)
              return fail(schemaErrorToFailure(error))
            }
            if (HttpApiError.HttpApiPayloadTooLarge.is(error)) return fail(partTooLarge())
            if (isRequestParseError(error)) return fail(notJson())
            return Effect.failCause(cause as Cause.Cause<never>)
          }
          if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
          // A lost database (in a middleware: the key's lookup, the rate limit) is an outage: 503.
          const database = databaseFailure(cause)
          if (database !== undefined) return Effect.flatMap(databaseUnavailable(database), Effect.fail)
          const badForm = multipartProblem(cause)
          if (badForm !== undefined) return fail(badForm)
          return unexpected("unexpected defect", cause)
        }),
        Effect.provideService(ServerConfig, config)
      ) as never
  })
)

// ---------------------------------------------------------------------------------------------
// A request Node's HTTP parser refuses: answered on the socket, in English, then closed
// ---------------------------------------------------------------------------------------------
// Node's own answer would be a bare status line with an empty body. No `Accept-Language` can be
// trusted from an unparsed request.

const statusText: Record<number, string> = { 400: "Bad Request", 413: "Payload Too Large", 431: "Request Header Fields Too Large" }

/** The most a request's line and headers may take (Node's `maxHeaderSize`). */
export const maxHeaderBytes = 64 * 1024

/** The failure for a parser error code: headers too large (431), a bad chunk, a bad method, or a bad request. */
const unparsable = (code: string | undefined): PostwireError =>
  code === "HPE_HEADER_OVERFLOW"
    ? new PostwireError({ code: "headers_too_large", field: "headers", details: { limit: maxHeaderBytes } })
    : /CHUNK/.test(code ?? "")
      ? new PostwireError({ code: "invalid_request", field: "body", details: { detail: ErrorDetail.reason("chunked_encoding") } })
      : new PostwireError({ code: "invalid_request", field: code === "HPE_INVALID_METHOD" ? "method" : "request" })

/** Writes one error answer on a raw socket and closes it. */
export const writeErrorAnswer = (socket: Duplex, error: PostwireError, publicUrl: string) => {
  // The request could not be read, so a caller's X-Request-Id cannot be trusted: a new id.
  const requestId = RequestId.make()
  const body = errorBody(error, "en", publicUrl, requestId)
  const status = error.httpStatus
  socket.end(
    `HTTP/1.1 ${status} ${statusText[status] ?? "Bad Request"}\r\n` +
      "Content-Type: application/json\r\n" +
      `X-Request-Id: ${requestId}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      "Connection: close\r\n\r\n" +
      body
  )
}

/** Makes the server answer parser-level failures in the shared error shape. */
export const answerClientErrors = (server: Server, publicUrl: string): Server =>
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    // The client went away, or an answer already started on this connection: nothing more can be
    // written. A request whose body turns out malformed (a bad chunk size) after its route began
    // has an answer object but nothing sent yet: it is answered here, and the route's own answer,
    // if it comes, finds the connection closed.
    const started = (socket as { _httpMessage?: { readonly headersSent?: boolean } })._httpMessage?.headersSent === true
    if (error.code === "ECONNRESET" || !socket.writable || started) {
      socket.destroy()
      return
    }
    writeErrorAnswer(socket, unparsable(error.code), publicUrl)
  })

// ---------------------------------------------------------------------------------------------
// A request that arrives while the server is still starting: 503 `not_ready`
// ---------------------------------------------------------------------------------------------
// The HTTP server listens before its routes are built (the tool server at `/mcp` needs the bound
// port), and Node holds a request that no listener takes for ever: a load balancer's health
// check at start-up would hang. Until the router takes the requests over, every request is
// answered at once: `GET /health` with `200 {"status":"ok"}` (the process is alive), every other
// address, `/ready` and `/v1` included, with `503 not_ready`, `Retry-After` and the request id
// (docs/operations.md, "Health and readiness").

/** The seconds a caller is asked to wait before trying again during a start. */
export const retryAfterSeconds = 1

const header = (request: IncomingMessage, name: string) => {
  const value = request.headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** Whether a request asks for `/health`, at the root or under the public URL's path. */
const isHealth = (url: string | undefined, publicPath: string) => {
  const path = (url ?? "/").split("?")[0]!
  return path === "/health" || path === `${publicPath}/health`
}

const stillStarting = () => new PostwireError({ code: "not_ready", details: { detail: ErrorDetail.reason("still_starting") } })

/**
 * Makes `server` answer every request until another `request` listener (the router's) is
 * installed; from then on this one steps aside and leaves.
 */
export const answerWhileStarting = (server: Server, publicUrl: string): Server => {
  const publicPath = new URL(publicUrl).pathname.replace(/\/+$/, "")
  const starting = (request: IncomingMessage, response: ServerResponse) => {
    // The router listens too: it answers this request and every later one.
    if (server.listenerCount("request") > 1) {
      server.off("request", starting)
      return
    }
    const requestId = RequestId.fromHeader(header(request, "x-request-id"))
    if (request.method === "GET" || request.method === "HEAD") {
      if (isHealth(request.url, publicPath)) {
        const body = JSON.stringify({ status: "ok" })
        response.writeHead(200, {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          "x-request-id": requestId
        })
        response.end(body)
        return
      }
    }
    const body = errorBody(stillStarting(), localeFromAcceptLanguage(header(request, "accept-language")), publicUrl, requestId)
    response.writeHead(503, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
      "retry-after": String(retryAfterSeconds),
      "x-request-id": requestId
    })
    response.end(body)
  }
  return server.on("request", starting)
}
