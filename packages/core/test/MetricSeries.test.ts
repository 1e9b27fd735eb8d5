/**
 * `MetricSeries.of`: one series per set of attribute values, reused, and counted in the registry
 * under those attributes exactly as `Metric.withAttributes` counts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Metric } from "effect"
import * as MetricSeries from "../src/MetricSeries.ts"

describe("MetricSeries", () => {
  it("gives the same series for the same attribute values, another for others", () => {
    const counter = Metric.counter("test_metric_series_same", { incremental: true })
    const a = MetricSeries.of(counter, { platform: "photo", outcome: "published" })
    assert.strictEqual(MetricSeries.of(counter, { platform: "photo", outcome: "published" }), a)
    assert.notStrictEqual(MetricSeries.of(counter, { platform: "photo", outcome: "failed" }), a)
    assert.notStrictEqual(MetricSeries.of(Metric.counter("test_metric_series_other", { incremental: true }), { platform: "photo", outcome: "published" }), a)
  })

  it.effect("counts each update under its attributes", () =>
    Effect.gen(function* () {
      const counter = Metric.counter("test_metric_series_counts", { incremental: true })
      for (let i = 0; i < 3; i++) yield* Metric.update(MetricSeries.of(counter, { outcome: "ok" }), 1)
      yield* Metric.update(MetricSeries.of(counter, { outcome: "failed" }), 1)
      assert.strictEqual((yield* Metric.value(Metric.withAttributes(counter, { outcome: "ok" }))).count, 3)
      assert.strictEqual((yield* Metric.value(Metric.withAttributes(counter, { outcome: "failed" }))).count, 1)
    }))
})
