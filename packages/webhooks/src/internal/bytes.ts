const encoder = new TextEncoder()
const decoder = new TextDecoder("utf-8", { fatal: true })

/** UTF-8 bytes of a raw body, or `undefined` when it is not a raw body (e.g. a parsed object). */
export const fromRawBody = (body: unknown): Uint8Array | undefined => {
  if (typeof body === "string") return encoder.encode(body)
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength)
  // `instanceof` fails for an ArrayBuffer made in another realm (a worker, a vm context).
  if (body instanceof ArrayBuffer || Object.prototype.toString.call(body) === "[object ArrayBuffer]") {
    return new Uint8Array(body as ArrayBuffer)
  }
  return undefined
}

/** `a` followed by `b`, in a new array. */
export const concat = (a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> => {
  const joined = new Uint8Array(a.length + b.length)
  joined.set(a, 0)
  joined.set(b, a.length)
  return joined
}

export const utf8 = (text: string): Uint8Array<ArrayBuffer> => encoder.encode(text)

/** The text the bytes encode, or `undefined` when they are not valid UTF-8. */
export const decodeUtf8 = (bytes: Uint8Array): string | undefined => {
  try {
    return decoder.decode(bytes)
  } catch {
    return undefined
  }
}

const hexByte = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"))

/** Lowercase hex of the bytes. */
export const toHex = (bytes: Uint8Array): string => {
  let hex = ""
  for (const byte of bytes) hex += hexByte[byte]
  return hex
}

/**
 * Whether two strings are equal, in time that depends only on their lengths: every character
 * is compared, with no early exit, so a forger learns nothing from how long a rejection takes.
 * The lengths are not secret (an expected signature is always 64 hex characters).
 */
export const constantTimeEqual = (expected: string, candidate: string): boolean => {
  if (expected.length !== candidate.length) return false
  let difference = 0
  for (let i = 0; i < expected.length; i++) {
    difference |= expected.charCodeAt(i) ^ candidate.charCodeAt(i)
  }
  return difference === 0
}
