/**
 * The `PublishingStore` on SQL (PostgreSQL and the embedded PGlite).
 *
 * Claims lock due targets with `FOR UPDATE SKIP LOCKED`, so instances sharing one PostgreSQL
 * never claim the same target, and then lock the targets' accounts (briefly, in key order), so
 * the per-account count of leased targets is exact across instances. Every write that changes a
 * target first locks its post row (`FOR UPDATE`), like `Store.savePost` does, so the two take
 * locks in the same order, and derives the post's status again and bumps its `version` in the
 * same transaction: a concurrent save of the post fails with `VersionConflict` and re-reads.
 * Pending permalinks are claimed the same way, from their own small table.
 *
 * @since 0.1.0
 */

import {
  type AccountChange,
  CommentSchedule,
  type OutboxEvent,
  type PendingPermalink,
  type PostRecord,
  PublishingStore,
  type PublishingStoreShape,
  StoreError,
  type TargetRecord,
  TargetStatus
} from "@postwire/core"
import { Array as Arr, Data, Effect, Layer, Option } from "effect"
import type { Ids } from "@postwire/domain"
import { SqlClient, } from "effect/sql"
import { eventRow, operations, toNumber, toNumberOrNull } from "./internal/SqlToolkit.ts"
import * as Migrations from "./migrations/Migrations.ts"

type Row = Readonly<Record<string, unknown>>

/** Rolls a write back when the worker no longer holds the target's lease. */
class LeaseLost extends Data.TaggedError("LeaseLost")<{}> {}

/** How many due rows a claim looks at for each target it may take (some accounts may be busy). */
const scanFactor = 2

