/**
 * The analytics chart's SVG as a reader sees it: opened by Chromium as an SVG document (a strict
 * XML parse), its points read back against its own axis, its labels measured where they are
 * drawn, in English and Indonesian, light and dark, and as an `<img>` that may load nothing else.
 *
 * Chromium is found at `CHROMIUM_PATH` (default `/usr/bin/chromium`). Without it these tests are
 * skipped, unless `REQUIRE_BROWSER=1` (CI), which makes them fail instead.
 */
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Chart, renderChart } from "../../packages/server/src/analytics/ChartSvg.ts"
import { hasChromium } from "../support/Chromium.ts"
import { aChartReader, type Box, type ChartReader, tickValue } from "./chart-reader.ts"

/** `count` consecutive days ending on `last`, `YYYY-MM-DD`. */
const daysUpTo = (last: string, count: number) =>
  Array.from({ length: count }, (_, i) => new Date(Date.parse(`${last}T00:00:00Z`) - (count - 1 - i) * 86_400_000).toISOString().slice(0, 10))

const aChart = (overrides: Partial<Chart> = {}): Chart => {
  const days = overrides.days ?? daysUpTo("2026-12-04", 30)
  return {
    title: "Views and likes",
    days,
    lines: [
      { label: "Views", values: days.map((_, i) => 120 + i * 41 + (i % 4) * 15) },
      { label: "Likes", values: days.map((_, i) => 8 + i * 3) }
    ],
    locale: "en",
    ...overrides
  }
}

