/**
 * Publishing throughput and lag: one, then three `postwire serve --role worker` processes on one
 * PostgreSQL publish a burst of posts that all fall due at the same instant, to the fake Threads
 * server (each target: a publishing-limit check, a container, a status check, the publish and
 * the permalink, over real HTTP; the fake answers at once). Reported: targets published per
 * second once due, the p99 lag from the due time to the start of publishing (`post.publishing`),
 * the p50 and p99 from the due time to the platform's publish, three instances' rate as a
 * multiple of one's, measured in the same run, and what does not depend on the machine's load as
 * much: the workers' CPU time per target, and, in a third pass of one instance through a relay
 * (as `posts-wire` counts), the statements and round trips per target the worker sent to
 * PostgreSQL (its other loops included). Needs DATABASE_URL (several processes share one
 * database); `BENCH_PUBLISH_TARGETS` sets the burst (default 1,000), `BENCH_PUBLISH_WIRE_TARGETS`
 * the counted pass's (default 300).
 */
import { availableParallelism, loadavg } from "node:os"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { layerPostgres } from "@postwire/store-sql"
import { startFleet } from "../test/publishing/fleet.ts"
import { relay } from "./posts-wire.ts"
import { table } from "./support.ts"

const burst = Number(process.env.BENCH_PUBLISH_TARGETS ?? 1_000)
const wireBurst = Number(process.env.BENCH_PUBLISH_WIRE_TARGETS ?? 300)

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN

/** When each post's publishing started, from the outbox (`post.publishing`, one per post). */
const publishingStarts = (databaseUrl: string) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql`SELECT created_at FROM outbox_events WHERE type = 'post.publishing'`
      return rows.map((row) => Number(row.created_at))
    }).pipe(Effect.provide(layerPostgres(databaseUrl, { maxConnections: 1 })))
  )

/** CPU time (user + system, ms) of a process and its children so far, from /proc; 0 where there is none. */
const cpuMs = async (pid: number): Promise<number> => {
  const { readFile } = await import("node:fs/promises")
  try {
    const fields = (await readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1]!.split(" ")
    // utime, stime, cutime, cstime (fields 14-17, counted from the state at index 0 = field 3).
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0)
    return (ticks * 1000) / 100
  } catch {
    return 0
  }
}

const measure = async (instances: number, targets: number, counted: boolean) => {
  const fleet = await startFleet({ accounts: 50 })
  const wire = await relay(new URL(fleet.databaseUrl))
  try {
    const workers = await Promise.all(
      Array.from({ length: instances }, () => fleet.startWorker(counted ? { DATABASE_URL: wire.url } : {}))
    )
    // Everything falls due at one instant, after the burst has been written.
    const dueAt = Math.ceil((Date.now() + 15_000 + targets * 10) / 1000) * 1000
    await fleet.createPosts(targets, { scheduled_at: new Date(dueAt).toISOString() })
    if (Date.now() >= dueAt) throw new Error("writing the burst took longer than planned: lower BENCH_PUBLISH_TARGETS")
    await new Promise((resolve) => setTimeout(resolve, dueAt - Date.now()))
    wire.reset()
    const cpuBefore = await Promise.all(workers.map((w) => cpuMs(w.pid)))
    await fleet.waitForPublished(targets, 600_000)
    const done = Date.now()
    const cpuAfter = await Promise.all(workers.map((w) => cpuMs(w.pid)))
    const { statements, roundTrips } = wire.counts
    const cpu = cpuAfter.reduce((sum, ms, i) => sum + ms - cpuBefore[i]!, 0)
    const lags = (await publishingStarts(fleet.databaseUrl)).map((start) => start - dueAt).sort((a, b) => a - b)
    const toPublished = fleet.fake.media.map((m) => m.publishedAt - dueAt).sort((a, b) => a - b)
    if (fleet.fake.media.length !== targets || fleet.fake.duplicatePublishes !== 0) {
      throw new Error(`published ${fleet.fake.media.length} items (${fleet.fake.duplicatePublishes} duplicates) for ${targets} targets`)
    }
    return {
      instances,
      targets,
      seconds: (done - dueAt) / 1000,
      perSecond: targets / ((done - dueAt) / 1000),
      p99: percentile(lags, 0.99),
      publishedP50: percentile(toPublished, 0.5),
      publishedP99: percentile(toPublished, 0.99),
      statements: statements / targets,
      roundTrips: roundTrips / targets,
      cpu: cpu / targets
    }
  } finally {
    await fleet.stop()
    await wire.close()
  }
}

/** Runs the publishing benchmark and prints its table. */
export async function run(): Promise<void> {
  if (process.env.DATABASE_URL === undefined) {
    console.log("skipped: set DATABASE_URL (several worker processes share one PostgreSQL)")
    return
  }
  const one = await measure(1, burst, false)
  const three = await measure(3, burst, false)
  const wire = await measure(1, wireBurst, true)
  console.log(
    `${availableParallelism()} cores (os.availableParallelism()), shared by the workers, PostgreSQL, the API instance and the fake platform; load average at the end ${loadavg()[0]!.toFixed(1)}`
  )
  table(
    [one, three].map((r) => ({
      instances: r.instances,
      targets: r.targets,
      "seconds after due": r.seconds,
      "targets/s": r.perSecond,
      "p99 lag to start (ms)": r.p99,
      "p50 / p99 to published (ms)": `${r.publishedP50} / ${r.publishedP99}`,
      "vs one instance": r.perSecond / one.perSecond,
      "worker CPU ms/target": r.cpu
    }))
  )
  table([
    {
      "counted pass": `1 instance, ${wire.targets} targets, through a relay`,
      "statements/target": wire.statements,
      "round trips/target": wire.roundTrips,
      "worker CPU ms/target": wire.cpu
    }
  ])
}
