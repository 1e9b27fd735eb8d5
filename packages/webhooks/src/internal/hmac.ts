import { concat, toHex, utf8 } from "./bytes.ts"

interface NodeCryptoModule {
  readonly webcrypto: { readonly subtle: SubtleCrypto }
}

const loadSubtle = async (): Promise<SubtleCrypto> => {
  const subtle = globalThis.crypto?.subtle
  if (subtle !== undefined) return subtle
  // Node 18 exposes `globalThis.crypto` only behind a flag; `node:crypto` has the same Web
  // Crypto. The specifier is a variable, and marked ignored, so that bundlers for edge
  // runtimes (which always have `globalThis.crypto`) do not try to resolve it.
  const specifier = "node:crypto"
  const nodeCrypto: NodeCryptoModule = await import(/* webpackIgnore: true */ /* @vite-ignore */ specifier)
  return nodeCrypto.webcrypto.subtle
}

let subtlePromise: Promise<SubtleCrypto> | undefined

const getSubtle = (): Promise<SubtleCrypto> => {
  subtlePromise ??= loadSubtle()
  return subtlePromise
}

// Importing a key costs as much as signing with it, and a receiver checks every delivery
// against the same one or two secrets. Bounded so that a process serving many endpoints stays
// small; the keys are non-extractable.
const maxCachedKeys = 16
const keys = new Map<string, Promise<CryptoKey>>()

const hmacKey = (subtle: SubtleCrypto, secret: string): Promise<CryptoKey> => {
  let key = keys.get(secret)
  if (key === undefined) {
    key = subtle.importKey("raw", utf8(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"])
    if (keys.size >= maxCachedKeys) keys.delete(keys.keys().next().value as string)
    keys.set(secret, key)
  }
  return key
}

/**
 * Lowercase hex HMAC-SHA256 of `<timestamp>.<body>`, keyed with the secret's UTF-8 bytes:
 * the `v1` signature scheme.
 */
export const signatureV1 = async (secret: string, timestamp: number, body: Uint8Array): Promise<string> => {
  const subtle = await getSubtle()
  const key = await hmacKey(subtle, secret)
  const mac = await subtle.sign("HMAC", key, concat(utf8(`${timestamp}.`), body))
  return toHex(new Uint8Array(mac))
}
