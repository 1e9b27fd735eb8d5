/**
 * Meta's Graph API error envelope (Instagram, Facebook Pages, Threads) and its normalization to
 * the service's codes. Classification goes by `code` and `error_subcode`, never by HTTP status:
 * Meta answers 400 for media errors and for throttling alike.
 *
 * The platform code kept for support is `code` or `code/subcode`, e.g. `190/463`.
 *
 * @since 0.1.0
 */
import type { PlatformFailure } from "@postwire/core"
import { type ErrorCode, ErrorDetail, type LocalizedText } from "@postwire/domain"
import { failure, field, numberField, stringField } from "../internal/Wire.ts"
import * as ThreadsReasons from "../threads/Reasons.ts"

/** The `error` object of a Graph API failure. */
export interface GraphErrorBody {
  readonly message?: string | undefined
  readonly type?: string | undefined
  readonly code: number
  readonly error_subcode?: number | undefined
  readonly is_transient?: boolean | undefined
  readonly error_user_title?: string | undefined
  readonly error_user_msg?: string | undefined
  readonly fbtrace_id?: string | undefined
}

/** What a Graph error means for the service. */
export interface GraphErrorClass {
  readonly code: ErrorCode
  /** `code` or `code/subcode`. */
  readonly platformCode: string
  readonly retryable: boolean
}

/** Reads the envelope `{"error": {...}}`; `undefined` when the body is not one. */
export const parse = (body: unknown): GraphErrorBody | undefined => {
  const error = field(body, "error")
  const code = numberField(error, "code")
  if (code === undefined) return undefined
  const transient = field(error, "is_transient")
  return {
    code,
    message: stringField(error, "message"),
    type: stringField(error, "type"),
    error_subcode: numberField(error, "error_subcode"),
    is_transient: typeof transient === "boolean" ? transient : undefined,
    error_user_title: stringField(error, "error_user_title"),
    error_user_msg: stringField(error, "error_user_msg"),
    fbtrace_id: stringField(error, "fbtrace_id")
  }
}

/** The platform code kept for support: `190` or `190/463`. */
export const platformCode = (error: GraphErrorBody): string =>
  error.error_subcode === undefined ? String(error.code) : `${error.code}/${error.error_subcode}`

const throttling = new Set([1, 2, 4, 17, 32, 341, 613, -1, -2])

/**
 * Meta's Business Use Case (BUC) rate limits: Instagram Platform calls (`80002`), Page calls made
 * with a Page or system-user token (`80001`), and the other business use cases answer a code from
 * 80000 to 80014 once the limit is reached, with an `X-Business-Use-Case-Usage` header whose
 * `estimated_time_to_regain_access` says, in minutes, when calls are no longer throttled.
 * https://developers.facebook.com/docs/graph-api/overview/rate-limiting#buc-rate-limits
 */
export const isBusinessUseCaseThrottle = (code: number): boolean => code >= 80000 && code <= 80014

/**
 * How long to wait after a BUC throttle whose answer said nothing usable about when access comes
 * back (no header, or a header without the field). Meta's advice is to stop calling until the
 * limit frees: each call made meanwhile counts against it.
 */
export const defaultRegainAccessMs = 5 * 60_000

/** The shortest wait after a BUC throttle (a header saying `0` minutes while refusing). */
const minimumRegainAccessMs = 60_000

/**
 * When a throttled app may call again, from the `X-Business-Use-Case-Usage` header
 * (`{"<business-object-id>": [{"type", "call_count", "total_cputime", "total_time",
 * "estimated_time_to_regain_access"}]}`, minutes): the latest of the objects it lists, at least a
 * minute from `now`; {@link defaultRegainAccessMs} from `now` when it says nothing.
 */
export const regainAccessAt = (headers: Readonly<Record<string, string>> | undefined, now: number): number => {
  const raw = headers?.["x-business-use-case-usage"]
  let minutes: number | undefined
  if (raw !== undefined) {
    try {
      const usage: unknown = JSON.parse(raw)
      if (typeof usage === "object" && usage !== null) {
        for (const entries of Object.values(usage)) {
          if (!Array.isArray(entries)) continue
          for (const entry of entries) {
            const value = numberField(entry, "estimated_time_to_regain_access")
            if (value !== undefined && value >= 0) minutes = Math.max(minutes ?? 0, value)
          }
        }
      }
    } catch {
      minutes = undefined
    }
  }
  if (minutes === undefined) return now + defaultRegainAccessMs
  return now + Math.max(minutes * 60_000, minimumRegainAccessMs)
}
const permission = new Set([10, 283])
const mediaSubcodes = new Set([2207004, 2207005, 2207006, 2207009, 2207010, 2207026, 2207052])

