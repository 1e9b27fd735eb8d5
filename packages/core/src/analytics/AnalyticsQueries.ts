/**
 * The analytics use-cases behind the API: a post's metrics per target, an account's metrics by
 * day, and the workspace's totals and daily series (`GET /v1/analytics`), read from the rollups
 * so that the answer costs the same for 1,000 published targets as for 100,000.
 *
 * @since 0.5.0
 */
import { Effect, Option } from "effect"
import { type Analytics, ErrorDetail, formatInstant, type Ids, type LocalizedText, PostwireError } from "@postwire/domain"
import { type Caller, refuseLiveToTestKey } from "../Caller.ts"
import { EngineConfig } from "../EngineConfig.ts"
import { decodeCursor, encodeCursor, filterDigest } from "../posts/Cursor.ts"
import * as Posts from "../posts/Posts.ts"
import type { Keyset } from "../store/Keyset.ts"
import { Store } from "../store/Store.ts"
import { AnalyticsPlatform, type MetricValues, type PostMetricName } from "./AnalyticsPlatform.ts"
import { type AnalyticsTarget, AnalyticsStore, addValues, type RollupFilter, type RollupGroup } from "./AnalyticsStore.ts"
import * as TimeZones from "./TimeZones.ts"

const now = Effect.clockWith((c) => c.currentTimeMillis)
const dayMs = 86_400_000

/** The longest range of days answered. */
export const maxRangeDays = 92

const rangeError = (reason: LocalizedText) =>
  new PostwireError({ code: "invalid_range", field: "to", details: { detail: reason } })

/** The days a query asks for in `zone`: `from` to `to` inclusive, 30 days ending today by default, at most 92. */
export const resolveRange = (
  zone: string,
  at: number,
  from: string | undefined,
  to: string | undefined
): Effect.Effect<{ readonly from: string; readonly to: string }, PostwireError> => {
  const last = to ?? (from === undefined ? TimeZones.dateAt(zone, at) : TimeZones.dateOf(TimeZones.dayNumber(from) + 29))
  const first = from ?? TimeZones.dateOf(TimeZones.dayNumber(last) - 29)
  const span = TimeZones.dayNumber(last) - TimeZones.dayNumber(first) + 1
  if (span < 1) return Effect.fail(rangeError(ErrorDetail.reason("range_order")))
  if (span > maxRangeDays) return Effect.fail(rangeError(ErrorDetail.reason("range_too_long", { days: maxRangeDays })))
  return Effect.succeed({ from: first, to: last })
}

const collection = (
  target: { readonly status: string },
  tracked: AnalyticsTarget | undefined,
  provides: ReadonlyArray<string>
): Analytics.CollectionStatus => {
  if (tracked !== undefined) return tracked.state
  if (target.status === "published" && provides.length === 0) return "unsupported"
  return "pending"
}

/** `GET /v1/posts/{id}/metrics`: each target's latest metrics, and its snapshots with `series`. */
export const postMetrics = Effect.fn("analytics.postMetrics")(function* (caller: Caller, id: Ids.PostId, series: boolean) {
  const read = yield* Posts.getPost(caller, id)
  const analytics = yield* AnalyticsStore
  const platform = yield* AnalyticsPlatform
  const store = yield* Store
  const targets = read.targets
  const tracked = new Map((yield* analytics.getTargets(caller.workspaceId, targets.map((t) => t.id))).map((t) => [t.targetId, t]))
  const sandbox = new Map<string, boolean>()
  for (const accountId of new Set(targets.map((t) => t.accountId))) {
    const account = yield* store.getAccount(caller.workspaceId, accountId)
    sandbox.set(accountId, Option.isSome(account) && account.value.sandbox)
  }
  const out: Array<Analytics.TargetMetrics> = []
  for (const target of targets) {
    const state = tracked.get(target.id)
    const provides = platform.capabilities(target.platform, sandbox.get(target.accountId) ?? false)?.post ?? []
    const snapshots = series && state !== undefined ? yield* analytics.listSnapshots(caller.workspaceId, target.id) : undefined
    out.push({
      target_id: target.id,
      account_id: target.accountId,
      platform: target.platform,
      status: target.status,
      published_at: target.publishedAt === null ? null : formatInstant(target.publishedAt),
      provides: [...provides],
      collection: collection(target, state, provides),
      next_collection_at: state?.state === "active" && state.nextDueAt !== null ? formatInstant(state.nextDueAt) : null,
      collected_at: state?.collectedAt == null ? null : formatInstant(state.collectedAt),
      values: state?.values ?? {},
      raw: state?.raw ?? {},
      ...(snapshots === undefined && !series
        ? {}
        : {
            series: (snapshots ?? []).map((s) => ({ collected_at: formatInstant(s.collectedAt), values: s.values, raw: s.raw }))
          })
    })
  }
  return { post_id: read.post.id, targets: out } satisfies Analytics.PostMetrics
})

