import { assert, describe, it } from "@effect/vitest"
import { Effect, Random } from "effect"
import { DeliverySchedule } from "../src/index.ts"

const minute = 60_000
const hour = 60 * minute

describe("DeliverySchedule", () => {
  it("waits about 1 m, 5 m, 15 m, 30 m, 1 h, 3 h, 6 h and 13 h, 24 hours in all", () => {
    assert.deepStrictEqual(DeliverySchedule.retryIntervalsMs.map((ms) => ms / minute), [1, 5, 15, 30, 60, 180, 360, 789])
    assert.strictEqual(DeliverySchedule.retryIntervalsMs.reduce((sum, ms) => sum + ms, 0), 24 * hour)
    assert.strictEqual(DeliverySchedule.retryIntervalsMs.length, DeliverySchedule.maxRetries)
  })

  it("lengthens each wait by up to 10% at random", () => {
    assert.strictEqual(DeliverySchedule.retryDelayMs(1, 0), minute)
    assert.strictEqual(DeliverySchedule.retryDelayMs(8, 0.5), Math.round((13 * hour + 9 * minute) * 1.05))
    assert.isBelow(DeliverySchedule.retryDelayMs(5, 0.999_999), hour * 1.1)
  })

  it.effect("gives up after the eighth retry", () =>
    Effect.gen(function* () {
      const at = 1_000_000
      const afterFirst = yield* DeliverySchedule.nextAttemptAt(1, at)
      const afterEighthRetry = yield* DeliverySchedule.nextAttemptAt(9, at)
      assert.isNotNull(afterFirst)
      assert.isAtLeast(afterFirst!, at + minute)
      assert.isAtMost(afterFirst!, at + minute * 1.1)
      assert.isNull(afterEighthRetry)
    }).pipe(Random.withSeed("schedule")))

  it.effect("spreads endpoints that fail together over different retry times", () =>
    Effect.gen(function* () {
      const times = yield* Effect.forEach(Array.from({ length: 20 }), () => DeliverySchedule.nextAttemptAt(6, 0))
      assert.isAbove(new Set(times).size, 15)
    }).pipe(Random.withSeed("herd")))
})
