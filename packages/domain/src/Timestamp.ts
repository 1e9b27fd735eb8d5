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

const dayMs = 86_400_000
/** The last millisecond of year 9999: past it `toISOString` writes a six-digit year. */
const lastFourDigitYearMs = 253_402_300_799_999

const two = (n: number) => (n < 10 ? `0${n}` : `${n}`)
const three = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`)

/**
 * Formats epoch milliseconds the way every response does: what `Date.prototype.toISOString`
 * writes, computed with integer arithmetic (a page of posts formats a hundred instants, and
 * `toISOString` cost four times as much). Days to a civil date as in H. Hinnant's
 * `civil_from_days`; instants outside years 0-9999, and fractions, go to `toISOString`.
 */
export const formatInstant = (epochMillis: number): string => {
  if (!(epochMillis >= 0 && epochMillis <= lastFourDigitYearMs && Number.isInteger(epochMillis))) {
    return new Date(epochMillis).toISOString()
  }
  const days = Math.floor(epochMillis / dayMs)
  let rest = epochMillis - days * dayMs
  // Days since 0000-03-01, in eras of 400 years that begin in March (the leap day ends a year).
  const z = days + 719_468
  const era = Math.floor(z / 146_097)
  const dayOfEra = z - era * 146_097
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1_460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365
  )
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100))
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153)
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
  const hours = Math.floor(rest / 3_600_000)
  rest -= hours * 3_600_000
  const minutes = Math.floor(rest / 60_000)
  rest -= minutes * 60_000
  const seconds = Math.floor(rest / 1_000)
  const yyyy = year < 1_000 ? String(year).padStart(4, "0") : String(year)
  return `${yyyy}-${two(month)}-${two(day)}T${two(hours)}:${two(minutes)}:${two(seconds)}.${three(rest - seconds * 1_000)}Z`
}

/** Parses a validated request instant to epoch milliseconds. */
export const parseInstant = (s: string): number => Date.parse(s)
