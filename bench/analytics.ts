/**
 * Analytics at 100,000 published targets against 1,000 (issue #42, "Cost"; needs `DATABASE_URL`,
 * seeds PostgreSQL with `generate_series`, about a minute). Two figures, each the large side over
 * the small one (1.00 is flat):
 *
 * - **a collection tick**: what the collector does each round, on the store (`SqlAnalyticsStore`):
 *   claim the due targets (25), then save each account's readings (a snapshot each, the latest
 *   values, the gain added to the account's quarter-hour rollup), alternating between a database
 *   whose workspace tracks `BENCH_ANALYTICS_TARGETS` published targets (default 100,000: the
 *   finished ones kept, as a year of publishing leaves them) and a database of its own tracking
 *   1,000, both with the same 25 due and 1,000 active;
 * - **`GET /v1/analytics`** (the last 30 days, by profile and platform, live key), on one server,
 *   requests interleaved between the two workspaces: both had the same readings in those 30 days
 *   (the same 1,000 recent targets over 100 accounts); the large one also holds the history of its
 *   older targets, read before the range. The query sums the account rollups of the range, so its
 *   cost follows accounts, days and the quarter hours that gained something (at most 100 accounts
 *   x 30 days x 96 here), never the targets: the table prints the rows each side summed.
 */
import { Effect, Layer, ManagedRuntime } from "effect"
import { AnalyticsStore } from "@postwire/core"
import { layerPostgres, SqlAnalyticsStore } from "@postwire/store-sql"
import { aDatabaseOfItsOwn, inTurn } from "./databases.ts"
import { historyStatements } from "./history.ts"
import { adminOf, postgresBackend } from "./posts-api.ts"
import { type Served, serve, table } from "./support.ts"

const largeTargets = Number(process.env.BENCH_ANALYTICS_TARGETS ?? 100_000)
const samples = Number(process.env.BENCH_ANALYTICS_SAMPLES ?? 100)
const accountCount = 100
const recentPosts = 550 // two targets each, every twentieth post failed: 1,045 published, 1,000 of them active
const due = 25
const day = 24 * 60 * 60 * 1000

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const p99 = (values: ReadonlyArray<number>) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.99))]!

/** A workspace of the bench: its ids, its accounts' ids are `acc_<tag>` + a number. */
interface Side {
  readonly workspace: string
  readonly profile: string
  readonly tag: string
}

/** `accountCount` sandbox Instagram accounts of the side's profile. */
const accountsStatement = (s: Side, at: number) => `
  INSERT INTO accounts (workspace_id, id, profile_id, platform, handle, sandbox, status, daily_quota, simulate, credentials,
      external_id, created_at)
    SELECT '${s.workspace}', 'acc_${s.tag}' || lpad(g::text, 20, '0'), '${s.profile}', 'photo', 'seeded' || g, true, 'connected',
      NULL, NULL, NULL, NULL, ${at} - g
    FROM generate_series(0, ${accountCount - 1}) AS g`

const spread = (s: Side) => (position: 0 | 1) =>
  `'acc_${s.tag}' || lpad(((g * 2 + ${position}) % ${accountCount})::text, 20, '0')`

/**
 * The side's posts and targets: `recentPosts` published in the last days, and, when `older` is
 * more than zero, that many more published 40 to 110 days ago; then every published target tracked
 * in `analytics_targets` (the newest 1,000 `active`, `dueNow` of them due a minute ago, the rest
 * due tomorrow; the others `finished`), its readings an hour, a day and a week after it was
 * published (those already past) as snapshots, and their gains summed in the rollups.
 */
