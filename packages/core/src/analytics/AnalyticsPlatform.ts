/**
 * The `AnalyticsPlatform` service: everything Postwire asks a platform about how published
 * items and accounts are doing (views, likes, followers, …), for the analytics collector.
 *
 * One implementation serves the whole server and routes by the account's platform and sandbox
 * flag (sandbox accounts get the simulated platform's deterministic numbers, which grow with the
 * item's age). The engine never reads tokens: accounts arrive with their credentials opened,
 * exactly as for {@link PlatformClient}.
 *
 * A platform says which metrics it provides (`AnalyticsCapabilities`): that list is documented
 * and shown, never guessed. A reading carries the normalized names it could map and, in `raw`,
 * the platform's own names and values (everything it answered, mapped or not), so nothing the
 * platform said is lost.
 *
 * Times are epoch milliseconds.
 *
 * @since 0.5.0
 */
import { Context, type Effect } from "effect"
import { Analytics, type Platform } from "@postwire/domain"
import type { CredentialsUpdate, PlatformFailure } from "../platform/PlatformFailure.ts"
import type { AccountRecord } from "../store/AccountStore.ts"
import type { TargetRecord } from "../store/PostStore.ts"

/**
 * The normalized metric names of a published item (the wire's list, `Analytics.postMetricNames`
 * in `@postwire/domain`). `reach`: distinct accounts that saw it; `views`: times it was shown or
 * played (each platform's own definition, see docs/analytics.md); `watch_time_seconds`: total
 * time watched.
 */
export const postMetricNames = Analytics.postMetricNames

/** One normalized metric name of a published item. */
export type PostMetricName = Analytics.PostMetricName

/**
 * The normalized metric names of an account. `followers` is a count at the time of collection;
 * the others are the platform's figure for one day (`AccountDay.date`).
 */
export const accountMetricNames = Analytics.accountMetricNames

/** One normalized metric name of an account. */
export type AccountMetricName = Analytics.AccountMetricName

/** Normalized values: only the names the platform answered (a missing name is "not provided", never 0). */
export type MetricValues<Name extends string> = { readonly [K in Name]?: number }

/** The platform's own names and values, exactly as answered (numbers, or text such as a breakdown). */
export type RawMetrics = { readonly [name: string]: number | string | null }

/** What a platform can tell about its published items and accounts. */
export interface AnalyticsCapabilities {
  /** The normalized item metrics the platform provides; empty: no item metrics. */
  readonly post: ReadonlyArray<PostMetricName>
  /** The normalized account metrics the platform provides; empty: no account metrics. */
  readonly account: ReadonlyArray<AccountMetricName>
  /**
   * How many items one call can read (Graph API `ids=` field expansion, TikTok's video query
   * with up to 20 ids); 1: one call per item.
   */
  readonly batchSize: number
  /** Where these lists come from: the platform documentation's addresses. */
  readonly sources: ReadonlyArray<string>
}

/** One published item's metrics, read now. */
export interface PostReading {
  /** The target read (one of `CollectPostsInput.targets`). */
  readonly targetId: TargetRecord["id"]
  readonly metrics: MetricValues<PostMetricName>
  readonly raw: RawMetrics
}

/** One day of an account's metrics as the platform reports it. */
export interface AccountDay {
  /** The day, `YYYY-MM-DD`, in the platform's own day (Meta: Pacific time; documented per platform). */
  readonly date: string
  readonly metrics: MetricValues<AccountMetricName>
  readonly raw: RawMetrics
}

/** Reading the metrics of some published targets of one account. */
export interface CollectPostsInput {
  /** The targets' account, credentials opened. */
  readonly account: AccountRecord
  /**
   * Published targets of the account, each with its `platformPostId`; at most `batchSize` ×
   * the collector's batch count. The platform reads them in as few calls as it allows.
   */
  readonly targets: ReadonlyArray<TargetRecord>
  /** The collector's clock (the sandbox's numbers grow with it). */
  readonly now: number
}

/** The result of reading some targets. */
export interface PostsCollection {
  /**
   * One reading per target the platform answered for. A target the platform no longer has (the
   * item was deleted on the platform) is in `gone`, not here.
   */
  readonly readings: ReadonlyArray<PostReading>
  /** Targets whose item the platform says no longer exists: the collector stops reading them. */
  readonly gone: ReadonlyArray<TargetRecord["id"]>
  /** How many platform calls the reading made (counted against the account's budget). */
  readonly calls: number
  /** Tokens refreshed while reading: store them. */
  readonly credentials?: CredentialsUpdate | undefined
}

/** Reading an account's metrics. */
export interface CollectAccountInput {
  /** The account, credentials opened. */
  readonly account: AccountRecord
  /** The days wanted, oldest first, `YYYY-MM-DD` (the collector asks for the days it lacks). */
  readonly since: string
  readonly now: number
}

/** The result of reading an account. */
export interface AccountCollection {
  /** Counts as of now (`followers`, …): stored as today's snapshot. */
  readonly current: MetricValues<AccountMetricName>
  readonly currentRaw: RawMetrics
  /** Per-day figures the platform gives, any order; a day given again replaces the stored one. */
  readonly days: ReadonlyArray<AccountDay>
  readonly calls: number
  readonly credentials?: CredentialsUpdate | undefined
}

/** Reads metrics from platforms. */
export class AnalyticsPlatform extends Context.Service<
  AnalyticsPlatform,
  {
    /**
     * What the platform provides; `undefined`: the platform has no analytics. With `sandbox`:
     * what sandbox accounts of the platform get (the platform's list, or the simulated
     * platform's when the platform has none).
     */
    readonly capabilities: (platform: Platform, sandbox?: boolean) => AnalyticsCapabilities | undefined
    /** Reads the current metrics of published targets of one account. */
    readonly collectPosts: (input: CollectPostsInput) => Effect.Effect<PostsCollection, PlatformFailure>
    /** Reads an account's current counts and the days it lacks. */
    readonly collectAccount: (input: CollectAccountInput) => Effect.Effect<AccountCollection, PlatformFailure>
  }
>()("@postwire/core/AnalyticsPlatform") {}