const classifyCode = (error: GraphErrorBody, httpStatus: number): ErrorCode => {
  const { code, error_subcode: subcode } = error
  if (code === 190) return subcode === 492 ? "permission_missing" : "token_expired"
  if (permission.has(code) || (code >= 200 && code <= 299)) return "permission_missing"
  if (subcode === 2207042 || code === 9) return "quota_exceeded"
  if (subcode === 2207051 || subcode === 2207050 || code === 25 || code === 368) return "account_restricted"
  // Download timeouts and server errors of the media pipeline (-2/2207003, -1/2207001) retry.
  if (code === -1 || code === -2) return "platform_unavailable"
  if (throttling.has(code) || isBusinessUseCaseThrottle(code) || error.is_transient === true) return "platform_unavailable"
  if (
    code === 352 ||
    code === 9004 ||
    code === 506 ||
    code === 100 ||
    (code >= 36000 && code <= 36004) ||
    (subcode !== undefined && mediaSubcodes.has(subcode))
  ) {
    return "media_invalid"
  }
  return httpStatus >= 500 ? "platform_unavailable" : "media_invalid"
}

/** Normalizes a Graph error. */
export const classify = (error: GraphErrorBody, httpStatus: number): GraphErrorClass => {
  const code = classifyCode(error, httpStatus)
  return {
    code,
    platformCode: platformCode(error),
    retryable: code === "platform_unavailable" || code === "quota_exceeded"
  }
}

/** Threads' refusal of a post with more than 5 links. */
const linkLimitExceeded = "THREADS_API__LINK_LIMIT_EXCEEDED"

/** Codes whose answer does not tell whether the request was carried out (unknown and server errors). */
const undecided = new Set([1, 2, -1, -2])

/**
 * Whether a failure is Meta's own answer refusing the request: an error envelope whose code
 * says it was not carried out (a throttle, a permission, the media), unlike a lost answer, a bare
 * 5xx or an unknown or server error (`1`, `2`, `-1`, `-2`), after which it may have been.
 *
 * @example
 * ```ts
 * GraphError.isRefusal(failure) // true for "4" (throttled), false for "timeout" or "-1/2207001"
 * ```
 */
export const isRefusal = (f: PlatformFailure): boolean => {
  const code = /^(-?\d+)(?:\/\d+)?$/.exec(f.platformCode)?.[1]
  return code !== undefined && !undecided.has(Number(code))
}

/** Meta's "media not ready" answer to a publish call: keep polling, nothing failed. */
export const isNotReady = (f: PlatformFailure): boolean =>
  f.platformCode === "9007/2207027" || f.platformCode === "9007"

/** Why the media was refused, in a few words for the message's `{detail}`. */
const mediaDetail = (error: GraphErrorBody): LocalizedText => {
  if (error.code === 506) return ErrorDetail.reason("platform_refused_duplicate")
  if (error.code === 9004 || error.error_subcode === 2207052) return ErrorDetail.reason("platform_could_not_fetch_media")
  if (error.code === 352 || error.error_subcode === 2207026) return ErrorDetail.reason("unsupported_video_format")
  if (error.code >= 36000 && error.code <= 36004) return ErrorDetail.reason("image_not_accepted")
  return ErrorDetail.reason("platform_rejected_request")
}

/**
 * Turns a non-successful Graph answer into a `PlatformFailure`. Answers without an envelope
 * are classified by HTTP status alone. A Business Use Case throttle (80000–80014) is retryable
 * and carries `retryAt`, the time the answer's `X-Business-Use-Case-Usage` header gives (read
 * from `headers`, counted from `now`).
 */
export const toFailure = (
  platform: string,
  httpStatus: number,
  body: unknown,
  answer: { readonly headers?: Readonly<Record<string, string>> | undefined; readonly now?: number | undefined } = {}
): PlatformFailure => {
  const error = parse(body)
  if (error === undefined) {
    const code: ErrorCode =
      httpStatus >= 500 || httpStatus === 429 ? "platform_unavailable" : httpStatus === 401 ? "token_expired" : "media_invalid"
    return failure(code, `http_${httpStatus}`, code === "media_invalid" ? { details: { platform, detail: ErrorDetail.reason("platform_rejected_request") } } : {})
  }
  // Threads' link limit, documented by its code string only (threads/create-posts/text-attachments):
  // the caption is what to change, not the media.
  if ([error.message, error.error_user_title, error.error_user_msg].some((t) => t?.includes(linkLimitExceeded) === true)) {
    return failure("caption_invalid", linkLimitExceeded, { details: { platform, detail: ThreadsReasons.reason("textpost_links_refused") } })
  }
  const classified = classify(error, httpStatus)
  return failure(classified.code, classified.platformCode, {
    retryable: classified.retryable,
    details: classified.code === "media_invalid" ? { platform, detail: mediaDetail(error) } : undefined,
    retryAt: isBusinessUseCaseThrottle(error.code) ? regainAccessAt(answer.headers, answer.now ?? Date.now()) : undefined
  })
}
