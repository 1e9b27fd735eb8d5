/**
 * Scale, measured (opt-in: `BENCH_ONLY=scale`, needs `DATABASE_URL`; seeding takes minutes): one
 * PostgreSQL database with a workspace of `BENCH_SCALE_POSTS` posts (default 1,000,000, with two
 * targets each, an approval on every tenth, an event each) spread over `BENCH_SCALE_ACCOUNTS`
 * accounts (default 10,000), written with `generate_series` (`history.ts`), not the API; beside it
 * a workspace of 1,000 posts. Each figure is the large side over the small one, requests
 * interleaved on one server (1.00 is flat):
 *
 * - the first page, `GET /v1/posts?limit=25`;
 * - a create, `POST /v1/posts` (two targets, an image, an approval link), into accounts that
 *   carry a share of the large history against accounts with a small one;
 * - the quota check, `GET /v1/accounts/{id}` (the account with its rolling 24 hours' count);
 * - the publisher's claim (`PublishingStore.claimDueTargets`, 25 due targets): the claim is
 *   global, so the small side is a database of its own (1,000 posts, the same 200 due targets),
 *   claims alternating between the two databases.
 */
import { Effect, Layer, ManagedRuntime } from "effect"
import { PublishingStore } from "@postwire/core"
import { layerPostgres, SqlPublishingStore } from "@postwire/store-sql"
import { aDatabaseOfItsOwn, inTurn } from "./databases.ts"
import { historyStatements } from "./history.ts"
import { authOf, createBody, newSession, postgresBackend, type Session } from "./posts-api.ts"
import { serve, type Served, table } from "./support.ts"

const largePosts = Number(process.env.BENCH_SCALE_POSTS ?? 1_000_000)
const largeAccounts = Number(process.env.BENCH_SCALE_ACCOUNTS ?? 10_000)
const smallPosts = 1_000
const samples = Number(process.env.BENCH_SCALE_SAMPLES ?? 200)
const claims = Number(process.env.BENCH_SCALE_CLAIMS ?? 100)
const claimSize = 25

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const p99 = (values: ReadonlyArray<number>) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.99))]!

const timed = async (url: string, init: RequestInit) => {
  const start = performance.now()
  const response = await fetch(url, init)
  await response.arrayBuffer()
  if (!response.ok) throw new Error(`${init.method ?? "GET"} ${url}: ${response.status}`)
  return performance.now() - start
}

/** `largeAccounts` accounts of the session's profile, ids `acc_X` + the number, written in one statement. */
const accountsStatement = (s: Session, count: number) => `
  INSERT INTO accounts (workspace_id, id, profile_id, platform, handle, sandbox, status, daily_quota, simulate, credentials,
      external_id, created_at)
    SELECT '${s.workspace}', 'acc_X' || lpad(g::text, 20, '0'), '${s.profile}', 'photo', 'seeded' || g, true, 'connected',
      NULL, NULL, NULL, NULL, ${Date.now()} - g
    FROM generate_series(0, ${count - 1}) AS g`

/**
 * `count` targets due a minute ago in the session's workspace (posts `scheduled`, no approval),
 * on its two accounts: what the claim takes.
 */
const dueStatements = (
  s: { readonly workspace: string; readonly profile: string; readonly accounts: readonly [string, string] },
  tag: string,
  count: number
) => {
  const at = Date.now() - 60_000
  const id = (prefix: string) => `'${prefix}_${tag}' || lpad(g::text, 20, '0')`
  return [
    `INSERT INTO posts (workspace_id, id, profile_id, caption, media, scheduled_at, ai_generated, approval_mode, notify,
        status, publish_at, created_at, updated_at, version)
      SELECT '${s.workspace}', ${id("post")}, '${s.profile}', 'Due ' || g, '[]'::jsonb, ${at}, false, 'none', NULL,
        'scheduled', ${at}, ${at}, ${at}, 1
      FROM generate_series(1, ${count}) AS g`,
    `INSERT INTO targets (workspace_id, id, post_id, position, account_id, platform, status, options, attempts, due_at,
        updated_at, quota_at)
      SELECT '${s.workspace}', ${id("tgt")}, ${id("post")}, 0, CASE WHEN g % 2 = 0 THEN '${s.accounts[0]}' ELSE '${s.accounts[1]}' END,
        'photo', 'scheduled', '{}'::jsonb, 0, ${at}, ${at}, ${at}
      FROM generate_series(1, ${count}) AS g`,
    "ANALYZE"
  ]
}

/**
 * A claim of 25 due targets on each database in turn, each lease ending a millisecond later (so
 * every claim finds the same due rows and does the same work): milliseconds a claim, per side.
 */
const claimTimes = async (largeUrl: string, smallUrl: string) => {
  const runtimeOf = (url: string) =>
    ManagedRuntime.make(SqlPublishingStore.layer.pipe(Layer.provide(layerPostgres(url, { maxConnections: 1 }))))
  const large = runtimeOf(largeUrl)
  const small = runtimeOf(smallUrl)
  const claim = Effect.gen(function* () {
    const queue = yield* PublishingStore
    const at = Date.now()
    const start = performance.now()
    const claimed = yield* queue.claimDueTargets({ owner: "scale-bench", at, leaseUntil: at + 1, limit: claimSize, perAccount: 1_000 })
    if (claimed.length !== claimSize) return yield* Effect.die(new Error(`claimed ${claimed.length} of ${claimSize}`))
    const ms = performance.now() - start
    yield* Effect.sleep(2)
    return ms
  })
  try {
    return await inTurn(claims, 5, () => large.runPromise(claim), () => small.runPromise(claim))
  } finally {
    await large.dispose()
    await small.dispose()
  }
}

