/**
 * Reads an analytics chart the way a browser shows it: Chromium opens the SVG as a document of its
 * own (a strict XML parse: a malformed chart is an error page, not a chart) and the test reads
 * back what is drawn where, with the boxes the browser laid the words out in.
 */
import type { Page } from "playwright-core"
import { launchChromium, type TestBrowser } from "../support/Chromium.ts"

/** What Chromium finds in the chart, read from the document it parsed. */
export interface Drawn {
  readonly parseError: string | null
  readonly viewBox: { width: number; height: number }
  readonly title: string
  readonly desc: string
  readonly labelledBy: string | null
  readonly ticks: Array<{ text: string; y: number; box: Box }>
  readonly dayLabels: Array<{ day: string; text: string; x: number; box: Box }>
  readonly lines: Array<{ label: string; d: string; stroke: string; dash: string | null; points: Array<{ day: string; value: number; cx: number; cy: number }> }>
  readonly legend: Array<{ text: string; stroke: string; dash: string | null; box: Box }>
  readonly texts: Array<{ text: string; box: Box }>
  readonly empty: string | null
  readonly background: string
  readonly elements: Array<string>
  readonly attributes: Array<string>
  readonly style: string
}
export interface Box {
  x: number
  y: number
  width: number
  height: number
}

/** A browser page that opens charts; `close` ends the browser. */
export interface ChartReader {
  readonly page: Page
  readonly open: (svg: string, colorScheme?: "light" | "dark") => Promise<Drawn>
  readonly close: () => Promise<void>
}

/** Starts Chromium with one page for reading charts. */
export const aChartReader = async (): Promise<ChartReader> => {
  const browser: TestBrowser = await launchChromium()
  const page = await browser.context.newPage()
  /** Opens the SVG as a document of its own, the way a browser opens `chart.svg`, and reads it. */
  const open = async (svg: string, colorScheme: "light" | "dark" = "light"): Promise<Drawn> => {
    await page.emulateMedia({ colorScheme })
    await page.route("http://chart.test/chart.svg", (route) => route.fulfill({ contentType: "image/svg+xml", body: svg }))
    await page.goto("http://chart.test/chart.svg")
    await page.unroute("http://chart.test/chart.svg")
    return page.evaluate(() => {
      const root = document.documentElement as unknown as SVGSVGElement
      const box = (e: Element): Box => {
        const b = (e as SVGGraphicsElement).getBBox()
        return { x: b.x, y: b.y, width: b.width, height: b.height }
      }
      const all = (selector: string, within: ParentNode = root) => [...within.querySelectorAll(selector)]
      const parseError = document.querySelector("parsererror")?.textContent ?? (root.localName === "svg" ? null : root.outerHTML)
      return {
        parseError,
        viewBox: { width: root.viewBox.baseVal.width, height: root.viewBox.baseVal.height },
        title: root.querySelector(":scope > title")?.textContent ?? "",
        desc: root.querySelector(":scope > desc")?.textContent ?? "",
        labelledBy: root.getAttribute("aria-labelledby"),
        ticks: all(".y-axis text").map((e) => ({ text: e.textContent ?? "", y: Number(e.getAttribute("y")) - 4, box: box(e) })),
        dayLabels: all(".x-axis text").map((e) => ({
          day: e.getAttribute("data-day") ?? "",
          text: e.textContent ?? "",
          x: Number(e.getAttribute("x")),
          box: box(e)
        })),
        lines: all(".lines .series").map((g) => {
          const path = g.querySelector("path")!
          return {
            label: g.getAttribute("data-label") ?? "",
            d: path.getAttribute("d") ?? "",
            stroke: path.getAttribute("stroke") ?? "",
            dash: path.getAttribute("stroke-dasharray"),
            points: all("circle", g).map((c) => ({
              day: c.getAttribute("data-day") ?? "",
              value: Number(c.getAttribute("data-value")),
              cx: Number(c.getAttribute("cx")),
              cy: Number(c.getAttribute("cy"))
            }))
          }
        }),
        legend: all(".legend-item").map((g) => ({
          text: g.querySelector("text")?.textContent ?? "",
          stroke: g.querySelector("line")?.getAttribute("stroke") ?? "",
          dash: g.querySelector("line")?.getAttribute("stroke-dasharray") ?? null,
          box: box(g.querySelector("text")!)
        })),
        texts: all("text").map((e) => ({ text: e.textContent ?? "", box: box(e) })),
        empty: root.querySelector(".empty")?.textContent ?? null,
        background: getComputedStyle(root.querySelector("rect.bg")!).fill,
        elements: [...new Set(all("*").map((e) => e.localName))],
        attributes: [...new Set(all("*").flatMap((e) => [...e.attributes].map((a) => a.name)))],
        style: root.querySelector("style")?.textContent ?? ""
      }
    })
  }

  return { page, open, close: () => browser.close() }
}

/** The number an axis label writes ("1,500", "1.500", "50k"), in the chart's language. */
export const tickValue = (text: string, locale: "en" | "id") => {
  const plain = locale === "id" ? text.replace(/\./g, "").replace(",", ".").replace(/\s?rb$/, "e3") : text.replace(/,/g, "").replace(/k$/, "e3")
  return Number(plain)
}
