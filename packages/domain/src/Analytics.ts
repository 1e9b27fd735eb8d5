/**
 * Analytics on the wire: a published target's metrics (latest values and their snapshots), an
 * account's metrics by day, the workspace's totals and daily series, and the queries of
 * `/v1/posts/{id}/metrics`, `/v1/accounts/{id}/metrics`, `/v1/analytics` and
 * `/v1/analytics/chart.svg`.
 *
 * A metric is a normalized name (`views`, `likes`, …) with a number; what the platform answered
 * under its own names is kept in `raw`. A name missing from `values` means "not provided", never 0.
 *
 * @since 0.5.0
 */
import { Schema } from "effect"
import * as ErrorDetail from "./ErrorDetail.ts"
import { AccountId, ProfileId } from "./Ids.ts"
import { Cursor, PageLimit } from "./List.ts"
import { Platform } from "./Platform.ts"
import { Instant } from "./Timestamp.ts"

/**
 * The normalized metric names of a published item. `reach`: distinct accounts that saw it;
 * `views`: times it was shown or played (each platform's own definition, see docs/analytics.md);
 * `watch_time_seconds`: total time watched.
 */
export const postMetricNames = [
  "views",
  "reach",
  "likes",
  "comments",
  "shares",
  "saves",
  "reposts",
  "quotes",
  "link_clicks",
  "watch_time_seconds"
] as const

/** One normalized metric name of a published item. */
export type PostMetricName = (typeof postMetricNames)[number]

/**
 * The normalized metric names of an account. `followers`, `following` and `posts` are counts at
 * the time of collection; the others are the platform's figure for one day.
 */
export const accountMetricNames = ["followers", "following", "posts", "views", "reach", "profile_views"] as const

/** One normalized metric name of an account. */
export type AccountMetricName = (typeof accountMetricNames)[number]

const postMetricDescriptions: Record<PostMetricName, string> = {
  views: "Times the item was shown or played, as the platform counts them.",
  reach: "Distinct accounts that saw the item.",
  likes: "Likes (or the platform's reactions).",
  comments: "Comments, answers included where the platform counts them.",
  shares: "Shares.",
  saves: "Saves (bookmarks).",
  reposts: "Reposts (boosts, reblogs).",
  quotes: "Quotes.",
  link_clicks: "Clicks on the item's links.",
  watch_time_seconds: "Total time watched, in seconds."
}

const accountMetricDescriptions: Record<AccountMetricName, string> = {
  followers: "Followers at the time of collection (the day's last collection).",
  following: "Accounts the account follows, at the time of collection.",
  posts: "Items the account has published, at the time of collection.",
  views: "Times the account's items were shown that day, as the platform counts them.",
  reach: "Distinct accounts that saw the account's items that day.",
  profile_views: "Visits to the account's profile that day."
}

const metricStruct = <Name extends string>(names: ReadonlyArray<Name>, descriptions: Record<Name, string>) =>
  Schema.Struct(
    Object.fromEntries(
      names.map((name) => [name, Schema.optionalKey(Schema.Finite.annotate({ description: descriptions[name] }))])
    ) as { readonly [K in Name]: Schema.optionalKey<typeof Schema.Finite> }
  )

/** Normalized values of a published item: only the names the platform provides (a missing name is "not provided"). */
export const PostMetricValues = metricStruct(postMetricNames, postMetricDescriptions).annotate({
  description: "Normalized values: only the names the platform provides; a missing name is \"not provided\", never 0."
})
export type PostMetricValues = typeof PostMetricValues.Type

/** Normalized values of an account: only the names the platform provides. */
export const AccountMetricValues = metricStruct(accountMetricNames, accountMetricDescriptions).annotate({
  description: "Normalized account values: only the names the platform provides; a missing name is \"not provided\", never 0."
})
export type AccountMetricValues = typeof AccountMetricValues.Type

/** The platform's own metric names and values, exactly as it answered them. */
export const RawMetrics = Schema.Record(Schema.String, Schema.NullOr(Schema.Union([Schema.Finite, Schema.String]))).annotate({
  description: "The platform's own names and values, exactly as it answered (numbers, or text such as a breakdown)."
})
export type RawMetrics = typeof RawMetrics.Type

/** The `metrics` block of a target in `GET /v1/posts/{id}`: latest values only. */
export const TargetMetricsBlock = Schema.Struct({
  /** When the values were read from the platform, ISO 8601 in UTC with milliseconds. */
  collected_at: Instant.annotate({ description: "When the values were read from the platform, ISO 8601 in UTC with milliseconds." }),
  values: PostMetricValues
}).annotate({
  description: "The target's latest metrics (`GET /v1/posts/{id}/metrics` has the platform's raw names and the history)."
})
export type TargetMetricsBlock = typeof TargetMetricsBlock.Type

