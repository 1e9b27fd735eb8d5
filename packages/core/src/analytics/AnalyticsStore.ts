/**
 * The `AnalyticsStore` service: each published target's collection state and latest metrics,
 * its snapshots, the gains rolled up per account and quarter hour (what `GET /v1/analytics`
 * sums, so the query reads rollups, never targets), and accounts' metrics by day. One
 * interface, an in-memory and a SQL implementation.
 *
 * A reading is saved only while the collector still holds the target's lease, in one
 * transaction with its snapshot and its rollup: a reading repeated after a crash is stored once.
 *
 * @since 0.5.0
 */
import type { Ids, Platform } from "@postwire/domain"
import { Context, type Effect, type Option } from "effect"
import type { ReconnectReason } from "../accounts/ConnectStore.ts"
import type { Claim } from "../internal/LeasedWork.ts"
import type { OutboxEvent } from "../store/Outbox.ts"
import type { StoreError } from "../store/StoreError.ts"
import type { AccountMetricName, MetricValues, PostMetricName, RawMetrics } from "./AnalyticsPlatform.ts"

/** Where a target's collection stands (the wire's `collection`, minus `pending`). */
export type CollectionState = "active" | "finished" | "gone" | "unsupported"

/** A published target whose metrics are read. Times are epoch milliseconds. */
export interface AnalyticsTarget {
  readonly workspaceId: Ids.WorkspaceId
  readonly targetId: Ids.TargetId
  readonly postId: Ids.PostId
  readonly accountId: Ids.AccountId
  readonly platform: Platform
  readonly platformPostId: string
  readonly publishedAt: number
  readonly state: CollectionState
  /** When the next reading is due; `null` unless `active`. */
  readonly nextDueAt: number | null
  readonly failures: number
  /** The latest reading; `null` before the first. */
  readonly collectedAt: number | null
  readonly values: MetricValues<PostMetricName>
  readonly raw: RawMetrics
  readonly leaseOwner: string | null
  readonly leaseUntil: number | null
}

/** One target's outcome in a saved collection. */
export interface TargetOutcome {
  readonly targetId: Ids.TargetId
  /** A reading to store (a snapshot, the new latest values, the gain in the rollup); absent: only rescheduled. */
  readonly reading?: { readonly values: MetricValues<PostMetricName>; readonly raw: RawMetrics } | undefined
  readonly state: CollectionState
  readonly nextDueAt: number | null
  readonly failures: number
}

/** What one account's part of a collection round writes, in one transaction. */
export interface CollectionSave {
  readonly workspaceId: Ids.WorkspaceId
  readonly accountId: Ids.AccountId
  /** The account's profile and platform: the rollup's keys. */
  readonly profileId: Ids.ProfileId
  readonly platform: Platform
  readonly owner: string
  readonly at: number
  readonly outcomes: ReadonlyArray<TargetOutcome>
  /** Sealed credentials to store on the account (tokens rotate). */
  readonly credentials?: string | undefined
  /** The platform refused the token: a `connected` account becomes `needs_reconnect`, with its events. */
  readonly reconnect?: { readonly reason: ReconnectReason; readonly events: ReadonlyArray<OutboxEvent> } | undefined
}

/** A snapshot of a target's metrics. */
export interface Snapshot {
  readonly collectedAt: number
  readonly values: MetricValues<PostMetricName>
  readonly raw: RawMetrics
}

/** Filters of the rollup sums. */
export interface RollupFilter {
  readonly profileId?: Ids.ProfileId | undefined
  readonly platform?: Platform | undefined
  readonly accountId?: Ids.AccountId | undefined
  /** Only these accounts (a test key's sandbox accounts); empty: none. */
  readonly accountIds?: ReadonlyArray<Ids.AccountId> | undefined
}

/** A profile on a platform: a row of `GET /v1/analytics`. */
export interface RollupGroup {
  readonly profileId: Ids.ProfileId
  readonly platform: Platform
}

/** A sum of gains over one day (index into the boundaries), for one group or all. */
export interface RollupSum {
  /** The day: `boundaries[day] <= bucket < boundaries[day + 1]`. */
  readonly day: number
  readonly group?: RollupGroup | undefined
  readonly values: MetricValues<PostMetricName>
}

/** An account's collection state and current counts. */
export interface AccountAnalytics {
  readonly collectedAt: number | null
  readonly nextDueAt: number
  readonly current: MetricValues<AccountMetricName>
}

/** One stored day of an account. */
export interface AccountDayRecord {
  readonly date: string
  readonly values: MetricValues<AccountMetricName>
  readonly raw: RawMetrics
}

