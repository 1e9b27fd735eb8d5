/**
 * Analytics (issue #42): each published target's metric collection, its snapshots, the gains
 * rolled up per account and quarter hour, and accounts' metrics. Every table leads with
 * `workspace_id`.
 *
 * - `analytics_targets`: one row per published target whose metrics are read: where its
 *   collection stands, when it is due, its lease, and its latest values (`values`, normalized
 *   names; `raw`, the platform's). `analytics_targets_due` holds only rows still collected,
 *   ordered by due time: a claim is an index range, however many targets finished.
 * - `analytics_snapshots`: one row per target and reading (`collected_at`): the history.
 * - `analytics_rollups`: what the readings gained, summed per account and quarter hour (every time
 *   zone's midnight is a quarter hour's edge); `GET /v1/analytics` sums these rows for a range of
 *   days, so its cost follows accounts and days, not targets.
 * - `analytics_accounts` and `analytics_account_days`: an account's current counts, when it is
 *   read next, and its metrics by day.
 *
 * Targets published before this migration are collected from now on (their first reading is
 * due at once; those older than the schedule's default 30 days are finished).
 *
 * @since 0.5.0
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const metricColumns = [
  "views",
  "reach",
  "likes",
  "comments",
  "shares",
  "saves",
  "reposts",
  "quotes",
  "link_clicks",
  "watch_time_seconds"
]

const statements: ReadonlyArray<string> = [
  `CREATE TABLE analytics_targets (
    workspace_id text COLLATE "C" NOT NULL,
    target_id text COLLATE "C" NOT NULL,
    post_id text COLLATE "C" NOT NULL,
    account_id text COLLATE "C" NOT NULL,
    platform text NOT NULL,
    platform_post_id text COLLATE "C" NOT NULL,
    published_at bigint NOT NULL,
    state text NOT NULL CHECK (state IN ('active', 'finished', 'gone', 'unsupported')),
    next_due_at bigint,
    failures integer NOT NULL DEFAULT 0,
    collected_at bigint,
    metrics jsonb NOT NULL DEFAULT '{}',
    raw jsonb NOT NULL DEFAULT '{}',
    lease_owner text,
    lease_until bigint,
    PRIMARY KEY (workspace_id, target_id),
    FOREIGN KEY (workspace_id, target_id) REFERENCES targets (workspace_id, id) ON DELETE CASCADE
  )`,
  `CREATE INDEX analytics_targets_due ON analytics_targets (next_due_at) WHERE next_due_at IS NOT NULL`,
  `CREATE TABLE analytics_snapshots (
    workspace_id text COLLATE "C" NOT NULL,
    target_id text COLLATE "C" NOT NULL,
    collected_at bigint NOT NULL,
    metrics jsonb NOT NULL,
    raw jsonb NOT NULL,
    PRIMARY KEY (workspace_id, target_id, collected_at),
    FOREIGN KEY (workspace_id, target_id) REFERENCES targets (workspace_id, id) ON DELETE CASCADE
  )`,
  `CREATE TABLE analytics_rollups (
    workspace_id text COLLATE "C" NOT NULL,
    bucket_start bigint NOT NULL,
    profile_id text COLLATE "C" NOT NULL,
    account_id text COLLATE "C" NOT NULL,
    platform text COLLATE "C" NOT NULL,
    ${metricColumns.map((c) => `${c} double precision`).join(",\n    ")},
    PRIMARY KEY (workspace_id, bucket_start, profile_id, account_id, platform)
  )`,
  `CREATE TABLE analytics_accounts (
    workspace_id text COLLATE "C" NOT NULL,
    account_id text COLLATE "C" NOT NULL,
    collected_at bigint,
    next_due_at bigint NOT NULL,
    current jsonb NOT NULL DEFAULT '{}',
    PRIMARY KEY (workspace_id, account_id)
  )`,
  `CREATE TABLE analytics_account_days (
    workspace_id text COLLATE "C" NOT NULL,
    account_id text COLLATE "C" NOT NULL,
    date text COLLATE "C" NOT NULL,
    metrics jsonb NOT NULL,
    raw jsonb NOT NULL,
    PRIMARY KEY (workspace_id, account_id, date)
  )`,
  `INSERT INTO analytics_targets (workspace_id, target_id, post_id, account_id, platform, platform_post_id, published_at, state, next_due_at)
    SELECT workspace_id, target_id, post_id, account_id, platform, platform_post_id, published_at,
      CASE WHEN published_at < (extract(epoch from now()) * 1000)::bigint - 2592000000 THEN 'finished' ELSE 'active' END,
      CASE WHEN published_at < (extract(epoch from now()) * 1000)::bigint - 2592000000 THEN NULL ELSE published_at END
    FROM comment_polls`
]

/** The rollup's metric columns, in the order of the normalized names. */
export const rollupColumns: ReadonlyArray<string> = metricColumns

/** Creates the analytics tables. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