/** One snapshot of a target's metrics. */
export const MetricsSnapshot = Schema.Struct({
  /** When the snapshot was read from the platform, ISO 8601 in UTC with milliseconds. */
  collected_at: Instant.annotate({ description: "When the snapshot was read from the platform, ISO 8601 in UTC with milliseconds." }),
  values: PostMetricValues,
  raw: RawMetrics
}).annotate({ description: "The target's metrics as read at one time." })
export type MetricsSnapshot = typeof MetricsSnapshot.Type

/** Where a target's collection stands. */
export const CollectionStatus = Schema.Literals(["pending", "active", "finished", "gone", "unsupported"]).annotate({
  description:
    "`pending`: not published yet (or no platform id yet); `active`: read on the schedule, next at `next_collection_at`; " +
    "`finished`: older than the schedule's last step, the last values stay; `gone`: the platform no longer has the item; " +
    "`unsupported`: the platform provides no item metrics."
})
export type CollectionStatus = typeof CollectionStatus.Type

/** A target's metrics in `GET /v1/posts/{id}/metrics`. */
export const TargetMetrics = Schema.Struct({
  /** The target, `tgt_…`. */
  target_id: Schema.String.annotate({ description: "The target, `tgt_…`." }),
  /** The target's account, `acc_…`. */
  account_id: Schema.String.annotate({ description: "The target's account, `acc_…`." }),
  /** The account's platform. */
  platform: Platform.annotate({ description: "The account's platform." }),
  /** The target's publishing status (as in `GET /v1/posts/{id}`). */
  status: Schema.String.annotate({ description: "The target's publishing status (as in `GET /v1/posts/{id}`)." }),
  /** When the platform published it; `null` unless published. */
  published_at: Schema.NullOr(Instant).annotate({ description: "When the platform published it; `null` unless published." }),
  /** The normalized names the platform provides for items (its documented capability, see docs/analytics.md). */
  provides: Schema.Array(Schema.String).annotate({
    description: "The normalized names the platform provides for items (its documented capability, see docs/analytics.md)."
  }),
  collection: CollectionStatus,
  /** When the next reading is due; `null` unless `collection` is `active`. */
  next_collection_at: Schema.NullOr(Instant).annotate({
    description: "When the next reading is due; `null` unless `collection` is `active`."
  }),
  /** When the latest values were read; `null` before the first reading. */
  collected_at: Schema.NullOr(Instant).annotate({ description: "When the latest values were read; `null` before the first reading." }),
  values: PostMetricValues,
  raw: RawMetrics,
  /** Every snapshot, oldest first: only with `?series=true`. */
  series: Schema.optionalKey(
    Schema.Array(MetricsSnapshot).annotate({ description: "Every snapshot, oldest first: only with `?series=true`." })
  )
}).annotate({ description: "One target's latest metrics, where its collection stands and, on request, its snapshots." })
export type TargetMetrics = typeof TargetMetrics.Type

/** The answer of `GET /v1/posts/{id}/metrics`. */
export const PostMetrics = Schema.Struct({
  /** The post, `post_…`. */
  post_id: Schema.String.annotate({ description: "The post, `post_…`." }),
  /** One entry per target, in the post's order. */
  targets: Schema.Array(TargetMetrics).annotate({ description: "One entry per target, in the post's order." })
}).annotate({ description: "The metrics of each target of a post." })
export type PostMetrics = typeof PostMetrics.Type

/** Query of `GET /v1/posts/{id}/metrics`. */
export const PostMetricsQuery = Schema.Struct({
  /** `true`: add each target's snapshots (`series`), oldest first. */
  series: Schema.optionalKey(
    Schema.Literals(["true", "false"]).annotate({ description: "`true`: add each target's snapshots (`series`), oldest first." })
  )
})
export type PostMetricsQuery = typeof PostMetricsQuery.Type

const calendarDate = /^(\d{4})-(\d{2})-(\d{2})$/

/** Whether `s` is a real calendar date written `YYYY-MM-DD`. */
export const isCalendarDate = (s: string): boolean => {
  const m = calendarDate.exec(s)
  if (m === null) return false
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])]
  return month >= 1 && month <= 12 && day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate()
}

/** A calendar day in a request, `YYYY-MM-DD`. */
export const DateInput = Schema.String.check(
  Schema.makeFilter((s: string) => isCalendarDate(s), {
    ...ErrorDetail.annotation(ErrorDetail.reason("calendar_date")),
    toJsonSchema: () => ({ format: "date" })
  })
)

const utcOffset = /^([+-])(\d{2}):(\d{2})$/

