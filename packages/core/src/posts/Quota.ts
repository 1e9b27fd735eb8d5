/**
 * Posting quotas: each account may publish a limited number of posts in any rolling 24 hours.
 *
 * @since 0.1.0
 */
import type { EngineSettings } from "../EngineConfig.ts"
import type { AccountRecord } from "../store/Records.ts"

const day = 24 * 60 * 60 * 1000

/** The account's limit: its own override, else its platform's. */
export const quotaLimit = (account: AccountRecord, settings: EngineSettings): number =>
  account.dailyQuota ?? settings.dailyQuota[account.platform]

/** The 24 hours that end at (and include) `at`, as `[from, to)`. */
export const quotaWindow = (at: number): { readonly from: number; readonly to: number } => ({
  from: at - day + 1,
  to: at + 1
})
