/**
 * The analytics chart as SVG text: a daily series in, a self-contained line chart out. No
 * script, no external font, image or link, so it reads the same in a browser, an `<img>` of a
 * README or an e-mail. Light by default (an opaque background, so it stays readable on a dark
 * page); a viewer that honours `prefers-color-scheme` gets the dark variant. Every line has its
 * own colour and dash pattern (readable without colour), and `<title>`/`<desc>` say in words
 * what the picture shows.
 *
 * @since 0.6.0
 */
import type { Locale } from "@postwire/domain"
import { html, raw, render, type SafeHtml } from "../html/Html.ts"

/**
 * One line of the chart: a metric, or a platform's values of one metric.
 *
 * @since 0.6.0
 */
export interface ChartLine {
  /** What the legend says, e.g. "Views". */
  readonly label: string
  /** One value per day of {@link Chart.days}, `null` where the day has no value (a gap in the line). */
  readonly values: ReadonlyArray<number | null>
}

/**
 * What the chart shows.
 *
 * @since 0.6.0
 */
export interface Chart {
  /** The heading, e.g. "Views and likes". */
  readonly title: string
  /** The days, oldest first, as `YYYY-MM-DD` (calendar days in the caller's offset). */
  readonly days: ReadonlyArray<string>
  readonly lines: ReadonlyArray<ChartLine>
  /** Said after the date range under the heading, e.g. "UTC+07:00". */
  readonly note?: string | undefined
  readonly locale: Locale
  /** Default 720. */
  readonly width?: number | undefined
  /** Default 360. */
  readonly height?: number | undefined
}

const texts = {
  empty: { en: "No data for these days yet", id: "Belum ada data untuk hari-hari ini" },
  noValues: { en: "no values", id: "tidak ada nilai" },
  chartOf: { en: "Line chart, one line per series, one point per day", id: "Grafik garis, satu garis per seri, satu titik per hari" },
  from: { en: "from", id: "dari" },
  to: { en: "to", id: "sampai" },
  on: { en: "on", id: "pada" },
  highest: { en: "highest", id: "tertinggi" }
} as const

/**
 * Colours with at least 3:1 contrast on both the light and the dark background (Okabe–Ito first);
 * with the dash patterns, the first 24 lines all differ.
 */
const palette = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#7F7F7F", "#9467BD", "#B45309", "#0D9488"]
const dashes = ["", "6 3", "2 3"]

const intlLocale = (locale: Locale) => (locale === "id" ? "id-ID" : "en-GB")

const dayDate = (day: string) => new Date(`${day}T00:00:00Z`)

const dayText = (day: string, locale: Locale, withYear = false) =>
  new Intl.DateTimeFormat(intlLocale(locale), {
    day: "numeric",
    month: "short",
    ...(withYear ? { year: "numeric" } : {}),
    timeZone: "UTC"
  }).format(dayDate(day))

const numberText = (value: number, locale: Locale, fractionDigits = 2) =>
  new Intl.NumberFormat(intlLocale(locale), { maximumFractionDigits: fractionDigits }).format(value)

/** A value on the axis: compact on an axis that reaches ten thousand ("5k", "10k"; "5 rb"), so labels stay short. */
const tickText = (value: number, step: number, compact: boolean, locale: Locale) => {
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9))
  return compact
    ? new Intl.NumberFormat(intlLocale(locale), { notation: "compact", maximumFractionDigits: 1 }).format(value)
    : numberText(value, locale, decimals)
}

/**
 * Round axis steps (1, 2 or 5 times a power of ten) covering `min`..`max` in about `count` steps;
 * whole numbers only when every value is whole (a count never gets a tick at 0.5).
 */
export const axisTicks = (min: number, max: number, count: number, wholeOnly: boolean): ReadonlyArray<number> => {
  const low = Math.min(0, min)
  const high = Math.max(0, max)
  const range = high - low === 0 ? Math.max(Math.abs(high), 1) : high - low
  const raw = range / count
  const magnitude = 10 ** Math.floor(Math.log10(raw))
  const normalized = raw / magnitude
  let step = (normalized <= 1 ? 1 : normalized <= 2 ? 2 : normalized <= 5 ? 5 : 10) * magnitude
  if (wholeOnly) step = Math.max(1, Math.round(step))
  const first = Math.floor(low / step + 1e-9)
  const last = Math.max(Math.ceil(high / step - 1e-9), first + 1)
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9))
  const ticks: Array<number> = []
  for (let k = first; k <= last; k++) ticks.push(Number((k * step).toFixed(decimals)))
  return ticks
}

