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
  // One pass over the header, entry by entry, without splitting it into an array first: this
  // runs for every delivery a receiver checks.
  let start = 0
  while (start <= header.length) {
    let end = header.indexOf(",", start)
    if (end === -1) end = header.length
    const entry = trimmed(header, start, end)
    start = end + 1
    const equals = entry.indexOf("=")
    if (equals <= 0) throw malformed(`expected "key=value" entries, got "${entry}"`)
    if (equals === 1 && entry.charCodeAt(0) === 116 /* t */) {
      if (timestamp !== undefined) throw malformed("more than one t= entry")
      timestamp = unixSeconds(entry, 2)
      if (timestamp === undefined) throw malformed(`t must be unix seconds, got "${entry.slice(2)}"`)
    } else if (equals === 2 && entry.charCodeAt(0) === 118 /* v */ && entry.charCodeAt(1) === 49 /* 1 */) {
      v1.push(entry.slice(3))
    }
  }
  if (timestamp === undefined) throw malformed("no t= entry")
  return { timestamp, v1 }
}

const isSpace = (code: number): boolean =>
  code === 32 || (code >= 9 && code <= 13) || code === 160 || code === 0xfeff || (code >= 0x2000 && code <= 0x200a) ||
  code === 0x1680 || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000

/** `header.slice(start, end).trim()`, without the intermediate string when nothing is trimmed. */
const trimmed = (header: string, start: number, end: number): string => {
  let from = start
  let to = end
  while (from < to && isSpace(header.charCodeAt(from))) from++
  while (to > from && isSpace(header.charCodeAt(to - 1))) to--
  return header.slice(from, to)
}

/** The value of `entry` from `from` as unix seconds: 1 to 15 ASCII digits, else `undefined`. */
const unixSeconds = (entry: string, from: number): number | undefined => {
  const digits = entry.length - from
  if (digits < 1 || digits > 15) return undefined
  let value = 0
  for (let i = from; i < entry.length; i++) {
    const digit = entry.charCodeAt(i) - 48
    if (digit < 0 || digit > 9) return undefined
    value = value * 10 + digit
  }
  return value
}

/** The header value for a timestamp and its `v1` signatures. */
export const format = (signature: Signature): string =>
  [`t=${signature.timestamp}`, ...signature.v1.map((value) => `v1=${value}`)].join(",")
