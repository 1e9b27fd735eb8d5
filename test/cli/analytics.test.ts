/**
 * `postwire analytics`: the built command against a real server: its table and sparkline, its
 * JSON, and a clear line for each bad flag or failed call.
 */
import { spawn } from "node:child_process"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aKeyWithScopes } from "../support/Builders.ts"
import { call } from "../support/Http.ts"
import { aServerWithAnalytics, type ServerWithAnalytics } from "../analytics/chart-data.ts"

const bin = join(import.meta.dirname, "../../packages/server/bin/postwire.js")

/** Runs the built `postwire` with `args`; the environment carries no key or server unless given. */
const postwire = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...process.env, POSTWIRE_API_KEY: "", POSTWIRE_BASE_URL: "", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    let err = ""
    child.stdout.on("data", (c: Buffer) => (out += c.toString()))
    child.stderr.on("data", (c: Buffer) => (err += c.toString()))
    child.on("exit", (code) => resolve({ code, out, err }))
  })

describe("postwire analytics: flags", () => {
  it("answers --help with every flag and exit code 0, and lists the command in postwire --help", async () => {
    const help = await postwire(["analytics", "--help"])
    expect(help.code).toBe(0)
    for (const flag of ["--profile", "--days", "--to", "--platform", "--account", "--time-zone", "--json", "--api-key", "--base-url"]) {
      expect(help.out).toContain(flag)
    }
    expect((await postwire(["--help"])).out).toContain("postwire analytics [--profile PROF] [--days 30]")
  })

  it("refuses a bad flag with one line naming it and exit code 2, before calling any server", async () => {
    const cases: Array<[Array<string>, string]> = [
      [["--days", "abc"], `--days must be a whole number of days from 1, got "abc"`],
      [["--days", "0"], `--days must be a whole number of days from 1, got "0"`],
      [["--days", "-3"], "--days"],
      [["--days", "2.5"], `--days must be a whole number of days from 1, got "2.5"`],
      [["--to", "2026-02-30"], `--to must be a calendar day written YYYY-MM-DD, got "2026-02-30"`],
      [["--profile", ""], "--profile needs a value"],
      [["--time-zone", "Mars/Olympus"], `--time-zone must be an IANA time zone (Asia/Jakarta), UTC or an offset like +07:00, got "Mars/Olympus"`],
      [["--base-url", "ftp://example.com"], `--base-url must be an http(s) URL, got "ftp://example.com"`],
      [["--dayz", "3"], "Unknown option '--dayz'"],
      [["extra"], "extra"]
    ]
    const runs = await Promise.all(cases.map(([args]) => postwire(["analytics", ...args, "--api-key", "svc_test_x"])))
    cases.forEach(([args, message], i) => {
      const run = runs[i]!
      expect(run.code, args.join(" ")).toBe(2)
      expect(run.err, args.join(" ")).toContain(message)
      expect(run.out).toBe("")
    })
  })

  it("asks for a key when neither --api-key nor POSTWIRE_API_KEY gives one", async () => {
    const run = await postwire(["analytics", "--days", "7"])
    expect(run.code).toBe(2)
    expect(run.err).toContain("no API key: set POSTWIRE_API_KEY or pass --api-key")
  })

  it("says so when no server answers at the address", async () => {
    const run = await postwire(["analytics"], { POSTWIRE_API_KEY: "svc_test_x", POSTWIRE_BASE_URL: "http://127.0.0.1:9" })
    expect(run.code).toBe(1)
    expect(run.out).toContain("Postwire server not reachable at http://127.0.0.1:9.")
  })
})

