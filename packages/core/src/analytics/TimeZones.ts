/**
 * Days in a time zone: the UTC instants at which a zone's days start, for the daily series of
 * `GET /v1/analytics`. A zone is `UTC`, a fixed offset (`+07:00`) or an IANA name, whose offset
 * is read from the runtime's time-zone data (daylight saving followed).
 *
 * @since 0.5.0
 */
import { Analytics } from "@postwire/domain"

const day = 86_400_000

const formatters = new Map<string, Intl.DateTimeFormat>()

/** The zone's offset from UTC at `at`, in milliseconds (east positive). */
export const offsetAt = (zone: string, at: number): number => {
  if (zone === "UTC") return 0
  const fixed = Analytics.parseUtcOffset(zone)
  if (fixed !== undefined) return fixed * 60_000
  let format = formatters.get(zone)
  if (format === undefined) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit"
    })
    formatters.set(zone, format)
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(at)).map((p) => [p.type, p.value]))
  const wall = Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second)
  )
  return wall - Math.floor(at / 1000) * 1000
}

/** The day `date` (`YYYY-MM-DD`) as days since 1970-01-01. */
export const dayNumber = (date: string): number => Math.round(Date.parse(`${date}T00:00:00Z`) / day)

/** The `YYYY-MM-DD` of a day number. */
export const dateOf = (dayNo: number): string => new Date(dayNo * day).toISOString().slice(0, 10)

/** The UTC instant at which `date` starts in `zone`. */
export const startOf = (zone: string, date: string): number => {
  const wall = dayNumber(date) * day
  const guess = wall - offsetAt(zone, wall)
  return wall - offsetAt(zone, guess)
}

/** The date (`YYYY-MM-DD`) in `zone` at `at`. */
export const dateAt = (zone: string, at: number): string => new Date(at + offsetAt(zone, at)).toISOString().slice(0, 10)

/** The days from `from` to `to` inclusive, and the instants their starts fall on (one more: the end of `to`). */
export const daysOf = (zone: string, from: string, to: string): { readonly dates: Array<string>; readonly boundaries: Array<number> } => {
  const dates: Array<string> = []
  const boundaries: Array<number> = []
  for (let n = dayNumber(from); n <= dayNumber(to) + 1; n++) {
    boundaries.push(startOf(zone, dateOf(n)))
    if (n <= dayNumber(to)) dates.push(dateOf(n))
  }
  return { dates, boundaries }
}