const seedStatements = (s: Side, older: number, dueNow: number, at: number): ReadonlyArray<string> => [
  ...historyStatements({ workspaceId: s.workspace, profileId: s.profile, accounts: ["", ""], platform: "photo", from: 1, to: recentPosts, endAt: at, tag: `${s.tag}R`, accountSql: spread(s) }),
  ...(older > 0
    ? historyStatements({ workspaceId: s.workspace, profileId: s.profile, accounts: ["", ""], platform: "photo", from: recentPosts + 1, to: recentPosts + older, endAt: at - 40 * day, tag: `${s.tag}O`, accountSql: spread(s) })
    : []),
  `INSERT INTO analytics_targets (workspace_id, target_id, post_id, account_id, platform, platform_post_id, published_at, state, next_due_at)
    SELECT workspace_id, id, post_id, account_id, platform, 'pp_' || id, published_at,
      CASE WHEN n <= 1000 THEN 'active' ELSE 'finished' END,
      CASE WHEN n <= ${dueNow} THEN ${at - 60_000} WHEN n <= 1000 THEN ${at + day} ELSE NULL END
    FROM (SELECT t.*, row_number() OVER (ORDER BY published_at DESC, id) AS n
          FROM targets t WHERE workspace_id = '${s.workspace}' AND status = 'published') ranked`,
  `INSERT INTO analytics_snapshots (workspace_id, target_id, collected_at, metrics, raw)
    SELECT a.workspace_id, a.target_id, a.published_at + r.after, jsonb_build_object('views', r.views, 'likes', r.views / 10), '{}'::jsonb
    FROM analytics_targets a, (VALUES (3600000::bigint, 100), (${day}::bigint, 500), (${7 * day}::bigint, 900)) AS r(after, views)
    WHERE a.workspace_id = '${s.workspace}' AND a.published_at + r.after < ${at}`,
  `UPDATE analytics_targets a SET collected_at = latest.collected_at, metrics = latest.metrics
    FROM (SELECT DISTINCT ON (target_id) target_id, collected_at, metrics FROM analytics_snapshots
          WHERE workspace_id = '${s.workspace}' ORDER BY target_id, collected_at DESC) latest
    WHERE a.workspace_id = '${s.workspace}' AND a.target_id = latest.target_id`,
  `INSERT INTO analytics_rollups (workspace_id, bucket_start, profile_id, account_id, platform, views, likes)
    SELECT a.workspace_id, (s.collected_at / 900000) * 900000, '${s.profile}', a.account_id, a.platform,
      sum(CASE WHEN s.collected_at - a.published_at = 3600000 THEN 100 ELSE 400 END),
      sum(CASE WHEN s.collected_at - a.published_at = 3600000 THEN 10 ELSE 40 END)
    FROM analytics_snapshots s JOIN analytics_targets a USING (workspace_id, target_id)
    WHERE s.workspace_id = '${s.workspace}'
    GROUP BY 1, 2, 3, 4, 5`,
  "ANALYZE"
]

/** A database of its own holding one small side, migrated by the store's own layer. */
const ownDatabase = (url: string, s: Side, at: number) =>
  aDatabaseOfItsOwn(url, "postwire_analytics_small", (fresh) => SqlAnalyticsStore.layer.pipe(Layer.provide(layerPostgres(fresh, { maxConnections: 1 }))), [
    `INSERT INTO workspaces (id, name, allowed_redirect_domains, created_at) VALUES ('${s.workspace}', 'Small', '[]', ${at})`,
    `INSERT INTO profiles (workspace_id, id, name, created_at) VALUES ('${s.workspace}', '${s.profile}', 'Small', ${at})`,
    accountsStatement(s, at),
    ...seedStatements(s, 0, due, at)
  ])

/**
 * One collector round on each database in turn: the claim of the due targets, then each
 * account's save (a reading that grew, due again a minute ago so the next round finds the same
 * rows): milliseconds a round, per side.
 */
const tickTimes = async (largeUrl: string, smallUrl: string) => {
  const runtimeOf = (url: string) =>
    ManagedRuntime.make(SqlAnalyticsStore.layer.pipe(Layer.provide(layerPostgres(url, { maxConnections: 1 }))))
  const large = runtimeOf(largeUrl)
  const small = runtimeOf(smallUrl)
  let round = 0
  const tick = Effect.gen(function* () {
    const store = yield* AnalyticsStore
    round++
    const at = Date.now()
    const start = performance.now()
    const claimed = yield* store.claimDue({ owner: "analytics-bench", at, leaseUntil: at + 60_000, limit: 100 })
    if (claimed.length !== due) return yield* Effect.die(new Error(`claimed ${claimed.length} of ${due}`))
    const byAccount = new Map<string, Array<(typeof claimed)[number]>>()
    for (const target of claimed) byAccount.set(target.accountId, [...(byAccount.get(target.accountId) ?? []), target])
    for (const targets of byAccount.values()) {
      yield* store.saveCollection({
        workspaceId: targets[0]!.workspaceId,
        accountId: targets[0]!.accountId,
        profileId: targets[0]!.workspaceId === largeSide.workspace ? (largeSide.profile as never) : (smallSide.profile as never),
        platform: targets[0]!.platform,
        owner: "analytics-bench",
        at,
        outcomes: targets.map((target) => ({
          targetId: target.targetId,
          reading: { values: { views: 1_000 + round * 10, likes: 100 + round }, raw: {} },
          state: "active" as const,
          nextDueAt: at - 60_000,
          failures: 0
        }))
      })
    }
    const ms = performance.now() - start
    yield* Effect.sleep(2)
    return ms
  })
  try {
    return await inTurn(samples, 5, () => large.runPromise(tick), () => small.runPromise(tick))
  } finally {
    await large.dispose()
    await small.dispose()
  }
}

