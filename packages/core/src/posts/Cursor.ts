/**
 * List cursors: opaque, tamper-evident keyset positions bound to the filters that produced
 * them and valid for a limited time. A cursor is `base64url(payload).base64url(mac)`.
 *
 * @since 0.1.0
 */
import { createHash, createHmac } from "node:crypto"
import { Option } from "effect"
import * as Keyring from "../secrets/Keyring.ts"
import type { Keyset } from "../store/Keyset.ts"

interface Payload {
  readonly v: 1
  readonly s: number
  readonly id: string
  readonly f: string
  readonly i: number
}

/** A stable digest of a filter combination (key order does not matter; absent equals undefined). */
export const filterDigest = (scope: string, filters: Readonly<Record<string, unknown>>): string => {
  const entries = Object.entries(filters)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1))
  return createHash("sha256")
    .update(JSON.stringify([scope, entries]))
    .digest("base64url")
    .slice(0, 16)
}

const macLength = 16

/** How 0.1 signed cursors: HMAC under the master itself (still accepted, never made). */
const legacyMac = (body: string) => (master: string) => createHmac("sha256", master).update(body).digest()

/** Encodes a position for the given filter digest, signed under the newest master. */
export const encodeCursor = (keyring: Keyring.Keyring, keyset: Keyset, filter: string, issuedAt: number): string => {
  const payload: Payload = { v: 1, s: keyset.sortKey, id: keyset.id, f: filter, i: issuedAt }
  const body = Buffer.from(JSON.stringify(payload)).toString("base64url")
  return `${body}.${Keyring.sign(keyring, "cursor", body).subarray(0, macLength).toString("base64url")}`
}

/** Decodes a cursor; `None` when it was altered, issued for other filters, or is too old. */
export const decodeCursor = (
  keyring: Keyring.Keyring,
  cursor: string,
  filter: string,
  now: number,
  ttlMs: number
): Option.Option<Keyset> => {
  const [body, signature, extra] = cursor.split(".")
  if (!body || !signature || extra !== undefined) return Option.none()
  const given = Buffer.from(signature, "base64url")
  if (!Keyring.verify(keyring, "cursor", body, given, { length: macLength, legacy: legacyMac(body) })) return Option.none()
  try {
    const p = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as Partial<Payload>
    if (p.v !== 1 || typeof p.s !== "number" || typeof p.id !== "string" || typeof p.i !== "number") {
      return Option.none()
    }
    if (p.f !== filter || now - p.i > ttlMs || p.i - now > 60_000) return Option.none()
    return Option.some({ sortKey: p.s, id: p.id })
  } catch {
    return Option.none()
  }
}
