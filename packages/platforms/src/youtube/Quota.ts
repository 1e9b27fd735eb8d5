/**
 * The YouTube API project's daily budget, counted by Postwire so that an upload the day cannot
 * pay for is refused up front (`quota_exceeded`) instead of failing at YouTube.
 *
 * The quota calculator (https://developers.google.com/youtube/v3/determine_quota_cost, and its
 * current copy https://developers.google.com/youtube/data/determine_quota_cost) gives a project
 * "100 `videos.insert` calls, and 10,000 units per day combined for all other endpoints":
 * `videos.insert` and `search.list` have their own buckets of 100 calls a day, each call
 * counting 1; `thumbnails.set` costs 50 units, a `list` 1, a comment write 50. Quotas reset at
 * midnight Pacific time. Earlier versions of the page priced `videos.insert` at 1,600 units of
 * the 10,000 (six uploads a day); a project still accounted that way sets
 * `POSTWIRE_YOUTUBE_UPLOAD_UNITS=1600` and each upload is charged to the units too. The budgets
 * and costs are settings: a project granted more sets its own.
 *
 * The units and uploads are counted in the engine's platform counters (`PluginServices.counters`):
 * in the database, so every instance sharing it counts one budget and a restart keeps the day's
 * count (in the process when the engine has no database). The counters' keys are the OAuth
 * client id (one client, one project), their window the Pacific-time date ({@link window}).
 * Whatever was counted, a `quotaExceeded` answer to an upload marks the day's uploads spent.
 *
 * @since 0.5.0
 */
import type { CounterWindow } from "@postwire/core"

/** Unit costs of the calls Postwire makes (the quota calculator's table). */
export interface UnitCosts {
  /** Units an upload takes from the 10,000 besides its own bucket: 0 today, 1,600 on the older accounting. */
  readonly insert: number
  readonly thumbnail: number
  readonly list: number
  readonly write: number
}

/** Default costs (https://developers.google.com/youtube/v3/determine_quota_cost). */
export const defaultCosts: UnitCosts = { insert: 0, thumbnail: 50, list: 1, write: 50 }

/** Default daily units of a project for every call but uploads (same page). */
export const defaultDailyUnits = 10_000

/** Default `videos.insert` calls a day of a project: their own bucket (same page). */
export const defaultDailyUploads = 100

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

/** The counting window of `at`: its Pacific-time date, ending at the next Pacific midnight. */
export const window = (at: number): CounterWindow => ({ id: pacificDay(at), endsAt: nextReset(at) })
