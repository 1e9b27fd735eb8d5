/**
 * The one error shape of the API, `{ "error": { ... } }`, and the domain failure that produces it.
 *
 * Use-cases fail with {@link PostwireError}; the server renders it once, through
 * {@link toHttpError}, into the status class the catalog names, in the request's language.
 *
 * @since 0.1.0
 */
import { Data, Schema } from "effect"
import { ErrorCatalog, type ErrorCode, type Locale, renderMessage } from "./ErrorCatalog.ts"
import type { LocalizedText, PlaceholderValue } from "./LocalizedText.ts"

const errorFields = {
  /** Stable, machine-readable code, e.g. `quota_exceeded`; every code is listed at `/docs/errors`. Branch on this, never on `message`. */
  code: Schema.String.annotate({ description: "Stable, machine-readable code, e.g. `quota_exceeded`; every code is listed at `/docs/errors`. Branch on this, never on `message`." }),
  /** What went wrong, for people: Indonesian when the request sent `Accept-Language: id`, else English. May change between versions. */
  message: Schema.String.annotate({ description: "What went wrong, for people: Indonesian when the request sent `Accept-Language: id`, else English. May change between versions." }),
  /** The same message in Indonesian, always. */
  message_id: Schema.String.annotate({ description: "The same message in Indonesian, always." }),
  /** The target concerned (`tgt_…`), when the error is about one. */
  target_id: Schema.optionalKey(Schema.String.annotate({ description: "The target concerned (`tgt_…`), when the error is about one." })),
  /** The request field concerned, as a path: `caption`, `media[0]`, `targets[1].account_id`, a query parameter or a header name. */
  field: Schema.optionalKey(Schema.String.annotate({ description: "The request field concerned, as a path: `caption`, `media[0]`, `targets[1].account_id`, a query parameter or a header name." })),
  /** Whether sending the same request again (or retrying the target) can succeed without changes. */
  retryable: Schema.Boolean.annotate({ description: "Whether sending the same request again (or retrying the target) can succeed without changes." }),
  /** Address of the code's entry in the error reference, `{public_base_url}/docs/errors#{code}`. */
  docs: Schema.String.annotate({ description: "Address of the code's entry in the error reference, `{public_base_url}/docs/errors#{code}`." }),
  /** The platform's own error code behind a target's error (e.g. TikTok's `spam_risk_too_many_posts`), for support. Present on platform failures only. */
  platform_code: Schema.optionalKey(Schema.String.annotate({ description: "The platform's own error code behind a target's error (e.g. TikTok's `spam_risk_too_many_posts`), for support. Present on platform failures only." }))
}

/** One error in the shared shape, as an item of `issues[]` or `warnings[]`. */
export const ErrorItem = Schema.Struct(errorFields).annotate({ description: "One problem in the shared error shape." })
export type ErrorItem = typeof ErrorItem.Type

/** The `error` object of an error body; a 422 platform validation failure lists every problem in `issues`. */
export const ErrorObject = Schema.Struct({
  ...errorFields,
  /** The id of the request this error answers, the same as the response's `X-Request-Id` header and the server's log line: quote it when asking for help. */
  request_id: Schema.optionalKey(Schema.String.annotate({ description: "The id of the request this error answers, the same as the response's `X-Request-Id` header and the server's log line: quote it when asking for help." })),
  /** Every problem found, the first being the one this object describes. Always present on a 422, even for one problem; on a 400 when the request had several. */
  issues: Schema.optionalKey(Schema.Array(ErrorItem).annotate({ description: "Every problem found, the first being the one this object describes. Always present on a 422, even for one problem; on a 400 when the request had several." }))
}).annotate({ description: "The error, in the one shape every error of the API has." })
export type ErrorObject = typeof ErrorObject.Type

/** 400: the request is malformed. */
export class BadRequest extends Schema.Error<BadRequest>("BadRequest")(
  { error: ErrorObject },
  { httpApiStatus: 400, description: "Malformed request: `field` names the problem (`invalid_request`, `invalid_cursor`, `invalid_range`, `invalid_url`, …)" }
) {}
/** 401: the API key is missing or invalid. */
export class Unauthorized extends Schema.Error<Unauthorized>("Unauthorized")(
  { error: ErrorObject },
  { httpApiStatus: 401, description: "Invalid or missing API key" }
) {}
/** 403: missing scope, or an account outside the key's workspace. */
export class Forbidden extends Schema.Error<Forbidden>("Forbidden")(
  { error: ErrorObject },
  { httpApiStatus: 403, description: "Missing scope, or account not in this workspace" }
) {}
/** 404: the resource does not exist in this workspace. */
export class NotFound extends Schema.Error<NotFound>("NotFound")(
  { error: ErrorObject },
  { httpApiStatus: 404, description: "Resource not found" }
) {}
/** 409: idempotency conflict, or the resource is not in a valid state for the action. */
export class Conflict extends Schema.Error<Conflict>("Conflict")(
  { error: ErrorObject },
  { httpApiStatus: 409, description: "Idempotency conflict, or the resource is not in a valid state for the action (`invalid_state`)" }
) {}
/** 410: the resource existed but is gone (an expired approval link). */
export class Gone extends Schema.Error<Gone>("Gone")(
  { error: ErrorObject },
  { httpApiStatus: 410, description: "The approval link has expired (`approval_expired`)" }
) {}
/** 422: platform validation failed; details in `error.issues`. */
export class Unprocessable extends Schema.Error<Unprocessable>("Unprocessable")(
  { error: ErrorObject },
  { httpApiStatus: 422, description: "Platform validation failed: every problem is listed in `error.issues`" }
) {}
/** 429: rate limited; `Retry-After` gives the seconds to wait. */
export class TooManyRequests extends Schema.Error<TooManyRequests>("TooManyRequests")(
  { error: ErrorObject },
  { httpApiStatus: 429, description: "Rate limited: `Retry-After` gives the seconds to wait" }
) {}
/** 500: an unexpected server failure. */
export class InternalError extends Schema.Error<InternalError>("InternalError")(
  { error: ErrorObject },
  { httpApiStatus: 500, description: "Server error" }
) {}
/** 503: a platform or dependency is unavailable. */
export class Unavailable extends Schema.Error<Unavailable>("Unavailable")(
  { error: ErrorObject },
  { httpApiStatus: 503, description: "Service or platform unavailable" }
) {}

