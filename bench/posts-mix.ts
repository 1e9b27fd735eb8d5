/**
 * The posts API on realistic work, on PostgreSQL (`DATABASE_URL`), beside `baseline-server.ts`
 * doing the same checks and writes on the same database in the same run:
 *
 * - **spread**: creates over many workspaces, keys, profiles and accounts (each post: one
 *   profile's two accounts, an image, an approval link), every request with its own
 *   `Idempotency-Key`, the default rate limits in force (120 requests and 30 creates a key a
 *   minute) and honoured by spreading the requests over enough keys, every account's quota
 *   counted (set high enough not to refuse).
 * - **one account**: the same requests, all to the same two accounts of one profile (their
 *   quota check serializes on the accounts' lock), over keys of their workspace.
 * - **first page**: `GET /v1/posts?limit=25` over the spread's keys.
 *
 * Rounds alternate between Postwire and the baseline (both up at once: PostgreSQL takes many
 * connections), `BENCH_MIX_ROUNDS` of them (default 3), `BENCH_SECONDS` each (default 5), 16
 * connections; the load average is printed beside each round, and the CPU each side spent per
 * request (its server process, and its PostgreSQL backends), from /proc: a figure the machine's
 * load moves much less than the rates. `BENCH_SERVER_NODE_ARGS` (`--cpu-prof
 * --cpu-prof-dir=/tmp/prof`) starts Postwire's server under those node options; `BENCH_MIX_KINDS`
 * (`spread,one,GET`) runs some of the three. Any non-2xx answer (a 429 would
 * mean too few keys for the rate reached: raise `BENCH_MIX_KEYS`) is counted in `errors`.
 */
import { randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import { loadavg } from "node:os"
import autocannon from "autocannon"
import { adminOf, imageIn, postgresBackend, startBaseline } from "./posts-api.ts"
import { serve, type Served, table } from "./support.ts"

const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const rounds = Number(process.env.BENCH_MIX_ROUNDS ?? 3)
const connections = 16
/** Keys per workspace of the spread (four workspaces), and of the one-account workspace (twice as many). */
const keysPerWorkspace = Number(process.env.BENCH_MIX_KEYS ?? 96)
const workspaces = 4
const profilesPerWorkspace = 8
const accountsPerProfile = 4

/** The defaults of `POSTWIRE_RATE_LIMIT_PER_KEY` and `POSTWIRE_RATE_LIMIT_POSTS_CREATE`. */
const defaultLimits = { POSTWIRE_RATE_LIMIT_PER_KEY: "120", POSTWIRE_RATE_LIMIT_POSTS_CREATE: "30" }

interface Tenant {
  readonly keys: ReadonlyArray<string>
  readonly media: string
  readonly profiles: ReadonlyArray<{ readonly id: string; readonly accounts: ReadonlyArray<string> }>
}

/** A workspace with `keys` keys, `profiles` profiles of `accounts` accounts each, and an image. */
const tenant = async (server: Served, name: string, keys: number, profiles: number, accounts: number): Promise<Tenant> => {
  const admin = adminOf(server)
  const workspace = (await admin<{ id: string }>("/workspaces", { name })).id
  const keyList: Array<string> = []
  for (let i = 0; i < keys; i++) {
    keyList.push(
      (await admin<{ key: string }>(`/workspaces/${workspace}/keys`, { kind: "test", scopes: ["posts:read", "posts:write"] })).key
    )
  }
  const profileList: Array<{ id: string; accounts: Array<string> }> = []
  for (let p = 0; p < profiles; p++) {
    const id = (await admin<{ id: string }>(`/workspaces/${workspace}/profiles`, { name: `${name} ${p}` })).id
    const ids: Array<string> = []
    for (let a = 0; a < accounts; a++) {
      ids.push(
        (await admin<{ id: string }>(`/workspaces/${workspace}/accounts`, {
          profile_id: id,
          platform: "photo",
          sandbox: true,
          daily_quota: 1_000_000
        })).id
      )
    }
    profileList.push({ id, accounts: ids })
  }
  return { keys: keyList, media: await imageIn(server, keyList[0]!), profiles: profileList }
}

/** One request of a kind, built afresh each time (next key, next profile and accounts, new Idempotency-Key). */
type Next = () => { readonly headers: Record<string, string>; readonly body?: string }

const creates = (tenants: ReadonlyArray<Tenant>, oneAccount: boolean): Next => {
  let n = 0
  return () => {
    const i = n++
    const t = tenants[i % tenants.length]!
    const key = t.keys[Math.floor(i / tenants.length) % t.keys.length]!
    const profile = oneAccount ? t.profiles[0]! : t.profiles[(i * 7) % t.profiles.length]!
    const first = oneAccount ? 0 : (i * 5) % profile.accounts.length
    const accounts = [profile.accounts[first]!, profile.accounts[(first + 1) % profile.accounts.length]!]
    return {
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": randomUUID() },
      body: JSON.stringify({
        profile_id: profile.id,
        caption: `bench ${i}`,
        media: [t.media],
        targets: accounts.map((account_id) => ({ account_id }))
      })
    }
  }
}

const pages = (tenants: ReadonlyArray<Tenant>): Next => {
  let n = 0
  return () => {
    const i = n++
    const t = tenants[i % tenants.length]!
    return { headers: { authorization: `Bearer ${t.keys[Math.floor(i / tenants.length) % t.keys.length]!}` } }
  }
}

/** CPU time (user + system, ms) of a process, from /proc; 0 once it is gone. */
const cpuMs = (pid: number): number => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return 0
  }
}

