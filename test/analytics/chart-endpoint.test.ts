/**
 * `GET /v1/analytics/chart.svg` over HTTP on a real server: the picture of the same numbers
 * `GET /v1/analytics` answers, in the caller's language, and the API's errors for bad filters.
 * The SVG is read in Chromium (see `chart-reader.ts`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aKeyWithScopes } from "../support/Builders.ts"
import { hasChromium } from "../support/Chromium.ts"
import { call } from "../support/Http.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"
import { aServerWithAnalytics, type ServerWithAnalytics } from "./chart-data.ts"
import { aChartReader, type ChartReader } from "./chart-reader.ts"

/** Fetches the chart; the body is the SVG text. */
const chartOf = async (server: TestServer, query: Record<string, string>, headers: Record<string, string> = {}, key = server.testKey) => {
  const response = await fetch(`${server.baseUrl}/v1/analytics/chart.svg?${new URLSearchParams(query)}`, {
    headers: { authorization: `Bearer ${key}`, ...headers }
  })
  return { status: response.status, type: response.headers.get("content-type"), text: await response.text() }
}

describe.skipIf(!hasChromium).each(backends())("GET /v1/analytics/chart.svg (%s)", (backend) => {
  let server: TestServer
  let reader: ChartReader
  beforeAll(async () => {
    server = await startServer(backend)
    reader = await aChartReader()
  })
  afterAll(async () => {
    await reader?.close()
    await server?.stop()
  })

  it("answers an SVG of every day of the range, saying there is no data yet for a workspace that published nothing", async () => {
    const chart = await chartOf(server, { from: "2026-11-05", to: "2026-12-04", time_zone: "Asia/Jakarta" })
    expect(chart.status).toBe(200)
    expect(chart.type).toMatch(/^image\/svg\+xml/)
    const drawn = await reader.open(chart.text)
    expect(drawn.parseError).toBeNull()
    expect(drawn.title).toBe("Views per day (5 Nov 2026 – 4 Dec 2026 · Asia/Jakarta)")
    expect(drawn.empty).toBe("No data for these days yet")
    expect(drawn.dayLabels.at(-1)).toMatchObject({ day: "2026-12-04", text: "4 Dec" })
    expect(drawn.dayLabels[0]!.day >= "2026-11-05").toBe(true)
  })

  it("speaks Indonesian with Accept-Language: id, and names the metric asked for", async () => {
    const chart = await chartOf(server, { from: "2026-11-05", to: "2026-12-04", metric: "likes" }, { "accept-language": "id" })
    const drawn = await reader.open(chart.text)
    expect(drawn.title).toBe("Suka per hari (5 Nov 2026 – 4 Des 2026 · UTC)")
    expect(drawn.empty).toBe("Belum ada data untuk hari-hari ini")
    expect(drawn.dayLabels.at(-1)!.text).toBe("4 Des")
  })

  it("refuses bad filters with the API's error naming the field", async () => {
    for (const [query, code, field] of [
      [{ metric: "followers" }, "invalid_request", "metric"],
      [{ from: "2026-02-30" }, "invalid_request", "from"],
      [{ time_zone: "Mars/Olympus" }, "invalid_request", "time_zone"],
      [{ from: "2026-01-01", to: "2026-12-31" }, "invalid_range", undefined]
    ] as const) {
      const reply = await call(server.baseUrl, "GET", `/v1/analytics/chart.svg?${new URLSearchParams(query)}`, { key: server.testKey })
      expect(reply.status, JSON.stringify(query)).toBe(400)
      expect(reply.body.error.code, JSON.stringify(query)).toBe(code)
      if (field !== undefined) expect(reply.body.error.field).toBe(field)
    }
  })

  it("needs scope analytics:read", async () => {
    const reply = await call(server.baseUrl, "GET", "/v1/analytics/chart.svg", { key: await aKeyWithScopes(server, ["posts:read"]) })
    expect(reply.status).toBe(403)
    expect(reply.body.error.code).toBe("insufficient_scope")
  })
})

describe.skipIf(!hasChromium).each(backends())("GET /v1/analytics/chart.svg of published posts (%s)", (backend) => {
  let fixture: ServerWithAnalytics
  let reader: ChartReader
  beforeAll(async () => {
    fixture = await aServerWithAnalytics(backend)
    reader = await aChartReader()
  })
  afterAll(async () => {
    await reader?.close()
    await fixture?.server.stop()
  })

  it("draws each platform's line and the sum of all, point for point what GET /v1/analytics answers", async () => {
    const { server, from, to } = fixture
    for (const metric of ["views", "likes"]) {
      const query = { from, to, time_zone: "UTC", metric }
      const overview = (await call(server.baseUrl, "GET", `/v1/analytics?${new URLSearchParams({ from, to, time_zone: "UTC" })}`, { key: server.testKey })).body
      const chart = await chartOf(server, query)
      expect(chart.status).toBe(200)
      const drawn = await reader.open(chart.text)
      expect(drawn.parseError).toBeNull()
      expect(drawn.empty).toBeNull()
      expect(drawn.legend.map((item) => item.text)).toEqual(["All platforms", "Instagram", "Threads"])

      const expected = [
        overview.series,
        ...["photo", "textpost"].map((platform) => overview.data.find((row: { platform: string }) => row.platform === platform).series)
      ].map((series: Array<{ date: string; values: Record<string, number> }>) =>
        series.filter((d) => d.values[metric] !== undefined).map((d) => ({ day: d.date, value: d.values[metric] }))
      )
      expect(drawn.lines.map((line) => line.points.map(({ day, value }) => ({ day, value })))).toEqual(expected)
      // Numbers grew: something was gained, and the sum is the sum of the platforms.
      expect(overview.totals[metric]).toBeGreaterThan(0)
      expected[0]!.forEach((point, i) => {
        expect(point.value).toBe((expected[1]![i]?.value ?? 0) + (expected[2]![i]?.value ?? 0))
      })
    }
  })

  it("draws one platform's line alone when the query names it", async () => {
    const { server, from, to } = fixture
    const drawn = await reader.open((await chartOf(server, { from, to, platform: "textpost" })).text)
    expect(drawn.legend.map((item) => item.text)).toEqual(["Threads"])
    expect(drawn.title).toContain("Views per day")
  })
})
