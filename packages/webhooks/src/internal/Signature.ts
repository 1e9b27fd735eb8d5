import { WebhookVerificationError } from "../errors.ts"

/** The parts of a `SERVICE-Signature` header that this version understands. */
export interface Signature {
  /** `t`: unix seconds at which the service signed the delivery. */
  readonly timestamp: number
  /** Every `v1` value, in header order; more than one while a secret is rotated. */
  readonly v1: ReadonlyArray<string>
}

const malformed = (detail: string): WebhookVerificationError =>
  new WebhookVerificationError("malformed_header", `SERVICE-Signature header is malformed: ${detail}`)

/**
 * Reads `t=<unix seconds>,v1=<hex>[,v1=<hex>...]`. Entries of other schemes (`v0=`, a future
 * `v2=`) are skipped so that the service can add schemes without breaking receivers.
 *
 * @throws {WebhookVerificationError} `malformed_header`
 */
export const parse = (header: string): Signature => {
  let timestamp: number | undefined
  const v1: Array<string> = []
  for (const rawEntry of header.split(",")) {
    const entry = rawEntry.trim()
    const equals = entry.indexOf("=")
    if (equals <= 0) throw malformed(`expected "key=value" entries, got "${entry}"`)
    const key = entry.slice(0, equals)
    const value = entry.slice(equals + 1)
    if (key === "t") {
      if (timestamp !== undefined) throw malformed("more than one t= entry")
      if (!/^\d{1,15}$/.test(value)) throw malformed(`t must be unix seconds, got "${value}"`)
      timestamp = Number(value)
    } else if (key === "v1") {
      v1.push(value)
    }
  }
  if (timestamp === undefined) throw malformed("no t= entry")
  return { timestamp, v1 }
}

/** The header value for a timestamp and its `v1` signatures. */
export const format = (signature: Signature): string =>
  [`t=${signature.timestamp}`, ...signature.v1.map((value) => `v1=${value}`)].join(",")
