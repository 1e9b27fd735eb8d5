/**
 * `Spans.withSpan`: with tracing on, the span Effect's `withSpan` would make (name, attributes,
 * parent); with tracing off, the effect runs in the very context it was given (no no-op span, no
 * levels added to the fiber's services).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Spans from "../src/Spans.ts"

describe("Spans.withSpan", () => {
  it.effect("makes the span, under the current one, while tracing is on", () =>
    Effect.gen(function* () {
      const [outer, inner] = yield* Effect.currentSpan.pipe(
        Spans.withSpan("test.inner", { attributes: { "postwire.target_id": "tgt_1" } }),
        Effect.flatMap((inner) => Effect.map(Effect.currentSpan, (outer) => [outer, inner] as const)),
        Effect.withSpan("test.outer")
      )
      assert.strictEqual(inner.name, "test.inner")
      assert.strictEqual(inner.attributes.get("postwire.target_id"), "tgt_1")
      assert.strictEqual(inner.parent._tag === "Some" ? inner.parent.value.spanId : undefined, outer.spanId)
      assert.isTrue(inner.sampled)
    }))

  it.effect("runs the effect in the context it was given while tracing is off", () =>
    Effect.gen(function* () {
      const given = yield* Effect.context<never>()
      const seen = yield* Effect.context<never>().pipe(Spans.withSpan("test.untraced"))
      assert.strictEqual(seen, given)
      // Effect's own `withSpan` provides a no-op span there: the cost this avoids.
      const effects = yield* Effect.context<never>().pipe(Effect.withSpan("test.noop"))
      assert.notStrictEqual(effects, given)
    }).pipe(Effect.withTracerEnabled(false)))

  it.effect("reads the setting when the effect runs, not when it is built", () =>
    Effect.gen(function* () {
      const spanned = Effect.currentSpan.pipe(Effect.map((span) => span.name), Spans.withSpan("test.late"), Effect.option)
      assert.deepStrictEqual(yield* spanned, Option.some("test.late"))
      assert.deepStrictEqual(yield* spanned.pipe(Effect.withTracerEnabled(false)), Option.none())
    }))
})
