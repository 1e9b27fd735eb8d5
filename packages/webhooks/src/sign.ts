import { fromRawBody } from "./internal/bytes.ts"
import { signerV1 } from "./internal/hmac.ts"
import * as Signature from "./internal/Signature.ts"
import { secretList } from "./internal/secrets.ts"
import type { RawBody } from "./RawBody.ts"
import type { WebhookSecret } from "./WebhookSecret.ts"

/**
 * Options of {@link sign}.
 *
 * @example
 * ```ts
 * const stale: SignOptions = { timestamp: new Date(Date.now() - 10 * 60_000) }
 * const header = await sign(body, secret, stale) // your receiver must reject it
 * ```
 */
export interface SignOptions {
  /**
   * The signing time: a `Date` (truncated to whole seconds) or whole unix seconds. Defaults to
   * now. Set it to test your receiver's replay tolerance.
   */
  readonly timestamp?: Date | number
}

/**
 * Builds the `SERVICE-Signature` header value the service would send with this body:
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`. For testing your receiver
 * with deliveries it must accept or reject; the service signs real deliveries itself.
 *
 * With a list of secrets, the header carries one `v1` per secret, as during a rotation.
 *
 * @throws {TypeError} when the body is not raw or a secret is empty.
 * @throws {RangeError} when `timestamp` is not whole, non-negative unix seconds.
 *
 * @example
 * ```ts
 * import { EVENT_ID_HEADER, SIGNATURE_HEADER, sign } from "@postwire/webhooks"
 *
 * const body = JSON.stringify({ id: "evt_1", type: "post.published", created_at, livemode: false, data })
 * const response = await fetch("http://localhost:3000/webhooks", {
 *   method: "POST",
 *   headers: { [SIGNATURE_HEADER]: await sign(body, secret), [EVENT_ID_HEADER]: "evt_1" },
 *   body
 * })
 * ```
 */
export const sign = async (rawBody: RawBody, secret: WebhookSecret, options: SignOptions = {}): Promise<string> => {
  const body = fromRawBody(rawBody)
  if (body === undefined) {
    throw new TypeError("sign needs the raw body (string, Uint8Array, Buffer or ArrayBuffer), e.g. JSON.stringify(event)")
  }
  const secrets = secretList(secret)
  const timestamp = timestampSeconds(options.timestamp)
  const v1: Array<string> = []
  for (const each of secrets) v1.push(await signerV1(each)(timestamp, body))
  return Signature.format({ timestamp, v1 })
}

const timestampSeconds = (timestamp: Date | number | undefined): number => {
  const seconds =
    timestamp === undefined
      ? Math.floor(Date.now() / 1000)
      : timestamp instanceof Date
        ? Math.floor(timestamp.getTime() / 1000)
        : timestamp
  if (!Number.isSafeInteger(seconds) || seconds < 0) {
    throw new RangeError(`timestamp must be whole, non-negative unix seconds, got ${String(timestamp)}`)
  }
  return seconds
}
