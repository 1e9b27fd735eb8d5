import { WebhookVerificationError } from "./errors.ts"
import { constantTimeEqual, decodeUtf8, fromRawBody } from "./internal/bytes.ts"
import { signerV1 } from "./internal/hmac.ts"
import * as Signature from "./internal/Signature.ts"
import { secretList } from "./internal/secrets.ts"
import type { RawBody } from "./RawBody.ts"
import type { WebhookEvent } from "./WebhookEvent.ts"
import type { WebhookSecret } from "./WebhookSecret.ts"

/**
 * How many seconds a signature's timestamp may differ from now, in either direction, by
 * default: 300 (five minutes).
 *
 * @example
 * ```ts
 * await verify(body, header, secret, { toleranceSeconds: DEFAULT_TOLERANCE_SECONDS / 5 })
 * ```
 */
export const DEFAULT_TOLERANCE_SECONDS = 300

/**
 * The current time for the replay check: a `Date`, a number of **unix seconds** (not
 * milliseconds), or a function returning either (called once per `verify`).
 *
 * @example
 * ```ts
 * await verify(body, header, secret, { now: new Date("2026-11-22T01:02:03Z") })
 * await verify(body, header, secret, { now: 1795309323 })
 * await verify(body, header, secret, { now: () => clock.nowSeconds() })
 * ```
 */
export type Now = Date | number | (() => Date | number)

/**
 * Options of {@link verify}.
 *
 * @example
 * ```ts
 * const options: VerifyOptions = { toleranceSeconds: 60, now: () => clock.now() }
 * await verify(body, header, secret, options)
 * ```
 */
export interface VerifyOptions {
  /**
   * How many seconds the signature's `t` may lie before or after now; a delivery outside that
   * window is rejected as a replay (`timestamp_too_old`) or a clock problem
   * (`timestamp_in_future`). A difference of exactly this many seconds is accepted.
   * Defaults to {@link DEFAULT_TOLERANCE_SECONDS}; `Infinity` turns the check off (for replaying
   * recorded deliveries in tests).
   */
  readonly toleranceSeconds?: number
  /** The current time; defaults to the system clock. See {@link Now}. */
  readonly now?: Now
}

/**
 * A signature header as Node (`req.headers[...]`: a string, an array when repeated, or
 * `undefined`) or `Headers.get` (a string or `null`) returns it. `null`, `undefined` and empty
 * values are rejected as `missing_header`.
 *
 * @example
 * ```ts
 * await verify(body, req.headers["service-signature"], secret) // node:http
 * await verify(body, request.headers.get(SIGNATURE_HEADER), secret) // fetch
 * ```
 */
export type SignatureHeaderValue = string | ReadonlyArray<string> | null | undefined

/**
 * Checks that a delivery was signed by the service with one of your endpoint's secrets,
 * recently, and returns its event.
 *
 * Checks, in order: the body is raw (`raw_body_required`); the `SERVICE-Signature` header is
 * present (`missing_header`) and well formed (`malformed_header`); one of its `v1` signatures
 * is the HMAC-SHA256 of `<t>.<raw body>` under one of the secrets (`no_matching_signature`);
 * `t` is within `toleranceSeconds` of now (`timestamp_too_old`, `timestamp_in_future`); the
 * body is a JSON event (`invalid_body`).
 *
 * @param rawBody The body exactly as received; see {@link RawBody}. Never `JSON.parse` first.
 * @param signatureHeader The value of the `SERVICE-Signature` header.
 * @param secret The endpoint's `whsec_...` secret, or several during a rotation.
 * @param options The replay tolerance and the current time; see {@link VerifyOptions}.
 * @throws {WebhookVerificationError} when the delivery must be rejected; answer it with 400.
 * @throws {TypeError} when `secret` is missing or empty (a configuration mistake).
 * @throws {RangeError} when `toleranceSeconds` or `now` is not a usable number.
 *
 * @example
 * ```ts
 * import { SIGNATURE_HEADER, verify } from "@postwire/webhooks"
 *
 * const event = await verify(await request.text(), request.headers.get(SIGNATURE_HEADER), secret)
 * if (event.type === "post.published") console.log(event.data.permalink)
 * ```
 */
