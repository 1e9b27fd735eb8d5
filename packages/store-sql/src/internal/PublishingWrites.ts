/**
 * The publisher's writes to the targets it holds (`saveCheckpoint`, `saveProgress`,
 * `completeTarget`), many at once: the statements a group commit runs for one batch.
 *
 * A batch of checkpoints and progress saves without account changes is one statement: it locks
 * the batch's posts in key order, changes each target still held by its caller, and bumps each
 * post's version once per target changed. A batch with a completion (or an account change) is a
 * transaction: the posts locked in key order; every target changed, with the latest status of
 * every target of each completed post (read after the locks, so the completion's rule sets the
 * post's status from them as a single completion would); the accounts locked in key order, if any
 * changes; then one statement for the posts, the events, the pending permalinks, the comment
 * polls and the accounts. Every writer of a post locks its row first and accounts last, in key
 * order, so batches of several instances and the API's writes never wait on each other in a
 * circle.
 *
 * Each write answers whether its caller still held the target: a lost lease changes nothing of
 * that write and nothing of the others'. A batch never holds two writes of one target (the
 * group commit's key), so every write of the batch reads as if written one after the other.
 *
 * @internal
 */
import type {
  AccountChange,
  Checkpoint,
  Completion,
  OutboxEvent,
  Progress,
  TargetKey,
  TargetRecord
} from "@postwire/core"
import { Array as Arr, Effect, type Scope } from "effect"
import { SqlClient, type SqlError, Statement } from "effect/sql"
import * as GroupCommit from "./GroupCommit.ts"
import { eventEntries } from "./SqlToolkit.ts"

/** One write of the publisher to a target it holds. */
export type PublishingWrite =
  | { readonly _tag: "Checkpoint"; readonly key: TargetKey; readonly owner: string; readonly checkpoint: Checkpoint }
  | { readonly _tag: "Progress"; readonly key: TargetKey; readonly owner: string; readonly progress: Progress }
  | { readonly _tag: "Completion"; readonly key: TargetKey; readonly owner: string; readonly completion: Completion }

/** The target a write changes: two writes of one target never share a batch. */
const targetOf = (write: PublishingWrite): string => `${write.key.workspaceId}\u0000${write.key.targetId}`

/** How many times a batch that PostgreSQL chose as a deadlock's victim is written again. */
const deadlockRetries = 3

const accountOf = (write: PublishingWrite): AccountChange | undefined =>
  write._tag === "Checkpoint" ? undefined : write._tag === "Progress" ? write.progress.account : write.completion.account

const hasChange = (change: AccountChange | undefined) => change?.credentials !== undefined || change?.status !== undefined

const atOf = (write: PublishingWrite): number =>
  write._tag === "Checkpoint" ? write.checkpoint.at : write._tag === "Progress" ? write.progress.at : write.completion.at

/** The batch's row of one write, as `jsonb_to_recordset` reads it (`null` and absent are SQL `NULL`). */
const recordOf = (write: PublishingWrite, i: number) => {
  const base = { i, ws: write.key.workspaceId, post: write.key.postId, target: write.key.targetId, owner: write.owner }
  switch (write._tag) {
    case "Checkpoint":
      return { ...base, kind: "checkpoint", at: write.checkpoint.at, state: write.checkpoint.platformState ?? null }
    case "Progress":
      return {
        ...base,
        kind: "progress",
        at: write.progress.at,
        state: write.progress.platformState ?? null,
        due: write.progress.dueAt,
        keep: write.progress.keepLease === true
      }
    case "Completion": {
      const { at, outcome } = write.completion
      const published = outcome._tag === "Published"
      return {
        ...base,
        kind: "complete",
        at,
        state: outcome.platformState ?? null,
        status: published ? "published" : "failed",
        permalink: published ? outcome.permalink : null,
        published: published ? outcome.publishedAt : null,
        error: outcome._tag === "Failed" ? outcome.error : null
      }
    }
  }
}

const recordColumns = `i int, kind text, ws text, post text, target text, owner text, at bigint, state jsonb,
  due bigint, keep boolean, status text, permalink text, published bigint, error jsonb`

/**
 * The list padded to a power of two with its last item: the statements of batches of similar
 * sizes have one text, prepared once per connection instead of parsed for every batch.
 */
const padded = (ids: Array<string>): Array<string> => {
  const size = 2 ** Math.ceil(Math.log2(ids.length))
  while (ids.length < size) ids.push(ids[ids.length - 1]!)
  return ids
}

