/**
 * Timestamp identifiers (TIDs): the record keys of `app.bsky.feed.post`. 13 characters of the
 * sortable base32 alphabet `234567abcdefghijklmnopqrstuvwxyz` spelling a 64-bit number whose top
 * bit is 0, then 53 bits of microseconds since the UNIX epoch, then a 10-bit clock identifier.
 * https://atproto.com/specs/tid
 *
 * Postwire chooses a post's key itself, saves it, then creates the record under it: a lost answer
 * is then resolved by reading that key back (`com.atproto.repo.getRecord`), never by posting again.
 *
 * @since 0.5.0
 */

const alphabet = "234567abcdefghijklmnopqrstuvwxyz"

/** The TID syntax (https://atproto.com/specs/tid#tid-syntax). */
export const pattern = /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/

/** The TID of a time in microseconds and a clock identifier (0 to 1023). */
export const make = (micros: number, clockId: number): string => {
  let n = (BigInt(Math.floor(micros)) << 10n) | BigInt(clockId & 0x3ff)
  let out = ""
  for (let i = 0; i < 13; i++) {
    out = alphabet[Number(n & 31n)]! + out
    n >>= 5n
  }
  return out
}

/** A new TID for now (epoch milliseconds), with a random clock identifier and sub-millisecond part. */
export const next = (nowMs: number): string =>
  make(nowMs * 1000 + Math.floor(Math.random() * 1000), Math.floor(Math.random() * 1024))
