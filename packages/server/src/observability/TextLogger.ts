/**
 * The default log format of `postwire serve` (`POSTWIRE_LOG_FORMAT=text`): one line per event,
 * for a person reading a terminal or `journalctl`, and for `grep`.
 *
 * ```
 * [2026-11-29T09:04:09.101Z] INFO target published target_id=tgt_01… post_id=post_01… permalink=https://… permalink_pending=false
 * ```
 *
 * The time (ISO 8601, UTC), the level, the message, then the line's annotations and the values
 * logged beside the message as `key=value`: a value with no space, quote, `=` or backslash is
 * written as it is, any other as a JSON string; objects and arrays as JSON. A failure's cause
 * follows on the next lines, indented by two spaces, so a stack trace stays readable and every
 * line of the log that does not start with a space is an event. Effect's own default logger
 * printed the values with `util.inspect`, over several lines once they passed 72 characters
 * (every request log line did). Like the JSON logger, it passes every line through
 * `LogRedaction`: the code never logs a secret or content, and a value that slips in is replaced.
 *
 * @since 0.5.0
 */
import { Cause, type Layer, Logger, References } from "effect"
import { redactFields, redactText, redactValue } from "./LogRedaction.ts"

/** A value as `key=value` writes it: bare when nothing in it could be misread, else JSON. */
const valueText = (value: unknown): string => {
  switch (typeof value) {
    case "string":
      return value !== "" && /^[^\s"=\\]+$/.test(value) ? value : JSON.stringify(value)
    case "number":
    case "boolean":
    case "bigint":
      return String(value)
    case "undefined":
      return "undefined"
    default:
      if (value === null) return "null"
      if (value instanceof Date) return Number.isNaN(value.getTime()) ? "null" : value.toISOString()
      // An error's fields are not enumerable: JSON would write `{}`.
      if (value instanceof Error) return JSON.stringify(`${value.name}: ${value.message}`)
      try {
        return JSON.stringify(value) ?? String(value)
      } catch {
        // A cycle or a value JSON cannot hold: still one token on the line.
        return JSON.stringify(String(value))
      }
  }
}

/** A plain object whose fields are written one by one (an `Error` or a `Date` is one value). */
const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date) && !(value instanceof Error)

/** Renders one log line (and, for a failure, its cause on the lines after it). */
export const formatLine = (options: Logger.Options<unknown>): string => {
  const parts = Array.isArray(options.message) ? options.message : [options.message]
  let line = `[${options.date.toISOString()}] ${options.logLevel.toUpperCase()}`
  const values: Array<unknown> = []
  for (const part of parts) {
    if (typeof part === "string") line += ` ${redactText(part)}`
    else values.push(redactValue(part))
  }
  const annotations = redactFields(options.fiber.getRef(References.CurrentLogAnnotations))
  for (const key in annotations) line += ` ${key}=${valueText(annotations[key])}`
  if (values.length === 1 && isRecord(values[0])) {
    const details = values[0]
    for (const key in details) line += ` ${key}=${valueText(details[key])}`
  } else if (values.length > 0) {
    line += ` details=${valueText(values.length === 1 ? values[0] : values)}`
  }
  if (options.cause.reasons.length > 0) line += `\n${redactText(Cause.pretty(options.cause)).replace(/^/gm, "  ")}`
  return line
}

/** The text logger, writing to stdout. */
export const logger = Logger.make((options) => {
  process.stdout.write(`${formatLine(options)}\n`)
})

/** Replaces Effect's default logger with the text logger; spans still get their log events. */
export const layer: Layer.Layer<never> = Logger.layer([logger, Logger.tracerLogger])
