/**
 * Workers are killed with SIGKILL at random moments while they publish, and replaced: no
 * finalizer runs, no lease is given back, steps die half-way (before the platform call, after
 * the platform accepted, between polls). Once the killed workers' leases run out, the others take
 * their targets over. In the end every post is published, and the fake Threads server saw each
 * published exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
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

if (process.env.DATABASE_URL === undefined) {
  describe("publishing through worker crashes", () => {
    if (process.env.REQUIRE_POSTGRES === "1") {
      it("needs DATABASE_URL, because REQUIRE_POSTGRES=1", () => {
        expect.fail("REQUIRE_POSTGRES=1 but DATABASE_URL is not set")
      })
    } else {
      it.skip("runs when DATABASE_URL is set (worker processes share one PostgreSQL)", () => {})
    }
  })
} else {
  describe("publishing through worker crashes", () => {
    let fleet: Fleet
    let created: Array<CreatedPost>

    beforeAll(async () => {
      // Short leases, so a killed worker's targets are taken over within seconds.
      fleet = await startFleet({ accounts: 20, workerEnv: { POSTWIRE_PUBLISH_LEASE_MS: "6000" } })
      created = await fleet.createPosts(targets)
    })
    afterAll(() => fleet?.stop())

    it("loses nothing and publishes nothing twice when workers are killed -9 at random moments", async () => {
      const seed = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000)
      const next = random(seed)
      await Promise.all([fleet.startWorker(), fleet.startWorker(), fleet.startWorker()])
      await fleet.waitForPublished(100, 60_000)

      const kills: Array<string> = []
      const replacements: Array<Promise<unknown>> = []
      while (kills.length < 4 && fleet.fake.media.length < targets - 100) {
        await sleep(700 + next() * 1_300)
        // Keep one worker running at least, so the run moves on while replacements start.
        const alive = fleet.workers.filter((w) => w.alive())
        if (alive.length < 2) continue
        const victim = alive[Math.floor(next() * alive.length)]!
        kills.push(`${victim.name} after ${fleet.fake.media.length} published`)
        await victim.kill9()
        replacements.push(fleet.startWorker())
      }
      await Promise.all(replacements)
      await fleet.waitForPublished(targets, 120_000)
      // Anything a killed worker left half-done has been taken over by now; give a late
      // duplicate the chance to show up before counting.
      await sleep(1_000)

      const counts = publishedCaptions(fleet.fake)
      const context = `seed ${seed}; kills: ${kills.join(", ")}; containers made: ${fleet.fake.containers.length}`
      expect(kills.length, context).toBeGreaterThanOrEqual(3)
      expect(fleet.fake.media.length, context).toBe(targets)
      expect(fleet.fake.duplicatePublishes, context).toBe(0)
      expect([...counts.entries()].filter(([, n]) => n > 1), context).toEqual([])
      expect(new Set(counts.keys())).toEqual(new Set(created.map((p) => p.caption)))

      const posts = await fleet.listPosts()
      expect(posts).toHaveLength(targets)
      expect(posts.filter((p) => p.status !== "published").map((p) => [p.id, p.status, p.targets[0].error]), context).toEqual([])
    })
  })
}
