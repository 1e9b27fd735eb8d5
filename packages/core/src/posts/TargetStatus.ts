/**
 * The target state machine, and how a post's status follows from its targets.
 *
 * @since 0.1.0
 */
import type { PostStatus, TargetStatus } from "../store/Records.ts"

/** The statuses each status may move to. */
export const transitions: Readonly<Record<TargetStatus, ReadonlyArray<TargetStatus>>> = {
  awaiting_approval: ["scheduled", "queued", "rejected", "cancelled"],
  scheduled: ["queued", "awaiting_approval", "cancelled"],
  queued: ["publishing", "scheduled", "awaiting_approval", "cancelled"],
  publishing: ["published", "failed", "queued"],
  failed: ["queued", "cancelled"],
  published: [],
  cancelled: [],
  rejected: []
}

/** Whether a target may move from one status to another. */
export const canMove = (from: TargetStatus, to: TargetStatus): boolean => transitions[from].includes(to)

/** Statuses in which a target is finished. */
export const isFinished = (status: TargetStatus): boolean =>
  status === "published" || status === "failed" || status === "cancelled" || status === "rejected"

/** Statuses that still lead towards publishing, in order from furthest behind. */
const activeOrder: ReadonlyArray<TargetStatus> = ["awaiting_approval", "scheduled", "queued", "publishing"]

/** The status a target waits in once nothing but time stands before it. */
export const readyStatus = (scheduledAt: number | null, now: number): "scheduled" | "queued" =>
  scheduledAt !== null && scheduledAt > now ? "scheduled" : "queued"

/**
 * A post's status from its targets: every target in one status gives that status; otherwise
 * the furthest-behind active status; when all are finished, `partially_published` if some
 * published, else `failed` if any failed, else `cancelled`, else `rejected`.
 */
export const derivePostStatus = (statuses: ReadonlyArray<TargetStatus>): PostStatus => {
  const first = statuses[0]
  if (first === undefined) return "cancelled"
  if (statuses.every((s) => s === first)) return first
  for (const s of activeOrder) if (statuses.includes(s)) return s
  if (statuses.includes("published")) return "partially_published"
  if (statuses.includes("failed")) return "failed"
  if (statuses.includes("cancelled")) return "cancelled"
  return "rejected"
}
