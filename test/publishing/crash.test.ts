/**
 * An unreliable platform and workers that die: the fake Threads server answers slowly, fails 5%
 * of its calls with a 500 and loses 5% of its publish answers after publishing, while one of three
 * workers on one PostgreSQL is killed with SIGKILL every 0.3 to 2 seconds (once all three run:
 * the pace is bounded by how fast a replacement starts) and replaced: no
 * finalizer runs, no lease is given back, steps die half-way (before the platform call, after
 * the platform accepted, between polls, between creating a container and publishing it). Once
 * the killed workers' leases run out, the others take their targets over.
 *
 * In the end: nothing published twice; no target reported failed that the platform published (a
 * target the platform refused for good may fail `retryable`: it is retried here until it
 * publishes); every published target has the platform's permalink; and no target had a second
 * container made once one was saved (a saved container is one the workers asked about).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

onPostgres("publishing through worker crashes", () => {
  describe("publishing through worker crashes", () => {
    let fleet: Fleet
    let created: Array<CreatedPost>

    beforeAll(async () => {
      // Short leases, so a killed worker's targets are taken over within seconds.
      fleet = await startFleet({ accounts: 20, workerEnv: { POSTWIRE_PUBLISH_LEASE_MS: "6000" } })
      created = await fleet.createPosts(targets)
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
      const replacements: Array<Promise<unknown>> = []
      while (fake.media.length < targets - 50) {
        await sleep(300 + next() * 1_700)
        // Kill only while all three run: two keep publishing while the replacement starts.
        const alive = fleet.workers.filter((w) => w.alive())
        if (alive.length < 3) continue
        const victim = alive[Math.floor(next() * alive.length)]!
        kills.push(`${victim.name}@${fake.media.length}`)
        await victim.kill9()
        replacements.push(fleet.startWorker())
      }
      await Promise.all(replacements)
      const context = () => `seed ${seed}; ${kills.length} kills: ${kills.join(", ")}; containers made: ${fake.containers.length}`

      // Targets the platform refused for good (three 500s in a row) failed, retryable: retry them.
      const falseFailures: Array<unknown> = []
      for (let round = 0; ; round++) {
        const posts = await fleet.listPosts()
        const failed = posts.filter((p) => p.targets[0].status === "failed")
        for (const post of failed) {
          if (fake.media.some((m) => m.caption === post.caption)) falseFailures.push([post.id, post.caption, post.targets[0].error])
        }
        expect(falseFailures, context()).toEqual([])
        for (const post of failed) {
          expect(post.targets[0].error.retryable, context()).toBe(true)
          await fleet.retryPost(post.id)
        }
        const missing = posts.filter((p) => p.targets[0].status !== "published" || p.targets[0].permalink === null)
        if (missing.length === 0) break
        if (round > 6_000) {
          throw new Error(`${missing.length} not published with a permalink: ${JSON.stringify(missing.slice(0, 3))}; ${context()}`)
        }
        await sleep(100)
      }
      // Anything a killed worker left half-done has been taken over by now; give a late
      // duplicate the chance to show up before counting.
      await sleep(1_000)

      expect(kills.length, context()).toBeGreaterThanOrEqual(3)
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