/** An event as `jsonb_to_recordset` reads it into `outbox_events`. */
const eventRecord = (event: OutboxEvent) => ({
  workspace_id: event.workspaceId,
  id: event.id,
  type: event.type,
  created_at: event.createdAt,
  livemode: event.livemode,
  data: event.data
})

/** A changed target, as the batch's target statement returns it. */
interface Changed {
  readonly accountId: string
  readonly platform: string
  /** For a completion: every target's status of its post, after the batch. */
  readonly statuses: ReadonlyArray<TargetRecord["status"]> | undefined
}

/** What the batch does to one post: a version per target changed, the last time, the status a completion set. */
interface PostChange {
  readonly workspaceId: string
  readonly id: string
  n: number
  at: number
  status: string | null
}

/** Writes one write of the publisher together with the concurrent ones. */
export interface PublishingWrites {
  /** Answers whether the caller still held the target (nothing was written when not). */
  readonly write: (write: PublishingWrite) => Effect.Effect<boolean, SqlError.SqlError>
}

/** A write, with the statement transformer of its caller (`Statement.CurrentTransformer`). */
interface Call {
  readonly write: PublishingWrite
  readonly transformer: Statement.Transformer | undefined
}

/**
 * Starts the group commit of the publisher's writes on the current `SqlClient`; its writer
 * lives as long as the scope. A batch's statements go through the statement transformer of
 * its first call that has one, as a single call's would.
 */
export const make = (options: {
  readonly maxBatch: number
}): Effect.Effect<PublishingWrites, never, SqlClient.SqlClient | Scope.Scope> =>
  Effect.gen(function* () {
    const writeBatch = yield* batchWriter
    const commits = yield* GroupCommit.make({
      maxBatch: options.maxBatch,
      key: (call: Call) => targetOf(call.write),
      write: (calls: ReadonlyArray<Call>) => {
        const transformer = calls.find((call) => call.transformer !== undefined)?.transformer
        const written = writeBatch(calls.map((call) => call.write))
        return transformer === undefined ? written : Effect.provideService(written, Statement.CurrentTransformer, transformer)
      }
    })
    return {
      write: (write) =>
        Effect.flatMap(Effect.service(Statement.CurrentTransformer), (transformer) => commits.write({ write, transformer }))
    }
  })

/**
 * Writes every write of a batch and answers, for each in order, whether its caller still held
 * the target.
 */
