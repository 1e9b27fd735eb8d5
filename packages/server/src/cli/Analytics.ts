/**
 * `postwire analytics`: what published posts gained over the last days, in the terminal. One
 * call of `GET /v1/analytics` with an API key (scope `analytics:read`), printed as a small table
 * with a sparkline per metric, and the totals per platform when there are several.
 *
 * @since 0.6.0
 */
import { parseArgs } from "node:util"
import { UsageError } from "./Admin.ts"

/** The parts of `GET /v1/analytics`'s answer the command prints. */
interface Overview {
  readonly from: string
  readonly to: string
  readonly time_zone: string
  readonly totals: Readonly<Record<string, number>>
  readonly series: ReadonlyArray<{ readonly date: string; readonly values: Readonly<Record<string, number>> }>
  readonly data: ReadonlyArray<{ readonly profile_id: string; readonly platform: string; readonly totals: Readonly<Record<string, number>> }>
  readonly cursor?: { readonly next: string | null; readonly has_more: boolean }
}

/** Help text of `postwire analytics`. */
export const analyticsUsage = `Usage:
  postwire analytics [--profile PROF] [--days 30] [--platform P] [--account ACC] [--time-zone ZONE] [--json]

What the published posts gained, day by day: a table of each metric's total with a sparkline of its
days (oldest left), then the totals per platform. Calls GET /v1/analytics (docs/analytics.md).

  --profile    only this profile's accounts (prof_…)
  --days       how many days up to today, 1 to the server's maximum range (default 30)
  --platform   only this platform
  --account    only this account (acc_…)
  --time-zone  whose days are counted: an IANA name (Asia/Jakarta), UTC or an offset +07:00
               (default: this computer's time zone)
  --json       print the API's JSON answer instead
  --api-key    API key with scope analytics:read (default: POSTWIRE_API_KEY)
  --base-url   the Postwire server (default: POSTWIRE_BASE_URL, else http://localhost:8080)
  --help       this help`

const bars = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

/**
 * A sparkline of `values`, one character per value: the lowest bar is zero (or the lowest value
 * when below zero), the highest the largest value; a missing value is a space.
 *
 * @example
 * ```ts
 * sparkline([0, 1, 2, 4, 8]) // "▁▂▂▄█"
 * ```
 */
export const sparkline = (values: ReadonlyArray<number | null>): string => {
  const known = values.filter((value): value is number => value !== null)
  const low = Math.min(0, ...known)
  const high = Math.max(0, ...known)
  return values
    .map((value) =>
      value === null ? " " : bars[high === low ? 0 : Math.round(((value - low) / (high - low)) * (bars.length - 1))]
    )
    .join("")
}

const wholeNumber = /^\d+$/
const offset = /^([+-])(\d{2}):(\d{2})$/

/** Today, `YYYY-MM-DD`, in a time zone (an IANA name, UTC or a fixed offset). */
const todayIn = (zone: string, now: Date): string => {
  const fixed = offset.exec(zone)
  if (fixed !== null) {
    const minutes = (fixed[1] === "-" ? -1 : 1) * (Number(fixed[2]) * 60 + Number(fixed[3]))
    return new Date(now.getTime() + minutes * 60_000).toISOString().slice(0, 10)
  }
  try {
    return new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" }).format(now)
  } catch {
    throw new UsageError(`--time-zone must be an IANA time zone (Asia/Jakarta), UTC or an offset like +07:00, got "${zone}"`)
  }
}

const daysBefore = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10)

const count = (value: number | undefined) => (value === undefined ? "-" : value.toLocaleString("en-US"))

