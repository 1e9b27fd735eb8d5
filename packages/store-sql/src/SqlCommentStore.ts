/**
 * The `CommentStore` on SQL (PostgreSQL and the embedded PGlite).
 *
 * A comment is inserted with `ON CONFLICT DO NOTHING` on its unique key (workspace, account,
 * platform comment id), and its `comment.created` event only when the insert returned a row, in
 * the transaction that also saves the poll's cursor: two writers racing on one comment (two
 * instances, a webhook and a poll) store and announce it once, as PostgreSQL makes the second
 * insert wait for the first and then skip. Polls are claimed with `FOR UPDATE SKIP LOCKED` by
 * their indexed next poll time.
 *
 * @since 0.3.0
 */

import type { Ids } from "@postwire/domain"
import {
  type CommentPollState,
  type CommentRecord,
  CommentStore,
  type CommentStoreShape,
  type OutboxEvent,
} from "@postwire/core"
import { Effect, Layer, Option } from "effect"
import { SqlClient, } from "effect/sql"
import { commentFromRow, pollFromRow } from "./internal/Rows.ts"
import { insertEvents, operations, toNumber } from "./internal/SqlToolkit.ts"

/** Builds the comment store on the current `SqlClient`; the schema must already be migrated. */
export const make: Effect.Effect<CommentStoreShape, never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const operation = operations("CommentStore")

  const insertEvent = (event: OutboxEvent) => insertEvents(sql, [event])

  const storeCredentials = (workspaceId: string, accountId: string, credentials: string | undefined) =>
    credentials === undefined
      ? Effect.void
      : sql`UPDATE accounts SET credentials = ${credentials} WHERE workspace_id = ${workspaceId} AND id = ${accountId}`.pipe(
          Effect.asVoid
        )

  const idByPlatformId = (workspaceId: string, accountId: string, platformCommentId: string) =>
    sql`SELECT id FROM comments
      WHERE workspace_id = ${workspaceId} AND account_id = ${accountId} AND platform_comment_id = ${platformCommentId}`.pipe(
      Effect.map(([row]) => (row === undefined ? undefined : (row.id as string)))
    )

  const store: CommentStoreShape = {
    listComments: (workspaceId, filter, after, limit) =>
      operation("listComments")(
        Effect.gen(function* () {
          const conditions = [sql`workspace_id = ${workspaceId}`, sql`deleted_at IS NULL`]
          if (filter.postId !== undefined) conditions.push(sql`post_id = ${filter.postId}`)
          if (filter.targetId !== undefined) conditions.push(sql`target_id = ${filter.targetId}`)
          if (filter.accountId !== undefined) conditions.push(sql`account_id = ${filter.accountId}`)
          if (filter.platform !== undefined) conditions.push(sql`platform = ${filter.platform}`)
          if (filter.hidden !== undefined) conditions.push(sql`hidden = ${filter.hidden}`)
          if (filter.from !== undefined) conditions.push(sql`created_at >= ${filter.from}`)
          if (filter.to !== undefined) conditions.push(sql`created_at < ${filter.to}`)
          if (after !== undefined) {
            conditions.push(sql`(created_at < ${after.sortKey} OR (created_at = ${after.sortKey} AND id < ${after.id}))`)
          }
          const rows = yield* sql`SELECT * FROM comments WHERE ${sql.and(conditions)}
            ORDER BY created_at DESC, id DESC LIMIT ${Math.max(0, limit)}`
          return rows.map(commentFromRow)
        })
      ),

    getComment: (workspaceId, id) =>
      operation("getComment")(
        sql`SELECT * FROM comments WHERE workspace_id = ${workspaceId} AND id = ${id} AND deleted_at IS NULL`.pipe(
          Effect.map(([row]) => (row === undefined ? Option.none() : Option.some(commentFromRow(row))))
        )
      ),

    storeComments: (batch) =>
      operation("storeComments")(
        sql.withTransaction(
          Effect.gen(function* () {
            const known = new Map<string, string>()
            const inserted: Array<CommentRecord> = []
            for (const { eventId, record } of batch.comments) {
              const parent = record.parentPlatformCommentId
              let parentId: string | null = null
              if (parent !== null) {
                parentId = known.get(`${record.accountId}/${parent}`) ?? (yield* idByPlatformId(batch.workspaceId, record.accountId, parent)) ?? null
              }
              const rows = yield* sql`INSERT INTO comments ${sql.insert(commentRow({ ...record, workspaceId: batch.workspaceId, parentId: parentId as Ids.CommentId | null }))}
                ON CONFLICT (workspace_id, account_id, platform_comment_id) DO NOTHING
                RETURNING *`
              const row = rows[0]
              if (row === undefined) {
                const existing = yield* idByPlatformId(batch.workspaceId, record.accountId, record.platformCommentId)
                if (existing !== undefined) known.set(`${record.accountId}/${record.platformCommentId}`, existing)
                continue
              }
              const stored = commentFromRow(row)
              known.set(`${stored.accountId}/${stored.platformCommentId}`, stored.id)
              yield* insertEvent(batch.event(stored, eventId))
              inserted.push(stored)
            }
            let pollSaved = false
            if (batch.poll !== undefined) {
              const { completion, key } = batch.poll
              const saved = yield* sql`UPDATE comment_polls SET
                  cursor = ${cursorJson(completion.cursor)},
                  next_poll_at = ${completion.nextPollAt},
                  failures = 0,
                  lease_owner = NULL,
                  lease_until = NULL
                WHERE workspace_id = ${key.workspaceId} AND target_id = ${key.targetId} AND lease_owner = ${completion.owner}
                RETURNING account_id`
              if (saved[0] !== undefined) {
                yield* storeCredentials(key.workspaceId, saved[0].account_id as string, completion.credentials)
                pollSaved = true
              }
            }
            return { inserted, pollSaved }
          })
        )
      ),

    changeComment: (workspaceId, accountId, platformCommentId, change) =>
      operation("changeComment")(
        Effect.gen(function* () {
          const rows = yield* sql`UPDATE comments SET
              text = COALESCE(${change.text ?? null}, text),
              hidden = COALESCE(${change.hidden ?? null}, hidden),
              deleted_at = CASE WHEN ${change.deleted === true} THEN COALESCE(deleted_at, stored_at) ELSE deleted_at END
            WHERE workspace_id = ${workspaceId} AND account_id = ${accountId} AND platform_comment_id = ${platformCommentId}
              AND deleted_at IS NULL
            RETURNING *`
          return rows[0] === undefined ? Option.none() : Option.some(commentFromRow(rows[0]))
        })
      ),

    trackTarget: (state) =>
      operation("trackTarget")(
        sql`INSERT INTO comment_polls ${sql.insert(pollRow(state))} ON CONFLICT (workspace_id, target_id) DO NOTHING`.pipe(
          Effect.asVoid
        )
      ),

    getPollState: (key) =>
      operation("getPollState")(
        sql`SELECT * FROM comment_polls WHERE workspace_id = ${key.workspaceId} AND target_id = ${key.targetId}`.pipe(
          Effect.map(([row]) => (row === undefined ? Option.none() : Option.some(pollFromRow(row))))
        )
      ),

    claimDuePolls: ({ at, leaseUntil, limit, owner }) =>
      operation("claimDuePolls")(
        sql.withTransaction(
          Effect.gen(function* () {
            if (limit <= 0) return []
            const claimed = yield* sql`UPDATE comment_polls SET lease_owner = ${owner}, lease_until = ${leaseUntil}
              WHERE (workspace_id, target_id) IN (
                SELECT workspace_id, target_id FROM comment_polls
                WHERE next_poll_at IS NOT NULL AND next_poll_at <= ${at}
                  AND (lease_until IS NULL OR lease_until <= ${at})
                ORDER BY next_poll_at
                LIMIT ${limit}
                FOR UPDATE SKIP LOCKED)
              RETURNING *`
            return claimed
              .map(pollFromRow)
              .sort((a, b) => (a.nextPollAt ?? 0) - (b.nextPollAt ?? 0) || (a.targetId < b.targetId ? -1 : 1))
          })
        )
      ),

    deferPoll: (key, owner, deferral) =>
      operation("deferPoll")(
        sql.withTransaction(
          Effect.gen(function* () {
            const rows = yield* sql`UPDATE comment_polls SET
                next_poll_at = ${deferral.nextPollAt},
                failures = ${deferral.failures},
                lease_owner = NULL,
                lease_until = NULL
              WHERE workspace_id = ${key.workspaceId} AND target_id = ${key.targetId} AND lease_owner = ${owner}
              RETURNING account_id`
            if (rows[0] === undefined) return false
            const accountId = rows[0].account_id as string
            yield* storeCredentials(key.workspaceId, accountId, deferral.credentials)
            if (deferral.reconnect !== undefined) {
              const changed = yield* sql`UPDATE accounts SET status = 'needs_reconnect'
                WHERE workspace_id = ${key.workspaceId} AND id = ${accountId} AND status = 'connected' RETURNING id`
              if (changed.length > 0) {
                yield* sql`UPDATE account_connections SET reconnect_reason = ${JSON.stringify(deferral.reconnect.reason)}
                  WHERE workspace_id = ${key.workspaceId} AND account_id = ${accountId}`
                for (const event of deferral.reconnect.events) yield* insertEvent(event)
              }
            }
            return true
          })
        )
      ),

    findPolledTargets: (platform, accountExternalId, platformPostId) =>
      operation("findPolledTargets")(
        (accountExternalId === null
          ? sql`SELECT p.* FROM comment_polls p WHERE p.platform = ${platform} AND p.platform_post_id = ${platformPostId}`
          : sql`SELECT p.* FROM comment_polls p
              JOIN accounts a ON a.workspace_id = p.workspace_id AND a.id = p.account_id
              WHERE p.platform = ${platform} AND p.platform_post_id = ${platformPostId} AND a.external_id = ${accountExternalId}`
        ).pipe(Effect.map((rows) => rows.map(pollFromRow)))
      ),

    takeCallBudget: (workspaceId, accountId, windowStart, budget, calls) =>
      operation("takeCallBudget")(
        budget <= 0
          ? Effect.succeed(false)
          : sql`INSERT INTO comment_call_budgets ${sql.insert({
              workspace_id: workspaceId,
              account_id: accountId,
              window_start: windowStart,
              calls
            })}
            ON CONFLICT (workspace_id, account_id) DO UPDATE SET
              calls = CASE WHEN comment_call_budgets.window_start = EXCLUDED.window_start
                THEN comment_call_budgets.calls + EXCLUDED.calls ELSE EXCLUDED.calls END,
              window_start = EXCLUDED.window_start
            WHERE comment_call_budgets.window_start < EXCLUDED.window_start
              OR (comment_call_budgets.window_start = EXCLUDED.window_start AND comment_call_budgets.calls < ${budget})
            RETURNING calls`.pipe(Effect.map((rows) => rows.length > 0))
      ),

    callsUsed: (workspaceId, accountId, windowStart) =>
      operation("callsUsed")(
        sql`SELECT calls FROM comment_call_budgets
          WHERE workspace_id = ${workspaceId} AND account_id = ${accountId} AND window_start = ${windowStart}`.pipe(
          Effect.map(([row]) => (row === undefined ? 0 : toNumber(row.calls)))
        )
      ),

    addCalls: (workspaceId, accountId, windowStart, calls) =>
      operation("addCalls")(
        sql`UPDATE comment_call_budgets SET calls = calls + ${calls}
          WHERE workspace_id = ${workspaceId} AND account_id = ${accountId} AND window_start = ${windowStart}`.pipe(
          Effect.asVoid
        )
      ),

    updateAccountCredentials: (workspaceId, accountId, credentials) =>
      operation("updateAccountCredentials")(storeCredentials(workspaceId, accountId, credentials))
  }
  return store
})

