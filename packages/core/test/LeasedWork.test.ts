/**
 * The leased loops' shape (comment polling, permalink backfill, token renewal): a round that
 * never finishes (a call that never answers) does not stop the loop.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import * as LeasedWork from "../src/internal/LeasedWork.ts"

const settings: LeasedWork.LeasedSettings = { owner: "w1", concurrency: 1, leaseMs: 10_000, idlePollMs: 1_000 }

describe("LeasedWork.loop", () => {
  it.effect("leaves a round behind once it has run past its lease, and goes on with the next", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const worked: Array<number> = []
        let rounds = 0
        const oneRound = Effect.gen(function* () {
          const round = ++rounds
          // The first round hangs on a call that never answers.
          if (round === 1) yield* Effect.never
          worked.push(round)
          return [round]
        })
        yield* LeasedWork.loop(settings, oneRound, "round failed")
        yield* TestClock.adjust("5 seconds")
        assert.deepStrictEqual(worked, [])
        yield* TestClock.adjust("6 seconds")
        assert.isAtLeast(worked.length, 1)
        assert.strictEqual(worked[0], 2)
      })
    )
  )
})
