/**
 * The YouTube API project's daily units, counted by Postwire so that an upload the day's budget
 * cannot pay for is refused up front (`quota_exceeded`) instead of failing at YouTube.
 *
 * YouTube gives a project 10,000 units a day by default, reset at midnight Pacific time; an upload
 * (`videos.insert`) costs 1,600, `thumbnails.set` 50, a `list` 1, a comment write 50
 * (https://developers.google.com/youtube/v3/determine_quota_cost). The budget and the costs are
 * settings: a project granted more units sets its own.
 *
 * The ledger is per process by default (one server). Several instances sharing a project give a
 * shared {@link Ledger} (see docs/decisions.md, "YouTube quota counter"). Whatever the ledger
 * says, a `quotaExceeded` answer from YouTube marks the day spent.
 *
 * @since 0.5.0
 */
import { Effect } from "effect"

/** Unit costs of the calls Postwire makes (the quota calculator's table). */
export interface UnitCosts {
  readonly insert: number
  readonly thumbnail: number
  readonly list: number
  readonly write: number
}

/** Default costs (https://developers.google.com/youtube/v3/determine_quota_cost). */
export const defaultCosts: UnitCosts = { insert: 1600, thumbnail: 50, list: 1, write: 50 }

/** Default daily budget of a project (same page). */
export const defaultDailyUnits = 10_000

/** A project's units per Pacific-time day. */
export interface Ledger {
  /**
   * Adds `units` to the day `key` when the total stays within `budget` (always, with `force`: a
   * call already made). Answers whether they were added and the day's total after.
   */
  readonly spend: (key: string, units: number, budget: number, force: boolean) => Effect.Effect<{ readonly added: boolean; readonly used: number }>
  /** Marks the day spent (YouTube said `quotaExceeded`). */
  readonly exhaust: (key: string, budget: number) => Effect.Effect<void>
}

/** A ledger in the process. */
export const memory = (): Ledger => {
  const days = new Map<string, number>()
  return {
    spend: (key, units, budget, force) =>
      Effect.sync(() => {
        const used = days.get(key) ?? 0
        if (!force && used + units > budget) return { added: false, used }
        if (days.size > 64) for (const k of days.keys()) if (k !== key) days.delete(k)
        days.set(key, used + units)
        return { added: true, used: used + units }
      }),
    exhaust: (key, budget) =>
      Effect.sync(() => {
        days.set(key, Math.max(budget, days.get(key) ?? 0))
      })
  }
}

/** The ledger of the process: publishing and comments of every YouTube account count here by default. */
export const processLedger: Ledger = memory()

const pacific = new Intl.DateTimeFormat("en-CA", {
  timeZone: "America/Los_Angeles",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23"
})

const wallClock = (at: number) => {
  const parts = Object.fromEntries(pacific.formatToParts(new Date(at)).map((p) => [p.type, p.value]))
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    ms: Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second))
  }
}

/** The Pacific-time date (`2026-12-05`) of an instant: the quota day it counts in. */
export const pacificDay = (at: number): string => wallClock(at).date

/** When the quota day of `at` ends: the next midnight in Pacific time (epoch milliseconds). */
export const nextReset = (at: number): number => {
  const wall = wallClock(at)
  const offset = wall.ms - Math.floor(at / 1000) * 1000
  const midnight = Date.UTC(Number(wall.date.slice(0, 4)), Number(wall.date.slice(5, 7)) - 1, Number(wall.date.slice(8, 10)) + 1)
  const reset = midnight - offset
  // Across a daylight-saving change the offset moves by an hour: read the wall clock there again.
  const check = wallClock(reset)
  return check.date === wall.date ? reset + 60 * 60_000 : check.ms % 86_400_000 === 0 ? reset : reset - (check.ms % 86_400_000)
}
