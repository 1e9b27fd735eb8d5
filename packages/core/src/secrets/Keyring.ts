/**
 * The server's master secrets, newest first, and the keys derived from them. Every use of a
 * secret (sealing platform credentials, approval links, media addresses, list cursors, the
 * sandbox consent page, the approval form) gets its own key, derived with HKDF-SHA256 from the
 * master and the use's name, so one master never keys two uses directly.
 *
 * Rotation: new seals and signatures use the newest master; every listed master still opens
 * and verifies. A master is named by a short key id (derived, not secret), which sealed values
 * carry so they open without trying every key.
 *
 * @example
 * ```ts
 * import { Keyring } from "@postwire/core"
 *
 * const keyring = Keyring.make([newSecret, oldSecret])
 * const tag = Keyring.sign(keyring, "cursor", body)
 * Keyring.verify(keyring, "cursor", body, tag) // true, and also for tags made under oldSecret
 * ```
 *
 * @since 0.2.0
 */
import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto"

/** What a derived key is for; each use has its own key. */
export type Purpose = "credentials" | "approval-token" | "approval-form" | "media-url" | "cursor" | "sandbox-code"

/** One master secret and the keys derived from it. */
export interface MasterKey {
  /** A short public name of the master (8 hex characters), carried by sealed values. */
  readonly id: string
  /** The 32-byte key for `purpose`. */
  readonly key: (purpose: Purpose) => Buffer
  /**
   * The master as given: only for checking values written before keys were derived per use
   * (`legacy` forms; see docs/operations.md). Never used to make new values.
   */
  readonly legacy: string
}

/** The master secrets, newest first (never empty). */
export interface Keyring {
  readonly masters: readonly [MasterKey, ...ReadonlyArray<MasterKey>]
}

const salt = "postwire"

const derive = (master: string, info: string): Buffer => Buffer.from(hkdfSync("sha256", master, salt, info, 32))

const masterKey = (master: string): MasterKey => {
  const cache = new Map<Purpose, Buffer>()
  return {
    id: derive(master, "postwire/key-id/v1").subarray(0, 4).toString("hex"),
    key: (purpose) => {
      let found = cache.get(purpose)
      if (found === undefined) {
        // `credentials/v1` is the derivation sealed credentials have used since 0.1.0.
        found = derive(master, `postwire/${purpose}/v1`)
        cache.set(purpose, found)
      }
      return found
    },
    legacy: master
  }
}

/**
 * A keyring of the given masters, newest first. Throws when the list is empty: a server
 * without a secret cannot sign anything.
 */
export const make = (masters: ReadonlyArray<string>): Keyring => {
  const [first, ...rest] = masters
  if (first === undefined) throw new Error("a keyring needs at least one secret")
  return { masters: [masterKey(first), ...rest.map(masterKey)] }
}

/** The master new values are made with. */
export const newest = (keyring: Keyring): MasterKey => keyring.masters[0]

/** The master with this key id, if it is listed. */
export const byId = (keyring: Keyring, id: string): MasterKey | undefined => keyring.masters.find((master) => master.id === id)

/** HMAC-SHA256 of `data` under `master`'s key for `purpose`. */
export const signWith = (master: MasterKey, purpose: Purpose, data: string): Buffer =>
  createHmac("sha256", master.key(purpose)).update(data).digest()

/** HMAC-SHA256 of `data` under the newest master's key for `purpose`. */
export const sign = (keyring: Keyring, purpose: Purpose, data: string): Buffer => signWith(newest(keyring), purpose, data)

/** Constant-time equality of two byte strings of any length. */
export const sameBytes = (a: Buffer, b: Buffer): boolean => a.length === b.length && timingSafeEqual(a, b)

/**
 * Whether `tag` is the signature of `data` for `purpose` under any listed master, truncated to
 * `length` bytes (32: whole). `legacy` computes the tag a master made before keys were derived
 * per use, for values issued by an older version.
 */
export const verify = (
  keyring: Keyring,
  purpose: Purpose,
  data: string,
  tag: Buffer,
  options: { readonly length?: number; readonly legacy?: (master: string) => Buffer } = {}
): boolean => {
  const length = options.length ?? 32
  if (tag.length !== length) return false
  let found = false
  for (const master of keyring.masters) {
    // Every candidate is checked, so the time taken does not tell which master matched.
    if (sameBytes(signWith(master, purpose, data).subarray(0, length), tag)) found = true
    if (options.legacy !== undefined && sameBytes(options.legacy(master.legacy).subarray(0, length), tag)) found = true
  }
  return found
}
