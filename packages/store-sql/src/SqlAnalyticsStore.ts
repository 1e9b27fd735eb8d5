/**
 * The `AnalyticsStore` on SQL (PostgreSQL and the embedded database): tables of migration
 * `0016_analytics`. A claim is an index range on `analytics_targets_due` (`FOR UPDATE SKIP
 * LOCKED`); a round's readings, snapshots and rollup gains are written in one transaction, and
 * only for targets whose lease the collector still holds; the rollup adds gains with one
 * `INSERT … ON CONFLICT DO UPDATE` per quarter hour, so concurrent collectors never lose one.
 *
 * @since 0.5.0
 */
import {
  type AccountDayRecord,
  type AnalyticsTarget,
  AnalyticsStore,
  type AnalyticsStoreShape,
  bucketOf,
  gain,
  type MetricValues,
  type PostMetricName,
  postMetricNames,
  type RawMetrics,
  type RollupFilter,
  type RollupSum
} from "@postwire/core"
import type { Ids } from "@postwire/domain"
import { Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import { insertEvents, migratedLayer, operations, toNumber, toNumberOrNull } from "./internal/SqlToolkit.ts"

const json = (value: unknown): never => (typeof value === "string" ? JSON.parse(value) : (value ?? {})) as never

const targetFromRow = (row: Record<string, unknown>): AnalyticsTarget => ({
  workspaceId: row.workspace_id as Ids.WorkspaceId,
  targetId: row.target_id as Ids.TargetId,
  postId: row.post_id as Ids.PostId,
  accountId: row.account_id as Ids.AccountId,
  platform: row.platform as string,
  platformPostId: row.platform_post_id as string,
  publishedAt: toNumber(row.published_at),
  state: row.state as AnalyticsTarget["state"],
  nextDueAt: toNumberOrNull(row.next_due_at),
  failures: toNumber(row.failures),
  collectedAt: toNumberOrNull(row.collected_at),
  values: json(row.metrics),
  raw: json(row.raw),
  leaseOwner: (row.lease_owner as string | null) ?? null,
  leaseUntil: toNumberOrNull(row.lease_until)
})

const valuesFromRow = (row: Record<string, unknown>): MetricValues<PostMetricName> => {
  const out: Partial<Record<PostMetricName, number>> = {}
  for (const name of postMetricNames) {
    const value = row[name]
    if (value !== null && value !== undefined) out[name] = toNumber(value)
  }
  return out
}

/** Builds the store over the `SqlClient` in context. */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const operation = operations("AnalyticsStore")

  const rollupFilter = (workspaceId: string, filter: RollupFilter) => {
    const conditions = [sql`workspace_id = ${workspaceId}`]
    if (filter.profileId !== undefined) conditions.push(sql`profile_id = ${filter.profileId}`)
    if (filter.platform !== undefined) conditions.push(sql`platform = ${filter.platform}`)
    if (filter.accountId !== undefined) conditions.push(sql`account_id = ${filter.accountId}`)
    if (filter.accountIds !== undefined) {
      conditions.push(filter.accountIds.length === 0 ? sql`FALSE` : sql`${sql.in("account_id", filter.accountIds)}`)
    }
    return conditions
  }
  const sums = sql.literal(postMetricNames.map((name) => `sum(${name}) AS ${name}`).join(", "))

  const shape: AnalyticsStoreShape = {
    trackTarget: (t) =>
      operation("trackTarget")(
        sql`INSERT INTO analytics_targets ${sql.insert({
          workspace_id: t.workspaceId,
          target_id: t.targetId,
          post_id: t.postId,
          account_id: t.accountId,
          platform: t.platform,
          platform_post_id: t.platformPostId,
          published_at: t.publishedAt,
          state: t.state,
          next_due_at: t.nextDueAt,
          failures: t.failures
        })} ON CONFLICT (workspace_id, target_id) DO NOTHING`.pipe(Effect.asVoid)
      ),

    claimDue: ({ at, leaseUntil, limit, owner }) =>
      operation("claimDue")(
        limit <= 0
          ? Effect.succeed([])
          : sql`UPDATE analytics_targets SET lease_owner = ${owner}, lease_until = ${leaseUntil}
              WHERE (workspace_id, target_id) IN (
                SELECT workspace_id, target_id FROM analytics_targets
                WHERE next_due_at IS NOT NULL AND next_due_at <= ${at}
                  AND (lease_until IS NULL OR lease_until <= ${at})
                ORDER BY next_due_at
                LIMIT ${limit}
                FOR UPDATE SKIP LOCKED)
              RETURNING *`.pipe(
              sql.withTransaction,
              Effect.map((rows) => rows.map(targetFromRow).sort((a, b) => (a.nextDueAt ?? 0) - (b.nextDueAt ?? 0)))
            )
      ),

    saveCollection: (save) =>
      operation("saveCollection")(
        sql.withTransaction(
          Effect.gen(function* () {
            if (save.outcomes.length === 0) return []
            const ids = save.outcomes.map((o) => o.targetId)
            const heldRows = yield* sql`SELECT * FROM analytics_targets
              WHERE workspace_id = ${save.workspaceId} AND ${sql.in("target_id", ids)} AND lease_owner = ${save.owner}
              FOR UPDATE`
            const held = new Map(heldRows.map((row) => [row.target_id as string, targetFromRow(row)]))
            const saved: Array<Ids.TargetId> = []
            let gained: MetricValues<PostMetricName> = {}
            let anyGain = false
            for (const outcome of save.outcomes) {
              const current = held.get(outcome.targetId)
              if (current === undefined) continue
              saved.push(outcome.targetId)
              if (outcome.reading === undefined) {
                yield* sql`UPDATE analytics_targets SET state = ${outcome.state}, next_due_at = ${outcome.nextDueAt},
                    failures = ${outcome.failures}, lease_owner = NULL, lease_until = NULL
                  WHERE workspace_id = ${save.workspaceId} AND target_id = ${outcome.targetId}`
                continue
              }
              const inserted = yield* sql`INSERT INTO analytics_snapshots (workspace_id, target_id, collected_at, metrics, raw)
                VALUES (${save.workspaceId}, ${outcome.targetId}, ${save.at}, ${JSON.stringify(outcome.reading.values)}::jsonb,
                  ${JSON.stringify(outcome.reading.raw)}::jsonb)
                ON CONFLICT DO NOTHING RETURNING collected_at`
              const fresh = inserted.length > 0
              if (fresh) {
                const g = gain(current.values, outcome.reading.values)
                for (const [name, value] of Object.entries(g) as Array<[PostMetricName, number]>) {
                  gained = { ...gained, [name]: (gained[name] ?? 0) + value }
                  anyGain = true
                }
              }
              yield* sql`UPDATE analytics_targets SET state = ${outcome.state}, next_due_at = ${outcome.nextDueAt},
                  failures = ${outcome.failures}, lease_owner = NULL, lease_until = NULL,
                  collected_at = CASE WHEN ${fresh} THEN ${save.at} ELSE collected_at END,
                  metrics = CASE WHEN ${fresh} THEN ${JSON.stringify(outcome.reading.values)}::jsonb ELSE metrics END,
                  raw = CASE WHEN ${fresh} THEN ${JSON.stringify(outcome.reading.raw)}::jsonb ELSE raw END
                WHERE workspace_id = ${save.workspaceId} AND target_id = ${outcome.targetId}`
            }
            if (anyGain) {
              const names = (Object.keys(gained) as Array<PostMetricName>).filter((n) => postMetricNames.includes(n))
              const row: Record<string, unknown> = {
                workspace_id: save.workspaceId,
                bucket_start: bucketOf(save.at),
                profile_id: save.profileId,
                account_id: save.accountId,
                platform: save.platform
              }
              for (const name of names) row[name] = gained[name]
              const updates = sql.literal(
                names.map((n) => `${n} = COALESCE(analytics_rollups.${n}, 0) + COALESCE(EXCLUDED.${n}, 0)`).join(", ")
              )
              yield* sql`INSERT INTO analytics_rollups ${sql.insert(row)}
                ON CONFLICT (workspace_id, bucket_start, profile_id, account_id, platform) DO UPDATE SET ${updates}`
            }
            if (saved.length > 0 && save.credentials !== undefined) {
              yield* sql`UPDATE accounts SET credentials = ${save.credentials}
                WHERE workspace_id = ${save.workspaceId} AND id = ${save.accountId}`
            }
            if (saved.length > 0 && save.reconnect !== undefined) {
              const changed = yield* sql`UPDATE accounts SET status = 'needs_reconnect'
                WHERE workspace_id = ${save.workspaceId} AND id = ${save.accountId} AND status = 'connected' RETURNING id`
              if (changed.length > 0) {
                yield* sql`UPDATE account_connections SET reconnect_reason = ${JSON.stringify(save.reconnect.reason)}
                  WHERE workspace_id = ${save.workspaceId} AND account_id = ${save.accountId}`
                yield* insertEvents(sql, save.reconnect.events)
              }
            }
            return saved
          })
        )
      ),

    getTargets: (workspaceId, targetIds) =>
      operation("getTargets")(
        targetIds.length === 0
          ? Effect.succeed([])
          : sql`SELECT * FROM analytics_targets WHERE workspace_id = ${workspaceId} AND ${sql.in("target_id", targetIds)}`.pipe(
              Effect.map((rows) => rows.map(targetFromRow))
            )
      ),

    listSnapshots: (workspaceId, targetId) =>
      operation("listSnapshots")(
        sql`SELECT collected_at, metrics, raw FROM analytics_snapshots
          WHERE workspace_id = ${workspaceId} AND target_id = ${targetId} ORDER BY collected_at`.pipe(
          Effect.map((rows) =>
            rows.map((row) => ({ collectedAt: toNumber(row.collected_at), values: json(row.metrics), raw: json(row.raw) as RawMetrics }))
          )
        )
      ),

    listGroups: (workspaceId, filter, start, end, after, limit) =>
      operation("listGroups")(
        Effect.gen(function* () {
          const conditions = [...rollupFilter(workspaceId, filter), sql`bucket_start >= ${start}`, sql`bucket_start < ${end}`]
          if (after !== undefined) conditions.push(sql`(profile_id, platform) > (${after.profileId}, ${after.platform})`)
          const rows = yield* sql`SELECT DISTINCT profile_id, platform FROM analytics_rollups WHERE ${sql.and(conditions)}
            ORDER BY profile_id, platform LIMIT ${Math.max(0, limit)}`
          return rows.map((row) => ({ profileId: row.profile_id as Ids.ProfileId, platform: row.platform as string }))
        })
      ),

    sumByDay: (workspaceId, filter, boundaries, groups) =>
      operation("sumByDay")(
        Effect.gen(function* () {
          if (boundaries.length < 2 || (groups !== undefined && groups.length === 0)) return []
          const start = boundaries[0]!
          const end = boundaries[boundaries.length - 1]!
          const conditions = [...rollupFilter(workspaceId, filter), sql`bucket_start >= ${start}`, sql`bucket_start < ${end}`]
          if (groups !== undefined) {
            conditions.push(sql`(${sql.or(groups.map((g) => sql`(profile_id = ${g.profileId} AND platform = ${g.platform})`))})`)
          }
          const thresholds = sql.literal(`ARRAY[${boundaries.map((b) => Math.trunc(b)).join(",")}]::bigint[]`)
          const rows =
            groups === undefined
              ? yield* sql`SELECT width_bucket(bucket_start, ${thresholds}) AS day, ${sums}
                  FROM analytics_rollups WHERE ${sql.and(conditions)} GROUP BY 1`
              : yield* sql`SELECT profile_id, platform, width_bucket(bucket_start, ${thresholds}) AS day, ${sums}
                  FROM analytics_rollups WHERE ${sql.and(conditions)} GROUP BY 1, 2, 3`
          return rows.map(
            (row): RollupSum => ({
              day: toNumber(row.day) - 1,
              ...(groups === undefined
                ? {}
                : { group: { profileId: row.profile_id as Ids.ProfileId, platform: row.platform as string } }),
              values: valuesFromRow(row)
            })
          )
        })
      ),

    getAccount: (workspaceId, accountId) =>
      operation("getAccount")(
        sql`SELECT * FROM analytics_accounts WHERE workspace_id = ${workspaceId} AND account_id = ${accountId}`.pipe(
          Effect.map(([row]) =>
            row === undefined
              ? Option.none()
              : Option.some({
                  collectedAt: toNumberOrNull(row.collected_at),
                  nextDueAt: toNumber(row.next_due_at),
                  current: json(row.current)
                })
          )
        )
      ),

    saveAccount: (workspaceId, accountId, input) =>
      operation("saveAccount")(
        sql.withTransaction(
          Effect.gen(function* () {
            if (input.reading === undefined) {
              yield* sql`INSERT INTO analytics_accounts (workspace_id, account_id, next_due_at)
                VALUES (${workspaceId}, ${accountId}, ${input.nextDueAt})
                ON CONFLICT (workspace_id, account_id) DO UPDATE SET next_due_at = EXCLUDED.next_due_at`
              return
            }
            const reading = input.reading
            yield* sql`INSERT INTO analytics_accounts (workspace_id, account_id, collected_at, next_due_at, current)
              VALUES (${workspaceId}, ${accountId}, ${input.at}, ${input.nextDueAt}, ${JSON.stringify(reading.current)}::jsonb)
              ON CONFLICT (workspace_id, account_id) DO UPDATE SET collected_at = EXCLUDED.collected_at,
                next_due_at = EXCLUDED.next_due_at, current = EXCLUDED.current`
            const days: Array<AccountDayRecord> = [
              ...reading.days,
              { date: input.today, values: reading.current, raw: reading.currentRaw }
            ]
            for (const day of days) {
              yield* sql`INSERT INTO analytics_account_days (workspace_id, account_id, date, metrics, raw)
                VALUES (${workspaceId}, ${accountId}, ${day.date}, ${JSON.stringify(day.values)}::jsonb, ${JSON.stringify(day.raw)}::jsonb)
                ON CONFLICT (workspace_id, account_id, date) DO UPDATE SET
                  metrics = analytics_account_days.metrics || EXCLUDED.metrics, raw = analytics_account_days.raw || EXCLUDED.raw`
            }
          })
        )
      ),

    listAccountDays: (workspaceId, accountId, from, to) =>
      operation("listAccountDays")(
        sql`SELECT date, metrics, raw FROM analytics_account_days
          WHERE workspace_id = ${workspaceId} AND account_id = ${accountId} AND date >= ${from} AND date <= ${to}
          ORDER BY date`.pipe(
          Effect.map((rows) => rows.map((row) => ({ date: row.date as string, values: json(row.metrics), raw: json(row.raw) })))
        )
      )
  }
  return AnalyticsStore.of(shape)
})

/** The SQL analytics store; migrates the database first. */
export const layer = migratedLayer(AnalyticsStore, make)
