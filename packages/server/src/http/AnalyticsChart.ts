/**
 * `GET /v1/analytics/chart.svg`: the daily series of `GET /v1/analytics` for one metric (default
 * `views`) drawn by {@link ChartSvg}: one line per platform (its profiles added up) and, with
 * several platforms, one for all of them. Metric names and headings in the caller's language.
 *
 * @since 0.6.0
 */
import { Effect } from "effect"
import { type Caller, AnalyticsQueries, EngineConfig } from "@postwire/core"
import { type Analytics, CurrentKey, displayNameOf, type Locale } from "@postwire/domain"
import type { Chart, ChartLine } from "../analytics/ChartSvg.ts"
import * as ChartSvg from "../analytics/ChartSvg.ts"
import { requestLocale } from "./Locale.ts"

/** The parts of the analytics answer (`GET /v1/analytics`, every page) the chart needs. */
export interface ChartSource {
  readonly from: string
  readonly to: string
  readonly time_zone: string
  readonly series: ReadonlyArray<{ readonly date: string; readonly values: Readonly<Record<string, number | undefined>> }>
  readonly data: ReadonlyArray<{
    readonly platform: string
    readonly series: ReadonlyArray<{ readonly date: string; readonly values: Readonly<Record<string, number | undefined>> }>
  }>
}

const metricNames: Readonly<Record<string, { readonly en: string; readonly id: string }>> = {
  views: { en: "Views", id: "Tayangan" },
  reach: { en: "Reach", id: "Jangkauan" },
  likes: { en: "Likes", id: "Suka" },
  comments: { en: "Comments", id: "Komentar" },
  shares: { en: "Shares", id: "Dibagikan" },
  saves: { en: "Saves", id: "Disimpan" },
  reposts: { en: "Reposts", id: "Posting ulang" },
  quotes: { en: "Quotes", id: "Kutipan" },
  link_clicks: { en: "Link clicks", id: "Klik tautan" },
  watch_time_seconds: { en: "Watch time (seconds)", id: "Waktu tonton (detik)" }
}

/** A metric's name for people, in `locale` (the wire name for one this module does not know). */
export const metricLabel = (metric: string, locale: Locale): string => metricNames[metric]?.[locale] ?? metric

const headings = {
  title: { en: (metric: string) => `${metric} per day`, id: (metric: string) => `${metric} per hari` },
  total: { en: "All platforms", id: "Semua platform" }
} as const

/** Every day from `from` to `to`, inclusive, `YYYY-MM-DD`. */
const daysBetween = (from: string, to: string): Array<string> => {
  const days: Array<string> = []
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000) {
    days.push(new Date(t).toISOString().slice(0, 10))
  }
  return days
}

/** One value per day from a series: a day missing from it, or a name missing from a day, is no value. */
const valuesOf = (
  days: ReadonlyArray<string>,
  series: ReadonlyArray<{ readonly date: string; readonly values: Readonly<Record<string, number | undefined>> }>,
  metric: string
): Array<number | null> => {
  const byDay = new Map(series.map((day) => [day.date, day.values[metric]]))
  return days.map((day) => byDay.get(day) ?? null)
}

/**
 * The chart of an analytics answer for one metric (default `views`): one line per platform (its
 * profiles added up) and, with several platforms, one for all of them.
 *
 * @since 0.6.0
 */
export const chartOf = (
  source: ChartSource,
  options: { readonly metric?: string | undefined; readonly locale: Locale; readonly platformName: (platform: string) => string }
): Chart => {
  const { locale } = options
  const metric = options.metric ?? "views"
  const days = daysBetween(source.from, source.to)
  const platforms = new Map<string, Array<number | null>>()
  for (const row of source.data) {
    const values = valuesOf(days, row.series, metric)
    const sum = platforms.get(row.platform)
    platforms.set(
      row.platform,
      sum === undefined ? values : sum.map((value, i) => (value === null && values[i] === null ? null : (value ?? 0) + (values[i] ?? 0)))
    )
  }
  const lines: Array<ChartLine> = [...platforms]
    .filter(([, values]) => values.some((value) => value !== null))
    .map(([platform, values]) => ({ label: options.platformName(platform), values }))
  const all = lines.length > 1 ? [{ label: headings.total[locale], values: valuesOf(days, source.series, metric) }] : []
  return { title: headings.title[locale](metricLabel(metric, locale)), days, lines: [...all, ...lines], note: source.time_zone, locale }
}

/** Rows per page while the chart gathers every platform's series (the most `GET /v1/analytics` gives). */
const pageSize = 100

/**
 * The chart of the caller's analytics for `query`, as SVG text: every page of the answer, so
 * each platform gets its line however many profiles match.
 *
 * @since 0.6.0
 */
export const analyticsChart = Effect.fn("analytics.chart")(function* (query: Analytics.AnalyticsChartQuery) {
  const key = yield* CurrentKey
  const caller: Caller = { workspaceId: key.workspaceId, keyId: key.keyId, kind: key.kind }
  const locale = yield* requestLocale
  const settings = yield* EngineConfig
  const { metric, ...filters } = query
  const first = yield* AnalyticsQueries.overview(caller, { ...filters, limit: pageSize })
  const data = [...first.data]
  let cursor = first.cursor
  while (cursor.has_more && cursor.next !== null) {
    const page = yield* AnalyticsQueries.overview(caller, { ...filters, limit: pageSize, cursor: cursor.next })
    data.push(...page.data)
    cursor = page.cursor
  }
  const chart = chartOf(
    { ...first, data },
    { metric, locale, platformName: (platform) => settings.platforms.get(platform)?.displayName ?? displayNameOf(platform) }
  )
  return ChartSvg.renderChart(chart)
})
