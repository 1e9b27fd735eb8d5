import { describe, expect, it } from "vitest"
import { formatInstant, isInstantWithOffset } from "../src/Timestamp.ts"

describe("request instants", () => {
  it.each([
    "2026-11-22T09:00:00Z",
    "2026-11-22T09:00:00.123+07:00",
    "2026-11-22T09:00+0700",
    "2028-02-29T23:59:59-05:00",
    "2026-12-31T00:00:00.123456789z"
  ])("accepts %s", (s) => {
    expect(isInstantWithOffset(s)).toBe(true)
  })

  it.each([
    ["no offset", "2026-11-22T09:00:00"],
    ["a day the month does not have", "2026-02-30T00:00:00Z"],
    ["29 February of a common year", "2027-02-29T00:00:00Z"],
    ["month 13", "2026-13-01T00:00:00Z"],
    ["day 0", "2026-11-00T00:00:00Z"],
    ["hour 24", "2026-11-22T24:00:00Z"],
    ["minute 60", "2026-11-22T09:60:00Z"],
    ["second 60", "2026-11-22T09:00:60Z"],
    ["an offset of 25 hours", "2026-11-22T09:00:00+25:00"],
    ["a date alone", "2026-11-22"],
    ["words", "tomorrow at nine"]
  ])("refuses %s", (_, s) => {
    expect(isInstantWithOffset(s)).toBe(false)
  })
})

describe("response instants", () => {
  it.each([
    ["the epoch", 0],
    ["a leap day", Date.UTC(2028, 1, 29, 23, 59, 59, 999)],
    ["the day after a leap day", Date.UTC(2028, 2, 1)],
    ["the last day of a century that is not leap", Date.UTC(2100, 1, 28, 12)],
    ["2000-02-29", Date.UTC(2000, 1, 29, 1, 2, 3, 4)],
    ["a year of three digits", Date.UTC(999, 11, 31, 23, 59, 59, 999)],
    ["the last instant of year 9999", 253_402_300_799_999],
    ["past year 9999", 253_402_300_800_000],
    ["before the epoch", -1],
    ["a fraction of a millisecond", 1_735_689_600_000.5]
  ])("writes %s as toISOString does", (_, ms) => {
    expect(formatInstant(ms)).toBe(new Date(ms).toISOString())
  })

  it("writes 100,000 instants across years 0-9999 as toISOString does", () => {
    let seed = 42
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
      return seed / 2_147_483_648
    }
    const mismatches: Array<number> = []
    for (let i = 0; i < 100_000; i++) {
      const ms = Math.floor(next() * next() * 253_402_300_800_000)
      if (formatInstant(ms) !== new Date(ms).toISOString()) mismatches.push(ms)
    }
    expect(mismatches).toEqual([])
  })
})
