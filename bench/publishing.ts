/**
 * Publishing throughput and lag: one, then three `postwire serve --role worker` processes on one
 * PostgreSQL publish a burst of posts that all fall due at the same instant, to the fake Threads
 * server (each target: a publishing-limit check, a container, a status check, the publish and
 * the permalink, over real HTTP; the fake answers at once). Reported: targets published per
 * second once due, the p99 lag from the due time to the start of publishing (`post.publishing`),
 * the p50 and p99 from the due time to the platform's publish, three instances' rate as a
 * multiple of one's, and one instance's as a multiple of the baseline's, measured in the same run.
 *
 * The baseline (`publishing-baseline.ts`): a hand-written worker in its own process, node:http
 * and `pg` and nothing else, publishing the same kind of burst to the same fake with the same
 * calls and the same kind of durable writes (claim with its event, the container id, the
 * checkpoint, published with its event): the rate this machine allows a worker with no
 * framework at all.
 *
 * And where the machine's time goes, which depends much less on the machine's load than the
 * rates do: the CPU milliseconds per target of each process over the measured burst, from /proc
 * (the workers, split into their main thread and V8's helper threads, which compile and collect
 * garbage; the fleet's PostgreSQL backends, found by the fleet's `application_name`, with
 * PostgreSQL's own writers; the API instance; this process, which runs the fake platform), and
 * the whole machine's from /proc/stat with the share of its cores that were busy (near 100%, the
 * burst was bound by CPU, and only less CPU per target raises the rate). In a
 * third pass of one instance through a relay (as `posts-wire` counts): the statements and round
 * trips per target the worker sent to PostgreSQL (its other loops included).
 *
 * Each worker first publishes a warm-up burst of the same kind (its figures printed apart): a
 * worker is a long-running process, and the first thousands of targets after its start also pay
 * for V8 compiling the whole publishing path (most of the helper threads' CPU then).
 *
 * Needs DATABASE_URL (several processes share one database); `BENCH_PUBLISH_TARGETS` sets the
 * burst (default 1,000), `BENCH_PUBLISH_WARMUP` the warm-up burst per instance (default 700),
 * `BENCH_PUBLISH_WIRE_TARGETS` the counted pass's (default 300), `BENCH_PUBLISH_FLEET` the
 * instances of the fleet's pass (default 3; 0 skips it), `BENCH_PUBLISH_WRITE_MS` the time allowed
 * per post to write a burst before it falls due (default 20).
 */
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { availableParallelism, loadavg } from "node:os"
import { join } from "node:path"
import { Effect, Exit, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { layerPostgres } from "@postwire/store-sql"
import * as ThreadsFake from "../test/platforms/threads/ThreadsFake.ts"
import { startFleet } from "../test/publishing/fleet.ts"
import { seedSql } from "./publishing-baseline.ts"
import { relay } from "./posts-wire.ts"
import { table } from "./support.ts"

const burst = Number(process.env.BENCH_PUBLISH_TARGETS ?? 1_000)
const warmup = Number(process.env.BENCH_PUBLISH_WARMUP ?? 700)
const wireBurst = Number(process.env.BENCH_PUBLISH_WIRE_TARGETS ?? 300)
/** Time allowed per post to write a burst before it falls due (`BENCH_PUBLISH_WRITE_MS`, default 20 ms; more on a loaded machine). */
const writeMs = Number(process.env.BENCH_PUBLISH_WRITE_MS ?? 20)
/** Settings every worker starts with, as JSON (`{"POSTWIRE_PUBLISH_CONCURRENCY":"128"}`): to compare settings. */
const workerEnv: Readonly<Record<string, string>> = (() => {
  const text = process.env.BENCH_PUBLISH_WORKER_ENV ?? "{}"
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    value = undefined
  }
  if (typeof value !== "object" || value === null || Array.isArray(value) || !Object.values(value).every((v) => typeof v === "string")) {
    throw new Error(`BENCH_PUBLISH_WORKER_ENV: expected a JSON object of strings, such as {"POSTWIRE_PUBLISH_CONCURRENCY":"128"}, got ${text}`)
  }
  return value as Record<string, string>
})()
/**
 * Node options of every worker (`--cpu-prof --cpu-prof-dir=/tmp/prof`): to profile them. Every
 * worker (and the baseline) also runs with `--trace-gc`: its lines measure what it allocated.
 */
const workerNodeArgs = ["--trace-gc", ...(process.env.BENCH_PUBLISH_WORKER_NODE_ARGS ?? "").split(" ").filter((arg) => arg !== "")]