/** Every read and write of analytics. */
export interface AnalyticsStoreShape {
  /** Starts collecting a published target unless it is collected already. */
  readonly trackTarget: (target: AnalyticsTarget) => Effect.Effect<void, StoreError>
  /** Claims up to `limit` targets due at `at`, oldest due first, leased to `owner` (index-bounded). */
  readonly claimDue: (claim: Claim) => Effect.Effect<ReadonlyArray<AnalyticsTarget>, StoreError>
  /**
   * Saves one account's outcomes of a round, only for targets whose lease `owner` still holds:
   * each reading as a snapshot at `at` (once), the latest values, and its gain over the previous
   * latest added to the account's rollup at `at`'s quarter hour. Returns the targets saved.
   */
  readonly saveCollection: (save: CollectionSave) => Effect.Effect<ReadonlyArray<Ids.TargetId>, StoreError>
  /** The collection state of these targets (those tracked). */
  readonly getTargets: (
    workspaceId: Ids.WorkspaceId,
    targetIds: ReadonlyArray<Ids.TargetId>
  ) => Effect.Effect<ReadonlyArray<AnalyticsTarget>, StoreError>
  /** A target's snapshots, oldest first. */
  readonly listSnapshots: (workspaceId: Ids.WorkspaceId, targetId: Ids.TargetId) => Effect.Effect<ReadonlyArray<Snapshot>, StoreError>
  /**
   * The groups (profile × platform) with gains in `[start, end)`, ordered by profile id then
   * platform, after `after`, at most `limit`.
   */
  readonly listGroups: (
    workspaceId: Ids.WorkspaceId,
    filter: RollupFilter,
    start: number,
    end: number,
    after: RollupGroup | undefined,
    limit: number
  ) => Effect.Effect<ReadonlyArray<RollupGroup>, StoreError>
  /**
   * The gains summed per day between consecutive `boundaries` (ascending instants), over all
   * matching rollups, or per group of `groups` when given.
   */
  readonly sumByDay: (
    workspaceId: Ids.WorkspaceId,
    filter: RollupFilter,
    boundaries: ReadonlyArray<number>,
    groups?: ReadonlyArray<RollupGroup> | undefined
  ) => Effect.Effect<ReadonlyArray<RollupSum>, StoreError>
  /** An account's collection state; none before its first reading was planned. */
  readonly getAccount: (workspaceId: Ids.WorkspaceId, accountId: Ids.AccountId) => Effect.Effect<Option.Option<AccountAnalytics>, StoreError>
  /**
   * Saves an account's reading: its current counts (merged into `today`'s day), its days (each
   * merged into the stored day), and when to read it next. `reading` absent: only rescheduled.
   */
  readonly saveAccount: (
    workspaceId: Ids.WorkspaceId,
    accountId: Ids.AccountId,
    input: {
      readonly at: number
      readonly nextDueAt: number
      readonly today: string
      readonly reading?:
        | {
            readonly current: MetricValues<AccountMetricName>
            readonly currentRaw: RawMetrics
            readonly days: ReadonlyArray<AccountDayRecord>
          }
        | undefined
    }
  ) => Effect.Effect<void, StoreError>
  /** An account's days from `from` to `to` inclusive (`YYYY-MM-DD`), oldest first. */
  readonly listAccountDays: (
    workspaceId: Ids.WorkspaceId,
    accountId: Ids.AccountId,
    from: string,
    to: string
  ) => Effect.Effect<ReadonlyArray<AccountDayRecord>, StoreError>
}

/** The analytics store. */
export class AnalyticsStore extends Context.Service<AnalyticsStore, AnalyticsStoreShape>()("postwire/AnalyticsStore") {}

/** Rollups are kept per quarter hour: every time zone's midnight falls on one's edge. */
export const bucketMs = 15 * 60_000

/** The quarter hour holding `at`. */
export const bucketOf = (at: number): number => Math.floor(at / bucketMs) * bucketMs

/** The gain from `before` to `after`: a name first seen counts whole; a name no longer answered gains nothing. */
export const gain = (
  before: MetricValues<PostMetricName>,
  after: MetricValues<PostMetricName>
): MetricValues<PostMetricName> => {
  const out: Partial<Record<PostMetricName, number>> = {}
  for (const [name, value] of Object.entries(after) as Array<[PostMetricName, number | undefined]>) {
    if (value === undefined) continue
    out[name] = value - (before[name] ?? 0)
  }
  return out
}

/** Adds `b` into a copy of `a`. */
export const addValues = <N extends string>(a: MetricValues<N>, b: MetricValues<N>): MetricValues<N> => {
  const out: Partial<Record<N, number>> = { ...a }
  for (const [name, value] of Object.entries(b) as Array<[N, number | undefined]>) {
    if (value !== undefined) out[name] = (out[name] ?? 0) + value
  }
  return out as MetricValues<N>
}
