import { describe, expect, it } from "vitest"
import { canMove, derivePostStatus, readyStatus } from "../src/posts/TargetStatus.ts"

describe("TargetStatus", () => {
  it("lets a target publish only from queued, and never leave a finished status", () => {
    expect(canMove("queued", "publishing")).toBe(true)
    expect(canMove("scheduled", "publishing")).toBe(false)
    expect(canMove("awaiting_approval", "publishing")).toBe(false)
    for (const finished of ["published", "cancelled", "rejected"] as const) {
      for (const to of ["queued", "publishing", "failed", "awaiting_approval"] as const) {
        expect(canMove(finished, to)).toBe(false)
      }
    }
    expect(canMove("failed", "queued")).toBe(true)
  })

  it("waits in scheduled only for a future instant", () => {
    expect(readyStatus(null, 1000)).toBe("queued")
    expect(readyStatus(999, 1000)).toBe("queued")
    expect(readyStatus(1000, 1000)).toBe("queued")
    expect(readyStatus(1001, 1000)).toBe("scheduled")
  })

  it.each([
    [["queued"], "queued"],
    [["published", "published"], "published"],
    [["published", "queued"], "queued"],
    [["awaiting_approval", "queued", "publishing"], "awaiting_approval"],
    [["scheduled", "publishing"], "scheduled"],
    [["published", "failed"], "partially_published"],
    [["published", "cancelled"], "partially_published"],
    [["failed", "cancelled"], "failed"],
    [["cancelled", "rejected"], "cancelled"],
    [["rejected", "rejected"], "rejected"]
  ] as const)("derives a post with targets %j as %s", (statuses, expected) => {
    expect(derivePostStatus(statuses)).toBe(expected)
  })
})
