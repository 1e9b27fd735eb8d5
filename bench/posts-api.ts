/**
 * The posts API over loopback, each figure beside a baseline measured in the same run:
 *
 * - POST /v1/posts (2 sandbox targets, approval link) and GET /v1/posts (first page of 25), 16
 *   connections, against `baseline-server.ts`: node:http and the driver doing the same checks
 *   and writes on the same database (embedded, and PostgreSQL when `DATABASE_URL` is set).
 * - History: the first page of a workspace with 100,000 posts against one with 1,000, requests
 *   interleaved on one server; and creates into accounts with 100,000 posts of history against
 *   fresh accounts of the same workspace, in alternating rounds. The history is written with
 *   `generate_series` (`history.ts`), on PostgreSQL when `DATABASE_URL` is set, else embedded.
 */
import { execFileSync, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { aPng } from "../test/support/Media.ts"
import { historyStatements } from "./history.ts"
import { freePort, load, serve, type Served, table } from "./support.ts"

const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const large = Number(process.env.BENCH_LARGE_POSTS ?? 100_000)
const small = 1_000
const connections = 16

/** A workspace a bench works in: its key, profile, two accounts and an image. */
export interface Session {
  readonly workspace: string
  readonly key: string
  readonly profile: string
  readonly accounts: readonly [string, string]
  readonly media: string
}

export const adminOf = (server: Served) => {
  const token = server.output.match(/pwadm_[A-Za-z0-9_-]+/)?.[0]
  if (!token) throw new Error(`no admin token in the first-start output:\n${server.output}`)
  return async <A>(path: string, body: unknown): Promise<A> => {
    const reply = await fetch(`${server.baseUrl}/admin/v1${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body)
    })
    if (!reply.ok) throw new Error(`POST /admin/v1${path}: ${reply.status} ${await reply.text()}`)
    return (await reply.json()) as A
  }
}

/** Two accounts whose daily quota does not stop a load test. */
const accountsIn = async (server: Served, workspace: string, profile: string): Promise<readonly [string, string]> => {
  const admin = adminOf(server)
  const account = () =>
    admin<{ id: string }>(`/workspaces/${workspace}/accounts`, {
      profile_id: profile,
      platform: "photo",
      sandbox: true,
      daily_quota: 100_000_000
    }).then((a) => a.id)
  return [await account(), await account()]
}

export const imageIn = async (server: Served, key: string) => {
  const uploaded = await fetch(`${server.baseUrl}/v1/media`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ data: Buffer.from(aPng({ width: 8, height: 8 })).toString("base64") })
  })
  return ((await uploaded.json()) as { id: string }).id
}

/** The first-start workspace. */
const firstSession = async (server: Served): Promise<Session> => {
  const key = server.output.match(/svc_test_[A-Za-z0-9_-]+/)?.[0]
  const profile = server.output.match(/prof_[0-9A-Z]+/)?.[0]
  const workspace = server.output.match(/Workspace: (ws_[0-9A-Z]+)/)?.[1]
  if (!key || !profile || !workspace) throw new Error(`unexpected first-start output:\n${server.output}`)
  return { workspace, key, profile, accounts: await accountsIn(server, workspace, profile), media: await imageIn(server, key) }
}

/** A new workspace with its own key. */
export const newSession = async (server: Served, name: string): Promise<Session> => {
  const admin = adminOf(server)
  const workspace = (await admin<{ id: string }>("/workspaces", { name })).id
  const { key } = await admin<{ key: string }>(`/workspaces/${workspace}/keys`, {
    kind: "test",
    scopes: ["posts:read", "posts:write"]
  })
  const profile = (await admin<{ id: string }>(`/workspaces/${workspace}/profiles`, { name })).id
  return { workspace, key, profile, accounts: await accountsIn(server, workspace, profile), media: await imageIn(server, key) }
}

export const createBody = (s: Session, accounts: readonly [string, string] = s.accounts) =>
  JSON.stringify({
    profile_id: s.profile,
    caption: "bench",
    media: [s.media],
    targets: accounts.map((account_id) => ({ account_id }))
  })

export const authOf = (s: Session) => ({ authorization: `Bearer ${s.key}`, "content-type": "application/json" })

/** Where a bench runs: a fresh embedded data directory, or a fresh PostgreSQL database. */
export interface Backend {
  readonly label: string
  readonly args: ReadonlyArray<string>
  readonly env: Record<string, string>
  readonly baselineEnv: Record<string, string>
  /** Runs SQL on the database (embedded: only while no server has it open). */
  readonly sql: (statements: ReadonlyArray<string>) => Promise<void>
  readonly drop: () => void
}

const embeddedBackend = (): Backend => {
  const dataDir = mkdtempSync(join(tmpdir(), "postwire-bench-"))
  return {
    label: "embedded",
    args: ["--data-dir", dataDir],
    env: { DATABASE_URL: "" },
    baselineEnv: { DATABASE_URL: "", DATA_DIR: join(dataDir, "db") },
    sql: async (statements) => {
      const { PGlite } = await import("@electric-sql/pglite")
      const db = await PGlite.create(join(dataDir, "db"))
      for (const statement of statements) await db.exec(statement)
      await db.close()
    },
    drop: () => rmSync(dataDir, { recursive: true, force: true })
  }
}

/** A new, empty PostgreSQL database beside the one `url` names, dropped afterwards. */
export const postgresBackend = (url: string): Backend => {
  const name = `postwire_bench_${process.pid}_${Date.now()}`
  execFileSync("psql", [url, "-qc", `CREATE DATABASE ${name}`])
  const fresh = new URL(url)
  fresh.pathname = `/${name}`
  const dataDir = mkdtempSync(join(tmpdir(), "postwire-bench-"))
  return {
    label: "postgres",
    args: ["--data-dir", dataDir],
    env: { DATABASE_URL: fresh.toString() },
    baselineEnv: { DATABASE_URL: fresh.toString() },
    sql: async (statements) => {
      const { default: pg } = await import("pg")
      const client = new pg.Client({ connectionString: fresh.toString() })
      await client.connect()
      for (const statement of statements) await client.query(statement)
      await client.end()
    },
    drop: () => {
      execFileSync("psql", [url, "-qc", `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`])
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
}

/**
 * Starts `baseline-server.ts` in its own process; its rate limits are as high as `serve`'s unless
 * `env` sets them (`RATE_LIMIT_PER_KEY`, `RATE_LIMIT_POSTS_CREATE`).
 */
export const startBaseline = async (env: Record<string, string>) => {
  const port = await freePort()
  const child = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), join(import.meta.dirname, "baseline-server.ts")], {
    env: { ...process.env, RATE_LIMIT_PER_KEY: "100000000", RATE_LIMIT_POSTS_CREATE: "100000000", ...env, PORT: String(port) },
    stdio: ["ignore", "pipe", "inherit"]
  })
  await new Promise<void>((resolve, reject) => {
    child.stdout.once("data", () => resolve())
    child.once("exit", (code) => reject(new Error(`baseline exited with ${code}`)))
  })
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((done) => {
        child.removeAllListeners("exit")
        child.once("exit", () => done())
        child.kill("SIGTERM")
      })
  }
}

/** POST and GET /v1/posts on Postwire, then the same requests on the baseline over the same data. */
const throughput = async (backend: Backend) => {
  const server = await serve(backend.args, backend.env)
  let s: Session
  let post: Awaited<ReturnType<typeof load>>
  let get: Awaited<ReturnType<typeof load>>
  try {
    s = await firstSession(server)
    const created = await fetch(`${server.baseUrl}/v1/posts`, { method: "POST", headers: authOf(s), body: createBody(s) })
    if (created.status !== 201) throw new Error(`create: ${created.status} ${await created.text()}`)
    post = await load({ url: `${server.baseUrl}/v1/posts`, method: "POST", headers: authOf(s), body: createBody(s), seconds, connections })
    // The requests still queued when the load stopped are answered before the next load starts.
    await (await fetch(`${server.baseUrl}/v1/posts?limit=1`, { headers: authOf(s) })).arrayBuffer()
    get = await load({ url: `${server.baseUrl}/v1/posts?limit=25`, headers: authOf(s), seconds, connections })
  } finally {
    // The embedded database has one owner at a time: the baseline opens it after the server stops.
    await server.stop()
  }
  const bare = await startBaseline(backend.baselineEnv)
  try {
    const check = await fetch(`${bare.url}/v1/posts`, { method: "POST", headers: authOf(s), body: createBody(s) })
    if (check.status !== 201) throw new Error(`baseline create: ${check.status} ${await check.text()}`)
    const barePost = await load({ url: `${bare.url}/v1/posts`, method: "POST", headers: authOf(s), body: createBody(s), seconds, connections })
    await (await fetch(`${bare.url}/v1/posts?limit=1`, { headers: authOf(s) })).arrayBuffer()
    const bareGet = await load({ url: `${bare.url}/v1/posts?limit=25`, headers: authOf(s), seconds, connections })
    return [
      { run: `${backend.label} POST /v1/posts`, rps: post.rps, p99_ms: post.p99, errors: post.errors + post.non2xx, baseline_rps: barePost.rps, baseline_p99_ms: barePost.p99, baseline_errors: barePost.errors + barePost.non2xx, ratio: post.rps / barePost.rps },
      { run: `${backend.label} GET /v1/posts`, rps: get.rps, p99_ms: get.p99, errors: get.errors + get.non2xx, baseline_rps: bareGet.rps, baseline_p99_ms: bareGet.p99, baseline_errors: bareGet.errors + bareGet.non2xx, ratio: get.rps / bareGet.rps }
    ]
  } finally {
    await bare.stop()
  }
}

const median = (samples: Array<number>) => samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)]!
const p99 = (samples: Array<number>) => samples.sort((a, b) => a - b)[Math.min(samples.length - 1, Math.floor(samples.length * 0.99))]!

const timed = async (url: string, init: RequestInit) => {
  const start = performance.now()
  const response = await fetch(url, init)
  await response.arrayBuffer()
  if (!response.ok) throw new Error(`${init.method ?? "GET"} ${url}: ${response.status}`)
  return performance.now() - start
}

/**
 * One server, a workspace with `small` posts and one with `large`, the first page of each asked
 * for in turn; then creates into the large workspace's seeded accounts and into fresh ones, in
 * alternating rounds of load.
 */
const history = async (backend: Backend) => {
  let server = await serve(backend.args, backend.env)
  const few = await newSession(server, "Few posts")
  const many = await newSession(server, "Many posts")
  const fresh = await accountsIn(server, many.workspace, many.profile)
  const seed = (s: Session, count: number, tag: string) =>
    historyStatements({ workspaceId: s.workspace, profileId: s.profile, accounts: s.accounts, platform: "photo", from: 1, to: count, endAt: Date.now(), tag })
  if (backend.label === "embedded") await server.stop()
  const started = Date.now()
  await backend.sql([...seed(few, small, "F"), ...seed(many, large, "M")])
  const seededIn = (Date.now() - started) / 1000
  if (backend.label === "embedded") server = await serve(backend.args, backend.env)
  try {
    const page = (s: Session) => timed(`${server.baseUrl}/v1/posts?limit=25`, { headers: authOf(s) })
    for (let i = 0; i < 20; i++) await Promise.all([page(few), page(many)])
    const fewMs: Array<number> = []
    const manyMs: Array<number> = []
    for (let i = 0; i < 200; i++) {
      fewMs.push(await page(few))
      manyMs.push(await page(many))
    }
    const pages = [
      {
        run: `${backend.label} first page, ${large.toLocaleString("en")} posts vs ${small.toLocaleString("en")}`,
        p50_ms: median(manyMs),
        p99_ms: p99(manyMs),
        baseline_p50_ms: median(fewMs),
        baseline_p99_ms: p99(fewMs),
        ratio: median(manyMs) / median(fewMs),
        seeded_in_s: seededIn
      }
    ]
    const rounds = 2
    const seededRps: Array<number> = []
    const freshRps: Array<number> = []
    const round = (accounts: readonly [string, string]) =>
      load({ url: `${server.baseUrl}/v1/posts`, method: "POST", headers: authOf(many), body: createBody(many, accounts), seconds, connections })
    for (let i = 0; i < rounds; i++) {
      seededRps.push((await round(many.accounts)).rps)
      freshRps.push((await round(fresh)).rps)
    }
    const mean = (values: ReadonlyArray<number>) => values.reduce((a, b) => a + b, 0) / values.length
    const creates = [
      {
        run: `${backend.label} POST into accounts with ${large.toLocaleString("en")} posts of history vs fresh`,
        rps: mean(seededRps),
        baseline_rps: mean(freshRps),
        ratio: mean(freshRps) / mean(seededRps)
      }
    ]
    return { pages, creates }
  } catch (error) {
    console.error(server.output.slice(-4000))
    throw error
  } finally {
    await server.stop()
  }
}

/** Runs the posts API bench. */
export const run = async (): Promise<void> => {
  const backends = [() => embeddedBackend(), ...(process.env.DATABASE_URL ? [() => postgresBackend(process.env.DATABASE_URL!)] : [])]
  console.log(`\n## Posts API over loopback (${seconds}s per run, ${connections} connections), against the baseline server\n`)
  const rows: Array<Awaited<ReturnType<typeof throughput>>[number]> = []
  for (const make of backends) {
    const backend = make()
    try {
      rows.push(...(await throughput(backend)))
    } finally {
      backend.drop()
    }
  }
  table(rows)
  // The embedded database is held to the raw PostgreSQL baseline too (issue #15: at least 0.3x).
  const pgBaseline = (method: string) => rows.find((r) => r.run === `postgres ${method} /v1/posts`)?.baseline_rps
  for (const method of ["POST", "GET"]) {
    const embedded = rows.find((r) => r.run === `embedded ${method} /v1/posts`)
    const base = pgBaseline(method)
    if (embedded !== undefined && base !== undefined) {
      console.log(`embedded ${method} / raw PostgreSQL baseline: ${embedded.rps.toFixed(1)} / ${base.toFixed(1)} = ${(embedded.rps / base).toFixed(2)}`)
    }
  }
  console.log(`\n## Cost by history (ratio: time at ${large.toLocaleString("en")} posts over time at ${small.toLocaleString("en")} or fresh; 1.00 is flat)\n`)
  const historyBackend = process.env.DATABASE_URL ? postgresBackend(process.env.DATABASE_URL) : embeddedBackend()
  try {
    const { creates, pages } = await history(historyBackend)
    table(pages)
    console.log("")
    table(creates)
  } finally {
    historyBackend.drop()
  }
}
