/**
 * An unreliable platform and workers that die: the fake Threads server answers slowly, fails 5%
 * of its calls with a 500 and loses 5% of its publish answers after publishing, while one of three
 * workers on one PostgreSQL is killed with SIGKILL and replaced: no finalizer runs, no lease is
 * given back, steps die half-way (before the platform call, after the platform accepted, between
 * polls, between creating a container and publishing it). Once the killed workers' leases run
 * out, the others take their targets over.
 *
 * The posts come in waves, and each wave has its kills at drawn points of its own progress, with
 * all three workers running: how fast a loaded machine publishes, or starts a replacement, cannot
 * leave the workers without work to die in (a clock-paced kill could find everything published).
 *
 * In the end: nothing published twice; no target reported failed that the platform published (a
 * target the platform refused for good may fail `retryable`: it is retried here until it
 * publishes); every published target has the platform's permalink; and no target had a second
 * container made once one was saved (a saved container is one the workers asked about).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "../support/Eventually.ts"
import { onPostgres } from "../support/Postgres.ts"
import { type CreatedPost, type Fleet, publishedCaptions, startFleet } from "./fleet.ts"

const targets = 1_000

/** A small seeded generator, so a failing run can be replayed with its printed seed. */
const random = (seed: number) => {
  let state = seed
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648
    return state / 2_147_483_648
  }
}

/** The posts come in this many waves of `targets / waves`. */
const waves = 5
/** Kills in each wave, each at a drawn point of the wave's progress (so at least `waves * killsPerWave`). */
const killsPerWave = 2

onPostgres("publishing through worker crashes", () => {
  describe("publishing through worker crashes", () => {
    let fleet: Fleet
    const created: Array<CreatedPost> = []

    beforeAll(async () => {
      // Short leases, so a killed worker's targets are taken over within seconds.
      fleet = await startFleet({ accounts: 20, workerEnv: { POSTWIRE_PUBLISH_LEASE_MS: "6000" } })
    }, 10 * 60_000)
    afterAll(() => fleet?.stop())

    it("publishes everything once, reports nothing false, and loses no permalink, with lost answers, 500s and kill -9", async () => {
      const seed = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000)
      const next = random(seed)
      const { fake } = fleet
      fake.chaos = { errorRate: 0.05, lostPublishRate: 0.05, random: next }
      fake.latencyMs = () => 2 + Math.floor(next() * 20)
      await Promise.all([fleet.startWorker(), fleet.startWorker(), fleet.startWorker()])

      const kills: Array<string> = []
      const perWave = targets / waves
      for (let wave = 0; wave < waves; wave++) {
        const before = fake.media.length
        created.push(...(await fleet.createPosts(perWave)))
        // Drawn points between 5% and 65% of the wave: at each, two keep publishing while the
        // third dies and its replacement starts; the next kill waits for the replacement.
        const points = Array.from({ length: killsPerWave }, () => before + Math.floor(perWave * (0.05 + next() * 0.6))).sort((a, b) => a - b)
        for (const point of points) {
          await eventually(() => fake.media.length >= point, `${point} published`, { intervalMs: 20, withinMs: 10 * 60_000 })
          const alive = fleet.workers.filter((w) => w.alive())
          const victim = alive[Math.floor(next() * alive.length)]!
          kills.push(`${victim.name}@${fake.media.length}`)
          await victim.kill9()
          await fleet.startWorker()
        }
      }
      const context = () => `seed ${seed}; ${kills.length} kills: ${kills.join(", ")}; containers made: ${fake.containers.length}`

      // Targets the platform refused for good (three 500s in a row) failed, retryable: retry them.
      const falseFailures: Array<unknown> = []
      const notRetryable: Array<unknown> = []
      await eventually(
        async () => {
          const posts = await fleet.listPosts()
          const failed = posts.filter((p) => p.targets[0].status === "failed")
          for (const post of failed) {
            if (fake.media.some((m) => m.caption === post.caption)) falseFailures.push([post.id, post.caption, post.targets[0].error])
            if (post.targets[0].error.retryable !== true) notRetryable.push([post.id, post.targets[0].error])
            else await fleet.retryPost(post.id)
          }
          return posts.filter((p) => p.targets[0].status !== "published" || p.targets[0].permalink === null)
        },
        (missing) => missing.length === 0 || falseFailures.length > 0 || notRetryable.length > 0,
        `every post published with a permalink (${context()})`,
        { intervalMs: 100, withinMs: 10 * 60_000 }
      )
      expect(falseFailures, context()).toEqual([])
      expect(notRetryable, context()).toEqual([])
      // Anything a killed worker left half-done has been taken over by now; the workers stop
      // (SIGTERM lets a running step finish), so no late duplicate can come after the count.
      await Promise.all(fleet.workers.map((worker) => worker.stop()))

      expect(kills.length, context()).toBe(waves * killsPerWave)
      expect(fake.media.length, context()).toBe(targets)
      expect(fake.duplicatePublishes, context()).toBe(0)
      const counts = publishedCaptions(fake)
      expect([...counts.entries()].filter(([, n]) => n > 1), context()).toEqual([])
      expect(new Set(counts.keys())).toEqual(new Set(created.map((p) => p.caption)))

      const posts = await fleet.listPosts()
      expect(posts).toHaveLength(targets)
      const permalinkOf = new Map(fake.media.map((m) => [m.caption, m.permalink]))
      const wrong = posts.filter((p) => p.status !== "published" || p.targets[0].permalink !== permalinkOf.get(p.caption))
      expect(wrong.map((p) => [p.id, p.status, p.targets[0].permalink]), context()).toEqual([])

      // A container the workers asked about was saved: it is the one published, and none came after it.
      const secondContainers = fake.media.flatMap((media) => {
        const made = fake.containers.filter((c) => c.params.text === media.caption)
        const mine = made.findIndex((c) => c.id === media.containerId)
        return made.filter((c, i) => c.id !== media.containerId && (c.polls > 0 || i > mine)).map((c) => [media.caption, c.id])
      })
      expect(secondContainers, context()).toEqual([])
      // Only a guard against a hang: how long it takes depends on the machine, and is not asserted.
    }, 15 * 60_000)
  })
}, "runs when DATABASE_URL is set (worker processes share one PostgreSQL)")