/** A database of its own with a workspace of `smallPosts` posts and the same due targets: the claim's small side. */
const smallDatabase = (url: string) => {
  const s = { workspace: "ws_SCALESMALL", profile: "prof_SCALESMALL", accounts: ["acc_SCALESMALL1", "acc_SCALESMALL2"] as const }
  const at = Date.now()
  // The schema: the store's layer migrates an empty database.
  return aDatabaseOfItsOwn(url, "postwire_scale_small", (fresh) => SqlPublishingStore.layer.pipe(Layer.provide(layerPostgres(fresh, { maxConnections: 1 }))), [
    `INSERT INTO workspaces (id, name, allowed_redirect_domains, created_at) VALUES ('${s.workspace}', 'Small', '[]', ${at})`,
    `INSERT INTO profiles (workspace_id, id, name, created_at) VALUES ('${s.workspace}', '${s.profile}', 'Small', ${at})`,
    ...s.accounts.map((id) =>
      `INSERT INTO accounts (workspace_id, id, profile_id, platform, handle, sandbox, status, daily_quota, simulate, credentials,
          external_id, created_at)
        VALUES ('${s.workspace}', '${id}', '${s.profile}', 'photo', '${id}', true, 'connected', NULL, NULL, NULL, NULL, ${at})`
    ),
    ...historyStatements({ workspaceId: s.workspace, profileId: s.profile, accounts: s.accounts, platform: "photo", from: 1, to: smallPosts, endAt: at, tag: "S" }),
    ...dueStatements(s, "D", 200)
  ])
}

/** Asks `measure` of the large and the small side in turn, `samples` times each. */
const interleaved = async (measure: (side: "large" | "small") => Promise<number>) => {
  const large: Array<number> = []
  const small: Array<number> = []
  for (let i = 0; i < 10; i++) await Promise.all([measure("large"), measure("small")])
  for (let i = 0; i < samples; i++) {
    large.push(await measure("large"))
    small.push(await measure("small"))
  }
  return { large, small }
}

const row = (run: string, { large, small }: { large: ReadonlyArray<number>; small: ReadonlyArray<number> }) => ({
  run,
  "large p50 (ms)": median(large),
  "large p99 (ms)": p99(large),
  "small p50 (ms)": median(small),
  "small p99 (ms)": p99(small),
  ratio: median(large) / median(small)
})

/** Runs the scale bench and prints its table. */
export const run = async (): Promise<void> => {
  const url = process.env.DATABASE_URL
  if (url === undefined) {
    console.log("skipped: set DATABASE_URL (the scale bench seeds PostgreSQL)")
    return
  }
  const backend = postgresBackend(url)
  const databaseUrl = backend.env.DATABASE_URL!
  let server: Served | undefined
  let smallDb: { readonly url: string; readonly drop: () => Promise<void> } | undefined
  try {
    // HTTP only: no publisher claims the due targets the claim is timed on, no loop adds its work.
    server = await serve([...backend.args, "--role", "api"], backend.env)
    const small = await newSession(server, "Small history")
    const large = await newSession(server, "Large history")
    await backend.sql(
      historyStatements({ workspaceId: small.workspace, profileId: small.profile, accounts: small.accounts, platform: "photo", from: 1, to: smallPosts, endAt: Date.now(), tag: "S" })
    )
    const started = Date.now()
    // Every hundredth post on the large workspace's two API-made accounts (the ones measured),
    // the others over the seeded accounts.
    const seeded = (position: 0 | 1) =>
      `CASE WHEN g % 100 = 0 THEN '${large.accounts[position]}' ELSE 'acc_X' || lpad(((g * 2 + ${position}) % ${largeAccounts})::text, 20, '0') END`
    await backend.sql([
      accountsStatement(large, largeAccounts),
      ...historyStatements({ workspaceId: large.workspace, profileId: large.profile, accounts: large.accounts, platform: "photo", from: 1, to: largePosts, endAt: Date.now(), tag: "L", accountSql: seeded })
    ])
    // The due targets the claims take: in the large database (in its small workspace), and in a
    // database of their own beside a small history.
    await backend.sql(dueStatements(small, "D", 200))
    const seededIn = (Date.now() - started) / 1000
    smallDb = await smallDatabase(url)
    const claimed = await claimTimes(databaseUrl, smallDb.url)
    const base = server.baseUrl
    const session = (side: "large" | "small") => (side === "large" ? large : small)
    const pages = await interleaved((side) => timed(`${base}/v1/posts?limit=25`, { headers: authOf(session(side)) }))
    const quota = await interleaved((side) =>
      timed(`${base}/v1/accounts/${session(side).accounts[0]}`, { headers: authOf(session(side)) })
    )
    const creates = await interleaved((side) =>
      timed(`${base}/v1/posts`, { method: "POST", headers: authOf(session(side)), body: createBody(session(side)) })
    )
    console.log(
      `\n## Scale: ${largePosts.toLocaleString("en")} posts over ${largeAccounts.toLocaleString("en")} accounts against ${smallPosts.toLocaleString("en")} posts (PostgreSQL; seeded in ${seededIn.toFixed(0)} s; ${samples} requests a side, interleaved; ratio = large p50 / small p50)\n`
    )
    table([
      row("first page, GET /v1/posts?limit=25", pages),
      row("create, POST /v1/posts (2 targets, approval link)", creates),
      row("quota check, GET /v1/accounts/{id}", quota),
      row(`publisher claim of ${claimSize} due targets (the large database vs one of ${smallPosts.toLocaleString("en")} posts)`, claimed)
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
