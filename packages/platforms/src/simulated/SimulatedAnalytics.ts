/**
 * The simulated platform's metrics, behind every sandbox account, so analytics can be tried
 * offline: deterministic numbers that grow with the item's age, derived from the target's id
 * and the time, nothing kept.
 *
 * An item `h` hours old (fractions counted) with a per-item factor `f` from 20 to 59 (its id's
 * hash) has `views = floor(f × h)`, `reach = floor(0.8 × views)`, `likes = floor(views / 10)`,
 * `comments = floor(views / 50)`, `shares = floor(views / 100)`, `saves = floor(views / 80)`;
 * only the names the platform provides are answered (its plugin's list, or this one's when it
 * has none). An account has `followers = 100 + whole days since 2026-01-01`. One call reads a
 * whole batch (up to 20 items). An account's `simulate.analytics_error` (a normalized code such as
 * `token_expired` or `rate_limited`) makes every reading fail with it.
 *
 * @since 0.5.0
 */
import { createHash } from "node:crypto"
import type {
  AccountCollection,
  AnalyticsCapabilities,
  CollectAccountInput,
  CollectPostsInput,
  MetricValues,
  PlatformFailure,
  PostMetricName,
  PostsCollection
} from "@postwire/core"
import { isErrorCode } from "@postwire/domain"
import { Effect } from "effect"
import { failure } from "../internal/Wire.ts"

/** What sandbox accounts get when their platform's plugin lists no metrics. */
export const capabilities: AnalyticsCapabilities = {
  post: ["views", "reach", "likes", "comments", "shares", "saves"],
  account: ["followers"],
  batchSize: 20,
  sources: []
}

const hour = 3_600_000
const since2026 = Date.UTC(2026, 0, 1)

/** The per-item factor, 20 to 59, from the target's id. */
export const factorOf = (targetId: string): number => 20 + (createHash("sha256").update(targetId).digest()[0]! % 40)

/** The simulated values of an item published at `publishedAt`, read at `now`. */
export const valuesAt = (targetId: string, publishedAt: number, now: number): Required<MetricValues<PostMetricName>> => {
  const views = Math.floor((factorOf(targetId) * Math.max(0, now - publishedAt)) / hour)
  return {
    views,
    reach: Math.floor(views * 0.8),
    likes: Math.floor(views / 10),
    comments: Math.floor(views / 50),
    shares: Math.floor(views / 100),
    saves: Math.floor(views / 80),
    reposts: 0,
    quotes: 0,
    link_clicks: 0,
    watch_time_seconds: 0
  }
}

/** The simulated followers of an account at `now`. */
export const followersAt = (now: number): number => 100 + Math.max(0, Math.floor((now - since2026) / (24 * hour)))

const refusal = (code: string | undefined): PlatformFailure | undefined => {
  if (code === undefined) return undefined
  const normalized = isErrorCode(code) ? code : "platform_unavailable"
  return failure(normalized, `simulated_${code}`, {
    needsReconnect: normalized === "token_expired" || normalized === "permission_missing" ? true : undefined
  })
}

/** The simulated metrics, answering only the names of `provides` (the platform's list). */
export const make = (provides: (platform: string) => AnalyticsCapabilities = () => capabilities) => ({
  collectPosts: (input: CollectPostsInput): Effect.Effect<PostsCollection, PlatformFailure> => {
    const refused = refusal((input.account.simulate as { analytics_error?: string } | null)?.analytics_error)
    if (refused !== undefined) return Effect.fail(refused)
    const names = provides(input.account.platform).post
    return Effect.succeed({
      readings: input.targets.map((target) => {
        const all = valuesAt(target.id, target.publishedAt ?? input.now, input.now)
        const metrics = Object.fromEntries(names.map((name) => [name, all[name]]))
        return { targetId: target.id, metrics, raw: { ...metrics, simulated: "true" } }
      }),
      gone: [],
      calls: Math.ceil(input.targets.length / 20)
    })
  },
  collectAccount: (input: CollectAccountInput): Effect.Effect<AccountCollection, PlatformFailure> => {
    const refused = refusal((input.account.simulate as { analytics_error?: string } | null)?.analytics_error)
    if (refused !== undefined) return Effect.fail(refused)
    const followers = followersAt(input.now)
    return Effect.succeed({ current: { followers }, currentRaw: { followers_count: followers }, days: [], calls: 1 })
  }
})
