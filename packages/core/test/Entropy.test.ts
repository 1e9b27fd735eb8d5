/**
 * `Entropy.bytes` and the ids made from it: random bytes handed out once each, as copies the
 * caller owns, across the pool's refills; ids in the ULID layout, time-ordered, never repeated.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { Entropy, encodeUlid, Ids } from "../src/index.ts"

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex")

describe("Entropy.bytes", () => {
  it("returns the length asked for, different each time, across many refills of the pool", () => {
    const seen = new Set<string>()
    // 20,000 × 10 bytes: the 4 KiB pool is refilled about 50 times on the way.
    for (let i = 0; i < 20_000; i++) {
      const b = Entropy.bytes(10)
      assert.strictEqual(b.length, 10)
      seen.add(hex(b))
    }
    assert.strictEqual(seen.size, 20_000)
  })

  it("hands out copies: changing one changes neither the next nor a later one", () => {
    const first = Entropy.bytes(16)
    const kept = hex(first)
    first.fill(0)
    const second = Entropy.bytes(16)
    assert.notStrictEqual(hex(second), "00".repeat(16))
    assert.notStrictEqual(hex(second), kept)
    assert.strictEqual(first.buffer.byteLength, 16, "a view of the pool would carry the whole pool's buffer")
  })

  it("serves requests larger than the pool's limit, and of zero bytes", () => {
    const large = Entropy.bytes(10_000)
    assert.strictEqual(large.length, 10_000)
    // 10,000 random bytes take nearly every value: a zero-filled or repeating buffer would not.
    assert.isAbove(new Set(large).size, 200)
    assert.strictEqual(Entropy.bytes(0).length, 0)
  })

  it("refuses a count that is not a whole number of bytes, naming it, and hands out no byte twice after", () => {
    for (const count of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(() => Entropy.bytes(count), RangeError, `count must be a whole number from 0 up, got ${count}`)
    }
    const seen = new Set<string>()
    for (let i = 0; i < 1_000; i++) seen.add(hex(Entropy.bytes(8)))
    assert.strictEqual(seen.size, 1_000)
  })

  it("spreads bytes over every value (no byte value more than twice as common as the mean)", () => {
    const counts = new Array<number>(256).fill(0)
    for (let i = 0; i < 2_000; i++) for (const byte of Entropy.bytes(64)) counts[byte]!++
    const mean = (2_000 * 64) / 256
    assert.isBelow(Math.max(...counts), 2 * mean)
    assert.isAbove(Math.min(...counts), mean / 2)
  })
})

describe("Ids.layer", () => {
  it("encodes the time and 80 random bits as 26 Crockford base32 characters", () => {
    assert.strictEqual(encodeUlid(0, new Uint8Array(10)), "0".repeat(26))
    assert.strictEqual(encodeUlid(1_469_918_176_385, new Uint8Array(10).fill(255)), `01ARYZ6S41${"Z".repeat(16)}`)
  })

  it.effect("makes distinct, prefixed, time-ordered ids and secrets of the length asked for", () =>
    Effect.gen(function* () {
      const ids = yield* Ids
      yield* TestClock.setTime(1_700_000_000_000)
      const early = yield* ids.make("post")
      yield* TestClock.adjust("1 millis")
      const many = new Set<string>()
      for (let i = 0; i < 1_000; i++) many.add(yield* ids.make("post"))
      assert.strictEqual(many.size, 1_000)
      for (const id of many) {
        assert.match(id, /^post_[0-9A-HJKMNP-TV-Z]{26}$/)
        assert.isTrue(id > early, `${id} sorts after ${early}`)
      }
      const secret = yield* ids.secret(32)
      assert.strictEqual(Buffer.from(secret, "base64url").length, 32)
      assert.notStrictEqual(secret, yield* ids.secret(32))
    }).pipe(Effect.provide(Ids.layer))
  )
})
