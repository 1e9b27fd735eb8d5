/**
 * One metric series per set of attributes, made once: `Metric.withAttributes` builds a new metric
 * whose first update computes its registry key (the attributes sorted and serialized), so making
 * one per update paid that on every request and every platform call. A series made here is kept
 * and reused; attributes come from small closed sets (platforms, outcomes, routes), never ids.
 *
 * @since 0.4.0
 */
import { Metric } from "effect"

const made = new WeakMap<object, Map<string, unknown>>()

/**
 * The series of `metric` with `attributes`, the same object for the same attribute values.
 *
 * @example
 * ```ts
 * yield* Metric.update(MetricSeries.of(targetsTotal, { platform, outcome }), 1)
 * ```
 */
export const of = <M extends Metric.Metric<never, unknown>>(metric: M, attributes: Readonly<Record<string, string>>): M => {
  let series = made.get(metric)
  if (series === undefined) {
    series = new Map()
    made.set(metric, series)
  }
  let key = ""
  for (const name in attributes) key += `${name}\u0000${attributes[name]}\u0001`
  let found = series.get(key) as M | undefined
  if (found === undefined) {
    found = Metric.withAttributes(metric, attributes) as M
    series.set(key, found)
  }
  return found
}
