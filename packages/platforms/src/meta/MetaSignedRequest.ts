/**
 * Meta's `signed_request`: what the deauthorization and data-deletion callbacks of Facebook
 * Login, Instagram Login and Threads post (form field `signed_request`). It is
 * `base64url(signature) "." base64url(payload)`, the signature being HMAC-SHA256 of the encoded
 * payload with the app secret, and the payload JSON naming `user_id`, `algorithm`
 * (`HMAC-SHA256`), `issued_at` and sometimes `expires`.
 *
 * @example
 * ```ts
 * import { MetaSignedRequest } from "@postwire/platforms"
 *
 * const verified = MetaSignedRequest.verify(form.get("signed_request") ?? "", appSecret)
 * if (verified._tag === "Valid") console.log(verified.payload.userId)
 * ```
 *
 * @since 0.2.0
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import type { MetaSignedRequestPayload } from "@postwire/core"

/** Why a signed request was refused. */
export type Refusal = "malformed" | "bad_signature" | "unsupported_algorithm"

const base64url = /^[A-Za-z0-9_-]+={0,2}$/

/**
 * Verifies a signed request with the app secret, comparing signatures in constant time, and
 * reads its payload. Only `HMAC-SHA256` is accepted, whatever else the payload claims.
 */
export const verify = (
  signedRequest: string,
  appSecret: string
): { readonly _tag: "Valid"; readonly payload: MetaSignedRequestPayload } | { readonly _tag: "Invalid"; readonly reason: Refusal } => {
  const parts = signedRequest.trim().split(".")
  if (parts.length !== 2) return { _tag: "Invalid", reason: "malformed" }
  const [encodedSignature, encodedPayload] = parts as [string, string]
  if (!base64url.test(encodedSignature) || !base64url.test(encodedPayload)) return { _tag: "Invalid", reason: "malformed" }
  const given = Buffer.from(encodedSignature, "base64url")
  const expected = createHmac("sha256", appSecret).update(encodedPayload).digest()
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { _tag: "Invalid", reason: "bad_signature" }
  const text = Buffer.from(encodedPayload, "base64url").toString("utf8")
  let payload: unknown
  try {
    payload = JSON.parse(text)
  } catch {
    return { _tag: "Invalid", reason: "malformed" }
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) return { _tag: "Invalid", reason: "malformed" }
  const record = payload as Record<string, unknown>
  if (typeof record.algorithm !== "string" || record.algorithm.toUpperCase() !== "HMAC-SHA256") {
    return { _tag: "Invalid", reason: "unsupported_algorithm" }
  }
  // A numeric id is read from the text: JSON numbers lose the last digits of long ids.
  const userId =
    typeof record.user_id === "string"
      ? record.user_id
      : typeof record.user_id === "number"
        ? (/"user_id"\s*:\s*(\d+)/.exec(text)?.[1] ?? "")
        : ""
  if (userId === "") return { _tag: "Invalid", reason: "malformed" }
  const issuedAt = typeof record.issued_at === "number" ? record.issued_at * 1000 : null
  return { _tag: "Valid", payload: { userId, issuedAt, payload: record } }
}

/** Signs a payload as Meta does: for tests and fake platforms. */
export const sign = (payload: Readonly<Record<string, unknown>>, appSecret: string): string => {
  const encodedPayload = Buffer.from(JSON.stringify(payload)).toString("base64url")
  const signature = createHmac("sha256", appSecret).update(encodedPayload).digest("base64url")
  return `${signature}.${encodedPayload}`
}
