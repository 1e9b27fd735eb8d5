/**
 * The target state machine, and how a post's status follows from its targets.
 *
 * @since 0.1.0
 */
import type { PostStatus, TargetStatus } from "../store/PostStore.ts"

/**
 * The statuses each status may move to; every status change of a target, in the engine and in
 * the SQL store, goes through this table ({@link move}, {@link movesTo}).
 */
export const transitions: Readonly<Record<TargetStatus, ReadonlyArray<TargetStatus>>> = {
  // Approved (scheduled or queued), rejected, or cancelled.
  awaiting_approval: ["scheduled", "queued", "rejected", "cancelled"],
  // Due (queued, or claimed at once), sent for approval again, cancelled, or failed because its
  // account was disconnected.
  scheduled: ["queued", "publishing", "awaiting_approval", "cancelled", "failed"],
  queued: ["publishing", "scheduled", "awaiting_approval", "cancelled", "failed"],
  publishing: ["published", "failed", "queued"],
  failed: ["queued", "cancelled"],
  published: [],
  cancelled: [],
  rejected: []
}

/** Whether a target may move from one status to another. */
export const canMove = (from: TargetStatus, to: TargetStatus): boolean => transitions[from].includes(to)

/** A status change the table forbids: a bug in the engine or a store, never a user's mistake. */
export class IllegalMove extends Error {
  constructor(
    readonly from: TargetStatus,
    readonly to: TargetStatus
  ) {
    super(`a target may not move from ${from} to ${to}`)
    this.name = "IllegalMove"
  }
}

/**
 * A copy of `target` in status `to`, with `changes` applied. Staying in the same status is no
 * move and always allowed (a new schedule); a move the table forbids throws {@link IllegalMove}
 * (a defect).
 *
 * @example
 * ```ts
 * const cancelled = TargetStatus.move(target, "cancelled", { dueAt: null, updatedAt: at })
 * ```
 */
export const move = <T extends { readonly status: TargetStatus }>(
  target: T,
  to: TargetStatus,
  changes: Partial<Omit<T, "status">> = {}
): T => {
  if (target.status !== to && !canMove(target.status, to)) throw new IllegalMove(target.status, to)
  return { ...target, ...changes, status: to }
}

/**
 * The statuses `from` that a store moves to `to` in one statement, each checked against the
 * table (a forbidden one throws {@link IllegalMove}): SQL that sets statuses uses it in its
 * `WHERE status IN (...)`, so it follows the same table as the engine.
 *
 * @example
 * ```ts
 * sql`UPDATE targets SET status = 'failed' WHERE ${sql.in("status", TargetStatus.movesTo("failed", ["queued", "scheduled"]))}`
 * ```
 */
export const movesTo = (to: TargetStatus, from: ReadonlyArray<TargetStatus>): ReadonlyArray<TargetStatus> => {
  for (const status of from) if (!canMove(status, to)) throw new IllegalMove(status, to)
  return from
}

/** The statuses a claimed target starts publishing from (a due `scheduled` target needs no `queued` first). */
export const startableStatuses: ReadonlyArray<TargetStatus> = movesTo("publishing", ["queued", "scheduled"])

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