/**
 * The CPU (ms) of the bench database's PostgreSQL backends so far, by pid, split into the
 * baseline's (by its application name) and the others (Postwire's); a backend that connects
 * during a round counts from zero.
 */
const backendCpu = async (databaseUrl: string) => {
  const { default: pg } = await import("pg")
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  const { rows } = await client.query<{ pid: number; app: string }>(
    "SELECT pid, application_name AS app FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
  )
  await client.end()
  const of = (baseline: boolean) =>
    new Map(rows.filter((r) => (r.app === "postwire-bench-baseline") === baseline).map((r) => [r.pid, cpuMs(r.pid)]))
  return { baseline: of(true), postwire: of(false) }
}

const spentSince = (before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>) =>
  [...after].reduce((total, [pid, ms]) => total + ms - (before.get(pid) ?? 0), 0)

const run1 = async (url: string, method: "GET" | "POST", next: Next, server: number, databaseUrl: string, side: "postwire" | "baseline") => {
  const before = { server: cpuMs(server), postgres: (await backendCpu(databaseUrl))[side] }
  const result = await autocannon({
    url,
    duration: seconds,
    connections,
    requests: [
      {
        method,
        setupRequest: (request: autocannon.Request) => {
          const { body, headers } = next()
          return { ...request, method, headers, ...(body === undefined ? {} : { body }) }
        }
      }
    ]
  })
  const after = { server: cpuMs(server), postgres: (await backendCpu(databaseUrl))[side] }
  const answered = Math.max(1, result.requests.total)
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
    load: loadavg()[0]!,
    serverMs: (after.server - before.server) / answered,
    postgresMs: spentSince(before.postgres, after.postgres) / answered
  }
}