/**
 * The offset in minutes of a fixed offset written `+07:00` / `-03:30` (at most 14 hours), or
 * `undefined` when `s` is not one.
 */
export const parseUtcOffset = (s: string): number | undefined => {
  const m = utcOffset.exec(s)
  if (m === null) return undefined
  const hours = Number(m[2])
  const minutes = Number(m[3])
  if (minutes > 59 || hours * 60 + minutes > 14 * 60) return undefined
  return (m[1] === "-" ? -1 : 1) * (hours * 60 + minutes)
}

/** Whether `s` names a time zone: `UTC`, an IANA name (`Asia/Jakarta`) or a fixed offset (`+07:00`). */
export const isTimeZone = (s: string): boolean => {
  if (s === "UTC" || parseUtcOffset(s) !== undefined) return true
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{1,63}$/.test(s)) return false
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: s })
    return true
  } catch {
    return false
  }
}

/** A time zone in a request: `UTC`, an IANA name or a fixed offset `±HH:MM`. */
export const TimeZoneInput = Schema.String.check(
  Schema.makeFilter((s: string) => isTimeZone(s), {
    ...ErrorDetail.annotation(ErrorDetail.reason("time_zone")),
    toJsonSchema: () => ({ examples: ["Asia/Jakarta", "+07:00", "UTC"] })
  })
)

/** The longest range, in days, that `/v1/analytics` and `/v1/accounts/{id}/metrics` answer by default. */
export const defaultMaxRangeDays = 92

/** The days answered when a query names no range. */
export const defaultRangeDays = 30

const rangeFields = {
  /** The first day, `YYYY-MM-DD`, in `time_zone`; default: 29 days before `to` (30 days in all). */
  from: Schema.optionalKey(
    DateInput.annotate({ description: "The first day, `YYYY-MM-DD`, in `time_zone`; default: 29 days before `to` (30 days in all)." })
  ),
  /** The last day, `YYYY-MM-DD`, inclusive, in `time_zone`; default: today. At most 92 days after `from` counted inclusively (else 400 `invalid_range`). */
  to: Schema.optionalKey(
    DateInput.annotate({
      description:
        "The last day, `YYYY-MM-DD`, inclusive, in `time_zone`; default: today there. Not before `from`, and the range is at " +
        "most 92 days (else 400 `invalid_range`)."
    })
  ),
  /** The time zone whose days the series counts: an IANA name or a fixed offset `+07:00`; default `UTC`. */
  time_zone: Schema.optionalKey(
    TimeZoneInput.annotate({
      description:
        "The time zone whose days the series counts: an IANA name (`Asia/Jakarta`, `America/New_York`, daylight saving " +
        "followed), `UTC`, or a fixed offset `+07:00` / `-03:30`; default `UTC`. Bad values are 400 `invalid_request`."
    })
  )
}

const filterFields = {
  /** Only this profile's accounts, `prof_…`. */
  profile_id: Schema.optionalKey(ProfileId.annotate({ description: "Only this profile's accounts, `prof_…`." })),
  /** Only this platform. */
  platform: Schema.optionalKey(Platform.annotate({ description: "Only this platform." })),
  /** Only this account, `acc_…`. */
  account_id: Schema.optionalKey(AccountId.annotate({ description: "Only this account, `acc_…`." }))
}

/** Query of `GET /v1/analytics`. */
export const AnalyticsQuery = Schema.Struct({
  ...filterFields,
  ...rangeFields,
  /** Groups (profile × platform) per page, 1 to 100; default 25. */
  limit: Schema.optionalKey(PageLimit),
  /** `cursor.next` of the previous page, with the same filters; valid 24 hours (else 400 `invalid_cursor`). */
  cursor: Schema.optionalKey(
    Schema.String.annotate({
      description: "`cursor.next` of the previous page, with the same filters; valid 24 hours (else 400 `invalid_cursor`)."
    })
  )
})
export type AnalyticsQuery = typeof AnalyticsQuery.Type

/** Query of `GET /v1/analytics/chart.svg`: the filters of `GET /v1/analytics` and the metric drawn. */
export const AnalyticsChartQuery = Schema.Struct({
  ...filterFields,
  ...rangeFields,
  /** The metric drawn; default `views`. */
  metric: Schema.optionalKey(Schema.Literals(postMetricNames).annotate({ description: "The metric drawn; default `views`." }))
})
export type AnalyticsChartQuery = typeof AnalyticsChartQuery.Type

