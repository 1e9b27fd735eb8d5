/**
 * Signing deliveries: `SERVICE-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`,
 * keyed with the endpoint's whole secret (`whsec_` prefix included) as UTF-8, exactly as
 * `@postwire/webhooks` verifies it.
 *
 * @since 0.1.0
 */
import { createHmac } from "node:crypto"

/** The header carrying the signature. */
export const signatureHeaderName = "SERVICE-Signature"

/** The header carrying the event id, the same as the body's `id`. */
export const eventIdHeaderName = "SERVICE-Event-Id"

/** The prefix of every endpoint secret. */
export const secretPrefix = "whsec_"

/**
 * `v1`: hex HMAC-SHA256 of `<timestamp>.<body>` keyed with the secret as UTF-8.
 *
 * @example
 * ```ts
 * signPayload("whsec_…", 1795309323, body) // "2f56b80c…"
 * ```
 */
export const signPayload = (secret: string, timestampSeconds: number, body: string): string =>
  createHmac("sha256", Buffer.from(secret, "utf8")).update(`${timestampSeconds}.${body}`, "utf8").digest("hex")

/**
 * The `SERVICE-Signature` header value for a body sent at `timestampSeconds`, with one `v1`
 * per secret in the order given (during a rotation: the new secret's, then the old one's).
 * Each attempt is signed when it is sent, so a retry a day later still passes a receiver's
 * replay check.
 *
 * @example
 * ```ts
 * signatureHeader(["whsec_new…", "whsec_old…"], 1795309323, body) // "t=1795309323,v1=…,v1=…"
 * ```
 */
export const signatureHeader = (secret: string | ReadonlyArray<string>, timestampSeconds: number, body: string): string =>
  [
    `t=${timestampSeconds}`,
    ...(typeof secret === "string" ? [secret] : secret).map((each) => `v1=${signPayload(each, timestampSeconds, body)}`)
  ].join(",")