/** Builds the publishing store on the current `SqlClient`; the schema must already be migrated. */
export const make: Effect.Effect<PublishingStoreShape, never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const operation = operations("PublishingStore")

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

  const insertEvents = (events: ReadonlyArray<OutboxEvent>) =>
    Arr.isReadonlyArrayNonEmpty(events)
      ? sql`INSERT INTO outbox_events ${sql.insert(Arr.map(events, eventRow))}`.pipe(Effect.asVoid)
      : Effect.void

  const changeAccount = (workspaceId: string, accountId: string, change: AccountChange | undefined) =>
    Effect.gen(function* () {
      if (change?.credentials !== undefined) {
        yield* sql`UPDATE accounts SET credentials = ${change.credentials} WHERE workspace_id = ${workspaceId} AND id = ${accountId}`
      }
      if (change?.status !== undefined) {
        yield* sql`UPDATE accounts SET status = ${change.status.value} WHERE workspace_id = ${workspaceId} AND id = ${accountId}`
        yield* insertEvents(change.status.events)
      }
    })

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
            const due = yield* sql`SELECT t.workspace_id, t.id, t.account_id FROM targets t
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
              FOR UPDATE OF t SKIP LOCKED`
            if (due.length === 0) return []
            const accountPairs = due.map((row) => [row.workspace_id as string, row.account_id as string] as const)
            // Claims of one account take turns on its row (in key order, so they never deadlock):
            // each counts the leases the previous ones committed.
            const lockedAccounts = yield* sql`SELECT workspace_id, id FROM accounts
              WHERE ${inWorkspaces("id", accountPairs)} ORDER BY workspace_id, id FOR UPDATE`
            if (lockedAccounts.length === 0) return []
            const accountKey = (workspaceId: unknown, accountId: unknown) => `${workspaceId}/${accountId}`
            const locked = new Set(lockedAccounts.map((row) => accountKey(row.workspace_id, row.id)))
            const busyRows = yield* sql`SELECT workspace_id, account_id, count(*) AS n FROM targets
              WHERE lease_owner IS NOT NULL AND lease_until > ${at}
                AND ${inWorkspaces(
                  "account_id",
                  lockedAccounts.map((row) => [row.workspace_id as string, row.id as string] as const)
                )}
              GROUP BY workspace_id, account_id`
            const busy = new Map(busyRows.map((row) => [accountKey(row.workspace_id, row.account_id), toNumber(row.n)]))
            const chosen: Array<readonly [string, string]> = []
            for (const row of due) {
              if (chosen.length >= limit) break
              const account = accountKey(row.workspace_id, row.account_id)
              const count = busy.get(account) ?? 0
              if (!locked.has(account) || count >= perAccount) continue
              busy.set(account, count + 1)
              chosen.push([row.workspace_id as string, row.id as string])
            }
            if (chosen.length === 0) return []
            const claimed = yield* sql`UPDATE targets SET lease_owner = ${owner}, lease_until = ${leaseUntil}
              WHERE ${inWorkspaces("id", chosen)} RETURNING *`
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
            yield* sql`UPDATE targets SET status = 'publishing', updated_at = ${at}
              WHERE workspace_id = ${key.workspaceId} AND id = ${key.targetId}
                AND ${sql.in("status", TargetStatus.startableStatuses)}`
            yield* sql`UPDATE posts SET status = ${post.status}, updated_at = ${at}, version = ${post.version}
              WHERE workspace_id = ${key.workspaceId} AND id = ${key.postId}`
            if (first) yield* insertEvents(firstStartEvents)
            return Option.some({ post, targets: nextTargets, firstStart: first })
          })
        )
      ),

    saveProgress: (key, owner, progress) =>
      operation("saveProgress")(
        sql.withTransaction(
          Effect.gen(function* () {
            // The post row first (its lock, as every writer of the post takes it first), then the target.
            yield* sql`UPDATE posts SET updated_at = ${progress.at}, version = version + 1
              WHERE workspace_id = ${key.workspaceId} AND id = ${key.postId}`
            const updated = yield* sql`UPDATE targets SET
                platform_state = ${jsonOrNull(progress.platformState)},
                due_at = ${progress.dueAt},
                lease_owner = NULL,
                lease_until = NULL,
                updated_at = ${progress.at}
              WHERE workspace_id = ${key.workspaceId} AND id = ${key.targetId}
                AND lease_owner = ${owner} AND status = 'publishing'
              RETURNING account_id, platform`
            if (updated.length === 0) return yield* new LeaseLost()
            yield* changeAccount(key.workspaceId, updated[0]!.account_id as string, progress.account)
          })
        ).pipe(
          Effect.as(true),
          Effect.catchTag("LeaseLost", () => Effect.succeed(false))
        )
      ),

    saveCheckpoint: (key, owner, checkpoint) =>
      operation("saveCheckpoint")(
        sql.withTransaction(
          Effect.gen(function* () {
            // The post row first, as every writer of the post locks it first.
            yield* sql`UPDATE posts SET updated_at = ${checkpoint.at}, version = version + 1
              WHERE workspace_id = ${key.workspaceId} AND id = ${key.postId}`
            const updated = yield* sql`UPDATE targets SET
                platform_state = ${jsonOrNull(checkpoint.platformState)},
                unconfirmed_since = COALESCE(unconfirmed_since, ${checkpoint.at}),
                updated_at = ${checkpoint.at}
              WHERE workspace_id = ${key.workspaceId} AND id = ${key.targetId}
                AND lease_owner = ${owner} AND status = 'publishing'
              RETURNING id`
            if (updated.length === 0) return yield* new LeaseLost()
          })
        ).pipe(
          Effect.as(true),
          Effect.catchTag("LeaseLost", () => Effect.succeed(false))
        )
      ),

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
      operation("completeTarget")(
        sql.withTransaction(
          Effect.gen(function* () {
            const { at, outcome } = completion
            const locked = yield* sql`SELECT id FROM posts WHERE workspace_id = ${key.workspaceId} AND id = ${key.postId} FOR UPDATE`
            if (locked.length === 0) return false
            const published = outcome._tag === "Published"
            const to = published ? "published" : "failed"
            const updated = yield* sql`UPDATE targets SET
                status = ${to},
                permalink = ${published ? outcome.permalink : null},
                published_at = ${published ? outcome.publishedAt : null},
                quota_at = ${published ? sql`${outcome.publishedAt}` : sql`quota_at`},
                error = ${outcome._tag === "Failed" ? JSON.stringify(outcome.error) : null},
                attempts = attempts + 1,
                platform_state = ${jsonOrNull(outcome.platformState)},
                unconfirmed_since = NULL,
                due_at = NULL,
                lease_owner = NULL,
                lease_until = NULL,
                updated_at = ${at}
              WHERE workspace_id = ${key.workspaceId} AND id = ${key.targetId}
                AND lease_owner = ${owner} AND ${sql.in("status", TargetStatus.movesTo(to, ["publishing"]))}
              RETURNING account_id, platform`
            if (updated.length === 0) return false
            const rows = yield* sql`SELECT status FROM targets WHERE workspace_id = ${key.workspaceId} AND post_id = ${key.postId}`
            const status = TargetStatus.derivePostStatus(rows.map((row) => row.status as TargetRecord["status"]))
            yield* sql`UPDATE posts SET status = ${status}, updated_at = ${at}, version = version + 1
              WHERE workspace_id = ${key.workspaceId} AND id = ${key.postId}`
            yield* insertEvents(completion.events)
            yield* changeAccount(key.workspaceId, updated[0]!.account_id as string, completion.account)
            if (outcome._tag === "Published" && outcome.permalinkAskAt !== undefined) {
              yield* sql`INSERT INTO pending_permalinks ${sql.insert({
                workspace_id: key.workspaceId,
                target_id: key.targetId,
                post_id: key.postId,
                account_id: updated[0]!.account_id as string,
                since: outcome.publishedAt,
                asked: 0,
                ask_at: outcome.permalinkAskAt,
                lease_owner: null,
                lease_until: null
              })}
                ON CONFLICT (workspace_id, target_id) DO UPDATE SET since = EXCLUDED.since, asked = 0,
                  ask_at = EXCLUDED.ask_at, lease_owner = NULL, lease_until = NULL`
            }
            if (outcome._tag === "Published" && typeof outcome.platformPostId === "string") {
              // From now on the target's comments are polled (CommentIngestion).
              yield* sql`INSERT INTO comment_polls ${sql.insert({
                workspace_id: key.workspaceId,
                target_id: key.targetId,
                post_id: key.postId,
                account_id: updated[0]!.account_id as string,
                platform: updated[0]!.platform as string,
                platform_post_id: outcome.platformPostId,
                published_at: outcome.publishedAt,
                cursor: null,
                next_poll_at: outcome.publishedAt + CommentSchedule.firstPollAfterMs,
                failures: 0,
                lease_owner: null,
                lease_until: null
              })}
                ON CONFLICT (workspace_id, target_id) DO NOTHING`
            }
            return true
          })
        )
      ),

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
export const layer: Layer.Layer<PublishingStore, never, SqlClient.SqlClient> = Layer.effect(PublishingStore)(
  Migrations.migrate.pipe(
    Effect.mapError((cause) => new StoreError({ operation: "migrate", cause })),
    Effect.orDie,
    Effect.andThen(make)
  )
)