const batchWriter: Effect.Effect<
  (writes: ReadonlyArray<PublishingWrite>) => Effect.Effect<ReadonlyArray<boolean>, SqlError.SqlError>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const recordSet = (writes: ReadonlyArray<PublishingWrite>) =>
    sql`jsonb_to_recordset(${JSON.stringify(writes.map(recordOf))}::jsonb) AS v(${sql.literal(recordColumns)})`

  /**
   * `(<ws> = w AND <id> IN (...)) OR ...` for `(workspace_id, id)` pairs: a list the planner
   * counts, so it reads the rows by their key at any table size (it guesses a hundred rows for
   * `jsonb_to_recordset`, and would scan a small table whole).
   */
  const keyIn = (workspaceColumn: string, idColumn: string, pairs: ReadonlyArray<readonly [string, string]>) => {
    const byWorkspace = new Map<string, Set<string>>()
    for (const [workspaceId, id] of pairs) {
      const ids = byWorkspace.get(workspaceId)
      if (ids === undefined) byWorkspace.set(workspaceId, new Set([id]))
      else ids.add(id)
    }
    return sql.or(
      [...byWorkspace].map(([workspaceId, ids]) => sql`(${sql(workspaceColumn)} = ${workspaceId} AND ${sql.in(idColumn, padded([...ids]))})`)
    )
  }

  const postsOf = (writes: ReadonlyArray<PublishingWrite>) =>
    writes.map((write) => [write.key.workspaceId, write.key.postId] as const)

  /**
   * Checkpoints and progress saves: one statement, no transaction. The batch's posts are locked
   * first: the one-time filter on `v` reads `locked` before the first row of the batch is joined.
   * A write whose post is gone finds no target (they went with it). The targets are joined to the
   * batch by their key, never filtered by a list of the batch's ids: with a list the planner
   * could (without statistics) take the targets first and read the batch's rows once for each
   * of them, 7,140 rows compared for a batch of 85, most of the statement's time.
   */
  const saveHeld = (writes: ReadonlyArray<PublishingWrite>) =>
    sql`WITH locked AS MATERIALIZED (
        SELECT p.workspace_id, p.id FROM posts p
        WHERE ${keyIn("p.workspace_id", "p.id", postsOf(writes))}
        ORDER BY p.workspace_id, p.id
        FOR UPDATE
      ), v AS (SELECT * FROM ${recordSet(writes)} WHERE (SELECT count(*) FROM locked) >= 0),
      done AS (
        UPDATE targets t SET
          platform_state = v.state,
          unconfirmed_since = CASE WHEN v.kind = 'checkpoint' THEN COALESCE(t.unconfirmed_since, v.at) ELSE t.unconfirmed_since END,
          due_at = CASE WHEN v.kind = 'progress' THEN v.due ELSE t.due_at END,
          lease_owner = CASE WHEN v.kind = 'progress' AND NOT v.keep THEN NULL ELSE t.lease_owner END,
          lease_until = CASE WHEN v.kind = 'progress' AND NOT v.keep THEN NULL ELSE t.lease_until END,
          updated_at = v.at
        FROM v
        WHERE t.workspace_id = v.ws AND t.id = v.target AND t.lease_owner = v.owner AND t.status = 'publishing'
        RETURNING v.i, v.ws, v.post, v.at
      ), bumped AS (
        UPDATE posts p SET version = p.version + d.n, updated_at = d.at
        FROM (SELECT ws, post, count(*)::int AS n, (array_agg(at ORDER BY i DESC))[1] AS at FROM done GROUP BY ws, post) d
        WHERE p.workspace_id = d.ws AND p.id = d.post AND ${keyIn("p.workspace_id", "p.id", postsOf(writes))}
      )
      SELECT i FROM done`.pipe(
      Effect.map((rows) => {
        const held = new Set(rows.map((row) => Number(row.i)))
        return writes.map((_, i) => held.has(i))
      })
    )

  /** Locks the rows of `table` named by `(workspace_id, id)` pairs, in key order; returns those found. */
  const lockInOrder = (table: "posts" | "accounts", pairs: ReadonlyArray<readonly [string, string]>) =>
    sql`SELECT workspace_id, id FROM ${sql(table)}
      WHERE ${keyIn("workspace_id", "id", pairs)}
      ORDER BY workspace_id, id
      FOR UPDATE`.pipe(Effect.map((rows) => new Set(rows.map((row) => `${row.workspace_id}\u0000${row.id}`))))

  /**
   * Changes every target still held by its caller; for each completion, reads every target's
   * status of its post as the batch leaves it (the statement's snapshot, taken after the posts'
   * locks, has the other writers' latest; the batch's own changes come from `done`). The targets
   * are joined to the batch by their key (see `saveHeld`).
   */
  const changeTargets = (writes: ReadonlyArray<PublishingWrite>, indexes: ReadonlyArray<number>) =>
    sql`WITH v AS (SELECT * FROM ${recordSet(writes)}),
      done AS (
        UPDATE targets t SET
          status = CASE WHEN v.kind = 'complete' THEN v.status ELSE t.status END,
          permalink = CASE WHEN v.kind = 'complete' THEN v.permalink ELSE t.permalink END,
          published_at = CASE WHEN v.kind = 'complete' THEN v.published ELSE t.published_at END,
          quota_at = CASE WHEN v.kind = 'complete' AND v.status = 'published' THEN v.published ELSE t.quota_at END,
          error = CASE WHEN v.kind = 'complete' THEN v.error ELSE t.error END,
          attempts = CASE WHEN v.kind = 'complete' THEN t.attempts + 1 ELSE t.attempts END,
          platform_state = v.state,
          unconfirmed_since = CASE v.kind WHEN 'checkpoint' THEN COALESCE(t.unconfirmed_since, v.at)
            WHEN 'complete' THEN NULL ELSE t.unconfirmed_since END,
          due_at = CASE v.kind WHEN 'progress' THEN v.due WHEN 'complete' THEN NULL ELSE t.due_at END,
          lease_owner = CASE WHEN v.kind = 'complete' OR (v.kind = 'progress' AND NOT v.keep) THEN NULL ELSE t.lease_owner END,
          lease_until = CASE WHEN v.kind = 'complete' OR (v.kind = 'progress' AND NOT v.keep) THEN NULL ELSE t.lease_until END,
          updated_at = v.at
        FROM v
        WHERE t.workspace_id = v.ws AND t.id = v.target AND t.lease_owner = v.owner AND t.status = 'publishing'
        RETURNING v.i, v.kind, v.ws, v.post, t.id, t.status, t.account_id, t.platform
      )
      SELECT d.i, d.account_id, d.platform,
        CASE WHEN d.kind = 'complete' THEN (
          SELECT string_agg(COALESCE(o.status, t.status), ',')
          FROM targets t LEFT JOIN done o ON o.ws = t.workspace_id AND o.id = t.id
          WHERE t.workspace_id = d.ws AND t.post_id = d.post
        ) END AS statuses
      FROM done d`.pipe(
      Effect.map((rows) => {
        const changed = new Map<number, Changed>()
        for (const row of rows) {
          const statuses = row.statuses === null || row.statuses === undefined ? undefined : String(row.statuses)
          changed.set(indexes[Number(row.i)]!, {
            accountId: row.account_id as string,
            platform: row.platform as string,
            statuses: statuses?.split(",") as Array<TargetRecord["status"]> | undefined
          })
        }
        return changed
      })
    )

  /** The posts, the events, what the completions start, and the accounts: one statement. */
  const writeEffects = (writes: ReadonlyArray<PublishingWrite>, changed: ReadonlyMap<number, Changed>) => {
    const posts = new Map<string, PostChange>()
    const events: Array<OutboxEvent> = []
    const pending: Array<Record<string, unknown>> = []
    const polls: Array<Record<string, unknown>> = []
    const accounts = new Map<string, { ws: string; id: string; credentials: string | null; status: string | null }>()
    writes.forEach((write, i) => {
      const target = changed.get(i)
      if (target === undefined) return
      const { workspaceId, postId, targetId } = write.key
      const at = atOf(write)
      const postKey = `${workspaceId}\u0000${postId}`
      const post = posts.get(postKey) ?? { workspaceId, id: postId, n: 0, at, status: null }
      post.n += 1
      post.at = at
      if (target.statuses !== undefined && write._tag === "Completion") post.status = write.completion.postStatus(target.statuses)
      posts.set(postKey, post)
      if (write._tag === "Completion") {
        const { outcome } = write.completion
        events.push(...write.completion.events)
        if (outcome._tag === "Published" && outcome.permalinkAskAt !== undefined) {
          pending.push({
            workspace_id: workspaceId,
            target_id: targetId,
            post_id: postId,
            account_id: target.accountId,
            since: outcome.publishedAt,
            ask_at: outcome.permalinkAskAt
          })
        }
        if (outcome._tag === "Published" && outcome.tracking !== undefined) {
          // From now on the target's comments are polled (CommentIngestion).
          polls.push({
            workspace_id: workspaceId,
            target_id: targetId,
            post_id: postId,
            account_id: target.accountId,
            platform: target.platform,
            platform_post_id: outcome.tracking.platformPostId,
            published_at: outcome.publishedAt,
            next_poll_at: outcome.tracking.firstCommentPollAt
          })
        }
      }
      const change = accountOf(write)
      if (hasChange(change)) {
        // Applied in the batch's order: the last credentials and the last status win, every event is written.
        const accountKey = `${workspaceId}\u0000${target.accountId}`
        const account = accounts.get(accountKey) ?? { ws: workspaceId, id: target.accountId, credentials: null, status: null }
        if (change?.credentials !== undefined) account.credentials = change.credentials
        if (change?.status !== undefined) {
          account.status = change.status.value
          events.push(...change.status.events)
        }
        accounts.set(accountKey, account)
      }
    })
    const statements: Array<Statement.Fragment> = []
    if (posts.size > 0) {
      const rows = [...posts.values()].map(({ at, id, n, status, workspaceId }) => ({ ws: workspaceId, id, n, at, status }))
      statements.push(sql`post AS (UPDATE posts p SET version = p.version + u.n, updated_at = u.at, status = COALESCE(u.status, p.status)
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS u(ws text, id text, n int, at bigint, status text)
        WHERE p.workspace_id = u.ws AND p.id = u.id
          AND ${keyIn("p.workspace_id", "p.id", rows.map((row) => [row.ws, row.id] as const))})`)
    }
    if (Arr.isReadonlyArrayNonEmpty(events)) {
      statements.push(
        ...eventEntries(
          sql,
          "events",
          sql`INSERT INTO outbox_events (workspace_id, id, type, created_at, livemode, data)
            SELECT workspace_id, id, type, created_at, livemode, data
            FROM jsonb_to_recordset(${JSON.stringify(events.map(eventRecord))}::jsonb)
              AS e(workspace_id text, id text, type text, created_at bigint, livemode boolean, data jsonb)`
        )
      )
    }
    if (Arr.isReadonlyArrayNonEmpty(pending)) {
      statements.push(sql`pending AS (INSERT INTO pending_permalinks
          (workspace_id, target_id, post_id, account_id, since, asked, ask_at, lease_owner, lease_until)
        SELECT workspace_id, target_id, post_id, account_id, since, 0, ask_at, NULL, NULL
        FROM jsonb_to_recordset(${JSON.stringify(pending)}::jsonb)
          AS r(workspace_id text, target_id text, post_id text, account_id text, since bigint, ask_at bigint)
        ON CONFLICT (workspace_id, target_id) DO UPDATE SET since = EXCLUDED.since, asked = 0,
          ask_at = EXCLUDED.ask_at, lease_owner = NULL, lease_until = NULL)`)
    }
    if (Arr.isReadonlyArrayNonEmpty(polls)) {
      statements.push(sql`polls AS (INSERT INTO comment_polls (workspace_id, target_id, post_id, account_id, platform,
          platform_post_id, published_at, cursor, next_poll_at, failures, lease_owner, lease_until)
        SELECT workspace_id, target_id, post_id, account_id, platform, platform_post_id, published_at, NULL, next_poll_at, 0, NULL, NULL
        FROM jsonb_to_recordset(${JSON.stringify(polls)}::jsonb) AS r(workspace_id text, target_id text, post_id text,
          account_id text, platform text, platform_post_id text, published_at bigint, next_poll_at bigint)
        ON CONFLICT (workspace_id, target_id) DO NOTHING)`)
      // And its metrics are read (AnalyticsCollection, which places the first reading on its schedule).
      statements.push(sql`analytics AS (INSERT INTO analytics_targets (workspace_id, target_id, post_id, account_id, platform,
          platform_post_id, published_at, state, next_due_at)
        SELECT workspace_id, target_id, post_id, account_id, platform, platform_post_id, published_at, 'active', published_at
        FROM jsonb_to_recordset(${JSON.stringify(polls)}::jsonb) AS r(workspace_id text, target_id text, post_id text,
          account_id text, platform text, platform_post_id text, published_at bigint)
        ON CONFLICT (workspace_id, target_id) DO NOTHING)`)
    }
    if (accounts.size > 0) {
      statements.push(sql`accounts AS (UPDATE accounts a
        SET credentials = COALESCE(u.credentials, a.credentials), status = COALESCE(u.status, a.status)
        FROM jsonb_to_recordset(${JSON.stringify([...accounts.values()])}::jsonb) AS u(ws text, id text, credentials text, status text)
        WHERE a.workspace_id = u.ws AND a.id = u.id
          AND ${keyIn("a.workspace_id", "a.id", [...accounts.values()].map((row) => [row.ws, row.id] as const))})`)
    }
    const lockAccounts =
      accounts.size > 0
        ? lockInOrder("accounts", [...accounts.values()].map(({ id, ws }) => [ws, id] as const))
        : Effect.void
    return statements.length === 0
      ? Effect.void
      : lockAccounts.pipe(Effect.andThen(sql`WITH ${sql.csv(statements)} SELECT 1`))
  }

  /** Any batch: a transaction of the posts' locks, the targets, the accounts' locks and the rest. */
  const saveAll = (writes: ReadonlyArray<PublishingWrite>) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const posts = yield* lockInOrder(
          "posts",
          writes.map((write) => [write.key.workspaceId, write.key.postId] as const)
        )
        // A write whose post is gone changes nothing.
        const indexes = writes.flatMap((write, i) =>
          posts.has(`${write.key.workspaceId}\u0000${write.key.postId}`) ? [i] : []
        )
        if (indexes.length === 0) return writes.map(() => false)
        const changed = yield* changeTargets(
          indexes.map((i) => writes[i]!),
          indexes
        )
        if (changed.size > 0) yield* writeEffects(writes, changed)
        return writes.map((_, i) => changed.has(i))
      })
    )

  return (writes: ReadonlyArray<PublishingWrite>) => {
    if (writes.length === 0) return Effect.succeed([])
    const simple = writes.every((write) => write._tag !== "Completion" && !hasChange(accountOf(write)))
    const save = simple ? saveHeld(writes) : saveAll(writes)
    // Another transaction waited on a row this batch held while this batch waited on one of its
    // own (a worker renewing its leases takes its targets in its own order): nothing was
    // written, so the batch is written again.
    return save.pipe(
      Effect.retry({
        times: deadlockRetries,
        while: (error) => error.reason._tag === "DeadlockError"
      })
    )
  }
})