/** The comment store on the current `SqlClient`. */
export const layer: Layer.Layer<CommentStore, never, SqlClient.SqlClient> = Layer.effect(CommentStore)(make)


// The opaque cursor is kept wrapped in an object, so a cursor that is itself a JSON string reads
// back the same whether the driver parses `jsonb` or hands it over as text.
const cursorJson = (cursor: unknown): string => JSON.stringify({ v: cursor ?? null })
const commentRow = (c: CommentRecord) => ({
  workspace_id: c.workspaceId,
  id: c.id,
  post_id: c.postId,
  target_id: c.targetId,
  account_id: c.accountId,
  platform: c.platform,
  platform_comment_id: c.platformCommentId,
  parent_id: c.parentId,
  parent_platform_comment_id: c.parentPlatformCommentId,
  author_handle: c.authorHandle,
  author_display_name: c.authorDisplayName,
  text: c.text,
  created_at: c.createdAt,
  hidden: c.hidden,
  like_count: c.likeCount,
  from_owner: c.fromOwner,
  permalink: c.permalink,
  stored_at: c.storedAt,
  deleted_at: null
})

const pollRow = (p: CommentPollState) => ({
  workspace_id: p.workspaceId,
  target_id: p.targetId,
  post_id: p.postId,
  account_id: p.accountId,
  platform: p.platform,
  platform_post_id: p.platformPostId,
  published_at: p.publishedAt,
  cursor: cursorJson(p.cursor),
  next_poll_at: p.nextPollAt,
  failures: p.failures,
  lease_owner: p.leaseOwner,
  lease_until: p.leaseUntil
})