/**
 * The bytes a process allocated on its heap, from its `--trace-gc` lines written between two
 * offsets of its output: each collection's heap size before it, less the size the previous
 * collection left (the first collection of the range counts from the one before the range).
 */
export const allocatedBetween = (output: string, from: number, to: number): number => {
  const collection = /ms: [A-Za-z -]+?(?:\([a-z ]+\) )?([\d.]+) \(([\d.]+)\) -> ([\d.]+) \(([\d.]+)\) MB/g
  let total = 0
  let lastAfter: number | undefined
  for (const match of output.matchAll(collection)) {
    const before = Number(match[1])
    const after = Number(match[3])
    if (match.index >= from && match.index < to && lastAfter !== undefined) total += Math.max(0, before - lastAfter)
    lastAfter = after
  }
  return total * 1024 * 1024
}

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN

const onDatabase = <A>(databaseUrl: string, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(
    Effect.gen(function* () {
      return yield* f(yield* SqlClient.SqlClient)
    }).pipe(Effect.provide(layerPostgres(databaseUrl, { maxConnections: 1 })))
  )

/** When each post's publishing started, from the outbox (`post.publishing`, one per post). */
const publishingStarts = (databaseUrl: string) =>
  onDatabase(databaseUrl, (sql) =>
    Effect.map(sql`SELECT created_at FROM outbox_events WHERE type = 'post.publishing'`, (rows) =>
      rows.map((row) => Number(row.created_at))
    )
  )

/** The process ids of the fleet's PostgreSQL backends (its connections carry the schema as their application name). */
const backends = (databaseUrl: string, applicationName: string) =>
  onDatabase(databaseUrl, (sql) =>
    Effect.map(
      sql`SELECT pid FROM pg_stat_activity WHERE application_name = ${applicationName}`,
      (rows) => rows.map((row) => Number(row.pid))
    )
  )

/** PostgreSQL's own processes that work for every backend: the WAL writer, the checkpointer, the background writer. */
const postgresWriters = (): Array<number> =>
  readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((pid) => {
      try {
        return /^postgres: .*(walwriter|checkpointer|background writer)/.test(readFileSync(`/proc/${pid}/cmdline`, "utf8"))
      } catch {
        return false
      }
    })
    .map(Number)

/** CPU time (user + system, ms) of a process (every thread) or of one thread; 0 once it is gone. */
const cpuMs = (pid: number, thread?: number): number => {
  try {
    const stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    // utime and stime (fields 14 and 15, counted from the state at index 0 = field 3), in clock ticks of 10 ms.
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return 0
  }
}

/**
 * The whole machine's CPU time in ms, all cores together, from `/proc/stat`: `busy` (user, nice,
 * system, irq, softirq) and `total` (those, idle, iowait and steal); zeros where there is none.
 */
const machineMs = (): { readonly busy: number; readonly total: number } => {
  try {
    const [user, nice, system, idle, iowait, irq, softirq, steal] = readFileSync("/proc/stat", "utf8")
      .split("\n")[0]!
      .trim()
      .split(/\s+/)
      .slice(1, 9)
      .map(Number) as [number, number, number, number, number, number, number, number]
    const busy = user + nice + system + irq + softirq
    return { busy: busy * 10, total: (busy + idle + iowait + steal) * 10 }
  } catch {
    return { busy: 0, total: 0 }
  }
}

/** CPU ms of each process the run involves, and of the whole machine, at one instant. */
interface CpuSnapshot {
  readonly workers: ReadonlyArray<{ readonly all: number; readonly main: number }>
  readonly postgres: ReadonlyMap<number, number>
  readonly api: number
  readonly bench: number
  readonly machine: { readonly busy: number; readonly total: number }
}

const snapshot = (
  workerPids: ReadonlyArray<number>,
  postgresPids: ReadonlyArray<number>,
  apiPid: number | undefined
): CpuSnapshot => ({
  workers: workerPids.map((pid) => ({ all: cpuMs(pid), main: cpuMs(pid, pid) })),
  postgres: new Map(postgresPids.map((pid) => [pid, cpuMs(pid)])),
  api: apiPid === undefined ? 0 : cpuMs(apiPid),
  bench: cpuMs(process.pid),
  machine: machineMs()
})

/** CPU ms per target of each process between two snapshots. */
const perTarget = (before: CpuSnapshot, after: CpuSnapshot, targets: number) => {
  const sum = (values: ReadonlyArray<number>) => values.reduce((a, b) => a + b, 0)
  const workerAll = sum(after.workers.map((w, i) => w.all - before.workers[i]!.all))
  const workerMain = sum(after.workers.map((w, i) => w.main - before.workers[i]!.main))
  // A backend gone in between counts 0 from then on: leave it out rather than subtract.
  const postgres = sum([...after.postgres].map(([pid, ms]) => (ms > 0 && before.postgres.has(pid) ? ms - before.postgres.get(pid)! : 0)))
  return {
    worker: workerAll / targets,
    workerMain: workerMain / targets,
    workerHelpers: (workerAll - workerMain) / targets,
    postgres: postgres / targets,
    api: (after.api - before.api) / targets,
    bench: (after.bench - before.bench) / targets,
    // Everything that ran on the machine meanwhile (the kernel's networking, autovacuum, other
    // processes included), and how busy its cores were: near 100%, the rate is bound by CPU.
    machine: (after.machine.busy - before.machine.busy) / targets,
    machineBusy: (after.machine.busy - before.machine.busy) / Math.max(1, after.machine.total - before.machine.total)
  }
}

/**
 * Vacuums PostgreSQL's catalogs: every fleet (and every test and bench before it) creates a
 * schema of its own and drops it, which leaves the catalogs' tables full of dead rows until
 * autovacuum reaches them, and a database in that state plans every statement more slowly (a
 * third of the publishing rate was measured once). A production database does not create and
 * drop schemas: each pass starts on clean catalogs. Without the privilege, PostgreSQL skips
 * them with a warning.
 */
const vacuumCatalogs = (databaseUrl: string) =>
  onDatabase(databaseUrl, (sql) =>
    sql.unsafe(
      "VACUUM (ANALYZE) pg_catalog.pg_attribute, pg_catalog.pg_class, pg_catalog.pg_depend, pg_catalog.pg_index, pg_catalog.pg_type, pg_catalog.pg_constraint, pg_catalog.pg_attrdef, pg_catalog.pg_statistic, pg_catalog.pg_namespace"
    )
  )

/** A measured burst's figures: `lags` (to the start) and `toPublished` from the due time, sorted. */
const rates = (
  targets: number,
  dueAt: number,
  done: number,
  lags: ReadonlyArray<number>,
  toPublished: ReadonlyArray<number>
) => ({
  targets,
  seconds: (done - dueAt) / 1000,
  perSecond: targets / ((done - dueAt) / 1000),
  p99: percentile(lags, 0.99),
  publishedP50: percentile(toPublished, 0.5),
  publishedP99: percentile(toPublished, 0.99)
})

/** One pass: `instances` workers publish a warm-up burst each (unless `counted`), then a measured burst of `targets`. */
export const measure = async (instances: number, targets: number, counted: boolean) => {
  await vacuumCatalogs(process.env.DATABASE_URL!)
  const fleet = await startFleet({ accounts: 50, workerEnv })
  const wire = await relay(new URL(fleet.databaseUrl))
  try {
    const workers = await Promise.all(
      Array.from({ length: instances }, () => fleet.startWorker(counted ? { DATABASE_URL: wire.url } : {}, workerNodeArgs))
    )
    /** A burst of `count` posts that all fall due at one instant, after they have all been written. */
    const dueBurst = async (count: number, publishedBefore: number) => {
      const dueAt = Math.ceil((Date.now() + 15_000 + count * writeMs) / 1000) * 1000
      await fleet.createPosts(count, { scheduled_at: new Date(dueAt).toISOString() })
      if (Date.now() >= dueAt) throw new Error("writing the burst took longer than planned: lower BENCH_PUBLISH_TARGETS")
      // Every connection the workers use is open by now (their pools opened them for the polling).
      const postgresPids = [...(await backends(fleet.databaseUrl, fleet.schema)), ...postgresWriters()]
      await new Promise((resolve) => setTimeout(resolve, dueAt - Date.now()))
      wire.reset()
      const pids = fleet.workers.map((w) => w.pid)
      const before = snapshot(pids, postgresPids, fleet.api.pid)
      const traceFrom = fleet.workers.map((w) => w.output().length)
      await fleet.waitForPublished(publishedBefore + count, 600_000)
      const done = Date.now()
      // Collections are logged a moment after they happen: let the last of the burst arrive.
      await new Promise((resolve) => setTimeout(resolve, 200))
      const allocated = fleet.workers.reduce((sum, w, i) => {
        const output = w.output()
        return sum + allocatedBetween(output, traceFrom[i]!, output.length)
      }, 0)
      return { dueAt, done, cpu: perTarget(before, snapshot(pids, postgresPids, fleet.api.pid), count), allocatedPerTarget: allocated / count }
    }
    // The warm-up, the same kind of burst: every worker takes its share.
    const warm = counted ? 0 : warmup * instances
    const cold = warm > 0 ? (await dueBurst(warm, 0)).cpu : undefined
    const warmedAt = Date.now()
    const { allocatedPerTarget, cpu, done, dueAt } = await dueBurst(targets, warm)
    const { statements, roundTrips } = wire.counts
    const lags = (await publishingStarts(fleet.databaseUrl))
      .filter((start) => start >= warmedAt)
      .map((start) => start - dueAt)
      .sort((a, b) => a - b)
    const measured = fleet.fake.media.filter((m) => m.publishedAt >= warmedAt)
    const toPublished = measured.map((m) => m.publishedAt - dueAt).sort((a, b) => a - b)
    if (fleet.fake.media.length !== warm + targets || fleet.fake.duplicatePublishes !== 0) {
      throw new Error(
        `published ${fleet.fake.media.length} items (${fleet.fake.duplicatePublishes} duplicates) for ${warm + targets} targets`
      )
    }
    return {
      instances,
      warm,
      ...rates(targets, dueAt, done, lags, toPublished),
      statements: statements / targets,
      roundTrips: roundTrips / targets,
      cpu,
      allocatedPerTarget,
      cold,
      workers: workers.length
    }
  } finally {
    await fleet.stop()
    await wire.close()
  }
}

/**
 * The baseline pass: `publishing-baseline.ts` (node:http and `pg`, nothing else) in its own
 * process publishes a warm-up burst, then a measured burst of `targets` due at one instant, to
 * the same fake platform (in this process) as the fleet's workers, on its own schema.
 */
export const measureBaseline = async (targets: number) => {
  const databaseUrl = process.env.DATABASE_URL!
  await vacuumCatalogs(databaseUrl)
  const schema = `pw_rawpub_${randomBytes(5).toString("hex")}`
  await onDatabase(databaseUrl, (sql) => sql.unsafe(`CREATE SCHEMA ${schema}`))
  const url = `${databaseUrl}${databaseUrl.includes("?") ? "&" : "?"}options=${encodeURIComponent(`-c search_path=${schema}`)}&application_name=${schema}`
  const fakeScope = Effect.runSync(Scope.make())
  const fake = await Effect.runPromise(ThreadsFake.make().pipe(Scope.provide(fakeScope)))
  fake.pollsBeforeFinished = 0
  fake.quotaUsedBefore = -1_000_000
  const child = spawn(process.execPath, ["--trace-gc", "--import", import.meta.resolve("tsx"), join(import.meta.dirname, "publishing-baseline.ts")], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      BASELINE_FAKE_URL: fake.url,
      BASELINE_USER_ID: ThreadsFake.threadsUserId,
      BASELINE_ACCESS_TOKEN: fake.accessToken,
      BASELINE_MEDIA_URL: "http://127.0.0.1:9/v1",
      BASELINE_POLL_MS: "50"
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  try {
    while (!output.includes("ready")) {
      if (child.exitCode !== null) throw new Error(`the baseline worker exited: ${output}`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    let seeded = 0
    const dueBurst = async (count: number) => {
      const dueAt = Math.ceil((Date.now() + 3_000) / 1000) * 1000
      await onDatabase(url, (sql) => sql.unsafe(seedSql(seeded, count, dueAt, 50)))
      seeded += count
      const postgresPids = [...(await backends(databaseUrl, schema)), ...postgresWriters()]
      await new Promise((resolve) => setTimeout(resolve, dueAt - Date.now()))
      const before = snapshot([child.pid!], postgresPids, undefined)
      const traceFrom = output.length
      const deadline = Date.now() + 600_000
      while (fake.media.length < seeded) {
        if (Date.now() > deadline || child.exitCode !== null) {
          throw new Error(`the baseline published ${fake.media.length} of ${seeded}: ${output.slice(-2000)}`)
        }
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      const done = Date.now()
      const cpu = perTarget(before, snapshot([child.pid!], postgresPids, undefined), count)
      await new Promise((resolve) => setTimeout(resolve, 200))
      return { dueAt, done, cpu, allocatedPerTarget: allocatedBetween(output, traceFrom, output.length) / count }
    }
    if (warmup > 0) await dueBurst(warmup)
    const warmedAt = Date.now()
    const { allocatedPerTarget, cpu, done, dueAt } = await dueBurst(targets)
    const lags = await onDatabase(url, (sql) =>
      Effect.map(
        sql`SELECT created_at FROM raw_events WHERE type = 'post.publishing' AND created_at >= ${warmedAt}`,
        (rows) => rows.map((row) => Number(row.created_at) - dueAt).sort((a, b) => a - b)
      )
    )
    const toPublished = fake.media.filter((m) => m.publishedAt >= warmedAt).map((m) => m.publishedAt - dueAt).sort((a, b) => a - b)
    if (output.includes("Error") || fake.duplicatePublishes !== 0) {
      throw new Error(`the baseline failed targets (${fake.duplicatePublishes} duplicates): ${output.slice(-2000)}`)
    }
    return { ...rates(targets, dueAt, done, lags, toPublished), cpu, allocatedPerTarget }
  } finally {
    child.kill("SIGTERM")
    await exited
    await Effect.runPromise(Scope.close(fakeScope, Exit.void))
    await onDatabase(databaseUrl, (sql) => sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`))
  }
}

/** Runs the publishing benchmark and prints its tables. */
export async function run(): Promise<void> {
  if (process.env.DATABASE_URL === undefined) {
    console.log("skipped: set DATABASE_URL (several worker processes share one PostgreSQL)")
    return
  }
  // `BENCH_PUBLISH_BASELINE=0` skips the baseline (to compare two builds of Postwire pass against pass).
  const raw = process.env.BENCH_PUBLISH_BASELINE === "0" ? undefined : await measureBaseline(burst)
  const one = await measure(1, burst, false)
  // `BENCH_PUBLISH_FLEET=0` skips the several-instance pass (on a machine too loaded to write its warm-up in time).
  const fleetSize = Number(process.env.BENCH_PUBLISH_FLEET ?? 3)
  const passes = [one, ...(fleetSize > 0 ? [await measure(fleetSize, burst, false)] : [])]
  const wire = await measure(1, wireBurst, true)
  console.log(
    `${availableParallelism()} cores (os.availableParallelism()), shared by the workers, PostgreSQL, the API instance and the fake platform; load average at the end ${loadavg()[0]!.toFixed(1)}`
  )
  table([
    ...(raw === undefined ? [] : [{
      worker: "baseline: node:http + pg (publishing-baseline.ts)",
      targets: raw.targets,
      "seconds after due": raw.seconds,
      "targets/s": raw.perSecond,
      "p99 lag to start (ms)": raw.p99,
      "p50 / p99 to published (ms)": `${raw.publishedP50} / ${raw.publishedP99}`,
      "vs baseline": 1,
      "vs one instance": ""
    }]),
    ...passes.map((r) => ({
      worker: `postwire, ${r.instances} instance${r.instances === 1 ? "" : "s"}`,
      targets: r.targets,
      "seconds after due": r.seconds,
      "targets/s": r.perSecond,
      "p99 lag to start (ms)": r.p99,
      "p50 / p99 to published (ms)": `${r.publishedP50} / ${r.publishedP99}`,
      "vs baseline": raw === undefined ? "" : r.perSecond / raw.perSecond,
      "vs one instance": r.perSecond / one.perSecond
    }))
  ])
  console.log(
    "CPU ms per target, from /proc: workers (main thread + V8 helper threads), the fleet's PostgreSQL backends with its writers, the API instance, this process (the fake platform); the whole machine (every process and the kernel) and how busy its cores were"
  )
  const cpuRow = (label: string, c: ReturnType<typeof perTarget>, allocated?: number) => ({
    "measured burst": label,
    "heap KB allocated/target": allocated === undefined ? "" : allocated / 1024,
    workers: `${c.worker.toFixed(2)} (${c.workerMain.toFixed(2)} + ${c.workerHelpers.toFixed(2)})`,
    postgres: c.postgres,
    api: c.api,
    "fake platform": c.bench,
    sum: c.worker + c.postgres + c.api + c.bench,
    machine: c.machine,
    "cores busy": `${Math.round(c.machineBusy * 100)}%`
  })
  table([
    ...(raw === undefined ? [] : [cpuRow(`baseline, measured (${raw.targets})`, raw.cpu, raw.allocatedPerTarget)]),
    ...passes.flatMap((r) => {
      const label = `${r.instances} instance${r.instances === 1 ? "" : "s"}`
      return [
        cpuRow(`${label}, measured (${r.targets})`, r.cpu, r.allocatedPerTarget),
        ...(r.cold === undefined ? [] : [cpuRow(`${label}, warm-up after start (${r.warm})`, r.cold)])
      ]
    })
  ])
  table([
    {
      "counted pass": `1 instance, ${wire.targets} targets, through a relay, no warm-up`,
      "statements/target": wire.statements,
      "round trips/target": wire.roundTrips,
      "worker CPU ms/target": wire.cpu.worker
    }
  ])
}
