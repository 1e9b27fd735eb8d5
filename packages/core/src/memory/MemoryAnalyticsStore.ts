/**
 * The `AnalyticsStore` in memory, beside the tables of the in-memory `Store` (`MemoryState`), so
 * the publisher (which starts collecting a target as it publishes) sees the same tables. Every
 * method runs in one synchronous step: atomic, like a transaction.
 *
 * @since 0.5.0
 */
import { Effect, Layer, Option } from "effect"
import type { Ids } from "@postwire/domain"
import { MemoryState, type MemoryTables, rowKey } from "./MemoryState.ts"
import type { AccountMetricName, MetricValues, PostMetricName, RawMetrics } from "../analytics/AnalyticsPlatform.ts"
import {
  type AccountAnalytics,
  type AccountDayRecord,
  type AnalyticsTarget,
  AnalyticsStore,
  type AnalyticsStoreShape,
  addValues,
  bucketOf,
  gain,
  type RollupFilter,
  type RollupGroup,
  type RollupSum,
  type Snapshot
} from "../analytics/AnalyticsStore.ts"

interface Rollup {
  readonly workspaceId: string
  readonly profileId: Ids.ProfileId
  readonly accountId: string
  readonly platform: string
  readonly bucket: number
  values: MetricValues<PostMetricName>
}

interface Tables {
  readonly targets: Map<string, AnalyticsTarget>
  readonly snapshots: Map<string, Array<Snapshot>>
  readonly rollups: Map<string, Rollup>
  readonly accounts: Map<string, AccountAnalytics>
  readonly accountDays: Map<string, Map<string, AccountDayRecord>>
}

const tablesOf = new WeakMap<MemoryTables, Tables>()

/** The analytics tables kept beside an in-memory `Store`'s. */
const tables = (memory: MemoryTables): Tables => {
  let found = tablesOf.get(memory)
  if (found === undefined) {
    found = { targets: new Map(), snapshots: new Map(), rollups: new Map(), accounts: new Map(), accountDays: new Map() }
    tablesOf.set(memory, found)
  }
  return found
}

/** Starts collecting a target unless it is collected already (the publisher calls it as it publishes). */
export const trackTarget = (memory: MemoryTables, target: AnalyticsTarget): void => {
  const { targets } = tables(memory)
  const key = rowKey(target.workspaceId, target.targetId)
  if (!targets.has(key)) targets.set(key, target)
}

const matches = (filter: RollupFilter, r: Rollup) =>
  (filter.profileId === undefined || r.profileId === filter.profileId) &&
  (filter.platform === undefined || r.platform === filter.platform) &&
  (filter.accountId === undefined || r.accountId === filter.accountId) &&
  (filter.accountIds === undefined || (filter.accountIds as ReadonlyArray<string>).includes(r.accountId))

const compareGroups = (a: RollupGroup, b: RollupGroup) =>
  a.profileId < b.profileId ? -1 : a.profileId > b.profileId ? 1 : a.platform < b.platform ? -1 : a.platform > b.platform ? 1 : 0

/** The day of `bucket` among `boundaries`, or -1 outside them. */
export const dayIndex = (boundaries: ReadonlyArray<number>, bucket: number): number => {
  let lo = 0
  let hi = boundaries.length - 1
  if (hi < 1 || bucket < boundaries[0]! || bucket >= boundaries[hi]!) return -1
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1
    if (bucket >= boundaries[mid]!) lo = mid
    else hi = mid
  }
  return lo
}

