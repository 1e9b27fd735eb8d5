/**
 * The embedded default (`postwire serve` on PGlite in a data directory), beside a bare
 * `node -e` HTTP server measured in the same run:
 *
 * - time from spawn to ready (the printed `OpenAPI:` line, then `/ready` answering 200; the bare
 *   server: its first 200), on the
 *   first start of a fresh data directory and on the second start of the same directory;
 * - resident memory (VmRSS of the process and any children, from /proc) and the CPU time used
 *   (user and system) a few seconds after ready, and after a posts load (POST then GET /v1/posts, 16 connections, like `posts-api`)
 *   with the key the first start printed; VmHWM is the peak.
 *
 * The first start is measured `BENCH_FIRST_STARTS` times (3 by default) each way, alternating:
 * from the template `@postwire/store-sql` ships (what `postwire serve` does), and through
 * PostgreSQL's `initdb`, as every first start did before the template (docs/performance.md,
 * "Third round: the first start"). The `initdb` start is the same build on a data directory
 * whose `db/` folder already holds a file (no database): the template is only unpacked into an
 * empty folder, so PGlite runs `initdb` there.
 *
 * Runs the BUILT packages (`npm run build` after changing sources). `BENCH_SECONDS` sets each
 * load's length, `BENCH_IDLE_SECONDS` the wait before the idle reading.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { aPng } from "../test/support/Media.ts"
import { bin, freePort, load, table } from "./support.ts"

const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 3)
const connections = 16
const firstStarts = Number(process.env.BENCH_FIRST_STARTS ?? 3)

/** The ids of `pid` and of every process below it. */
const processTree = (pid: number): Array<number> => {
  const children: Array<number> = []
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const listed = readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim()
      if (listed !== "") children.push(...listed.split(/\s+/).map(Number))
    }
  } catch {
    // The process is gone.
  }
  return [pid, ...children.flatMap(processTree)]
}

const statusField = (pid: number, field: string) => {
  try {
    const match = readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`${field}:\\s+(\\d+) kB`))
    return match ? Number(match[1]) / 1024 : 0
  } catch {
    return 0
  }
}

/** CPU time in ms (user and system, every thread) a process has used so far, from /proc. */
const cpuMsOf = (pid: number) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
  } catch {
    return 0
  }
}

/**
 * Resident memory in MB of a process and its children: now, and the peak; and the CPU time they
 * used so far (on a busy machine the ready time follows the load, the CPU time much less).
 */
