/**
 * The `PublishingStore` on SQL (PostgreSQL and the embedded PGlite).
 *
 * Claims lock due targets with `FOR UPDATE SKIP LOCKED`, so instances sharing one PostgreSQL
 * never claim the same target, and then lock the targets' accounts (briefly, in key order), so
 * the per-account count of leased targets is exact across instances. Every write that changes a
 * target first locks its post row (`FOR UPDATE`), like `Store.savePost` does, so the two take
 * locks in the same order, and derives the post's status again and bumps its `version` in the
 * same transaction: a concurrent save of the post fails with `VersionConflict` and re-reads.
 * Pending permalinks are claimed the same way, from their own small table. Concurrent
 * checkpoints, progress saves and completions are written together (`internal/GroupCommit.ts`,
 * `internal/PublishingWrites.ts`), posts and accounts locked in key order.
 *
 * @since 0.1.0
 */

import {
  type PostRecord,
  PublishingStore,
  type PublishingStoreShape,
  type TargetRecord,
  TargetStatus
} from "@postwire/core"
import { Array as Arr, Effect, type Layer, Option, type Scope } from "effect"
import { SqlClient } from "effect/sql"
import * as PublishingWrites from "./internal/PublishingWrites.ts"
import { pendingFromRow, postFromRow, targetFromRow } from "./internal/Rows.ts"
import { eventRow, migratedLayer, operations, toNumber, toNumberOrNull } from "./internal/SqlToolkit.ts"

type Row = Readonly<Record<string, unknown>>

/** At most this many writes of targets go to the database together. */
const maxWritesPerBatch = 256

/** How many due rows a claim looks at for each target it may take (some accounts may be busy). */
const scanFactor = 2

/**
 * Builds the publishing store on the current `SqlClient`; the schema must already be migrated.
 * Its writer of batched target writes lives as long as the scope.
 */
