/**
 * An endpoint's signing secret (`whsec_...`, returned once by `POST /v1/webhooks`), or several
 * of them while you rotate: a delivery verifies when it matches any one.
 *
 * The HMAC key is the whole secret string, prefix included, encoded as UTF-8 (not the
 * base64url part decoded).
 *
 * @example
 * ```ts
 * const secret: WebhookSecret = [process.env.WEBHOOK_SECRET_NEW!, process.env.WEBHOOK_SECRET_OLD!]
 * ```
 */
export type WebhookSecret = string | ReadonlyArray<string>