// Drivers differ: PGlite returns int8 as a number, @effect/sql-pg as a bigint, others as a string.
const jsonOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : JSON.stringify(value))
const fromJson = (value: unknown): unknown => (typeof value === "string" ? JSON.parse(value) : value)


const postFromRow = (row: Row): PostRecord => ({
  id: row.id as Ids.PostId,
  workspaceId: row.workspace_id as Ids.WorkspaceId,
  profileId: row.profile_id as Ids.ProfileId,
  caption: row.caption as string,
  media: fromJson(row.media) as ReadonlyArray<Ids.MediaId>,
  scheduledAt: toNumberOrNull(row.scheduled_at),
  aiGenerated: row.ai_generated as boolean,
  approvalMode: row.approval_mode as PostRecord["approvalMode"],
  notify: (fromJson(row.notify) ?? null) as PostRecord["notify"],
  status: row.status as PostRecord["status"],
  publishAt: toNumber(row.publish_at),
  createdAt: toNumber(row.created_at),
  updatedAt: toNumber(row.updated_at),
  version: toNumber(row.version)
})

const pendingFromRow = (row: Row): PendingPermalink => ({
  workspaceId: row.workspace_id as Ids.WorkspaceId,
  postId: row.post_id as Ids.PostId,
  targetId: row.target_id as Ids.TargetId,
  accountId: row.account_id as Ids.AccountId,
  since: toNumber(row.since),
  asked: toNumber(row.asked),
  askAt: toNumber(row.ask_at),
  leaseOwner: (row.lease_owner ?? null) as string | null,
  leaseUntil: toNumberOrNull(row.lease_until)
})

const targetFromRow = (row: Row): TargetRecord => ({
  id: row.id as Ids.TargetId,
  workspaceId: row.workspace_id as Ids.WorkspaceId,
  postId: row.post_id as Ids.PostId,
  accountId: row.account_id as Ids.AccountId,
  platform: row.platform as TargetRecord["platform"],
  status: row.status as TargetRecord["status"],
  options: fromJson(row.options) as TargetRecord["options"],
  consent: (fromJson(row.consent) ?? null) as TargetRecord["consent"],
  permalink: (row.permalink ?? null) as string | null,
  publishedAt: toNumberOrNull(row.published_at),
  error: (fromJson(row.error) ?? null) as TargetRecord["error"],
  attempts: toNumber(row.attempts),
  platformState: fromJson(row.platform_state) ?? null,
  dueAt: toNumberOrNull(row.due_at),
  leaseOwner: (row.lease_owner ?? null) as string | null,
  leaseUntil: toNumberOrNull(row.lease_until),
  updatedAt: toNumber(row.updated_at)
})

/** A claimed target: with `unconfirmedSince` when the platform may have published it. */
const claimedFromRow = (row: Row): TargetRecord => {
  const since = toNumberOrNull(row.unconfirmed_since)
  return since === null ? targetFromRow(row) : { ...targetFromRow(row), unconfirmedSince: since }
}