/** Query of `GET /v1/accounts/{id}/metrics`. */
export const AccountMetricsQuery = Schema.Struct({
  /** The first day, `YYYY-MM-DD` (the platform's day); default: 29 days before `to`. */
  from: Schema.optionalKey(
    DateInput.annotate({ description: "The first day, `YYYY-MM-DD` (the platform's day); default: 29 days before `to`." })
  ),
  /** The last day, inclusive; default: today (UTC). Not before `from`; at most 92 days (else 400 `invalid_range`). */
  to: Schema.optionalKey(
    DateInput.annotate({
      description: "The last day, inclusive; default: today (UTC). Not before `from`; at most 92 days (else 400 `invalid_range`)."
    })
  )
})
export type AccountMetricsQuery = typeof AccountMetricsQuery.Type

/** One day of a series: what was gained that day. */
export const SeriesDay = Schema.Struct({
  /** The day, `YYYY-MM-DD`, in the query's `time_zone`. */
  date: Schema.String.annotate({ description: "The day, `YYYY-MM-DD`, in the query's `time_zone`." }),
  values: PostMetricValues
}).annotate({
  description:
    "What the items gained that day: the growth between readings, counted on the day of the later reading (0 for a " +
    "name seen elsewhere in the range)."
})
export type SeriesDay = typeof SeriesDay.Type

/** The totals and the daily series of one profile on one platform. */
export const AnalyticsGroupRow = Schema.Struct({
  /** The profile, `prof_…`. */
  profile_id: Schema.String.annotate({ description: "The profile, `prof_…`." }),
  /** The platform. */
  platform: Platform.annotate({ description: "The platform." }),
  totals: PostMetricValues,
  /** Every day of the range, oldest first. */
  series: Schema.Array(SeriesDay).annotate({ description: "Every day of the range, oldest first." })
}).annotate({ description: "One profile on one platform: what its items gained in the range, in all and by day." })
export type AnalyticsGroupRow = typeof AnalyticsGroupRow.Type

/** The answer of `GET /v1/analytics`. */
export const AnalyticsOverview = Schema.Struct({
  /** The first day answered, `YYYY-MM-DD`. */
  from: Schema.String.annotate({ description: "The first day answered, `YYYY-MM-DD`." }),
  /** The last day answered, inclusive. */
  to: Schema.String.annotate({ description: "The last day answered, inclusive." }),
  /** The time zone whose days are counted, as asked (`UTC` by default). */
  time_zone: Schema.String.annotate({ description: "The time zone whose days are counted, as asked (`UTC` by default)." }),
  /** What every matching item gained in the range (all pages). */
  totals: PostMetricValues.annotate({ description: "What every matching item gained in the range (all pages)." }),
  /** Every day of the range, oldest first, over every matching item (all pages). */
  series: Schema.Array(SeriesDay).annotate({
    description: "Every day of the range, oldest first, over every matching item (all pages)."
  }),
  /** One row per profile and platform, ordered by profile id then platform. */
  data: Schema.Array(AnalyticsGroupRow).annotate({ description: "One row per profile and platform, ordered by profile id then platform." }),
  cursor: Cursor
}).annotate({
  description:
    "What published items gained in a range of days: totals and a daily series over everything matching, and a page of " +
    "rows per profile and platform."
})
export type AnalyticsOverview = typeof AnalyticsOverview.Type

/** One day of an account's metrics. */
export const AccountMetricsDay = Schema.Struct({
  /** The day, `YYYY-MM-DD`: the platform's own day for per-day figures, UTC for the counts Postwire read. */
  date: Schema.String.annotate({
    description: "The day, `YYYY-MM-DD`: the platform's own day for per-day figures, UTC for the counts Postwire read."
  }),
  values: AccountMetricValues,
  raw: RawMetrics
}).annotate({ description: "One day of an account's metrics." })
export type AccountMetricsDay = typeof AccountMetricsDay.Type

/** The answer of `GET /v1/accounts/{id}/metrics`. */
export const AccountMetrics = Schema.Struct({
  /** The account, `acc_…`. */
  account_id: Schema.String.annotate({ description: "The account, `acc_…`." }),
  /** The account's platform. */
  platform: Platform.annotate({ description: "The account's platform." }),
  /** The normalized account names the platform provides. */
  provides: Schema.Array(Schema.String).annotate({ description: "The normalized account names the platform provides." }),
  /** When the account was last read; `null` before the first reading. */
  collected_at: Schema.NullOr(Instant).annotate({ description: "When the account was last read; `null` before the first reading." }),
  /** The counts as of `collected_at` (`followers`, …). */
  current: AccountMetricValues.annotate({ description: "The counts as of `collected_at` (`followers`, …)." }),
  /** The days of the range that have figures, oldest first. */
  days: Schema.Array(AccountMetricsDay).annotate({ description: "The days of the range that have figures, oldest first." })
}).annotate({ description: "An account's current counts and its metrics by day." })
export type AccountMetrics = typeof AccountMetrics.Type
