/**
 * Spans on the hot paths (a store operation, a platform call, a published target, a webhook
 * delivery) that cost nothing while tracing is off.
 *
 * With the tracer disabled (`References.TracerEnabled`, off when no OTLP endpoint is set),
 * `Effect.withSpan` still makes a no-op span and provides it, with a stack frame, to the effect:
 * two levels of the fiber's service map per span, and every eighth level copies the whole map.
 * A published target went through about twelve such spans, and the copies were a sixth of what
 * the worker allocated per target (docs/performance.md, eighth round). `withSpan` here reads
 * the reference when the effect runs and opens the span only when tracing is on: traced, the
 * spans are exactly Effect's (same names, options, parents); untraced, the effect runs as it is.
 *
 * @since 0.4.0
 */
import { Effect, References, Tracer } from "effect"
import { dual } from "effect/Function"

/**
 * Runs `self` in a span `name` when tracing is on, and as it is when it is off. The call-site
 * stack is never captured: the name says where the span was made.
 *
 * @example
 * ```ts
 * const saved = store.save(post).pipe(Spans.withSpan("PostStore.save", { attributes: { "postwire.post_id": post.id } }))
 * ```
 */
export const withSpan: {
  (name: string, options?: Tracer.SpanOptionsNoTrace): <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  <A, E, R>(self: Effect.Effect<A, E, R>, name: string, options?: Tracer.SpanOptionsNoTrace): Effect.Effect<A, E, R>
} = dual(
  (args) => Effect.isEffect(args[0]),
  <A, E, R>(self: Effect.Effect<A, E, R>, name: string, options?: Tracer.SpanOptionsNoTrace): Effect.Effect<A, E, R> =>
    // The traced form is built only when it runs traced: untraced calls build nothing.
    Effect.withFiber((fiber) =>
      fiber.getRef(References.TracerEnabled) ? Effect.withSpan(self, name, { ...options, captureStackTrace: false }) : self
    )
)

const traceParentPattern = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/

/**
 * The current span as a W3C `traceparent` (`00-<trace id>-<span id>-<flags>`), to store with
 * what it created; `undefined` while tracing is off, outside a span, or when the span is not
 * sampled (nothing would ever show it).
 *
 * @since 0.5.0
 */
export const currentTraceParent: Effect.Effect<string | undefined> = Effect.withFiber((fiber) =>
  fiber.getRef(References.TracerEnabled)
    ? Effect.match(Effect.currentSpan, {
        onFailure: () => undefined,
        onSuccess: (span) =>
          span.sampled
            ? `00-${span.traceId.padStart(32, "0").toLowerCase()}-${span.spanId.padStart(16, "0").toLowerCase()}-01`
            : undefined
      })
    : Effect.succeed(undefined)
)

/**
 * Span links to the span a stored `traceparent` names (see {@link currentTraceParent}), with
 * `attributes`: none for `undefined` or a value that is not a `traceparent`.
 *
 * @example
 * ```ts
 * effect.pipe(Spans.withSpan("publishing.target", { root: true, links: Spans.linksTo(post.traceParent, { "postwire.link": "created_by" }) }))
 * ```
 *
 * @since 0.5.0
 */
export const linksTo = (
  traceParent: string | undefined,
  attributes: Readonly<Record<string, unknown>> = {}
): ReadonlyArray<Tracer.SpanLink> => {
  const parts = traceParent === undefined ? null : traceParentPattern.exec(traceParent)
  if (parts === null) return []
  const [, traceId, spanId, flags] = parts
  return [{ span: Tracer.externalSpan({ traceId: traceId!, spanId: spanId!, sampled: (Number.parseInt(flags!, 16) & 1) === 1 }), attributes }]
}