describe.skipIf(!hasChromium)("the analytics chart (ChartSvg) in Chromium", () => {
  let reader: ChartReader
  let page: Page
  const open = (svg: string, colorScheme?: "light" | "dark") => reader.open(svg, colorScheme)

  beforeAll(async () => {
    reader = await aChartReader()
    page = reader.page
  })
  afterAll(async () => {
    await reader?.close()
  })

  const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
  const inside = (a: Box, view: { width: number; height: number }) => a.x >= 0 && a.y >= 0 && a.x + a.width <= view.width && a.y + a.height <= view.height

  it("draws one point per day, each at its value on the chart's own axis", async () => {
    const chart = aChart()
    const drawn = await open(renderChart(chart))
    expect(drawn.parseError).toBeNull()
    expect(drawn.lines.map((line) => line.label)).toEqual(["Views", "Likes"])

    // The value scale as the reader sees it: two axis labels and where they are drawn.
    const [low, high] = [drawn.ticks[0]!, drawn.ticks.at(-1)!]
    const valueAt = (y: number) => {
      const [lowValue, highValue] = [tickValue(low.text, "en"), tickValue(high.text, "en")]
      return lowValue + ((low.y - y) / (low.y - high.y)) * (highValue - lowValue)
    }
    chart.lines.forEach((line, n) => {
      const points = drawn.lines[n]!.points
      expect(points.map((p) => p.day)).toEqual(chart.days)
      points.forEach((point, i) => {
        expect(point.value).toBe(line.values[i])
        expect(Math.abs(valueAt(point.cy) - line.values[i]!)).toBeLessThan(2)
      })
      // Days are evenly spaced, oldest at the left.
      const gaps = points.slice(1).map((p, i) => p.cx - points[i]!.cx)
      for (const gap of gaps) expect(Math.abs(gap - gaps[0]!)).toBeLessThan(0.2)
      expect(gaps[0]).toBeGreaterThan(0)
      // The line goes through every point, in order.
      const vertices = [...drawn.lines[n]!.d.matchAll(/[ML]([\d.]+) ([\d.]+)/g)].map((m) => [Number(m[1]), Number(m[2])])
      expect(vertices).toEqual(points.map((p) => [p.cx, p.cy]))
    })
  })

  it("labels the value axis with round steps from zero past the highest value", async () => {
    for (const [values, wholeOnly] of [
      [[0, 3, 7, 2], true],
      [[120, 480, 1253], true],
      [[0.2, 0.35, 0.9], false],
      [[48_000, 125_500, 9_000], true]
    ] as const) {
      const days = daysUpTo("2026-12-04", values.length)
      const drawn = await open(renderChart(aChart({ days, lines: [{ label: "Views", values: [...values] }] })))
      const ticks = drawn.ticks.map((t) => tickValue(t.text, "en"))
      expect(ticks[0]).toBe(0)
      expect(ticks.at(-1)!).toBeGreaterThanOrEqual(Math.max(...values))
      expect(ticks.length).toBeGreaterThanOrEqual(3)
      expect(ticks.length).toBeLessThanOrEqual(8)
      const step = ticks[1]! - ticks[0]!
      const mantissa = step / 10 ** Math.floor(Math.log10(step))
      expect([1, 2, 5]).toContain(Math.round(mantissa * 1000) / 1000)
      ticks.forEach((tick, i) => {
        expect(Math.abs(tick - i * step)).toBeLessThan(step / 1000)
      })
      if (wholeOnly) expect(ticks.every(Number.isInteger)).toBe(true)
      // One way of writing numbers on one axis: compact ("50k") for all or for none.
      expect(new Set(drawn.ticks.slice(1).map((t) => t.text.endsWith("k"))).size).toBe(1)
      // Higher values higher up, evenly.
      const ys = drawn.ticks.map((t) => t.y)
      for (let i = 1; i < ys.length; i++) expect(ys[i]!).toBeLessThan(ys[i - 1]!)
    }
  })

  it("labels days without any two labels touching, the latest day always, for a week to three months", async () => {
    for (const count of [1, 7, 30, 92]) {
      const days = daysUpTo("2026-12-04", count)
      const drawn = await open(renderChart(aChart({ days, lines: [{ label: "Views", values: days.map((_, i) => i * 10) }] })))
      expect(drawn.dayLabels.at(-1)).toMatchObject({ day: "2026-12-04", text: "4 Dec" })
      expect(drawn.dayLabels.length).toBeGreaterThanOrEqual(Math.min(count, 5))
      for (let i = 1; i < drawn.dayLabels.length; i++) {
        expect(overlaps(drawn.dayLabels[i - 1]!.box, drawn.dayLabels[i]!.box), `${drawn.dayLabels[i]!.text} touches the label before it`).toBe(
          false
        )
      }
      // Each label sits under its day's point.
      const points = drawn.lines[0]!.points
      for (const label of drawn.dayLabels) expect(label.x).toBeCloseTo(points.find((p) => p.day === label.day)!.cx, 0)
      // Nothing is drawn outside the picture.
      for (const text of drawn.texts) expect(inside(text.box, drawn.viewBox), `"${text.text}" is outside the picture`).toBe(true)
    }
  })

  it("leaves a gap for a day without a value instead of drawing it at zero", async () => {
    const days = daysUpTo("2026-12-04", 7)
    const drawn = await open(renderChart(aChart({ days, lines: [{ label: "Views", values: [5, 9, null, null, 14, 20, 22] }] })))
    expect(drawn.lines[0]!.points.map((p) => p.day)).toEqual([days[0], days[1], days[4], days[5], days[6]])
    expect(drawn.lines[0]!.d.match(/M/g)).toHaveLength(2)
  })

  it("names every line in a legend drawn in the line's colour and dash, no two lines alike", async () => {
    const days = daysUpTo("2026-12-04", 14)
    const labels = ["views", "likes", "comments", "shares", "saves", "reposts", "quotes", "link_clicks", "reach", "watch_time_seconds"]
    const drawn = await open(renderChart(aChart({ days, lines: labels.map((label, n) => ({ label, values: days.map((_, i) => i * (n + 1)) })) })))
    expect(drawn.legend.map((item) => item.text)).toEqual(labels)
    drawn.legend.forEach((item, n) => {
      expect(item.stroke).toBe(drawn.lines[n]!.stroke)
      expect(item.dash).toBe(drawn.lines[n]!.dash)
    })
    expect(new Set(drawn.lines.map((line) => `${line.stroke} ${line.dash}`)).size).toBe(labels.length)
    for (let i = 0; i < drawn.legend.length; i++) {
      for (let j = i + 1; j < drawn.legend.length; j++) expect(overlaps(drawn.legend[i]!.box, drawn.legend[j]!.box)).toBe(false)
      expect(inside(drawn.legend[i]!.box, drawn.viewBox)).toBe(true)
    }
  })

  it("says what it shows in its title and description, in English", async () => {
    const days = daysUpTo("2026-12-04", 5)
    const drawn = await open(
      renderChart(aChart({ days, note: "Asia/Jakarta", lines: [{ label: "Views", values: [10, 1200, 30, 40, 50] }] }))
    )
    expect(drawn.labelledBy?.split(" ")).toHaveLength(2)
    expect(drawn.title).toBe("Views and likes (30 Nov 2026 – 4 Dec 2026 · Asia/Jakarta)")
    expect(drawn.desc).toContain("Views: from 10 on 30 Nov to 50 on 4 Dec; highest 1,200 on 1 Dec.")
  })

  it("speaks Indonesian: dates, numbers, description and the empty state", async () => {
    const days = daysUpTo("2026-12-04", 5)
    const drawn = await open(renderChart(aChart({ days, title: "Tayangan", locale: "id", lines: [{ label: "Tayangan", values: [10, 1200, 30, 40, 1500] }] })))
    expect(drawn.title).toBe("Tayangan (30 Nov 2026 – 4 Des 2026)")
    expect(drawn.dayLabels.at(-1)!.text).toBe("4 Des")
    expect(drawn.ticks.map((t) => t.text)).toContain("1.500")
    expect(drawn.desc).toContain("Tayangan: dari 10 pada 30 Nov sampai 1.500 pada 4 Des; tertinggi 1.500 pada 4 Des.")
    const empty = await open(renderChart(aChart({ days, title: "Tayangan", locale: "id", lines: [] })))
    expect(empty.empty).toBe("Belum ada data untuk hari-hari ini")
  })

  it("shows an empty chart with its days and a sentence when there is nothing to draw", async () => {
    const days = daysUpTo("2026-12-04", 30)
    for (const lines of [[], [{ label: "Views", values: days.map(() => null) }]]) {
      const drawn = await open(renderChart(aChart({ days, lines })))
      expect(drawn.parseError).toBeNull()
      expect(drawn.empty).toBe("No data for these days yet")
      expect(drawn.lines).toEqual([])
      expect(drawn.ticks).toEqual([])
      expect(drawn.dayLabels.at(-1)!.text).toBe("4 Dec")
      expect(drawn.desc).toContain("No data for these days yet.")
    }
  })

  it("draws a flat line of zeros on an axis from 0 to 1, not an empty chart", async () => {
    const days = daysUpTo("2026-12-04", 3)
    const drawn = await open(renderChart(aChart({ days, lines: [{ label: "Views", values: [0, 0, 0] }] })))
    expect(drawn.empty).toBeNull()
    expect(drawn.ticks.map((t) => t.text)).toEqual(["0", "1"])
    expect(new Set(drawn.lines[0]!.points.map((p) => p.cy)).size).toBe(1)
  })

  it("is readable on a dark page: an opaque light background, a dark one where the viewer prefers dark", async () => {
    const svg = renderChart(aChart())
    expect((await open(svg, "light")).background).toBe("rgb(255, 255, 255)")
    expect((await open(svg, "dark")).background).toBe("rgb(13, 17, 23)")
  })

  it("holds no script, link, external font or image, and escapes the words it is given", async () => {
    const svg = renderChart(aChart({ title: `<script>alert("x")</script> & more`, lines: [{ label: "<b>Views</b>", values: [1, 2, 3] }], days: daysUpTo("2026-12-04", 3) }))
    const drawn = await open(svg)
    expect(drawn.parseError).toBeNull()
    expect(drawn.elements).not.toContain("script")
    expect(drawn.elements).not.toContain("image")
    expect(drawn.elements).not.toContain("a")
    expect(drawn.elements).not.toContain("foreignObject")
    expect(drawn.attributes.filter((name) => name.startsWith("on") || name.includes("href"))).toEqual([])
    expect(drawn.style).not.toMatch(/url\(|@import|@font-face/)
    expect(drawn.title).toContain(`<script>alert("x")</script> & more`)
    expect(drawn.legend[0]!.text).toBe("<b>Views</b>")

    // As an image in a page that lets no request through but the page itself, it still draws.
    const requests: Array<string> = []
    await page.route("**/*", (route) => {
      requests.push(route.request().url())
      return route.request().url() === "http://mail.test/"
        ? route.fulfill({ contentType: "text/html", body: `<img id="chart" src="data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}">` })
        : route.abort()
    })
    await page.goto("http://mail.test/")
    const size = await page.$eval("#chart", async (img) => {
      const image = img as HTMLImageElement
      await image.decode()
      return { width: image.naturalWidth, height: image.naturalHeight }
    })
    await page.unroute("**/*")
    expect(size).toEqual({ width: 720, height: 360 })
    expect(requests).toEqual(["http://mail.test/"])
  })
})
