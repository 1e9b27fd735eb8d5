/**
 * Three `postwire serve --role worker` processes share one PostgreSQL and a backlog of a few
 * thousand targets; the fake Threads server counts what was published. Every post must be
 * published exactly once, and the work must really be shared.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { onPostgres } from "../support/Postgres.ts"
import { type CreatedPost, type Fleet, publishedCaptions, startFleet } from "./fleet.ts"

const targets = 2_000

onPostgres("publishing with several instances", () => {
  describe("publishing with several instances on one PostgreSQL", () => {
    let fleet: Fleet
    let created: Array<CreatedPost>

    beforeAll(async () => {
      fleet = await startFleet({ accounts: 25 })
      created = await fleet.createPosts(targets)
    })
    afterAll(() => fleet?.stop())

    it("publishes each of 2,000 targets exactly once, the three workers sharing the work", async () => {
      await Promise.all([fleet.startWorker(), fleet.startWorker(), fleet.startWorker()])
      await fleet.waitForPublished(targets, 90_000)

      const counts = publishedCaptions(fleet.fake)
      expect(fleet.fake.media.length).toBe(targets)
      expect(fleet.fake.duplicatePublishes).toBe(0)
      expect([...counts.values()].every((n) => n === 1)).toBe(true)
      expect(new Set(counts.keys())).toEqual(new Set(created.map((p) => p.caption)))

      // What the user reads: every post published, with the platform's own permalink.
      const permalinkOf = new Map(fleet.fake.media.map((m) => [m.caption, m.permalink]))
      const posts = await fleet.listSettledPosts(30_000)
      expect(posts).toHaveLength(targets)
      for (const post of posts) {
        expect(post.status).toBe("published")
        expect(post.targets[0].permalink).toBe(permalinkOf.get(post.caption))
      }
      for (const worker of fleet.workers) expect(worker.output()).toContain("target published")
    })

    it("handed the platform a signed media address that the API instance serves, and nothing else", async () => {
      const imageUrl = fleet.fake.requests.find((r) => r.route === "create")?.params.image_url
      expect(imageUrl).toMatch(/\/media-files\/ws_\w+\/med_\w+\?exp=\d+&sig=[\w-]+$/)
      const served = await fetch(imageUrl!)
      expect(served.status).toBe(200)
      expect(served.headers.get("content-type")).toBe("image/png")
      expect(Buffer.from(await served.arrayBuffer()).subarray(1, 4).toString()).toBe("PNG")
      const forged = await fetch(imageUrl!.replace(/sig=[\w-]+$/, `sig=${"A".repeat(43)}`))
      expect(forged.status).toBe(404)
    })
  })
}, "runs when DATABASE_URL is set (several processes share one PostgreSQL)")