/** The latest metrics of some targets, for the `metrics` block of `GET /v1/posts/{id}`. */
export const latestMetrics = Effect.fn("analytics.latest")(function* (
  workspaceId: Ids.WorkspaceId,
  targetIds: ReadonlyArray<Ids.TargetId>
) {
  const analytics = yield* AnalyticsStore
  const tracked = yield* analytics.getTargets(workspaceId, targetIds)
  return new Map(
    tracked.flatMap((t): Array<[string, Analytics.TargetMetricsBlock]> =>
      t.collectedAt === null ? [] : [[t.targetId, { collected_at: formatInstant(t.collectedAt), values: t.values }]]
    )
  )
})

/** `GET /v1/accounts/{id}/metrics`: the account's current counts and its days. */
export const accountMetrics = Effect.fn("analytics.accountMetrics")(function* (
  caller: Caller,
  id: Ids.AccountId,
  query: Analytics.AccountMetricsQuery
) {
  const store = yield* Store
  const analytics = yield* AnalyticsStore
  const platform = yield* AnalyticsPlatform
  const found = yield* store.getAccount(caller.workspaceId, id)
  if (Option.isNone(found)) {
    return yield* Effect.fail(new PostwireError({ code: "not_found", details: { resource: ErrorDetail.resource("account") } }))
  }
  const account = found.value
  yield* refuseLiveToTestKey(caller, !account.sandbox)
  const range = yield* resolveRange("UTC", yield* now, query.from, query.to)
  const state = yield* analytics.getAccount(caller.workspaceId, id)
  const days = yield* analytics.listAccountDays(caller.workspaceId, id, range.from, range.to)
  return {
    account_id: account.id,
    platform: account.platform,
    provides: [...(platform.capabilities(account.platform, account.sandbox)?.account ?? [])],
    collected_at: Option.isSome(state) && state.value.collectedAt !== null ? formatInstant(state.value.collectedAt) : null,
    current: Option.isSome(state) ? state.value.current : {},
    days: days.map((d) => ({ date: d.date, values: d.values, raw: d.raw }))
  } satisfies Analytics.AccountMetrics
})

/** Each day's values, with every name seen in the range (0 on days without it). */
const fillSeries = (dates: ReadonlyArray<string>, sums: ReadonlyArray<{ day: number; values: MetricValues<PostMetricName> }>) => {
  const byDay = new Map<number, MetricValues<PostMetricName>>()
  const names = new Set<PostMetricName>()
  let totals: MetricValues<PostMetricName> = {}
  for (const sum of sums) {
    byDay.set(sum.day, addValues(byDay.get(sum.day) ?? {}, sum.values))
    totals = addValues(totals, sum.values)
    for (const name of Object.keys(sum.values) as Array<PostMetricName>) names.add(name)
  }
  const zero = Object.fromEntries([...names].map((name) => [name, 0])) as MetricValues<PostMetricName>
  return {
    totals,
    series: dates.map((date, i) => ({ date, values: addValues(zero, byDay.get(i) ?? {}) }))
  }
}

const groupKey = (g: RollupGroup) => `${g.profileId}\u0000${g.platform}`

/** Accounts read a page at a time while a test key's sandbox accounts are gathered. */
const accountsPage = 500

/**
 * What a key may sum: everything for a live key; for a test key, its workspace's sandbox accounts
 * only (live accounts' numbers are hidden from test keys, as live items are from every list),
 * and 403 `test_key_live_account` when it names a live account.
 */