const memoryOf = (pid: number) => {
  const tree = processTree(pid)
  return {
    rss: tree.reduce((sum, p) => sum + statusField(p, "VmRSS"), 0),
    peak: tree.reduce((sum, p) => sum + statusField(p, "VmHWM"), 0),
    cpuMs: tree.reduce((sum, p) => sum + cpuMsOf(p), 0)
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A started process: how long it took to answer `readyPath` with 200, and how to stop it. */
interface Started {
  readonly child: ChildProcess
  readonly baseUrl: string
  readonly readyMs: number
  readonly output: () => string
  readonly stop: () => Promise<void>
}

/**
 * Spawns `args` under node; ready when the output has `readyLine` (when given) and `readyPath`
 * answers 200. `postwire serve` is asked only after its line, as in the first round's numbers
 * (a request during the start is answered 503 `not_ready`; docs/operations.md).
 */
const start = async (
  args: ReadonlyArray<string>,
  port: number,
  readyPath: string,
  readyLine?: string,
  env: Record<string, string> = {}
): Promise<Started> => {
  const began = performance.now()
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env }
  for (const name of unset) delete childEnv[name]
  const child = spawn(process.execPath, [...args], { env: childEnv, stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  let exited = false
  child.stdout?.on("data", (c: Buffer) => (output += c.toString()))
  child.stderr?.on("data", (c: Buffer) => (output += c.toString()))
  child.on("exit", () => (exited = true))
  const baseUrl = `http://127.0.0.1:${port}`
  for (;;) {
    if (exited) throw new Error(`exited before ready:\n${output}`)
    const answered =
      readyLine !== undefined && !output.includes(readyLine)
        ? false
        : await fetch(`${baseUrl}${readyPath}`, { signal: AbortSignal.timeout(30_000) }).then(
            async (r) => {
              await r.arrayBuffer()
              return r.status === 200
            },
            () => false
          )
    if (answered) break
    await sleep(25)
  }
  const readyMs = performance.now() - began
  return {
    child,
    baseUrl,
    readyMs,
    output: () => output,
    stop: () =>
      new Promise<void>((done) => {
        if (exited) return done()
        child.on("exit", () => done())
        child.kill("SIGTERM")
      })
  }
}

const serveArgs = (port: number, dataDir: string) => [bin, "serve", "--port", String(port), "--host", "127.0.0.1", "--data-dir", dataDir]

// Embedded on purpose, and rate limits out of the way of the load.
const serveEnv = {
  POSTWIRE_RATE_LIMIT_PER_KEY: "100000000",
  POSTWIRE_RATE_LIMIT_POSTS_CREATE: "100000000"
}
// What `npx postwire serve` sees on a developer's machine: no database URL, no master secret (the
// data directory keeps one), a generated admin token.
const unset = ["DATABASE_URL", "POSTWIRE_SECRET", "POSTWIRE_SECRET_FILE", "POSTWIRE_ADMIN_TOKEN", "NODE_OPTIONS"]

const bareServer = `require("node:http").createServer((q, s) => s.end("ok")).listen(Number(process.argv[1]), "127.0.0.1")`

/** What the first start printed: the admin token, the test key and the profile. */
const printed = (output: string) => {
  const admin = output.match(/pwadm_[A-Za-z0-9_-]+/)?.[0]
  const key = output.match(/svc_test_[A-Za-z0-9_-]+/)?.[0]
  const profile = output.match(/prof_[0-9A-Z]+/)?.[0]
  const workspace = output.match(/Workspace: (ws_[0-9A-Z]+)/)?.[1]
  if (!admin || !key || !profile || !workspace) throw new Error(`unexpected first-start output:\n${output}`)
  return { admin, key, profile, workspace }
}

/** A posts load on the second start: two sandbox accounts without a quota in the way, one image, POST then GET. */
const postsLoad = async (server: Started, first: ReturnType<typeof printed>) => {
  const admin = async (path: string, body: unknown) => {
    const reply = await fetch(`${server.baseUrl}/admin/v1${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${first.admin}`, "content-type": "application/json" },
      body: JSON.stringify(body)
    })
    if (!reply.ok) throw new Error(`POST /admin/v1${path}: ${reply.status} ${await reply.text()}`)
    return ((await reply.json()) as { id: string }).id
  }
  const account = () =>
    admin(`/workspaces/${first.workspace}/accounts`, { profile_id: first.profile, platform: "photo", sandbox: true, daily_quota: 100_000_000 })
  const accounts = [await account(), await account()]
  const headers = { authorization: `Bearer ${first.key}`, "content-type": "application/json" }
  const uploaded = await fetch(`${server.baseUrl}/v1/media`, {
    method: "POST",
    headers,
    body: JSON.stringify({ data: Buffer.from(aPng({ width: 8, height: 8 })).toString("base64") })
  })
  const media = ((await uploaded.json()) as { id: string }).id
  const body = JSON.stringify({ profile_id: first.profile, caption: "bench", media: [media], targets: accounts.map((account_id) => ({ account_id })) })
  const check = await fetch(`${server.baseUrl}/v1/posts`, { method: "POST", headers, body })
  if (check.status !== 201) throw new Error(`POST /v1/posts: ${check.status} ${await check.text()}`)
  const post = await load({ url: `${server.baseUrl}/v1/posts`, method: "POST", headers, body, seconds, connections })
  const get = await load({ url: `${server.baseUrl}/v1/posts?limit=25`, headers, seconds, connections })
  return { post, get }
}

/** One first start of a fresh data directory (`initdb`: its `db/` folder not empty), measured a few seconds after ready. */
const aFirstStart = async (way: "template" | "initdb") => {
  const dataDir = mkdtempSync(join(tmpdir(), `postwire-bench-first-${way}-`))
  try {
    if (way === "initdb") {
      mkdirSync(join(dataDir, "db"))
      writeFileSync(join(dataDir, "db", "bench-initdb"), "")
    }
    const port = await freePort()
    const started = await start(serveArgs(port, dataDir), port, "/ready", "OpenAPI:", serveEnv)
    await sleep(idleSeconds * 1000)
    const memory = memoryOf(started.child.pid!)
    const fellBack = started.output().includes("creating the database with initdb")
    await started.stop()
    if (way === "template" && fellBack) throw new Error(`the first start did not use the template:\n${started.output()}`)
    return { way, readyMs: started.readyMs, memory }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

export const run = async (): Promise<void> => {
  const dataDir = mkdtempSync(join(tmpdir(), "postwire-bench-embedded-"))
  try {
    const barePort = await freePort()
    const bare = await start(["-e", bareServer, String(barePort)], barePort, "/")
    await sleep(idleSeconds * 1000)
    const bareIdle = memoryOf(bare.child.pid!)
    await bare.stop()

    // Alternating, so that the machine's load weighs on both ways alike.
    const firsts: Array<Awaited<ReturnType<typeof aFirstStart>>> = []
    for (let i = 0; i < firstStarts; i++) {
      firsts.push(await aFirstStart("template"))
      firsts.push(await aFirstStart("initdb"))
    }

    const firstPort = await freePort()
    const firstStart = await start(serveArgs(firstPort, dataDir), firstPort, "/ready", "OpenAPI:", serveEnv)
    await sleep(idleSeconds * 1000)
    const firstIdle = memoryOf(firstStart.child.pid!)
    const first = printed(firstStart.output())
    await firstStart.stop()

    const secondPort = await freePort()
    const second = await start(serveArgs(secondPort, dataDir), secondPort, "/ready", "OpenAPI:", serveEnv)
    await sleep(idleSeconds * 1000)
    const secondIdle = memoryOf(second.child.pid!)
    const { post, get } = await postsLoad(second, first)
    await sleep(1000)
    const afterLoad = memoryOf(second.child.pid!)
    await second.stop()

    const mb = (n: number) => Math.round(n)
    table([
      { what: "bare node:http", ready_ms: mb(bare.readyMs), cpu_ms: mb(bareIdle.cpuMs), rss_mb: mb(bareIdle.rss), peak_mb: mb(bareIdle.peak), ready_ratio: 1, rss_ratio: 1 },
      ...[
        ...firsts.map((row, i) => ({
          what: `serve, first start ${Math.floor(i / 2) + 1} (${row.way === "template" ? "template" : "initdb, as before"}, idle)`,
          ready: row.readyMs,
          memory: row.memory
        })),
        { what: "serve, first start (template, idle; keys for the load)", ready: firstStart.readyMs, memory: firstIdle },
        { what: "serve, second start (idle)", ready: second.readyMs, memory: secondIdle },
        { what: "serve, after the posts load", ready: second.readyMs, memory: afterLoad }
      ].map((row) => ({
        what: row.what,
        ready_ms: mb(row.ready),
        cpu_ms: mb(row.memory.cpuMs),
        rss_mb: mb(row.memory.rss),
        peak_mb: mb(row.memory.peak),
        ready_ratio: row.ready / bare.readyMs,
        rss_ratio: row.memory.rss / bareIdle.rss
      }))
    ])
    console.log(
      `posts load on the second start (${connections} connections, ${seconds} s each): POST ${post.rps.toFixed(0)} req/s (p99 ${post.p99} ms, non-2xx ${post.non2xx}), GET ${get.rps.toFixed(0)} req/s (p99 ${get.p99} ms, non-2xx ${get.non2xx})`
    )
    console.log("targets (#15): second start ready <= 2000 ms; RSS idle <= 200 MB; after the posts load <= 300 MB")
    console.log("targets (#44): first start ready <= 3000 ms, peak <= 300 MB; second start ready <= 1000 ms, RSS idle <= 150 MB")
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}