/** Every status class, for endpoint and middleware declarations. */
export const httpErrors = [
  BadRequest,
  Unauthorized,
  Forbidden,
  NotFound,
  Conflict,
  Gone,
  Unprocessable,
  TooManyRequests,
  InternalError,
  Unavailable
] as const

/** Any error response of the API. */
export type HttpError = InstanceType<(typeof httpErrors)[number]>


/**
 * What a failure's message is filled with. Free text (`detail`, `resource`) is a
 * {@link LocalizedText} from `ErrorDetail`, so that both messages are wholly in their language;
 * identifiers and numbers (`field`, `platform`, `limit`, …) are plain values.
 */
export type ErrorDetails = {
  readonly detail?: LocalizedText | undefined
  readonly resource?: LocalizedText | undefined
  readonly [name: string]: PlaceholderValue | undefined
}

/**
 * A domain failure: a catalog code plus the data its message needs.
 *
 * @example
 * ```ts
 * import { ErrorDetail, PostwireError } from "@postwire/domain"
 * new PostwireError({ code: "not_found", details: { resource: ErrorDetail.resource("post") } })
 * ```
 */
export class PostwireError extends Data.TaggedError("PostwireError")<{
  readonly code: ErrorCode
  readonly field?: string | undefined
  readonly targetId?: string | undefined
  readonly details?: ErrorDetails | undefined
  readonly platformCode?: string | undefined
  /** Overrides the catalog's status where one code has two (consent_required: 422 or 409). */
  readonly status?: number | undefined
  /** Overrides the catalog's retryable flag (platform errors known to be permanent). */
  readonly retryable?: boolean | undefined
  readonly issues?: ReadonlyArray<PostwireError> | undefined
}> {
  /** The HTTP status this failure is answered with. */
  get httpStatus(): number {
    return this.status ?? ErrorCatalog[this.code].status
  }
  override get message(): string {
    return renderMessage(this.code, "en", { ...this.details, field: this.field })
  }
}

/** Builds the documentation address of a code. */
export const docsUrl = (publicBaseUrl: string, code: string): string =>
  `${publicBaseUrl.replace(/\/$/, "")}/docs/errors#${code}`

/** Renders a failure in the shared shape, `message` in `locale`, `message_id` always Indonesian. */
export const renderError = (error: PostwireError, locale: Locale, publicBaseUrl: string): ErrorObject => {
  const item = renderItem(error, locale, publicBaseUrl)
  return error.issues && error.issues.length > 0
    ? { ...item, issues: error.issues.map((i) => renderItem(i, locale, publicBaseUrl)) }
    : item
}

const renderItem = (error: PostwireError, locale: Locale, publicBaseUrl: string): ErrorItem => {
  const details = { ...error.details, field: error.field }
  const entry = ErrorCatalog[error.code]
  return {
    code: error.code,
    message: renderMessage(error.code, locale, details),
    message_id: renderMessage(error.code, "id", details),
    ...(error.targetId === undefined ? {} : { target_id: error.targetId }),
    ...(error.field === undefined ? {} : { field: error.field }),
    retryable: error.retryable ?? entry.retryable,
    docs: docsUrl(publicBaseUrl, error.code),
    ...(error.platformCode === undefined ? {} : { platform_code: error.platformCode })
  }
}

/** Turns a failure into the status class its HTTP status names. */
export const toHttpError = (error: PostwireError, locale: Locale, publicBaseUrl: string): HttpError => {
  const rendered = renderError(error, locale, publicBaseUrl)
  // A 422 answer always lists its problems in `issues`, even when there is only the one.
  const body = {
    error: error.httpStatus === 422 && rendered.issues === undefined ? { ...rendered, issues: [rendered] } : rendered
  }
  switch (error.httpStatus) {
    case 400:
      return new BadRequest(body)
    case 401:
      return new Unauthorized(body)
    case 403:
      return new Forbidden(body)
    case 404:
      return new NotFound(body)
    case 409:
      return new Conflict(body)
    case 410:
      return new Gone(body)
    case 422:
      return new Unprocessable(body)
    case 429:
      return new TooManyRequests(body)
    case 503:
      return new Unavailable(body)
    default:
      return new InternalError(body)
  }
}
