/**
 * Timestamps on the wire: ISO 8601. Responses are UTC with milliseconds; requests must carry
 * an offset (`Z` or `+07:00`), so that no instant is ever guessed.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import * as ErrorDetail from "./ErrorDetail.ts"

const instantWithOffset =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|z|[+-](\d{2}):?(\d{2}))$/

/**
 * Whether `s` is an ISO 8601 instant with an offset that names a real moment: `2026-02-30` or
 * `25:00` are refused rather than rolled over into another day (`Date.parse` would roll them).
 */
export const isInstantWithOffset = (s: string): boolean => {
  const m = instantWithOffset.exec(s)
  if (m === null) return false
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, offsetHours = 0, offsetMinutes = 0] = m
    .slice(1)
    .map((part) => Number(part ?? "0"))
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate()
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offsetHours <= 23 &&
    offsetMinutes <= 59 &&
    !Number.isNaN(Date.parse(s))
  )
}

/** An instant in a request: ISO 8601 with a UTC offset, naming a real date and time. */
export const InstantInput = Schema.String.check(
  Schema.makeFilter(
    (s: string) => isInstantWithOffset(s),
    { ...ErrorDetail.annotation(ErrorDetail.reason("instant_with_offset")), toJsonSchema: () => ({ format: "date-time" }) }
  )
)

/** An instant in a response: ISO 8601 in UTC with milliseconds, e.g. `2026-11-22T01:02:03.456Z`. */
export const Instant = Schema.String

/** Formats epoch milliseconds the way every response does. */
export const formatInstant = (epochMillis: number): string => new Date(epochMillis).toISOString()

/** Parses a validated request instant to epoch milliseconds. */
export const parseInstant = (s: string): number => Date.parse(s)