export const make: Effect.Effect<PublishingStoreShape, never, SqlClient.SqlClient | Scope.Scope> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const operation = operations("PublishingStore")

  // Concurrent writes of the targets a worker holds go to the database together (one
  // transaction, multi-row statements), each call with its own answer.
  const writes = yield* PublishingWrites.make({ maxBatch: maxWritesPerBatch })

  /** `(workspace_id = w AND <column> IN (...)) OR ...` for pairs of workspace and id. */
  const inWorkspaces = (column: string, pairs: ReadonlyArray<readonly [workspaceId: string, id: string]>) => {
    const byWorkspace = new Map<string, Array<string>>()
    for (const [workspaceId, id] of pairs) {
      const ids = byWorkspace.get(workspaceId)
      if (ids === undefined) byWorkspace.set(workspaceId, [id])
      else if (!ids.includes(id)) ids.push(id)
    }
    return sql.or([...byWorkspace].map(([workspaceId, ids]) => sql`(workspace_id = ${workspaceId} AND ${sql.in(column, ids)})`))
  }

  const storeCredentials = (workspaceId: string, accountId: string, credentials: string | undefined) =>
    credentials === undefined
      ? Effect.void
      : sql`UPDATE accounts SET credentials = ${credentials} WHERE workspace_id = ${workspaceId} AND id = ${accountId}`.pipe(
          Effect.asVoid
        )

  /** Locks the pending permalink of `key` if `owner` holds it. */
  const lockHeldPermalink = (workspaceId: string, targetId: string, owner: string) =>
    sql`SELECT * FROM pending_permalinks
      WHERE workspace_id = ${workspaceId} AND target_id = ${targetId} AND lease_owner = ${owner}
      FOR UPDATE`.pipe(Effect.map(([row]) => (row === undefined ? undefined : pendingFromRow(row))))

  const publishingStore: PublishingStoreShape = {
    claimDueTargets: ({ at, leaseUntil, limit, owner, perAccount }) =>
      operation("claimDueTargets")(
        sql.withTransaction(
          Effect.gen(function* () {
            if (limit <= 0) return []
            // One statement takes the due rows (skipping those another instance holds) and then
            // their accounts' rows, in key order (so two claims never deadlock): claims of one
            // account take turns on its row.
            const due = yield* sql`WITH due AS MATERIALIZED (
                SELECT t.workspace_id, t.id, t.account_id, t.due_at FROM targets t
                WHERE t.status IN ('queued', 'scheduled', 'publishing')
                  AND t.due_at <= ${at}
                  AND (t.lease_until IS NULL OR t.lease_until <= ${at})
                  AND NOT EXISTS (SELECT 1 FROM posts p JOIN media m ON m.workspace_id = p.workspace_id
                                    AND m.id IN (SELECT jsonb_array_elements_text(p.media))
                                  WHERE p.workspace_id = t.workspace_id AND p.id = t.post_id AND m.status = 'processing')
                  AND (SELECT count(*) FROM targets busy
                       WHERE busy.workspace_id = t.workspace_id AND busy.account_id = t.account_id
                         AND busy.lease_owner IS NOT NULL AND busy.lease_until > ${at}) < ${perAccount}
                ORDER BY t.due_at, t.id
                LIMIT ${limit * scanFactor}
                FOR UPDATE OF t SKIP LOCKED
              ), locked AS MATERIALIZED (
                SELECT a.workspace_id, a.id FROM accounts a
                WHERE (a.workspace_id, a.id) IN (SELECT workspace_id, account_id FROM due)
                ORDER BY a.workspace_id, a.id
                FOR UPDATE
              )
              SELECT due.workspace_id, due.id, due.account_id FROM due
              JOIN locked ON locked.workspace_id = due.workspace_id AND locked.id = due.account_id`
            if (due.length === 0) return []
            // A statement of its own, after the locks: its snapshot counts the leases that the
            // claims which held them before committed. Each account takes its due rows, earliest
            // first, up to what it has left; the earliest `limit` of those are leased.
            const claimed = yield* sql`WITH busy AS (
                SELECT workspace_id, account_id, count(*) AS n FROM targets
                WHERE lease_owner IS NOT NULL AND lease_until > ${at}
                  AND ${inWorkspaces(
                    "account_id",
                    due.map((row) => [row.workspace_id as string, row.account_id as string] as const)
                  )}
                GROUP BY workspace_id, account_id
              ), candidates AS (
                SELECT workspace_id, id, account_id, due_at,
                  row_number() OVER (PARTITION BY workspace_id, account_id ORDER BY due_at, id) AS nth
                FROM targets
                WHERE ${inWorkspaces("id", due.map((row) => [row.workspace_id as string, row.id as string] as const))}
              ), chosen AS (
                SELECT c.workspace_id, c.id FROM candidates c
                LEFT JOIN busy b ON b.workspace_id = c.workspace_id AND b.account_id = c.account_id
                WHERE c.nth + COALESCE(b.n, 0) <= ${perAccount}
                ORDER BY c.due_at, c.id
                LIMIT ${limit}
              )
              UPDATE targets t SET lease_owner = ${owner}, lease_until = ${leaseUntil}
              FROM chosen WHERE t.workspace_id = chosen.workspace_id AND t.id = chosen.id
              RETURNING t.*`
            return claimed
              .map(claimedFromRow)
              .sort((a, b) => (a.dueAt ?? 0) - (b.dueAt ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
          })
        )
      ),

    startPublishing: (key, owner, at, firstStartEvents) =>
      operation("startPublishing")(
        sql.withTransaction(
          Effect.gen(function* () {
            const [postRow] = yield* sql`SELECT * FROM posts
              WHERE workspace_id = ${key.workspaceId} AND id = ${key.postId} FOR UPDATE`
            if (postRow === undefined) return Option.none()
            const targets = (yield* sql`SELECT * FROM targets
              WHERE workspace_id = ${key.workspaceId} AND post_id = ${key.postId} ORDER BY position`).map(targetFromRow)
            const target = targets.find((t) => t.id === key.targetId)
            if (target === undefined || target.leaseOwner !== owner) return Option.none()
            if (!TargetStatus.startableStatuses.includes(target.status)) return Option.none()
            const first = !targets.some(
              (t) => t.attempts > 0 || t.status === "publishing" || t.status === "published" || t.status === "failed"
            )
            const nextTargets = targets.map((t): TargetRecord =>
              t.id === key.targetId ? TargetStatus.move(t, "publishing", { updatedAt: at }) : t
            )
            const before = postFromRow(postRow)
            const post: PostRecord = {
              ...before,
              status: TargetStatus.derivePostStatus(nextTargets.map((t) => t.status)),
              updatedAt: at,
              version: before.version + 1
            }
            // The target, the post and the first start's events: one statement.
            yield* sql`WITH ${sql.csv([
              sql`started AS (UPDATE targets SET status = 'publishing', updated_at = ${at}
                WHERE workspace_id = ${key.workspaceId} AND id = ${key.targetId}
                  AND ${sql.in("status", TargetStatus.startableStatuses)})`,
              sql`post AS (UPDATE posts SET status = ${post.status}, updated_at = ${at}, version = ${post.version}
                WHERE workspace_id = ${key.workspaceId} AND id = ${key.postId})`,
              ...(first && Arr.isReadonlyArrayNonEmpty(firstStartEvents)
                ? [sql`events AS (INSERT INTO outbox_events ${sql.insert(Arr.map(firstStartEvents, eventRow))})`]
                : [])
            ])} SELECT 1`
            return Option.some({ post, targets: nextTargets, firstStart: first })
          })
        )
      ),

    saveProgress: (key, owner, progress) => operation("saveProgress")(writes.write({ _tag: "Progress", key, owner, progress })),

    saveCheckpoint: (key, owner, checkpoint) =>
      operation("saveCheckpoint")(writes.write({ _tag: "Checkpoint", key, owner, checkpoint })),

    dueTargets: (at) =>
      operation("dueTargets")(
        // Reads the partial index of active targets (targets_due), as a claim does.
        sql`SELECT count(*) AS n, min(due_at) AS oldest FROM targets
          WHERE status IN ('queued', 'scheduled', 'publishing')
            AND due_at <= ${at}
            AND (lease_until IS NULL OR lease_until <= ${at})`.pipe(
          Effect.map(([row]) => ({ count: toNumber(row?.n ?? 0), oldestDueAt: toNumberOrNull(row?.oldest) }))
        )
      ),

    unconfirmedTargets: (at) =>
      operation("unconfirmedTargets")(
        sql`SELECT count(*) AS n, min(unconfirmed_since) AS oldest FROM targets
          WHERE unconfirmed_since IS NOT NULL AND status = 'publishing'
            AND (lease_owner IS NULL OR lease_until IS NULL OR lease_until <= ${at})`.pipe(
          Effect.map(([row]) => ({ count: toNumber(row?.n ?? 0), oldestSince: toNumberOrNull(row?.oldest) }))
        )
      ),

    completeTarget: (key, owner, completion) =>
      operation("completeTarget")(writes.write({ _tag: "Completion", key, owner, completion })),

    claimPendingPermalinks: ({ at, leaseUntil, limit, owner }) =>
      operation("claimPendingPermalinks")(
        sql.withTransaction(
          Effect.gen(function* () {
            if (limit <= 0) return []
            const due = yield* sql`SELECT workspace_id, target_id FROM pending_permalinks
              WHERE ask_at <= ${at} AND (lease_until IS NULL OR lease_until <= ${at})
              ORDER BY ask_at, target_id
              LIMIT ${limit}
              FOR UPDATE SKIP LOCKED`
            if (due.length === 0) return []
            const claimed = yield* sql`UPDATE pending_permalinks SET lease_owner = ${owner}, lease_until = ${leaseUntil}
              WHERE ${inWorkspaces(
                "target_id",
                due.map((row) => [row.workspace_id as string, row.target_id as string] as const)
              )}
              RETURNING *`
            return claimed
              .map(pendingFromRow)
              .sort((a, b) => a.askAt - b.askAt || (a.targetId < b.targetId ? -1 : a.targetId > b.targetId ? 1 : 0))
          })
        )
      ),

    fillPermalink: (key, owner, fill) =>
      operation("fillPermalink")(
        sql.withTransaction(
          Effect.gen(function* () {
            // The post row first, as every writer of the post locks it first.
            const locked = yield* sql`SELECT id FROM posts WHERE workspace_id = ${key.workspaceId} AND id = ${key.postId} FOR UPDATE`
            if (locked.length === 0) return false
            const held = yield* lockHeldPermalink(key.workspaceId, key.targetId, owner)
            if (held === undefined) return false
            yield* sql`DELETE FROM pending_permalinks WHERE workspace_id = ${key.workspaceId} AND target_id = ${key.targetId}`
            const updated = yield* sql`UPDATE targets SET
                permalink = ${fill.permalink},
                platform_state = ${jsonOrNull(fill.platformState)},
                updated_at = ${fill.at}
              WHERE workspace_id = ${key.workspaceId} AND id = ${key.targetId} AND status = 'published'
              RETURNING id`
            if (updated.length === 0) return false
            yield* sql`UPDATE posts SET updated_at = ${fill.at}, version = version + 1
              WHERE workspace_id = ${key.workspaceId} AND id = ${key.postId}`
            yield* storeCredentials(key.workspaceId, held.accountId, fill.credentials)
            return true
          })
        )
      ),

    deferPermalink: (key, owner, deferral) =>
      operation("deferPermalink")(
        sql.withTransaction(
          Effect.gen(function* () {
            const updated = yield* sql`UPDATE pending_permalinks SET
                asked = asked + 1, ask_at = ${deferral.askAt}, lease_owner = NULL, lease_until = NULL
              WHERE workspace_id = ${key.workspaceId} AND target_id = ${key.targetId} AND lease_owner = ${owner}
              RETURNING account_id`
            if (updated.length === 0) return false
            yield* storeCredentials(key.workspaceId, updated[0]!.account_id as string, deferral.credentials)
            return true
          })
        )
      ),

    abandonPermalink: (key, owner, credentials) =>
      operation("abandonPermalink")(
        sql.withTransaction(
          Effect.gen(function* () {
            const deleted = yield* sql`DELETE FROM pending_permalinks
              WHERE workspace_id = ${key.workspaceId} AND target_id = ${key.targetId} AND lease_owner = ${owner}
              RETURNING account_id`
            if (deleted.length === 0) return false
            yield* storeCredentials(key.workspaceId, deleted[0]!.account_id as string, credentials)
            return true
          })
        )
      ),

    renewLeases: (owner, at, leaseUntil) =>
      operation("renewLeases")(
        sql`UPDATE targets SET lease_until = ${Math.max(at, leaseUntil)} WHERE lease_owner = ${owner} RETURNING id`.pipe(
          Effect.map((rows) => rows.map((row) => row.id as string))
        )
      ),

    releaseTargets: (owner) =>
      operation("releaseTargets")(
        sql`UPDATE targets SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = ${owner} RETURNING id`.pipe(
          Effect.map((rows) => rows.length)
        )
      ),

    updateAccountCredentials: (workspaceId, accountId, credentials) =>
      operation("updateAccountCredentials")(
        sql`UPDATE accounts SET credentials = ${credentials} WHERE workspace_id = ${workspaceId} AND id = ${accountId}`.pipe(
          Effect.asVoid
        )
      ),

    publishedUsage: (workspaceId, accountId, from, to, exceptTargetId) =>
      operation("publishedUsage")(
        // Two index ranges (`targets_published` over the window, `targets_publishing`), not the
        // account's whole history of published targets.
        sql`SELECT published.n AS published, published.oldest, (
              SELECT count(*) FROM targets
              WHERE workspace_id = ${workspaceId} AND account_id = ${accountId} AND status = 'publishing'
                AND id <> ${exceptTargetId}
            ) AS publishing
            FROM (
              SELECT count(*) AS n, min(published_at) AS oldest FROM targets
              WHERE workspace_id = ${workspaceId} AND account_id = ${accountId} AND status = 'published'
                AND published_at >= ${from} AND published_at < ${to}
            ) published`.pipe(
          Effect.map(([row]) => ({
            used: toNumber(row!.published) + toNumber(row!.publishing),
            oldest: toNumberOrNull(row!.oldest)
          }))
        )
      )
  }
  return publishingStore
})

/**
 * The publishing store on the current `SqlClient`, after applying pending migrations.
 *
 * @example
 * ```ts
 * const Publishing = SqlPublishingStore.layer.pipe(Layer.provide(layerPostgres(process.env.DATABASE_URL!)))
 * ```
 */
export const layer: Layer.Layer<PublishingStore, never, SqlClient.SqlClient> = migratedLayer(PublishingStore, make)

// Drivers differ: PGlite returns int8 as a number, @effect/sql-pg as a bigint, others as a string.
const jsonOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : JSON.stringify(value))


/** A claimed target: with `unconfirmedSince` when the platform may have published it. */
const claimedFromRow = (row: Row): TargetRecord => {
  const since = toNumberOrNull(row.unconfirmed_since)
  return since === null ? targetFromRow(row) : { ...targetFromRow(row), unconfirmedSince: since }
}
