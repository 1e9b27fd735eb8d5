/**
 * The `PublishingStore` on SQL (PostgreSQL and the embedded PGlite).
 *
 * Claims lock due targets with `FOR UPDATE SKIP LOCKED`, so instances sharing one PostgreSQL
 * never claim the same target, and then lock the targets' accounts (briefly, in key order), so
 * the per-account count of leased targets is exact across instances. Every write that changes a
 * target first locks its post row (`FOR UPDATE`), like `Store.savePost` does, so the two take
 * locks in the same order, and writes the post's status the engine decided and bumps its `version` in the
 * same transaction: a concurrent save of the post fails with `VersionConflict` and re-reads.
 * Pending permalinks are claimed the same way, from their own small table. Concurrent
 * checkpoints, progress saves and completions are written together (`internal/GroupCommit.ts`,
 * `internal/PublishingWrites.ts`), posts and accounts locked in key order.
 *
 * @since 0.1.0
 */

import {
  type AccountRecord,
  type MediaRecord,
  type PostRecord,
  planSteps,
  PublishingStore,
  type PublishingStoreShape,
  type StepsRead,
  type TargetRecord,
  TargetStatus
} from "@postwire/core"
import { Array as Arr, Effect, type Layer, type Scope } from "effect"
import { SqlClient } from "effect/sql"
import * as PublishingWrites from "./internal/PublishingWrites.ts"
import { accountFromRow, mediaFromRow, pendingFromRow, postFromRow, targetFromRow } from "./internal/Rows.ts"
import { eventRowsEntries, migratedLayer, operations, toNumber, toNumberOrNull } from "./internal/SqlToolkit.ts"

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
            // Every due row is looked at (one account's backlog must not hide another's due
            // targets), so what is checked per row is kept cheap: the leases per account and the
            // workspaces with media still processing are read once, from their partial indexes
            // (bounded by the work in flight, not by history), and a post's media are looked at
            // only in such a workspace. The accounts at their limit are a set the planner hashes
            // (`NOT IN`, both columns NOT NULL): a join to the leases per account was planned as a
            // nested loop, every due row compared with every busy account (23,128 comparisons for
            // one claim of a 1,000-target burst).
            const due = yield* sql`WITH busy AS MATERIALIZED (
                SELECT workspace_id, account_id, count(*) AS n FROM targets
                WHERE lease_owner IS NOT NULL AND lease_until > ${at}
                GROUP BY workspace_id, account_id
              ), processing AS MATERIALIZED (
                SELECT DISTINCT workspace_id FROM media WHERE status = 'processing'
              ), due AS MATERIALIZED (
                SELECT t.workspace_id, t.id, t.account_id, t.due_at FROM targets t
                WHERE t.status IN ('queued', 'scheduled', 'publishing')
                  AND t.due_at <= ${at}
                  AND (t.lease_until IS NULL OR t.lease_until <= ${at})
                  AND (t.workspace_id, t.account_id) NOT IN (SELECT workspace_id, account_id FROM busy WHERE n >= ${perAccount})
                  AND (t.workspace_id NOT IN (SELECT workspace_id FROM processing)
                    OR NOT EXISTS (SELECT 1 FROM posts p JOIN media m ON m.workspace_id = p.workspace_id
                                     AND m.id IN (SELECT jsonb_array_elements_text(p.media))
                                   WHERE p.workspace_id = t.workspace_id AND p.id = t.post_id AND m.status = 'processing'))
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

    startSteps: (request) => {
      /**
       * What `startSteps` reads, in one statement: the posts with their targets, the targets'
       * accounts, the posts' media, and for the accounts of the targets that start, what they
       * published in the window (`targets_published`) and have publishing now (`targets_publishing`).
       */
      const readSteps = (
        posts: ReadonlyArray<readonly [workspaceId: string, postId: string]>,
        starting: ReadonlyArray<readonly [workspaceId: string, targetId: string]>,
        window: { readonly from: number; readonly to: number }
      ) =>
        sql`WITH claim_posts AS MATERIALIZED (
            SELECT * FROM posts WHERE ${inWorkspaces("id", posts)}
          ), claim_targets AS MATERIALIZED (
            SELECT t.* FROM targets t JOIN claim_posts p ON t.workspace_id = p.workspace_id AND t.post_id = p.id
          )
          SELECT 'post' AS kind, to_jsonb(p) AS row FROM claim_posts p
          UNION ALL SELECT 'target', to_jsonb(t) FROM claim_targets t
          UNION ALL SELECT 'account', to_jsonb(a) FROM accounts a
            WHERE (a.workspace_id, a.id) IN (SELECT workspace_id, account_id FROM claim_targets)
          UNION ALL SELECT 'media', to_jsonb(m) FROM media m
            WHERE (m.workspace_id, m.id) IN (SELECT workspace_id, jsonb_array_elements_text(media) FROM claim_posts)
          ${
            starting.length === 0
              ? sql``
              : sql`UNION ALL SELECT 'usage', jsonb_build_object(
                  'workspace_id', a.workspace_id, 'account_id', a.id, 'published', published.n, 'oldest', published.oldest,
                  'publishing', (SELECT count(*) FROM targets x
                    WHERE x.workspace_id = a.workspace_id AND x.account_id = a.id AND x.status = 'publishing'))
                FROM accounts a, LATERAL (
                  SELECT count(*) AS n, min(x.published_at) AS oldest FROM targets x
                  WHERE x.workspace_id = a.workspace_id AND x.account_id = a.id AND x.status = 'published'
                    AND x.published_at >= ${window.from} AND x.published_at < ${window.to}
                ) published
                WHERE (a.workspace_id, a.id) IN (SELECT workspace_id, account_id FROM claim_targets WHERE ${inWorkspaces("id", starting)})`
          }`.pipe(Effect.map(stepsReadFromRows))
      return operation("startSteps")(
        Effect.gen(function* () {
          if (request.targets.length === 0) return []
          const posts = request.targets.map((t) => [t.workspaceId, t.postId] as const)
          const starting = request.targets.filter((t) => t.status !== "publishing").map((t) => [t.workspaceId, t.id] as const)
          // Targets that only resume: one read, nothing written, nothing locked.
          if (starting.length === 0) return planSteps(request, yield* readSteps(posts, starting, request.quotaWindow)).steps
          return yield* sql.withTransaction(
            Effect.gen(function* () {
              // The posts first, in key order (every writer of a post locks it first), then the
              // targets that start, in key order (a claim skips them; the lease cannot move).
              yield* sql`WITH locked AS MATERIALIZED (
                  SELECT 1 FROM posts WHERE ${inWorkspaces("id", posts)} ORDER BY workspace_id, id FOR UPDATE
                )
                SELECT 1 FROM targets
                WHERE ${inWorkspaces("id", starting)} AND (SELECT count(*) FROM locked) > 0
                ORDER BY workspace_id, id
                FOR UPDATE`
              // A statement of its own, after the locks: its snapshot has what their holders committed.
              const plan = planSteps(request, yield* readSteps(posts, starting, request.quotaWindow))
              if (plan.started.length === 0) return plan.steps
              // Every start, each post's status (one update per status), the events: one statement.
              const byStatus = new Map<string, Array<PostRecord>>()
              for (const { post } of plan.changed) byStatus.set(post.status, [...(byStatus.get(post.status) ?? []), post])
              yield* sql`WITH ${sql.csv([
                sql`started AS (UPDATE targets SET status = 'publishing', updated_at = ${request.at}
                  WHERE ${inWorkspaces("id", plan.started.map((key) => [key.workspaceId, key.targetId] as const))}
                    AND lease_owner = ${request.owner} AND ${sql.in("status", TargetStatus.startableStatuses)})`,
                ...[...byStatus].map(([status, changed], i) =>
                  sql`${sql(`posts_${i}`)} AS (UPDATE posts SET status = ${status}, updated_at = ${request.at}, version = version + 1
                    WHERE ${inWorkspaces("id", changed.map((post) => [post.workspaceId, post.id] as const))})`
                ),
                ...(Arr.isReadonlyArrayNonEmpty(plan.events)
                  ? eventRowsEntries(sql, "events", plan.events)
                  : [])
              ])} SELECT 1`
              return plan.steps
            })
          )
        })
      )
    },

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

    renewLeases: (owner, at, leaseUntil, only) =>
      operation("renewLeases")(
        only !== undefined && only.length === 0
          ? Effect.succeed([])
          : sql`UPDATE targets SET lease_until = ${Math.max(at, leaseUntil)}
              WHERE lease_owner = ${owner}${only === undefined ? sql`` : sql` AND id = ANY(${`{${only.join(",")}}`}::text[])`}
              RETURNING id`.pipe(Effect.map((rows) => rows.map((row) => row.id as string)))
      ),

    requeueTarget: (key, owner, requeue) =>
      operation("requeueTarget")(
        sql`UPDATE targets SET due_at = ${requeue.dueAt}, lease_owner = NULL, lease_until = NULL, updated_at = ${requeue.at}
          WHERE workspace_id = ${key.workspaceId} AND id = ${key.targetId} AND lease_owner = ${owner} AND status = 'publishing'
          RETURNING id`.pipe(Effect.map((rows) => rows.length > 0))
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

/** What `startSteps` read, from its rows (each a kind and a JSON row). */
const stepsReadFromRows = (rows: ReadonlyArray<Row>): StepsRead => {
  const posts = new Map<string, PostRecord>()
  const targets = new Map<string, Array<{ readonly position: number; readonly target: TargetRecord }>>()
  const accounts = new Map<string, AccountRecord>()
  const media = new Map<string, MediaRecord>()
  const usage = new Map<string, { readonly used: number; readonly oldest: number | null }>()
  for (const { kind, row: value } of rows) {
    const row = (typeof value === "string" ? JSON.parse(value) : value) as Row
    const key = `${row.workspace_id as string}/${(row.id ?? row.account_id) as string}`
    if (kind === "post") posts.set(key, postFromRow(row))
    else if (kind === "target") {
      const post = `${row.workspace_id as string}/${row.post_id as string}`
      const list = targets.get(post) ?? []
      list.push({ position: toNumber(row.position), target: targetFromRow(row) })
      targets.set(post, list)
    } else if (kind === "account") accounts.set(key, accountFromRow(row))
    else if (kind === "media") media.set(key, mediaFromRow(row))
    else usage.set(key, { used: toNumber(row.published) + toNumber(row.publishing), oldest: toNumberOrNull(row.oldest) })
  }
  return {
    post: (workspaceId, postId) => {
      const post = posts.get(`${workspaceId}/${postId}`)
      if (post === undefined) return undefined
      const list = targets.get(`${workspaceId}/${postId}`) ?? []
      return { post, targets: list.sort((a, b) => a.position - b.position).map(({ target }) => target) }
    },
    account: (workspaceId, accountId) => accounts.get(`${workspaceId}/${accountId}`),
    media: (workspaceId, mediaId) => media.get(`${workspaceId}/${mediaId}`),
    usage: (workspaceId, accountId) => usage.get(`${workspaceId}/${accountId}`) ?? { used: 0, oldest: null }
  }
}