export const verify = async (
  rawBody: RawBody,
  signatureHeader: SignatureHeaderValue,
  secret: WebhookSecret,
  options: VerifyOptions = {}
): Promise<WebhookEvent> => {
  // A string is signed as it is (UTF-8); other raw forms as their bytes.
  const body = typeof rawBody === "string" ? rawBody : fromRawBody(rawBody)
  if (body === undefined) {
    throw new WebhookVerificationError(
      "raw_body_required",
      "verify needs the raw request body (string, Uint8Array, Buffer or ArrayBuffer), not a parsed object: " +
        "the signature covers the exact bytes sent"
    )
  }
  // One secret (the usual case) is checked without building a list of one.
  const secrets = typeof secret === "string" && secret.length > 0 ? undefined : secretList(secret)
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS
  if (!(tolerance >= 0)) throw new RangeError(`toleranceSeconds must be 0 or more, got ${tolerance}`)
  const nowSeconds = currentSeconds(options.now)

  const header = typeof signatureHeader === "string" ? signatureHeader : signatureHeader?.join(",")
  if (header === undefined || header === "" || ((header.charCodeAt(0) <= 32 || header.charCodeAt(0) >= 160) && header.trim() === "")) {
    throw new WebhookVerificationError("missing_header", "The SERVICE-Signature header is missing")
  }
  const signature = Signature.parse(header)

  let matched = false
  const count = secrets === undefined ? 1 : secrets.length
  for (let i = 0; i < count; i++) {
    const signed = signerV1(secrets === undefined ? (secret as string) : secrets[i]!)(signature.timestamp, body)
    // node:crypto answers synchronously; only Web Crypto needs the await.
    const expected = typeof signed === "string" ? signed : await signed
    // Every entry is compared, even after a match, so timing does not reveal which one matched.
    for (const candidate of signature.v1) {
      if (constantTimeEqual(expected, candidate)) matched = true
    }
  }
  if (!matched) {
    throw new WebhookVerificationError(
      "no_matching_signature",
      signature.v1.length === 0
        ? "The SERVICE-Signature header has no v1 signature"
        : "No v1 signature matches the secret: is it this endpoint's secret, and is the body unmodified?"
    )
  }

  const age = nowSeconds - signature.timestamp
  if (age > tolerance) {
    throw new WebhookVerificationError(
      "timestamp_too_old",
      `The signature is ${age} s old, more than the ${tolerance} s tolerance`
    )
  }
  if (-age > tolerance) {
    throw new WebhookVerificationError(
      "timestamp_in_future",
      `The signature is ${-age} s in the future, more than the ${tolerance} s tolerance: check this host's clock`
    )
  }

  return readEvent(typeof body === "string" ? body : decodeUtf8(body))
}

const currentSeconds = (now: Now | undefined): number => {
  const value = typeof now === "function" ? now() : now
  const seconds = value === undefined ? Date.now() / 1000 : value instanceof Date ? value.getTime() / 1000 : value
  if (typeof seconds !== "number" || !Number.isFinite(seconds)) {
    throw new RangeError(`now must be a Date or unix seconds, got ${String(value)}`)
  }
  // Signature timestamps are whole seconds, so the tolerance boundary is too.
  return Math.floor(seconds)
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const invalidBody = (detail: string): WebhookVerificationError =>
  new WebhookVerificationError("invalid_body", `The signature is valid but the body ${detail}`)

const readEvent = (text: string | undefined): WebhookEvent => {
  if (text === undefined) throw invalidBody("is not UTF-8 text")
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw invalidBody("is not JSON")
  }
  if (!isRecord(value)) throw invalidBody("is not a JSON object")
  if (typeof value.id !== "string") throw invalidBody(`has no string "id"`)
  if (typeof value.type !== "string") throw invalidBody(`has no string "type"`)
  if (typeof value.created_at !== "string") throw invalidBody(`has no string "created_at"`)
  if (typeof value.livemode !== "boolean") throw invalidBody(`has no boolean "livemode"`)
  if (!isRecord(value.data)) throw invalidBody(`has no object "data"`)
  if (value.test !== undefined && typeof value.test !== "boolean") throw invalidBody(`has a non-boolean "test"`)
  return value as unknown as WebhookEvent
}