/** About how wide a text is at a font size (sans-serif averages a little over half an em per character). */
const textWidth = (text: string, size: number) => text.length * size * 0.6

const round = (n: number) => Math.round(n * 10) / 10

const style = `
svg{color-scheme:light dark}
.bg{fill:#ffffff}.fg{fill:#1f2328}.muted{fill:#59636e}.grid{stroke:#d1d9e0}.axis{stroke:#59636e}
@media (prefers-color-scheme:dark){.bg{fill:#0d1117}.fg{fill:#e6edf3}.muted{fill:#9198a1}.grid{stroke:#3d444d}.axis{stroke:#9198a1}}
`

/** One sentence per line for `<desc>`: first and last value, and the highest. */
const describeLine = (line: ChartLine, days: ReadonlyArray<string>, locale: Locale): string => {
  const known = line.values.flatMap((value, i) => (value === null || days[i] === undefined ? [] : [{ value, day: days[i] }]))
  const first = known[0]
  const last = known.at(-1)
  if (first === undefined || last === undefined) return `${line.label}: ${texts.noValues[locale]}.`
  const top = known.reduce((best, point) => (point.value > best.value ? point : best), first)
  const at = (point: { value: number; day: string }) => `${numberText(point.value, locale)} ${texts.on[locale]} ${dayText(point.day, locale)}`
  return `${line.label}: ${texts.from[locale]} ${at(first)} ${texts.to[locale]} ${at(last)}; ${texts.highest[locale]} ${at(top)}.`
}

/**
 * The chart as an SVG document.
 *
 * @example
 * ```ts
 * import * as ChartSvg from "./ChartSvg.ts"
 *
 * const svg = ChartSvg.renderChart({
 *   title: "Views",
 *   days: ["2026-12-01", "2026-12-02", "2026-12-03"],
 *   lines: [{ label: "Views", values: [120, 340, 410] }],
 *   locale: "en"
 * })
 * ```
 *
 * @since 0.6.0
 */
