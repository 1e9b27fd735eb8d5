/**
 * The `Ids` service: time-ordered random identifiers and secrets. Use-cases never call
 * `Math.random` or read the wall clock; they ask `Ids` (and Effect's `Clock`).
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"
import { Clock, Context, Effect, Layer } from "effect"
import { Ids as IdSchemas } from "@postwire/domain"
import * as Entropy from "./Entropy.ts"

const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

/** Encodes a millisecond time and 80 random bits as 26 Crockford base32 characters (ULID layout). */
export const encodeUlid = (time: number, random: Uint8Array): string => {
  let out = ""
  let t = time
  for (let i = 0; i < 10; i++) {
    out = crockford[t % 32]! + out
    t = Math.floor(t / 32)
  }
  let bits = 0
  let value = 0
  for (const byte of random.subarray(0, 10)) {
    value = (value << 8) | byte
    bits += 8
    while (bits >= 5) {
      out += crockford[(value >>> (bits - 5)) & 31]
      bits -= 5
    }
    value &= (1 << bits) - 1
  }
  return out
}

/** Makes ids and secrets. */
export class Ids extends Context.Service<
  Ids,
  {
    /** A new id of the given kind, e.g. `post_01JD…`. */
    readonly make: <K extends IdSchemas.IdKind>(kind: K) => Effect.Effect<IdSchemas.IdOf<K>>
    /** `bytes` random bytes, base64url-encoded: for keys, tokens and webhook secrets. */
    readonly secret: (bytes: number) => Effect.Effect<string>
  }
>()("postwire/Ids") {
  /** Cryptographically random ids, time-ordered by Effect's `Clock`. */
  static readonly layer: Layer.Layer<Ids> = Layer.succeed(Ids)({
    make: (kind) => Effect.map(Clock.currentTimeMillis, (now) => IdSchemas.unchecked(kind, IdSchemas.prefixes[kind] + encodeUlid(now, Entropy.bytes(10)))),
    secret: (bytes) => Effect.sync(() => Buffer.from(Entropy.bytes(bytes)).toString("base64url"))
  })

  /** Deterministic ids for tests: a counter instead of randomness, still ordered by `Clock`. */
  static readonly layerTest: Layer.Layer<Ids> = Layer.sync(Ids)(() => {
    let n = 0
    const counterBytes = () => {
      n++
      const b = new Uint8Array(10)
      new DataView(b.buffer).setUint32(6, n)
      return b
    }
    return {
      make: (kind) => Effect.map(Clock.currentTimeMillis, (now) => IdSchemas.unchecked(kind, IdSchemas.prefixes[kind] + encodeUlid(now, counterBytes()))),
      secret: (bytes) =>
        Effect.sync(() => {
          n++
          return createHash("sha256").update(`secret-${n}`).digest().subarray(0, bytes).toString("base64url")
        })
    }
  })
}

/** SHA-256 hex digest of a secret, as stored for keys and approval tokens. */
export const hashSecret = (secret: string): string => createHash("sha256").update(secret).digest("hex")