describe("postwire analytics against a server with published posts", () => {
  let fixture: ServerWithAnalytics
  beforeAll(async () => {
    fixture = await aServerWithAnalytics("embedded")
  })
  afterAll(async () => {
    await fixture?.server.stop()
  })

  /** The server's today: its clock is days ahead of this computer's. */
  const today = () => new Date(fixture.clock.now()).toISOString().slice(0, 10)
  const days = 6

  /** The command with the fixture's key and address, in UTC, for the days up to the server's today. */
  const analytics = (...args: Array<string>) =>
    postwire(["analytics", "--time-zone", "UTC", "--to", today(), ...args], {
      POSTWIRE_API_KEY: fixture.server.testKey,
      POSTWIRE_BASE_URL: fixture.server.baseUrl
    })

  /** What GET /v1/analytics answers for the same days, as the command asks for them. */
  const overview = async (days: number, filters: Record<string, string> = {}) => {
    const to = today()
    const from = new Date(Date.parse(`${to}T00:00:00Z`) - (days - 1) * 86_400_000).toISOString().slice(0, 10)
    return (await call(fixture.server.baseUrl, "GET", `/v1/analytics?${new URLSearchParams({ ...filters, from, to, time_zone: "UTC" })}`, {
      key: fixture.server.testKey
    })).body
  }

  it("prints each metric's total and a sparkline of its days, then the totals per platform", async () => {
    const run = await analytics("--profile", fixture.server.profileId, "--days", String(days))
    expect(run.err).toBe("")
    expect(run.code).toBe(0)
    const lines = run.out.trimEnd().split("\n")
    const expected = await overview(days, { profile_id: fixture.server.profileId })
    expect(lines[0]).toBe(`Profile ${fixture.server.profileId} · ${expected.from} to ${expected.to} (${days} days, UTC)`)
    expect(lines[2]).toMatch(/^metric\s+total\s+per day, /)
    const rows = new Map(lines.slice(3, 3 + Object.keys(expected.totals).length).map((line) => {
      const [name, total, spark] = line.split(/\s{2,}/)
      return [name!, { total: total!, spark: spark! }]
    }))
    expect([...rows.keys()].sort()).toEqual(Object.keys(expected.totals).sort())
    for (const [name, row] of rows) {
      expect(row.total).toBe(expected.totals[name].toLocaleString("en-US"))
      // One bar per day; days that gained nothing are the lowest bar, the best day the highest.
      const values = expected.series.map((d: { values: Record<string, number> }) => d.values[name] ?? 0)
      expect([...row.spark]).toHaveLength(days)
      const highest = Math.max(...values)
      values.forEach((value: number, i: number) => {
        if (value === 0) expect([...row.spark][i]).toBe("▁")
        if (value === highest && highest > 0) expect([...row.spark][i]).toBe("█")
      })
    }
    // Totals per platform: one line each, with the platform's views.
    const platformTable = lines.slice(lines.findIndex((line) => line.startsWith("platform")))
    expect(platformTable[0]).toMatch(/^platform\s+views\s/)
    for (const platform of fixture.platforms) {
      const row = expected.data.find((r: { platform: string }) => r.platform === platform)
      expect(platformTable.find((line) => line.startsWith(platform))).toContain(row.totals.views.toLocaleString("en-US"))
    }
  })

  it("prints the API's answer with --json, and only the platform asked for", async () => {
    const run = await analytics("--days", String(days), "--platform", "textpost", "--json")
    expect(run.code).toBe(0)
    const printed = JSON.parse(run.out)
    const { cursor: _, ...expected } = await overview(days, { platform: "textpost" })
    expect(printed).toEqual(expected)
    expect(printed.data.map((row: { platform: string }) => row.platform)).toEqual(["textpost"])
  })

  it("says when the days hold no metrics yet", async () => {
    const run = await analytics("--days", "1", "--account", "acc_01JD0000000000000000000000")
    expect(run.code).toBe(0)
    expect(run.out).toContain("No metrics in these days yet")
  })

  it("prints the API's error for a range the server does not answer, and a key without the scope", async () => {
    const tooLong = await analytics("--days", "400")
    expect(tooLong.code).toBe(1)
    expect(tooLong.out).toMatch(/^error 400 invalid_range: /)
    const reader = await aKeyWithScopes(fixture.server, ["posts:read"])
    const refused = await postwire(["analytics"], { POSTWIRE_API_KEY: reader, POSTWIRE_BASE_URL: fixture.server.baseUrl })
    expect(refused.code).toBe(1)
    expect(refused.out).toMatch(/^error 403 insufficient_scope: .*analytics:read/)
  })
})
