import { Effect, Logger, References, type Tracer } from "effect"
import { describe, expect, it } from "vitest"
import * as JsonLogger from "../src/observability/JsonLogger.ts"

/** The lines `effect` logs, formatted as the JSON logger writes them, parsed. */
const linesOf = async <A>(effect: Effect.Effect<A>) => {
  const lines: Array<Record<string, unknown>> = []
  const collector = Logger.make((options) => {
    lines.push(JSON.parse(JsonLogger.formatLine(options)) as Record<string, unknown>)
  })
  const value = await Effect.runPromise(effect.pipe(Effect.provide(Logger.layer([collector]))))
  return { lines, value }
}

describe("the JSON log format", () => {
  it("writes time, level and message, then the annotations, and no trace ids outside a span", async () => {
    const { lines } = await linesOf(
      Effect.logInfo("target published", { permalink: null }).pipe(Effect.annotateLogs({ target_id: "tgt_1" }))
    )
    expect(Object.keys(lines[0]!)).toEqual(["time", "level", "message", "target_id", "details"])
    expect(lines[0]).toMatchObject({ level: "info", message: "target published", target_id: "tgt_1", details: { permalink: null } })
  })

  it("points a line logged inside a span at its trace: trace_id and span_id of that span", async () => {
    const { lines, value: span } = await linesOf(
      Effect.gen(function* () {
        yield* Effect.logWarning("renewing leases failed")
        return yield* Effect.currentSpan
      }).pipe(Effect.withSpan("publishing.renew"), Effect.orDie)
    )
    expect(span.traceId).toMatch(/^[0-9a-f]{32}$/)
    expect(lines[0]).toMatchObject({ level: "warn", message: "renewing leases failed", trace_id: span.traceId, span_id: span.spanId })
  })

  it("adds no trace ids when the tracer is off (no collector configured)", async () => {
    const { lines } = await linesOf(
      Effect.logInfo("inside a span that is not recorded").pipe(Effect.withSpan("ignored"), Effect.withTracerEnabled(false))
    )
    expect(lines[0]).not.toHaveProperty("trace_id")
    expect(lines[0]).not.toHaveProperty("span_id")
  })

  it("writes each line to stdout and records it as an event of the current span", async () => {
    const written: Array<string> = []
    const write = process.stdout.write
    process.stdout.write = ((chunk: string) => {
      written.push(chunk)
      return true
    }) as typeof process.stdout.write
    let span: Tracer.Span
    try {
      span = await Effect.runPromise(
        Effect.gen(function* () {
          yield* Effect.logInfo("target published")
          return yield* Effect.currentSpan
        }).pipe(
          Effect.withSpan("publishing.target"),
          Effect.orDie,
          Effect.provide(JsonLogger.layer),
          Effect.provideService(References.MinimumLogLevel, "Info")
        )
      )
    } finally {
      process.stdout.write = write
    }
    const line = JSON.parse(written.find((chunk) => chunk.includes("target published"))!) as Record<string, unknown>
    expect(line).toMatchObject({ message: "target published", trace_id: span.traceId, span_id: span.spanId })
    const events = (span as unknown as { readonly events: ReadonlyArray<readonly [string, ...Array<unknown>]> }).events
    expect(events.map(([name]) => name)).toContain("target published")
  })
})
