/**
 * The `ApiErrors` middleware: bad input becomes a 400 naming the field; a database that does not
 * answer a 503 `service_unavailable`; anything unexpected becomes a 500 in the shared shape. Nothing leaks a stack trace.
 *
 * @since 0.1.0
 */
import { Cause, Effect, Layer } from "effect"
import { Multipart } from "effect/http"
import { HttpApiError } from "effect/http-api"
import { ApiErrors, ErrorDetail, Media as MediaWire, PostwireError, RequestIssues } from "@postwire/domain"
import { ServerConfig } from "../config/ServerConfig.ts"
import { databaseFailure, databaseUnavailable, renderFailure } from "./Failures.ts"

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

const headerName = (name: string) => name.replace(/(^|-)(\w)/g, (_, dash: string, c: string) => dash + c.toUpperCase())

/** The live `ApiErrors` middleware. */
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
              if (error.kind === "Body" || error.kind === "ResponseHeaders") {
                return Effect.logError("response encoding failed", error.cause).pipe(
                  Effect.andThen(renderFailure(new PostwireError({ code: "internal_error" }))),
                  Effect.flatMap(Effect.fail)
                )
              }
              return Effect.flatMap(renderFailure(schemaErrorToFailure(error)), Effect.fail)
            }
            // A part streamed past its limit without declaring its length.
            if (HttpApiError.HttpApiPayloadTooLarge.is(error)) {
              return Effect.flatMap(
                renderFailure(new PostwireError({ code: "request_too_large", field: "body", details: { limit: MediaWire.uploadPartBytes } })),
                Effect.fail
              )
            }
            if (isRequestParseError(error)) {
              return Effect.flatMap(
                renderFailure(
                  new PostwireError({
                    code: "invalid_request",
                    field: "body",
                    details: { detail: ErrorDetail.reason("json_object") }
                  })
                ),
                Effect.fail
              )
            }
            return Effect.failCause(cause as Cause.Cause<never>)
          }
          if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
          // A lost database (in a middleware: the key's lookup, the rate limit) is an outage: 503.
          const database = databaseFailure(cause)
          if (database !== undefined) return Effect.flatMap(databaseUnavailable(database), Effect.fail)
          const badForm = multipartProblem(cause)
          if (badForm !== undefined) return Effect.flatMap(renderFailure(badForm), Effect.fail)
          return Effect.logError("unexpected defect", cause).pipe(
            Effect.andThen(renderFailure(new PostwireError({ code: "internal_error" }))),
            Effect.flatMap(Effect.fail)
          )
        }),
        Effect.provideService(ServerConfig, config)
      ) as never
  })
)

/**
 * A `multipart/form-data` body the parser refused (no boundary, cut short, a part without
 * headers, over a limit) is the client's mistake: a 4xx naming the body, not a 500.
 */
const { maxInlineUploadBytes } = MediaWire

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

const isRequestParseError = (u: unknown): boolean =>
  typeof u === "object" && u !== null && "_tag" in u && (u as { _tag: unknown })._tag === "HttpServerError" &&
  "reason" in u