/** Runs the realistic mix on PostgreSQL and prints its table. */
export const run = async (): Promise<void> => {
  const url = process.env.DATABASE_URL
  if (url === undefined) {
    console.log("skipped: set DATABASE_URL (the realistic mix runs on PostgreSQL)")
    return
  }
  const backend = postgresBackend(url)
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? "").split(" ").filter((arg) => arg !== "")
  const server = await serve(backend.args, { ...backend.env, ...defaultLimits }, nodeArgs)
  const bare = await startBaseline({
    ...backend.baselineEnv,
    RATE_LIMIT_PER_KEY: defaultLimits.POSTWIRE_RATE_LIMIT_PER_KEY,
    RATE_LIMIT_POSTS_CREATE: defaultLimits.POSTWIRE_RATE_LIMIT_POSTS_CREATE
  })
  try {
    const spread: Array<Tenant> = []
    for (let w = 0; w < workspaces; w++) {
      spread.push(await tenant(server, `Mix ${w}`, keysPerWorkspace, profilesPerWorkspace, accountsPerProfile))
    }
    const one = [await tenant(server, "One account", keysPerWorkspace * 2, 1, 2)]
    console.log(
      `\n## Realistic mix on PostgreSQL (${seconds}s per round, ${connections} connections, ${rounds} rounds alternated; ${workspaces} workspaces x ${keysPerWorkspace} keys, ${workspaces * profilesPerWorkspace} profiles, ${workspaces * profilesPerWorkspace * accountsPerProfile} accounts; default rate limits)\n`
    )
    const only = process.env.BENCH_MIX_KINDS?.split(",")
    const kinds = [
      { label: "POST spread over accounts", path: "/v1/posts", method: "POST" as const, make: () => creates(spread, false) },
      { label: "POST to one account pair", path: "/v1/posts", method: "POST" as const, make: () => creates(one, true) },
      { label: "GET /v1/posts first page", path: "/v1/posts?limit=25", method: "GET" as const, make: () => pages(spread) }
    ].filter((kind) => only === undefined || only.some((name) => kind.label.includes(name)))
    // The first request of each kind on each side warms its code and prepared statements.
    for (const kind of kinds) {
      for (const base of [server.baseUrl, bare.url]) {
        const { body, headers } = kind.make()()
        const reply = await fetch(`${base}${kind.path}`, { method: kind.method, headers, ...(body === undefined ? {} : { body }) })
        if (!reply.ok) throw new Error(`${kind.label} on ${base}: ${reply.status} ${await reply.text()}`)
      }
    }
    const databaseUrl = backend.env.DATABASE_URL!
    const results = new Map<string, { postwire: Array<Awaited<ReturnType<typeof run1>>>; baseline: Array<Awaited<ReturnType<typeof run1>>> }>()
    const rows: Array<Record<string, string | number>> = []
    for (let r = 0; r < rounds; r++) {
      for (const kind of kinds) {
        const mine = await run1(`${server.baseUrl}${kind.path}`, kind.method, kind.make(), server.child.pid!, databaseUrl, "postwire")
        const theirs = await run1(`${bare.url}${kind.path}`, kind.method, kind.make(), bare.pid, databaseUrl, "baseline")
        const entry = results.get(kind.label) ?? { postwire: [], baseline: [] }
        entry.postwire.push(mine)
        entry.baseline.push(theirs)
        results.set(kind.label, entry)
        rows.push({
          round: r + 1,
          run: kind.label,
          rps: mine.rps,
          p99_ms: mine.p99,
          errors: mine.errors,
          baseline_rps: theirs.rps,
          baseline_p99_ms: theirs.p99,
          baseline_errors: theirs.errors,
          ratio: mine.rps / theirs.rps,
          "cpu ms/req server": `${mine.serverMs.toFixed(2)} / ${theirs.serverMs.toFixed(2)}`,
          "cpu ms/req postgres": `${mine.postgresMs.toFixed(2)} / ${theirs.postgresMs.toFixed(2)}`,
          load: `${mine.load.toFixed(1)} / ${theirs.load.toFixed(1)}`
        })
      }
    }
    console.log("cpu ms/req: Postwire / baseline, CPU time per request answered (from /proc)")
    table(rows)
    const sum = (values: ReadonlyArray<{ rps: number }>) => values.reduce((a, b) => a + b.rps, 0)
    const mean = (values: ReadonlyArray<{ serverMs: number; postgresMs: number }>, field: "serverMs" | "postgresMs") =>
      values.reduce((a, b) => a + b[field], 0) / values.length
    console.log("")
    const summary = [...results].map(([label, { baseline, postwire }]) => ({
      run: label,
      rps: sum(postwire) / postwire.length,
      baseline_rps: sum(baseline) / baseline.length,
      ratio: sum(postwire) / sum(baseline),
      "server cpu ms/req": `${mean(postwire, "serverMs").toFixed(2)} / ${mean(baseline, "serverMs").toFixed(2)}`,
      "postgres cpu ms/req": `${mean(postwire, "postgresMs").toFixed(2)} / ${mean(baseline, "postgresMs").toFixed(2)}`
    }))
    const spreadRps = summary[0]!.rps
    table(summary.map((row) => ({ ...row, "x spread (Postwire)": row.run.startsWith("POST") ? row.rps / spreadRps : "" })))
  } finally {
    await server.stop()
    await bare.stop()
    backend.drop()
  }
}
