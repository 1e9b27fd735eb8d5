import { describe, expect, it } from "vitest"
import { isInstantWithOffset } from "../src/Timestamp.ts"

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