const visibleTo = Effect.fn("analytics.visibleTo")(function* (caller: Caller, filter: RollupFilter) {
  if (caller.kind !== "test") return filter
  const store = yield* Store
  if (filter.accountId !== undefined) {
    const account = yield* store.getAccount(caller.workspaceId, filter.accountId)
    if (Option.isSome(account)) yield* refuseLiveToTestKey(caller, !account.value.sandbox, "account_id")
    return filter
  }
  const sandbox: Array<Ids.AccountId> = []
  let after: Keyset | undefined
  for (;;) {
    const page = yield* store.listAccounts(caller.workspaceId, { profileId: filter.profileId, platform: filter.platform }, after, accountsPage)
    for (const account of page) if (account.sandbox) sandbox.push(account.id)
    const last = page[page.length - 1]
    if (page.length < accountsPage || last === undefined) break
    after = { sortKey: last.createdAt, id: last.id }
  }
  return { ...filter, accountIds: sandbox }
})

/** The filters and range of an overview or chart query, resolved. */
export const overviewSeries = Effect.fn("analytics.series")(function* (
  caller: Caller,
  query: Analytics.AnalyticsChartQuery
) {
  const analytics = yield* AnalyticsStore
  const zone = query.time_zone ?? "UTC"
  const range = yield* resolveRange(zone, yield* now, query.from, query.to)
  const { boundaries, dates } = TimeZones.daysOf(zone, range.from, range.to)
  const filter = yield* visibleTo(caller, { profileId: query.profile_id, platform: query.platform, accountId: query.account_id })
  const sums = yield* analytics.sumByDay(caller.workspaceId, filter, boundaries)
  return { ...range, time_zone: zone, dates, boundaries, filter, ...fillSeries(dates, sums) }
})

/** `GET /v1/analytics`: totals and daily series over everything matching, and a page of groups. */
export const overview = Effect.fn("analytics.overview")(function* (caller: Caller, query: Analytics.AnalyticsQuery) {
  const analytics = yield* AnalyticsStore
  const settings = yield* EngineConfig
  const at = yield* now
  const all = yield* overviewSeries(caller, query)
  const digest = filterDigest("analytics", {
    profile_id: query.profile_id,
    platform: query.platform,
    account_id: query.account_id,
    from: all.from,
    to: all.to,
    time_zone: all.time_zone
  })
  let after: RollupGroup | undefined
  if (query.cursor !== undefined) {
    const decoded = decodeCursor(settings.keyring, query.cursor, digest, at, settings.cursorTtlMs)
    if (Option.isNone(decoded)) return yield* Effect.fail(new PostwireError({ code: "invalid_cursor", field: "cursor" }))
    const [profileId, platform] = decoded.value.id.split("\u0000")
    after = { profileId: profileId as Ids.ProfileId, platform: platform ?? "" }
  }
  const limit = query.limit ?? 25
  const start = all.boundaries[0]!
  const end = all.boundaries[all.boundaries.length - 1]!
  const page = yield* analytics.listGroups(caller.workspaceId, all.filter, start, end, after, limit + 1)
  const hasMore = page.length > limit
  const groups = page.slice(0, limit)
  const sums = groups.length === 0 ? [] : yield* analytics.sumByDay(caller.workspaceId, all.filter, all.boundaries, groups)
  const data = groups.map((group) => {
    const mine = sums.filter((s) => s.group !== undefined && groupKey(s.group) === groupKey(group))
    return { profile_id: group.profileId, platform: group.platform, ...fillSeries(all.dates, mine) }
  })
  const last = groups[groups.length - 1]
  return {
    from: all.from,
    to: all.to,
    time_zone: all.time_zone,
    totals: all.totals,
    series: all.series,
    data,
    cursor: {
      next: hasMore && last !== undefined ? encodeCursor(settings.keyring, { sortKey: 0, id: groupKey(last) }, digest, at) : null,
      has_more: hasMore
    }
  } satisfies Analytics.AnalyticsOverview
})

/** Epoch milliseconds of a day's start in UTC (for tests and tools). */
export const utcDayStart = (date: string): number => TimeZones.dayNumber(date) * dayMs
