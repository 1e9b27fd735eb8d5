/**
 * Why a delivery was rejected by {@link verify}.
 *
 * | reason | meaning |
 * |---|---|
 * | `missing_header` | no `SERVICE-Signature` header, or it is empty |
 * | `malformed_header` | the header is not `t=<unix seconds>,<scheme>=<value>,...` |
 * | `timestamp_too_old` | `t` is more than the tolerance before now (a replay, or a slow clock) |
 * | `timestamp_in_future` | `t` is more than the tolerance after now (a fast clock) |
 * | `no_matching_signature` | no `v1` entry matches any of the secrets |
 * | `invalid_body` | the signature is valid but the body is not a JSON event |
 * | `raw_body_required` | the body passed was not a string, `Uint8Array`, `Buffer` or `ArrayBuffer` |
 *
 * @example
 * ```ts
 * const isReplayOrClock = (reason: WebhookVerificationErrorReason) =>
 *   reason === "timestamp_too_old" || reason === "timestamp_in_future"
 * ```
 */
export type WebhookVerificationErrorReason =
  | "missing_header"
  | "malformed_header"
  | "timestamp_too_old"
  | "timestamp_in_future"
  | "no_matching_signature"
  | "invalid_body"
  | "raw_body_required"

/**
 * Thrown by {@link verify} when a delivery cannot be trusted or read. Switch on `reason`;
 * answer the delivery with a 400 for any of them (the service then retries it later).
 *
 * @example
 * ```ts
 * import { verify, WebhookVerificationError } from "@postwire/webhooks"
 *
 * try {
 *   const event = await verify(rawBody, signature, secret)
 * } catch (error) {
 *   if (error instanceof WebhookVerificationError) {
 *     console.warn(`rejected webhook: ${error.reason}`)
 *     return new Response(null, { status: 400 })
 *   }
 *   throw error
 * }
 * ```
 */
export class WebhookVerificationError extends Error {
  /** Machine-readable cause; see {@link WebhookVerificationErrorReason}. */
  readonly reason: WebhookVerificationErrorReason

  constructor(reason: WebhookVerificationErrorReason, message: string) {
    super(message)
    this.name = "WebhookVerificationError"
    this.reason = reason
  }
}
