import { concat, toHex, utf8 } from "./bytes.ts"

/**
 * Signs `<timestamp>.<body>` under one secret: lowercase hex HMAC-SHA256. Synchronous where the
 * runtime has node:crypto, a promise on Web Crypto.
 */
export type SignerV1 = (timestamp: number, body: string | Uint8Array) => string | Promise<string>

/** The part of node:crypto used here, typed locally so the package needs no Node types. */
export interface NodeCrypto {
  readonly createSecretKey: (key: Uint8Array) => unknown
  readonly createHmac: (
    algorithm: "sha256",
    key: unknown
  ) => {
    update(data: string | Uint8Array): {
      update(data: string | Uint8Array): { digest(encoding: "hex"): string }
      digest(encoding: "hex"): string
    }
  }
}

interface ProcessWithBuiltins {
  readonly getBuiltinModule?: (id: string) => unknown
}

// `process.getBuiltinModule` (Node 20.16+, 22.3+) loads node:crypto synchronously, without an
// import that bundlers for edge runtimes would try to resolve. Elsewhere Web Crypto is used.
export const nodeCrypto: NodeCrypto | undefined = (() => {
  const proc = (globalThis as { readonly process?: ProcessWithBuiltins }).process
  try {
    const module = proc?.getBuiltinModule?.("node:crypto") as Partial<NodeCrypto> | undefined
    return typeof module?.createHmac === "function" && typeof module.createSecretKey === "function"
      ? (module as NodeCrypto)
      : undefined
  } catch {
    return undefined
  }
})()

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
  const module: NodeCryptoModule = await import(/* webpackIgnore: true */ /* @vite-ignore */ specifier)
  return module.webcrypto.subtle
}

let subtlePromise: Promise<SubtleCrypto> | undefined

const getSubtle = (): Promise<SubtleCrypto> => {
  subtlePromise ??= loadSubtle()
  return subtlePromise
}

/** node:crypto signer (exported for tests). */
export const nodeSigner = (crypto: NodeCrypto, secret: string): SignerV1 => {
  const key = crypto.createSecretKey(utf8(secret))
  // A string body is hashed as UTF-8 by node:crypto itself: no intermediate byte array.
  return (timestamp, body) =>
    typeof body === "string"
      ? crypto.createHmac("sha256", key).update(`${timestamp}.${body}`).digest("hex")
      : crypto.createHmac("sha256", key).update(`${timestamp}.`).update(body).digest("hex")
}

/** Web Crypto signer, for runtimes without node:crypto (exported for tests). */
export const webSigner = (secret: string): SignerV1 => {
  const key = getSubtle().then((subtle) =>
    subtle.importKey("raw", utf8(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]).then((imported) => ({
      subtle,
      imported
    }))
  )
  return async (timestamp, body) => {
    const { subtle, imported } = await key
    const bytes = typeof body === "string" ? utf8(body) : body
    const mac = await subtle.sign("HMAC", imported, concat(utf8(`${timestamp}.`), bytes))
    return toHex(new Uint8Array(mac))
  }
}

// Preparing a key costs as much as signing with it, and a receiver checks every delivery
// against the same one or two secrets. Bounded so that a process serving many endpoints stays
// small; the key material is never extractable from the cache's values.
const maxCachedSigners = 16
const signers = new Map<string, SignerV1>()

/** The `v1` signer of a secret, its key material prepared once and reused. */
export const signerV1 = (secret: string): SignerV1 => {
  let signer = signers.get(secret)
  if (signer === undefined) {
    signer = nodeCrypto === undefined ? webSigner(secret) : nodeSigner(nodeCrypto, secret)
    if (signers.size >= maxCachedSigners) signers.delete(signers.keys().next().value as string)
    signers.set(secret, signer)
  }
  return signer
}