/** Builds the analytics store over the tables of an in-memory `Store`. */
export const make = (memory: MemoryTables): AnalyticsStoreShape => {
  const t = tables(memory)

  const held = (workspaceId: string, targetId: string, owner: string) => {
    const found = t.targets.get(rowKey(workspaceId, targetId))
    return found !== undefined && found.leaseOwner === owner ? found : undefined
  }

  return {
    trackTarget: (target) => Effect.sync(() => trackTarget(memory, target)),

    claimDue: ({ at, leaseUntil, limit, owner }) =>
      Effect.sync(() => {
        const due = [...t.targets.values()]
          .filter((x) => x.nextDueAt !== null && x.nextDueAt <= at && (x.leaseUntil === null || x.leaseUntil <= at))
          .sort((a, b) => a.nextDueAt! - b.nextDueAt!)
          .slice(0, Math.max(0, limit))
        return due.map((x) => {
          const claimed = { ...x, leaseOwner: owner, leaseUntil }
          t.targets.set(rowKey(x.workspaceId, x.targetId), claimed)
          return claimed
        })
      }),

    saveCollection: (save) =>
      Effect.sync(() => {
        const saved: Array<Ids.TargetId> = []
        for (const outcome of save.outcomes) {
          const current = held(save.workspaceId, outcome.targetId, save.owner)
          if (current === undefined) continue
          let next: AnalyticsTarget = {
            ...current,
            state: outcome.state,
            nextDueAt: outcome.nextDueAt,
            failures: outcome.failures,
            leaseOwner: null,
            leaseUntil: null
          }
          if (outcome.reading !== undefined) {
            const key = rowKey(save.workspaceId, outcome.targetId)
            const list = t.snapshots.get(key) ?? []
            if (!list.some((s) => s.collectedAt === save.at)) {
              list.push({ collectedAt: save.at, values: outcome.reading.values, raw: outcome.reading.raw })
              t.snapshots.set(key, list)
              const bucket = bucketOf(save.at)
              const rollupKey = rowKey(save.workspaceId, bucket, save.profileId, save.accountId, save.platform)
              const rollup = t.rollups.get(rollupKey) ?? {
                workspaceId: save.workspaceId,
                profileId: save.profileId,
                accountId: save.accountId,
                platform: save.platform,
                bucket,
                values: {}
              }
              rollup.values = addValues(rollup.values, gain(current.values, outcome.reading.values))
              t.rollups.set(rollupKey, rollup)
              next = { ...next, collectedAt: save.at, values: outcome.reading.values, raw: outcome.reading.raw }
            }
          }
          t.targets.set(rowKey(save.workspaceId, outcome.targetId), next)
          saved.push(outcome.targetId)
        }
        if (saved.length > 0) {
          const account = memory.accounts.get(save.workspaceId, save.accountId)
          if (account !== undefined && save.credentials !== undefined) {
            memory.accounts.put(save.workspaceId, save.accountId, { ...account, credentials: save.credentials })
          }
          const fresh = memory.accounts.get(save.workspaceId, save.accountId)
          if (save.reconnect !== undefined && fresh?.status === "connected") {
            memory.accounts.put(save.workspaceId, save.accountId, { ...fresh, status: "needs_reconnect" })
            const connection = memory.connections.get(save.workspaceId, save.accountId)
            if (connection !== undefined) {
              memory.connections.put(save.workspaceId, save.accountId, { ...connection, reconnectReason: save.reconnect.reason })
            }
            memory.appendEvents(save.reconnect.events)
          }
        }
        return saved
      }),

    getTargets: (workspaceId, targetIds) =>
      Effect.sync(() =>
        targetIds.flatMap((id) => {
          const found = t.targets.get(rowKey(workspaceId, id))
          return found === undefined ? [] : [found]
        })
      ),

    listSnapshots: (workspaceId, targetId) =>
      Effect.sync(() => [...(t.snapshots.get(rowKey(workspaceId, targetId)) ?? [])].sort((a, b) => a.collectedAt - b.collectedAt)),

    listGroups: (workspaceId, filter, start, end, after, limit) =>
      Effect.sync(() => {
        const groups = new Map<string, RollupGroup>()
        for (const r of t.rollups.values()) {
          if (r.workspaceId !== workspaceId || r.bucket < start || r.bucket >= end || !matches(filter, r)) continue
          const group = { profileId: r.profileId, platform: r.platform }
          if (after !== undefined && compareGroups(group, after) <= 0) continue
          groups.set(rowKey(r.profileId, r.platform), group)
        }
        return [...groups.values()].sort(compareGroups).slice(0, Math.max(0, limit))
      }),

    sumByDay: (workspaceId, filter, boundaries, groups) =>
      Effect.sync(() => {
        const wanted = groups === undefined ? undefined : new Set(groups.map((g) => rowKey(g.profileId, g.platform)))
        const sums = new Map<string, { day: number; group?: RollupGroup; values: MetricValues<PostMetricName> }>()
        for (const r of t.rollups.values()) {
          if (r.workspaceId !== workspaceId || !matches(filter, r)) continue
          const day = dayIndex(boundaries, r.bucket)
          if (day < 0) continue
          const groupKey = rowKey(r.profileId, r.platform)
          if (wanted !== undefined && !wanted.has(groupKey)) continue
          const key = wanted === undefined ? `${day}` : rowKey(day, groupKey)
          const sum = sums.get(key) ?? {
            day,
            ...(wanted === undefined ? {} : { group: { profileId: r.profileId, platform: r.platform } }),
            values: {}
          }
          sum.values = addValues(sum.values, r.values)
          sums.set(key, sum)
        }
        return [...sums.values()] as ReadonlyArray<RollupSum>
      }),

    getAccount: (workspaceId, accountId) =>
      Effect.sync(() => Option.fromNullishOr(t.accounts.get(rowKey(workspaceId, accountId)))),

    saveAccount: (workspaceId, accountId, input) =>
      Effect.sync(() => {
        const key = rowKey(workspaceId, accountId)
        const before = t.accounts.get(key)
        if (input.reading === undefined) {
          t.accounts.set(key, { collectedAt: before?.collectedAt ?? null, current: before?.current ?? {}, nextDueAt: input.nextDueAt })
          return
        }
        t.accounts.set(key, { collectedAt: input.at, current: input.reading.current, nextDueAt: input.nextDueAt })
        const days = t.accountDays.get(key) ?? new Map<string, AccountDayRecord>()
        const merge = (date: string, values: MetricValues<AccountMetricName>, raw: RawMetrics) => {
          const old = days.get(date)
          days.set(date, { date, values: { ...old?.values, ...values }, raw: { ...old?.raw, ...raw } })
        }
        for (const day of input.reading.days) merge(day.date, day.values, day.raw)
        merge(input.today, input.reading.current, input.reading.currentRaw)
        t.accountDays.set(key, days)
      }),

    listAccountDays: (workspaceId, accountId, from, to) =>
      Effect.sync(() =>
        [...(t.accountDays.get(rowKey(workspaceId, accountId))?.values() ?? [])]
          .filter((d) => d.date >= from && d.date <= to)
          .sort((a, b) => (a.date < b.date ? -1 : 1))
      )
  }
}

/** The in-memory analytics store, over the in-memory `Store`'s tables. */
export const layer: Layer.Layer<AnalyticsStore, never, MemoryState> = Layer.effect(AnalyticsStore)(MemoryState.useSync(make))
