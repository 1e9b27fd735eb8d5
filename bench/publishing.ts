/**
 * Publishing throughput and lag: one, then three `postwire serve --role worker` processes on one
 * PostgreSQL publish a burst of posts that all fall due at the same instant, to the fake Threads
 * server (each target: a publishing-limit check, a container, a status check, the publish and
 * the permalink, over real HTTP). Reported: targets published per second once due, the p99 lag
 * from the due time to the start of publishing (`post.publishing`), and three instances' rate
 * as a multiple of one's, measured in the same run. Needs DATABASE_URL (several processes share
 * one database); `BENCH_PUBLISH_TARGETS` sets the burst (default 1,000).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { layerPostgres } from "@postwire/store-sql"
import { startFleet } from "../test/publishing/fleet.ts"
import { table } from "./support.ts"

const targets = Number(process.env.BENCH_PUBLISH_TARGETS ?? 1_000)

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

const measure = async (instances: number) => {
  const fleet = await startFleet({ accounts: 50 })
  try {
    await Promise.all(Array.from({ length: instances }, () => fleet.startWorker()))
    // Everything falls due at one instant, after the burst has been written.
    const dueAt = Math.ceil((Date.now() + 15_000 + targets * 10) / 1000) * 1000
    await fleet.createPosts(targets, { scheduled_at: new Date(dueAt).toISOString() })
    if (Date.now() >= dueAt) throw new Error("writing the burst took longer than planned: lower BENCH_PUBLISH_TARGETS")
    await fleet.waitForPublished(targets, 600_000)
    const done = Date.now()
    const lags = (await publishingStarts(fleet.databaseUrl)).map((start) => start - dueAt).sort((a, b) => a - b)
    if (fleet.fake.media.length !== targets || fleet.fake.duplicatePublishes !== 0) {
      throw new Error(`published ${fleet.fake.media.length} items (${fleet.fake.duplicatePublishes} duplicates) for ${targets} targets`)
    }
    return { instances, targets, seconds: (done - dueAt) / 1000, perSecond: targets / ((done - dueAt) / 1000), p99: percentile(lags, 0.99) }
  } finally {
    await fleet.stop()
  }
}

/** Runs the publishing benchmark and prints its table. */
export async function run(): Promise<void> {
  if (process.env.DATABASE_URL === undefined) {
    console.log("skipped: set DATABASE_URL (several worker processes share one PostgreSQL)")
    return
  }
  const one = await measure(1)
  const three = await measure(3)
  table(
    [one, three].map((r) => ({
      instances: r.instances,
      targets: r.targets,
      "seconds after due": r.seconds,
      "targets/s": r.perSecond,
      "p99 lag to start (ms)": r.p99,
      "vs one instance": r.perSecond / one.perSecond
    }))
  )
}