const largeSide: Side = { workspace: "", profile: "", tag: "AL" }
const smallSide: Side = { workspace: "", profile: "", tag: "AS" }

/** A workspace with a profile, through the admin API, and a live key that reads analytics. */
const sideOn = async (server: Served, name: string, tag: string) => {
  const admin = adminOf(server)
  const workspace = (await admin<{ id: string }>("/workspaces", { name })).id
  const { key } = await admin<{ key: string }>(`/workspaces/${workspace}/keys`, { kind: "live", scopes: ["analytics:read"] })
  const profile = (await admin<{ id: string }>(`/workspaces/${workspace}/profiles`, { name })).id
  return { side: { workspace, profile, tag }, key }
}

const timed = async (url: string, key: string) => {
  const start = performance.now()
  const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } })
  const body = (await response.json()) as { data?: ReadonlyArray<unknown> }
  if (!response.ok) throw new Error(`GET ${url}: ${response.status} ${JSON.stringify(body)}`)
  return performance.now() - start
}

const row = (run: string, { large, small }: { large: ReadonlyArray<number>; small: ReadonlyArray<number> }, rows: string) => ({
  run,
  "large p50 (ms)": median(large),
  "large p99 (ms)": p99(large),
  "small p50 (ms)": median(small),
  "small p99 (ms)": p99(small),
  ratio: median(large) / median(small),
  "rows read (large / small)": rows
})

/** Runs the analytics bench and prints its table. */
export const run = async (): Promise<void> => {
  const url = process.env.DATABASE_URL
  if (url === undefined) {
    console.log("skipped: set DATABASE_URL (the analytics bench seeds PostgreSQL)")
    return
  }
  const backend = postgresBackend(url)
  let server: Served | undefined
  let smallDb: { readonly url: string; readonly drop: () => Promise<void> } | undefined
  try {
    // HTTP only: no collector takes the due targets the tick is timed on.
    server = await serve([...backend.args, "--role", "api"], backend.env)
    const at = Date.now()
    const large = await sideOn(server, "Large analytics", "AL")
    const small = await sideOn(server, "Small analytics", "AS")
    Object.assign(largeSide, large.side)
    Object.assign(smallSide, small.side)
    const olderPosts = Math.max(0, Math.ceil((largeTargets / 0.95 - 2 * recentPosts) / 2))
    const started = Date.now()
    await backend.sql([
      accountsStatement(largeSide, at),
      accountsStatement(smallSide, at),
      // Due targets only in the large workspace: the claim is global, its small side is a database of its own.
      ...seedStatements(largeSide, olderPosts, due, at),
      ...seedStatements(smallSide, 0, 0, at)
    ])
    const seededIn = (Date.now() - started) / 1000
    smallDb = await ownDatabase(url, { ...smallSide }, at)
    const { default: pg } = await import("pg")
    const client = new pg.Client({ connectionString: backend.env.DATABASE_URL })
    await client.connect()
    const count = async (statement: string) => Number((await client.query(statement)).rows[0].n)
    const tracked = await count(`SELECT count(*) AS n FROM analytics_targets WHERE workspace_id = '${largeSide.workspace}'`)
    const rollupsIn = (s: Side) =>
      count(`SELECT count(*) AS n FROM analytics_rollups WHERE workspace_id = '${s.workspace}' AND bucket_start >= ${at - 31 * day}`)
    const rows = `${await rollupsIn(largeSide)} / ${await rollupsIn(smallSide)} rollups`
    await client.end()

    const ticks = await tickTimes(backend.env.DATABASE_URL!, smallDb.url)
    const base = server.baseUrl
    const query = await inTurn(samples, 10, () => timed(`${base}/v1/analytics`, large.key), () => timed(`${base}/v1/analytics`, small.key))
    console.log(
      `\n## Analytics: ${tracked.toLocaleString("en")} tracked targets against 1,045 (PostgreSQL; seeded in ${seededIn.toFixed(0)} s; ${samples} a side, interleaved; ratio = large p50 / small p50)\n`
    )
    table([
      row(`collection tick: claim ${due} due, save each account's readings (the large database vs one of its own)`, ticks, `${due} due / ${due} due`),
      row("GET /v1/analytics (30 days, by profile and platform)", query, rows)
    ])
  } catch (error) {
    if (server !== undefined) console.error(server.output.slice(-4000))
    throw error
  } finally {
    await server?.stop()
    await smallDb?.drop()
    backend.drop()
  }
}
