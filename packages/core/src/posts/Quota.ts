/**
 * Posting quotas: each account may publish a limited number of posts in any rolling 24 hours;
 * batch creation also caps each calendar day of `scheduled_at`.
 *
 * @since 0.1.0
 */
import type { EngineSettings } from "../EngineConfig.ts"
import type { AccountRecord } from "../store/AccountStore.ts"

const day = 24 * 60 * 60 * 1000

/** The account's limit: its own override, else its platform's. */
export const quotaLimit = (account: AccountRecord, settings: EngineSettings): number =>
  account.dailyQuota ?? settings.dailyQuota[account.platform]

/** The 24 hours that end at (and include) `at`, as `[from, to)`. */
export const quotaWindow = (at: number): { readonly from: number; readonly to: number } => ({
  from: at - day + 1,
  to: at + 1
})

/** A calendar day as `[from, to)` in epoch milliseconds, with its date as written (`2026-12-01`). */
export interface CalendarDay {
  readonly date: string
  readonly from: number
  readonly to: number
}

const offsetOf = /([+-])(\d{2}):?(\d{2})$/

/**
 * The calendar day a request instant falls on in the offset it was written in, so a user
 * scheduling in +07:00 gets their own day: `2026-12-01T06:00:00+07:00` is 30 November 23:00 in
 * UTC and still belongs to 1 December.
 */
export const calendarDay = (written: string): CalendarDay => {
  const m = offsetOf.exec(written)
  const offsetMs = m === null ? 0 : (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) * 60_000
  const local = new Date(Date.parse(written) + offsetMs)
  const midnight = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate())
  return { date: local.toISOString().slice(0, 10), from: midnight - offsetMs, to: midnight - offsetMs + day }
}