/** Lines of a table: columns padded, numbers right-aligned. */
const table = (rows: ReadonlyArray<ReadonlyArray<string>>, rightAligned: ReadonlyArray<boolean>): Array<string> => {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)))
  return rows.map((row) => row.map((cell, i) => (rightAligned[i] ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join("  ").trimEnd())
}

/** The metrics that have a value somewhere, in the order the API lists them. */
const metricsOf = (overview: Overview): Array<string> => {
  const seen = new Set<string>(Object.keys(overview.totals))
  for (const day of overview.series) for (const name of Object.keys(day.values)) seen.add(name)
  return [...seen]
}

/** The answer as a person reads it. */
const report = (overview: Overview, filters: string): Array<string> => {
  const days = overview.series.length
  const heading = `${filters === "" ? "All profiles" : filters} · ${overview.from} to ${overview.to} (${days} day${days === 1 ? "" : "s"}, ${overview.time_zone})`
  const metrics = metricsOf(overview)
  if (metrics.length === 0) return [heading, "", "No metrics in these days yet: posts gain them once published and collected."]
  const lines = [
    heading,
    "",
    ...table(
      [
        ["metric", "total", `per day, ${overview.from} → ${overview.to}`],
        ...metrics.map((name) => [name, count(overview.totals[name]), sparkline(overview.series.map((day) => day.values[name] ?? null))])
      ],
      [false, true, false]
    )
  ]
  const platforms = new Map<string, Record<string, number>>()
  for (const row of overview.data) {
    const sums = platforms.get(row.platform) ?? {}
    for (const [name, value] of Object.entries(row.totals)) sums[name] = (sums[name] ?? 0) + value
    platforms.set(row.platform, sums)
  }
  if (platforms.size > 1) {
    lines.push(
      "",
      ...table(
        [["platform", ...metrics], ...[...platforms].map(([platform, sums]) => [platform, ...metrics.map((name) => count(sums[name]))])],
        [false, ...metrics.map(() => true)]
      )
    )
  }
  return lines
}

/** Runs `postwire analytics …`; returns the exit code. */
export const runAnalytics = async (
  argv: ReadonlyArray<string>,
  env: Readonly<Record<string, string | undefined>>,
  out: (line: string) => void,
  now: Date = new Date()
): Promise<number> => {
  if (argv.some((arg) => arg === "--help" || arg === "-h" || arg === "help")) {
    out(analyticsUsage)
    return 0
  }
  const { values } = parseArgs({
    args: [...argv],
    options: {
      profile: { type: "string" },
      days: { type: "string" },
      platform: { type: "string" },
      account: { type: "string" },
      "time-zone": { type: "string" },
      json: { type: "boolean" },
      "api-key": { type: "string" },
      "base-url": { type: "string" }
    },
    strict: true,
    allowPositionals: false
  })
  const days = values.days ?? "30"
  if (!wholeNumber.test(days) || Number(days) < 1) throw new UsageError(`--days must be a whole number of days from 1, got "${days}"`)
  for (const flag of ["profile", "platform", "account"] as const) {
    if (values[flag] === "") throw new UsageError(`--${flag} needs a value`)
  }
  const apiKey = (values["api-key"] ?? env.POSTWIRE_API_KEY ?? "").trim()
  if (apiKey === "") throw new UsageError("postwire analytics: no API key: set POSTWIRE_API_KEY or pass --api-key (scope analytics:read)")
  const base = (values["base-url"] ?? (env.POSTWIRE_BASE_URL || undefined) ?? "http://localhost:8080").trim().replace(/\/+$/, "")
  if (!/^https?:\/\/[^/]/.test(base)) {
    throw new UsageError(`${values["base-url"] !== undefined ? "--base-url" : "POSTWIRE_BASE_URL"} must be an http(s) URL, got "${base}"`)
  }
  const timeZone = values["time-zone"] ?? Intl.DateTimeFormat().resolvedOptions().timeZone
  const to = todayIn(timeZone, now)
  const query = new URLSearchParams({
    ...(values.profile === undefined ? {} : { profile_id: values.profile }),
    ...(values.platform === undefined ? {} : { platform: values.platform }),
    ...(values.account === undefined ? {} : { account_id: values.account }),
    from: daysBefore(to, Number(days) - 1),
    to,
    time_zone: timeZone,
    limit: "100"
  })

  /** Every page of the answer merged into one, or the exit code after saying what went wrong. */
  const fetchAll = async (): Promise<Overview | number> => {
    let merged: Overview | undefined
    let cursor: string | null = null
    do {
      const url = `${base}/v1/analytics?${query}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`
      let response: Response
      try {
        response = await fetch(url, { headers: { authorization: `Bearer ${apiKey}`, accept: "application/json" } })
      } catch (error) {
        const code = (error as { cause?: { code?: unknown } }).cause?.code
        out(`Postwire server not reachable at ${base}${typeof code === "string" ? ` (${code})` : ""}.\nStart it, or point to it with --base-url.`)
        return 1
      }
      const text = await response.text()
      let body: { error?: { code?: string; message?: string; field?: string } } & Partial<Overview>
      try {
        body = JSON.parse(text)
      } catch {
        out(`The server at ${base} answered HTTP ${response.status} with something that is not Postwire's JSON.\nCheck that --base-url points to a Postwire server.`)
        return 1
      }
      if (!response.ok) {
        if (values.json) out(text)
        else out(`error ${response.status} ${body.error?.code ?? ""}: ${body.error?.message ?? text}`)
        return 1
      }
      if (!Array.isArray(body.series) || !Array.isArray(body.data)) {
        out(`The server at ${base} answered HTTP ${response.status} with JSON that is not Postwire's analytics.\nCheck that --base-url points to a Postwire server.`)
        return 1
      }
      const page = body as Overview
      merged = merged === undefined ? page : { ...merged, data: [...merged.data, ...page.data] }
      cursor = page.cursor?.has_more ? page.cursor.next : null
    } while (cursor !== null)
    return merged
  }

  const overview = await fetchAll()
  if (typeof overview === "number") return overview
  if (values.json) {
    const { cursor: _, ...whole } = overview
    out(JSON.stringify(whole, null, 2))
    return 0
  }
  const filters = [
    values.profile === undefined ? undefined : `Profile ${values.profile}`,
    values.platform === undefined ? undefined : `platform ${values.platform}`,
    values.account === undefined ? undefined : `account ${values.account}`
  ]
    .filter((part) => part !== undefined)
    .join(", ")
  for (const line of report(overview, filters)) out(line)
  return 0
}
