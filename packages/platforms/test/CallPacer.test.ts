import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import * as CallPacer from "../src/internal/CallPacer.ts"

const sixAMinute: CallPacer.CallLimit = { calls: 6, perMs: 60_000 }

describe("CallPacer", () => {
  it.effect("lets 6 calls a minute through, then names when the oldest leaves the window", () =>
    Effect.gen(function* () {
      const pacer = CallPacer.make()
      for (let i = 0; i < 6; i++) {
        assert.isUndefined(yield* pacer.take("acct_1:init", sixAMinute))
        yield* TestClock.adjust(1_000)
      }
      // Calls at 0 s … 5 s: the seventh fits when the first leaves, at 60 s.
      assert.strictEqual(yield* pacer.take("acct_1:init", sixAMinute), 60_000)
      assert.strictEqual(yield* pacer.nextFree("acct_1:init", sixAMinute), 60_000)
      // Another account has a window of its own.
      assert.isUndefined(yield* pacer.take("acct_2:init", sixAMinute))
      yield* TestClock.adjust(54_000)
      assert.isUndefined(yield* pacer.take("acct_1:init", sixAMinute), "at 60 s the first call left")
      assert.strictEqual(yield* pacer.take("acct_1:init", sixAMinute), 61_000, "the next fits when the second leaves")
    }))

  it.effect("counts a refused call nowhere, and a peek takes nothing", () =>
    Effect.gen(function* () {
      const pacer = CallPacer.make()
      const two: CallPacer.CallLimit = { calls: 2, perMs: 60_000 }
      assert.isUndefined(yield* pacer.nextFree("k", two))
      assert.isUndefined(yield* pacer.take("k", two))
      assert.isUndefined(yield* pacer.take("k", two))
      for (let i = 0; i < 5; i++) assert.strictEqual(yield* pacer.take("k", two), 60_000)
      yield* TestClock.adjust(60_000)
      assert.isUndefined(yield* pacer.take("k", two))
    }))

  it.effect("closes the window for its whole length when the platform refused a call for its limit", () =>
    Effect.gen(function* () {
      const pacer = CallPacer.make()
      yield* TestClock.adjust(5_000)
      assert.strictEqual(yield* pacer.spend("k", sixAMinute), 65_000)
      assert.strictEqual(yield* pacer.take("k", sixAMinute), 65_000)
      yield* TestClock.adjust(60_000)
      assert.isUndefined(yield* pacer.take("k", sixAMinute))
    }))
})
