/**
 * Turns every way a call can fail into a {@link PostwireApiError} or a
 * {@link PostwireConnectionError}.
 *
 * @internal
 */
import {
  docsUrl,
  ErrorObject,
  type ErrorItem,
  type HttpError,
  httpErrors,
  type Locale,
  type LocalizedText,
  RequestIssues,
  renderMessage
} from "@postwire/domain"
import { Cause, Effect, Schema } from "effect"
import type { HttpClientResponse } from "effect/http"
import { HttpClientError } from "effect/http"
import { PostwireApiError, type PostwireClientError, PostwireConnectionError } from "../ClientError.ts"
import { parseRetryAfter } from "./retries.ts"

/** What the mapping needs to know about the client. */
export interface ErrorContext {
  /** The server's address, for documentation links of errors found before sending. */
  readonly baseUrl: string
  readonly locale: Locale
}

const ErrorBody = Schema.Struct({ error: ErrorObject })
const decodeErrorBody = Schema.decodeUnknownOption(ErrorBody)

const isDeclaredError = (failure: unknown): failure is HttpError =>
  httpErrors.some((errorClass) => failure instanceof errorClass)

const apiError = (response: HttpClientResponse.HttpClientResponse, error: ErrorObject): PostwireApiError =>
  new PostwireApiError({
    status: response.status,
    code: error.code,
    message: error.message,
    messageId: error.message_id,
    field: error.field,
    targetId: error.target_id,
    platformCode: error.platform_code,
    retryable: error.retryable,
    docs: error.docs,
    issues: error.issues,
    requestId: response.headers["x-request-id"],
    retryAfter: parseRetryAfter(response.headers["retry-after"], Date.now()),
    error
  })

// An error status whose body is not the API's shape: a proxy's 502 page, an old server.
const unexpectedAnswer = (response: HttpClientResponse.HttpClientResponse, context: ErrorContext): PostwireApiError =>
  apiError(response, {
    code: "unexpected_response",
    message: `The server answered HTTP ${response.status} without an error in the API's shape.`,
    message_id: `Server menjawab HTTP ${response.status} tanpa keterangan kesalahan dalam format API.`,
    retryable: response.status === 429 || response.status >= 500,
    docs: `${context.baseUrl}/docs/errors`
  })

const failuresOf = (cause: Cause.Cause<unknown>): ReadonlyArray<unknown> =>
  cause.reasons.filter(Cause.isFailReason).map((reason) => reason.error)

// Interruptions and defects are not the caller's errors to handle: they pass through unchanged.
const passThrough = (cause: Cause.Cause<unknown>) => Effect.failCause(cause as Cause.Cause<never>)

const pathToField = (path: ReadonlyArray<PropertyKey>): string | undefined =>
  path.length === 0
    ? undefined
    : path
        .map((segment, index) =>
          typeof segment === "number" ? `[${segment}]` : index === 0 ? String(segment) : `.${String(segment)}`
        )
        .join("")

const invalidRequestItem = (field: string | undefined, detail: LocalizedText, context: ErrorContext): ErrorItem => {
  const details = { field, detail }
  return {
    code: "invalid_request",
    message: renderMessage("invalid_request", context.locale, details),
    message_id: renderMessage("invalid_request", "id", details),
    ...(field === undefined ? {} : { field }),
    retryable: false,
    docs: docsUrl(context.baseUrl, "invalid_request")
  }
}

/**
 * A request the client refuses to send, answered the way the server answers it: 400
 * `invalid_request`, each problem's reason in English and Indonesian (`message_id` is Indonesian
 * throughout, as the server's).
 */
export const invalidRequest = (
  problems: ReadonlyArray<{ readonly field: string | undefined; readonly detail: LocalizedText }>,
  context: ErrorContext
): PostwireApiError => {
  const items = problems.map((problem) => invalidRequestItem(problem.field, problem.detail, context))
  const first = items[0] ?? invalidRequestItem(undefined, { en: "does not match the API contract", id: "tidak sesuai dengan kontrak API" }, context)
  const error: ErrorObject = items.length > 1 ? { ...first, issues: items } : first
  return new PostwireApiError({
    status: 400,
    code: error.code,
    message: error.message,
    messageId: error.message_id,
    field: error.field,
    retryable: false,
    docs: error.docs,
    issues: error.issues,
    error
  })
}

/** Why a media source (a file, a stream) could not be read; the system's own words stay as they are. */
export const unreadableSource = (cause: unknown): LocalizedText => {
  const reason = cause instanceof Error ? cause.message : String(cause)
  return { en: `cannot be read: ${reason}`, id: `tidak dapat dibaca: ${reason}` }
}

const fromSchemaError = (error: Schema.SchemaError, context: ErrorContext): PostwireApiError =>
  invalidRequest(
    RequestIssues.describe(error.issue).map((issue) => ({ field: pathToField(issue.path), detail: issue.detail })),
    context
  )

const connectionError = (error: HttpClientError.HttpClientError): PostwireConnectionError =>
  new PostwireConnectionError({
    kind: "network",
    message: `Could not reach Postwire: ${error.message}`,
    retryable: true,
    method: error.request.method,
    url: error.request.url,
    cause: error
  })

/** A failure before an answer arrived: the request broke the schema, or the network failed. */
export const failBeforeAnswer = (
  cause: Cause.Cause<unknown>,
  context: ErrorContext
): Effect.Effect<never, PostwireClientError> => {
  const [failure] = failuresOf(cause)
  if (Schema.isSchemaError(failure)) return Effect.fail(fromSchemaError(failure, context))
  if (HttpClientError.isHttpClientError(failure)) return Effect.fail(connectionError(failure))
  return passThrough(cause)
}

/** A failure to decode an answer: an error status of the API, or an answer the contract does not allow. */
export const failFromAnswer = (
  cause: Cause.Cause<unknown>,
  response: HttpClientResponse.HttpClientResponse,
  context: ErrorContext
): Effect.Effect<never, PostwireClientError> => {
  const failures = failuresOf(cause)
  if (failures.length === 0) return passThrough(cause)
  const declared = failures.find(isDeclaredError)
  if (declared !== undefined) return Effect.fail(apiError(response, declared.error))
  const brokenConnection = failures.find(
    (failure) => HttpClientError.isHttpClientError(failure) && failure.reason._tag === "TransportError"
  )
  if (HttpClientError.isHttpClientError(brokenConnection)) return Effect.fail(connectionError(brokenConnection))
  if (response.status >= 400) {
    return Effect.flatMap(Effect.option(response.json), (json) => {
      const body = json._tag === "Some" ? decodeErrorBody(json.value) : json
      return Effect.fail(body._tag === "Some" ? apiError(response, body.value.error) : unexpectedAnswer(response, context))
    })
  }
  const [first] = failures
  return Effect.fail(
    new PostwireConnectionError({
      kind: "invalid_response",
      message: `The answer to ${response.request.method} ${response.request.url} (HTTP ${response.status}) does not match the API contract: ${first instanceof Error ? first.message : String(first)}`,
      retryable: false,
      method: response.request.method,
      url: response.request.url,
      cause: first
    })
  )
}
