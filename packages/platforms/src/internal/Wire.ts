/**
 * Sending one request to a platform: timeouts, transport failures, JSON bodies, and the
 * internal retry of `platform_unavailable` with exponential backoff.
 *
 * @internal
 */
import { PlatformFailure } from "@postwire/core"
import { type ErrorCode, ErrorCatalog, type ErrorDetails } from "@postwire/domain"
import { Duration, Effect, Option, References, Schedule } from "effect"
import { type HttpClient, type HttpClientRequest, UrlParams } from "effect/http"
import type { PlatformHttp, PlatformHttpFailure, PlatformHttpResponse } from "../PlatformHttp.ts"

/** How often and how patiently a step retries `platform_unavailable`. */
export interface RetryPolicy {
  /** Attempts of one call in all, the first included. */
  readonly attempts: number
  /** Delay before the second attempt; each later delay doubles. */
  readonly baseDelayMs: number
}

/** A platform's answer, whatever its status. */
export interface WireResponse {
  readonly status: number
  readonly text: string
  /** The parsed body; `undefined` when it is not JSON. */
  readonly json: unknown
  /**
   * The answer's headers, lower-case names (Meta's `x-business-use-case-usage` says when a
   * throttled app may call again); absent where the sender gives none.
   */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** What the adapters need to talk to a platform. */
export interface Wire {
  readonly send: (request: HttpClientRequest.HttpClientRequest) => Effect.Effect<WireResponse, PlatformFailure>
  readonly retry: RetryPolicy
  /** The time limit of one call, for a sender that wraps this one (Mastodon's pinned wire). */
  readonly timeoutMs?: number | undefined
}

/**
 * Builds a failure whose `retryable` comes from the catalog unless given. A missing permission
 * always asks for a reconnect: only the person can grant it again.
 */
export const failure = (
  code: ErrorCode,
  platformCode: string,
  extra: {
    readonly details?: ErrorDetails | undefined
    readonly retryable?: boolean | undefined
    readonly needsReconnect?: boolean | undefined
    readonly state?: unknown
    readonly notPublished?: boolean | undefined
    readonly retryAt?: number | undefined
    readonly gaveUp?: boolean | undefined
  } = {}
): PlatformFailure =>
  new PlatformFailure({
    code,
    platformCode,
    retryable: extra.retryable ?? ErrorCatalog[code].retryable,
    details: extra.details,
    needsReconnect: extra.needsReconnect ?? (code === "permission_missing" ? true : undefined),
    state: extra.state,
    notPublished: extra.notPublished,
    retryAt: extra.retryAt,
    gaveUp: extra.gaveUp
  })

/** A copy of `f` with some fields replaced (errors are immutable values). */
export const amend = (
  f: PlatformFailure,
  fields: Partial<{
    readonly state: unknown
    readonly needsReconnect: boolean
    readonly credentials: PlatformFailure["credentials"]
    readonly details: PlatformFailure["details"]
    readonly notPublished: boolean
    readonly retryAt: number
  }>
): PlatformFailure =>
  new PlatformFailure({
    code: f.code,
    platformCode: f.platformCode,
    retryable: f.retryable,
    details: "details" in fields ? fields.details : f.details,
    needsReconnect: "needsReconnect" in fields ? fields.needsReconnect : f.needsReconnect,
    state: "state" in fields ? fields.state : f.state,
    credentials: "credentials" in fields ? fields.credentials : f.credentials,
    notPublished: "notPublished" in fields ? fields.notPublished : f.notPublished,
    retryAt: "retryAt" in fields ? fields.retryAt : f.retryAt,
    gaveUp: f.gaveUp
  })

/**
 * Query parameters that carry a secret: recorded as `REDACTED` in the HTTP client's trace spans
 * (`url.full`, `url.query`), so that no token, code or app secret reaches a trace exporter.
 */
export const secretParameters: ReadonlyArray<string> = [
  "access_token",
  "appsecret_proof",
  "client_secret",
  "code",
  "code_verifier",
  "fb_exchange_token",
  "input_token",
  "refresh_token",
  "token"
]

/** The platform may have acted on the request: nobody knows, the answer never came. */
const isAmbiguous = (f: PlatformFailure): boolean =>
  f.platformCode === "timeout" || f.platformCode === "network_error"

/**
 * Creates the sender over an `HttpClient`. With a `PlatformHttp` (`fast`), a call goes through it
 * instead while the tracer is off and its body is bytes or nothing: no client span, no
 * `Request`/`Response` objects, the timeout kept by the sender itself. With the tracer on, every
 * call goes through the `HttpClient`, which records its client span.
 */
export const make = (
  client: HttpClient.HttpClient,
  options: {
    readonly timeoutMs: number
    readonly retry: RetryPolicy
    readonly fast?: PlatformHttp["Service"] | undefined
  }
): Wire => {
  const viaClient = (request: HttpClientRequest.HttpClientRequest): Effect.Effect<WireResponse, PlatformFailure> =>
    client.execute(request).pipe(
      Effect.updateService(UrlParams.CurrentRedactedNames, redactedNames),
      Effect.flatMap((response) =>
        Effect.map(
          response.text,
          (text): WireResponse => ({ status: response.status, text, json: parseJson(text), headers: response.headers })
        )
      ),
      Effect.timeout(Duration.millis(options.timeoutMs)),
      Effect.catch((error) =>
        Effect.fail(
          failure("platform_unavailable", error._tag === "TimeoutError" ? "timeout" : "network_error")
        )
      )
    )
  const fast = options.fast
  if (fast === undefined) return { retry: options.retry, timeoutMs: options.timeoutMs, send: viaClient }
  const answered = (response: PlatformHttpResponse): WireResponse => ({
    status: response.status,
    text: response.text,
    json: parseJson(response.text),
    headers: response.headers
  })
  const unanswered = (reason: PlatformHttpFailure) => failure("platform_unavailable", reason)
  return {
    retry: options.retry,
    timeoutMs: options.timeoutMs,
    send: (request) =>
      Effect.withFiber((fiber) => {
        const body = request.body
        if (
          fiber.getRef(References.TracerEnabled) ||
          (body._tag !== "Empty" && body._tag !== "Uint8Array") ||
          Option.isSome(request.hash)
        ) {
          return viaClient(request)
        }
        return Effect.mapBoth(
          fast.send({
            method: request.method,
            url: fullUrl(request),
            headers: request.headers,
            body: body._tag === "Uint8Array" ? body.body : undefined,
            timeoutMs: options.timeoutMs
          }),
          { onSuccess: answered, onFailure: unanswered }
        )
      })
  }
}

/** The redacted parameter names in context with the platforms' secret ones added (memoized per list). */
let redactedFor: ReadonlyArray<string | RegExp> | undefined
let redactedWith: ReadonlyArray<string | RegExp> = secretParameters
const redactedNames = (names: ReadonlyArray<string | RegExp>): ReadonlyArray<string | RegExp> => {
  if (names !== redactedFor) {
    redactedFor = names
    redactedWith = [...names, ...secretParameters]
  }
  return redactedWith
}

/** The request's address with its query parameters, as the `HttpClient` would build it. */
export const fullUrl = (request: HttpClientRequest.HttpClientRequest): string => {
  if (request.urlParams.params.length === 0) return request.url
  if (!request.url.includes("?")) return `${request.url}?${UrlParams.toString(request.urlParams)}`
  const url = new URL(request.url)
  for (const [key, value] of new URLSearchParams(UrlParams.toString(request.urlParams))) url.searchParams.append(key, value)
  return url.toString()
}

/** A body's JSON; `undefined` when it is empty or not JSON. */
export const parseJson = (text: string): unknown => {
  if (text === "") return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * Retries `platform_unavailable` inside the step with exponential backoff. A call that may have
 * published (`publishes: true`) is retried only when the platform surely did not act on it: a
 * lost answer is never re-sent blindly. A failure with a `retryAt` (a rate limit) is not retried
 * here: the publisher takes the step again at that time. A failure that already decided the resume state (a dead
 * container, a failed publish) ends the step: only a new attempt can help.
 */
export const retrying = (policy: RetryPolicy, options: { readonly publishes?: boolean } = {}) => {
  const retry = retryOptions(policy, options.publishes === true)
  return <A, R>(self: Effect.Effect<A, PlatformFailure, R>): Effect.Effect<A, PlatformFailure, R> => Effect.retry(self, retry)
}

/** The retry options of a policy, made once per policy (plain and for a publishing call). */
const retryOptionsCache = new WeakMap<RetryPolicy, readonly [RetryOptions, RetryOptions]>()

type RetryOptions = {
  readonly schedule: Schedule.Schedule<Duration.Duration>
  readonly times: number
  readonly while: (f: PlatformFailure) => boolean
}

const retryOptions = (policy: RetryPolicy, publishes: boolean): RetryOptions => {
  let both = retryOptionsCache.get(policy)
  if (both === undefined) {
    const make = (publishes: boolean): RetryOptions => ({
      schedule: Schedule.exponential(Duration.millis(policy.baseDelayMs)),
      times: Math.max(0, policy.attempts - 1),
      while: (f: PlatformFailure) =>
        f.code === "platform_unavailable" &&
        f.retryable &&
        f.state === undefined &&
        // A rate limit names its own time: retrying within the step would only be refused again.
        f.retryAt === undefined &&
        !(publishes && isAmbiguous(f))
    })
    both = [make(false), make(true)]
    retryOptionsCache.set(policy, both)
  }
  return both[publishes ? 1 : 0]
}

/** The object at `key` of a JSON value, if it is one. */
export const field = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined

/** A string field, or `undefined`. */
export const stringField = (value: unknown, key: string): string | undefined => {
  const v = field(value, key)
  return typeof v === "string" ? v : typeof v === "number" ? String(v) : undefined
}

/** A number field, or `undefined`. */
export const numberField = (value: unknown, key: string): number | undefined => {
  const v = field(value, key)
  return typeof v === "number" && Number.isFinite(v) ? v : undefined
}

/** An answer that is not an error but lacks what it must carry: the platform changed or broke. */
export const malformed = (what: string): PlatformFailure =>
  failure("platform_unavailable", `malformed_response:${what}`)
