import { describe, expect, it } from "vitest"
import {
  canMove,
  derivePostStatus,
  IllegalMove,
  move,
  movesTo,
  readyStatus,
  startableStatuses,
  transitions
} from "../src/posts/TargetStatus.ts"
import type { TargetStatus } from "../src/store/PostStore.ts"

const statuses = Object.keys(transitions) as ReadonlyArray<TargetStatus>

describe("TargetStatus", () => {
  it("lets a target publish from queued or a due schedule, and never leave a finished status", () => {
    expect(canMove("queued", "publishing")).toBe(true)
    expect(canMove("scheduled", "publishing")).toBe(true)
    expect(startableStatuses).toEqual(["queued", "scheduled"])
    expect(canMove("awaiting_approval", "publishing")).toBe(false)
    for (const finished of ["published", "cancelled", "rejected"] as const) {
      for (const to of ["queued", "publishing", "failed", "awaiting_approval"] as const) {
        expect(canMove(finished, to)).toBe(false)
      }
    }
    expect(canMove("failed", "queued")).toBe(true)
  })

  it("fails a waiting target whose account was disconnected, but never one awaiting approval", () => {
    expect(canMove("queued", "failed")).toBe(true)
    expect(canMove("scheduled", "failed")).toBe(true)
    expect(canMove("awaiting_approval", "failed")).toBe(false)
  })

  it("moves a target only as the table allows, keeping its other fields and applying the changes", () => {
    for (const from of statuses) {
      for (const to of statuses) {
        const target = { id: "tgt_1", status: from, dueAt: 5 as number | null }
        if (from === to || canMove(from, to)) {
          expect(move(target, to, { dueAt: null })).toEqual({ id: "tgt_1", status: to, dueAt: null })
        } else {
          expect(() => move(target, to)).toThrow(IllegalMove)
        }
      }
    }
  })

  it("gives SQL only statuses the table lets move, and refuses a list with one it forbids", () => {
    expect(movesTo("failed", ["publishing"])).toEqual(["publishing"])
    expect(movesTo("failed", ["queued", "scheduled"])).toEqual(["queued", "scheduled"])
    expect(() => movesTo("published", ["queued", "publishing"])).toThrow("a target may not move from queued to published")
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