export const renderChart = (chart: Chart): string => {
  const { days, lines, locale } = chart
  const width = chart.width ?? 720
  const height = chart.height ?? 360
  const pad = 16
  const fontSize = 12
  const firstDay = days[0]
  const lastDay = days.at(-1)
  const range =
    firstDay === undefined || lastDay === undefined
      ? ""
      : firstDay === lastDay
        ? dayText(firstDay, locale, true)
        : `${dayText(firstDay, locale, true)} – ${dayText(lastDay, locale, true)}`
  const subtitle = [range, chart.note].filter((part) => part !== undefined && part !== "").join(" · ")

  // The legend, wrapped into rows under the heading.
  const sample = 24
  const legendItems: Array<{ line: ChartLine; index: number; x: number; row: number }> = []
  let legendX = pad
  let legendRow = 0
  lines.forEach((line, index) => {
    const itemWidth = sample + 6 + textWidth(line.label, fontSize)
    if (legendX > pad && legendX + itemWidth > width - pad) {
      legendRow += 1
      legendX = pad
    }
    legendItems.push({ line, index, x: legendX, row: legendRow })
    legendX += itemWidth + 18
  })
  const legendTop = subtitle === "" ? 44 : 62
  const legendRows = lines.length === 0 ? 0 : legendRow + 1

  const values = lines.flatMap((line) => line.values.filter((value): value is number => value !== null && Number.isFinite(value)))
  const empty = days.length === 0 || values.length === 0
  const ticks = empty
    ? []
    : axisTicks(Math.min(...values), Math.max(...values), 5, values.every((value) => Number.isInteger(value)))
  const step = ticks.length > 1 ? ticks[1]! - ticks[0]! : 1
  const compact = ticks.some((tick) => Math.abs(tick) >= 10_000)
  const tickLabels = ticks.map((tick) => tickText(tick, step, compact, locale))

  const top = legendTop + legendRows * 20 + 8
  const bottom = height - 36
  const left = pad + Math.max(0, ...tickLabels.map((label) => textWidth(label, fontSize))) + 8
  const right = width - pad - 16
  const low = ticks[0] ?? 0
  const high = ticks.at(-1) ?? 1
  const xOf = (i: number) => (days.length <= 1 ? (left + right) / 2 : left + (i * (right - left)) / (days.length - 1))
  const yOf = (value: number) => bottom - ((value - low) / (high - low)) * (bottom - top)

  // Day labels: as many as fit without touching, evenly spaced, counted back from the latest day.
  const labelWidth = Math.max(0, ...days.map((day) => textWidth(dayText(day, locale), fontSize))) + 12
  const fit = Math.max(1, Math.floor((right - left) / labelWidth) + 1)
  const every = Math.max(1, Math.ceil(days.length / fit))
  const labelled = days.flatMap((day, i) => ((days.length - 1 - i) % every === 0 ? [{ day, i }] : []))

  const spacing = days.length <= 1 ? right - left : (right - left) / (days.length - 1)
  const markers = spacing >= 6

  const gridLines: Array<SafeHtml> = ticks.map(
    (tick, i) =>
      html`<line class="grid" x1="${round(left)}" x2="${round(right)}" y1="${round(yOf(tick))}" y2="${round(yOf(tick))}" stroke="#d1d9e0" stroke-width="1"/><text class="muted" x="${round(left - 8)}" y="${round(yOf(tick) + 4)}" text-anchor="end" fill="#59636e" data-tick="${tick}">${tickLabels[i]}</text>`
  )
  const dayLabels = labelled.map(
    ({ day, i }) =>
      html`<line class="axis" x1="${round(xOf(i))}" x2="${round(xOf(i))}" y1="${bottom}" y2="${bottom + 4}" stroke="#59636e" stroke-width="1"/><text class="muted" x="${round(xOf(i))}" y="${bottom + 18}" text-anchor="middle" fill="#59636e" data-day="${day}">${dayText(day, locale)}</text>`
  )

  const series = empty
    ? []
    : lines.map((line, index) => {
        const colour = palette[index % palette.length]!
        const dash = dashes[index % dashes.length]!
        let d = ""
        let previous: number | null = null
        const points: Array<SafeHtml> = []
        line.values.forEach((value, i) => {
          const day = days[i]
          if (value === null || !Number.isFinite(value) || day === undefined) {
            previous = null
            return
          }
          const x = round(xOf(i))
          const y = round(yOf(value))
          d += `${previous === null ? "M" : "L"}${x} ${y} `
          const alone = (line.values[i - 1] ?? null) === null && (line.values[i + 1] ?? null) === null
          if (markers || alone) {
            points.push(
              html`<circle cx="${x}" cy="${y}" r="${markers ? 2.5 : 1.5}" fill="${colour}" data-day="${day}" data-value="${value}"><title>${line.label}, ${dayText(day, locale)}: ${numberText(value, locale)}</title></circle>`
            )
          }
          previous = value
        })
        return html`<g class="series" data-label="${line.label}"><path d="${d.trim()}" fill="none" stroke="${colour}" stroke-width="2" stroke-linejoin="round" stroke-linecap="round"${dash === "" ? "" : html` stroke-dasharray="${dash}"`}/>${points}</g>`
      })

  const legend = legendItems.map(({ line, index, x, row }) => {
    const colour = palette[index % palette.length]!
    const dash = dashes[index % dashes.length]!
    const y = legendTop + row * 20
    return html`<g class="legend-item"><line x1="${round(x)}" x2="${round(x + sample)}" y1="${y - 4}" y2="${y - 4}" stroke="${colour}" stroke-width="2"${dash === "" ? "" : html` stroke-dasharray="${dash}"`}/><text class="fg" x="${round(x + sample + 6)}" y="${y}" fill="#1f2328">${line.label}</text></g>`
  })

  const description = [
    texts.chartOf[locale] + (range === "" ? "." : `, ${range}.`),
    ...(empty ? [`${texts.empty[locale]}.`] : lines.map((line) => describeLine(line, days, locale)))
  ].join(" ")

  const svg = html`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="chart-title chart-desc" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif" font-size="${fontSize}">
<title id="chart-title">${chart.title}${subtitle === "" ? "" : ` (${subtitle})`}</title>
<desc id="chart-desc">${description}</desc>
<style>${raw(style)}</style>
<rect class="bg" width="100%" height="100%" fill="#ffffff"/>
<text class="fg" x="${pad}" y="28" font-size="16" font-weight="600" fill="#1f2328">${chart.title}</text>
${subtitle === "" ? "" : html`<text class="muted" x="${pad}" y="46" fill="#59636e">${subtitle}</text>`}
<g class="legend">${legend}</g>
<g class="y-axis">${gridLines}</g>
<g class="x-axis"><line class="axis" x1="${round(left)}" x2="${round(right)}" y1="${bottom}" y2="${bottom}" stroke="#59636e" stroke-width="1"/>${dayLabels}</g>
${
  empty
    ? html`<text class="muted empty" x="${round((left + right) / 2)}" y="${round((top + bottom) / 2)}" text-anchor="middle" font-size="14" fill="#59636e">${texts.empty[locale]}</text>`
    : html`<g class="lines">${series}</g>`
}
</svg>
`
  return render(svg)
}
