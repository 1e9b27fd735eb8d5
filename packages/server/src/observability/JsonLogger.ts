/**
 * `POSTWIRE_LOG_FORMAT=json`: every log line as one JSON object on stdout, for a log shipper.
 *
 * Fields: `time` (ISO 8601), `level`, `message`, then the line's annotations flat (`request_id`,
 * `method`, `route`, `status`, `duration_ms` on the request log; `target_id`, `post_id` in the
 * publisher; …), `details` for values logged beside the message, and `cause` for a failure.
 * With tracing on (docs/operations.md), a line logged inside a span also carries `trace_id` and
 * `span_id` (hex, as the collector shows them), to go from a log line to its trace, and the span
 * gets the line as an event (`Logger.tracerLogger`), as with the text logs.
 * The code never logs a secret or content (a test searches the whole output of a real process
 * for every secret it used); `LogRedaction` replaces one that slips in anyway.
 *
 * @since 0.1.0
 */
import { Cause, Context, type Layer, Logger, References, Tracer } from "effect"
import { redactFields, redactText, redactValue } from "./LogRedaction.ts"

/** Renders one log line as JSON. */
export const formatLine = (options: Logger.Options<unknown>): string => {
  const parts = Array.isArray(options.message) ? options.message : [options.message]
  const words = parts.filter((part): part is string => typeof part === "string").map(redactText)
  const values = parts.filter((part) => typeof part !== "string").map((part) => redactValue(part))
  const annotations = redactFields(options.fiber.getRef(References.CurrentLogAnnotations))
  const line: Record<string, unknown> = {
    time: options.date.toISOString(),
    level: options.logLevel.toLowerCase(),
    message: words.join(" ")
  }
  // With the tracer off no span is made: nothing to point at.
  const span = options.fiber.getRef(References.TracerEnabled)
    ? Context.getOrUndefined(options.fiber.context, Tracer.ParentSpan)
    : undefined
  if (span !== undefined) {
    line.trace_id = span.traceId
    line.span_id = span.spanId
  }
  Object.assign(line, annotations)
  if (values.length > 0) line.details = values.length === 1 ? values[0] : values
  if (options.cause.reasons.length > 0) line.cause = redactText(Cause.pretty(options.cause))
  try {
    return JSON.stringify(line)
  } catch {
    // A value JSON cannot hold (a cycle, a bigint): keep the line, drop the values.
    return JSON.stringify({ ...line, details: String(line.details) })
  }
}

/** The JSON logger, writing to stdout. */
export const logger = Logger.make((options) => {
  process.stdout.write(`${formatLine(options)}\n`)
})

/** Replaces the loggers with the JSON logger; a line logged inside a span is also one of its events. */
export const layer: Layer.Layer<never> = Logger.layer([logger, Logger.tracerLogger])
