/**
 * Exactly once when the platform's answers get lost, through the real server on both databases,
 * to the fake Threads and Instagram servers: each case is forced by a scripted fault. Once a
 * publish may have happened, a target ends `published` with the platform's media id and
 * permalink (never the container's), or waits `publishing`: it is never reported failed, so it
 * publishes with `attempts: 1` and no error (a failed target would stay failed: nobody retries).
 */
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { anImage, aPublicAddress } from "../support/Builders.ts"
import { eventually } from "../support/Eventually.ts"
import { call } from "../support/Http.ts"
import { aDatabase, backends, startServer, type TestDatabase, type TestServer } from "../support/TestServer.ts"
import type { ContainerFake } from "../platforms/meta/ContainerFake.ts"
import { graphError } from "../platforms/meta/GraphFake.ts"
import * as InstagramFake from "../platforms/instagram/InstagramFake.ts"
import * as ThreadsFake from "../platforms/threads/ThreadsFake.ts"


/** The two container platforms, each with its fake and the account it publishes to. */
const platforms: ReadonlyArray<{
  readonly platform: "textpost" | "photo"
  readonly name: string
  readonly make: () => Effect.Effect<ContainerFake, never, Scope.Scope>
  readonly userId: string
}> = [
  { platform: "textpost", name: "Threads", make: ThreadsFake.make, userId: ThreadsFake.threadsUserId },
  { platform: "photo", name: "Instagram", make: InstagramFake.make, userId: InstagramFake.igUserId }
]

const unavailable = graphError(500, 2, undefined, { message: "Service temporarily unavailable", is_transient: true })

describe.each(backends())("lost platform answers on %s", (backend) => {
  describe.each(platforms)("$name", ({ make, platform, userId }) => {
    let scope: Scope.Closeable
    let fake: ContainerFake
    let database: TestDatabase
    let server: TestServer
    let liveKey: string
    let accountId: string
    let image: string
    let made = 0

    // Instagram downloads the image from the signed address: it must be the server's own, the
    // same port across its restarts.
    let address: Awaited<ReturnType<typeof aPublicAddress>>
    const env = () => ({
      ...address.env,
      POSTWIRE_THREADS_BASE_URL: fake.url,
      POSTWIRE_THREADS_REFRESH_URL: "none",
      POSTWIRE_INSTAGRAM_BASE_URL: fake.url,
      POSTWIRE_INSTAGRAM_REFRESH_URL: "none",
      POSTWIRE_PLATFORM_POLL_INTERVAL_MS: "1",
      POSTWIRE_PLATFORM_RETRY_DELAY_MS: "5",
      POSTWIRE_PLATFORM_TIMEOUT_MS: "5000",
      POSTWIRE_PUBLISH_POLL_MS: "20",
      // A stopping server's running steps get 2 s (not 10) to save what they have: a container
      // whose status is polled forever is saved within milliseconds of its creation, then the
      // step is interrupted and its lease given back.
      POSTWIRE_PUBLISH_SHUTDOWN_GRACE_MS: "2000",
      POSTWIRE_RATE_LIMIT_PER_KEY: "100000"
    })

    beforeAll(async () => {
      scope = Effect.runSync(Scope.make())
      fake = await Effect.runPromise(make().pipe(Scope.provide(scope)))
      database = await aDatabase(backend)
      address = await aPublicAddress()
      server = await startServer(backend, env(), { database, port: address.port })
      const key = await server.admin<{ key: string }>(`/workspaces/${server.workspaceId}/keys`, {
        kind: "live",
        scopes: ["posts:read", "posts:write"]
      })
      liveKey = key.key
      const account = await server.admin(`/workspaces/${server.workspaceId}/accounts`, {
        profile_id: server.profileId,
        platform,
        sandbox: false,
        handle: "maya.bakes",
        credentials: { access_token: fake.accessToken },
        external_id: userId
      })
      accountId = account.id
      image = await anImage(server, liveKey)
    })
    afterAll(async () => {
      await server?.stop()
      await database?.drop()
      if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
    })

    /** Creates a post to the live account with a caption of its own. */
    const publishAPost = async () => {
      const caption = `Rye loaf, batch ${++made} (${platform})`
      const created = await call(server.baseUrl, "POST", "/v1/posts", {
        key: liveKey,
        body: { profile_id: server.profileId, caption, media: [image], targets: [{ account_id: accountId }], approval: { mode: "none" } }
      })
      expect(created.status, JSON.stringify(created.body)).toBe(201)
      return { id: created.body.id as string, caption }
    }

    /** Every status a post's target was seen in, in order. */
    const seen = new Map<string, Array<string>>()

    /** Reads the post until `done` says so. */
    const waitFor = (id: string, done: (target: any) => boolean) =>
      eventually(
        async () => {
          const reply = await call(server.baseUrl, "GET", `/v1/posts/${id}`, { key: liveKey })
          const target = reply.body.targets?.[0]
          if (target !== undefined) seen.set(id, [...(seen.get(id) ?? []), target.status])
          return target
        },
        (target) => target !== undefined && done(target),
        `post ${id}'s target to move on`,
        { intervalMs: 20 }
      )

    /** The one media the fake published with `caption`, and the containers made for it. */
    const onPlatform = (caption: string) => {
      const media = fake.media.filter((m) => m.caption === caption)
      const containers = fake.containers.filter((c) => c.params[fake.dialect.captionField] === caption)
      expect(media).toHaveLength(1)
      expect(containers).toHaveLength(1)
      return { media: media[0]!, container: containers[0]! }
    }

    /** Asserts a target published once, as the platform has it, and never reported failed. */
    const expectPublishedOnce = (target: any, caption: string) => {
      const { container, media } = onPlatform(caption)
      expect(target).toMatchObject({ status: "published", error: null, attempts: 1, permalink: media.permalink })
      expect(media.containerId).toBe(container.id)
      expect(media.id).not.toBe(container.id)
      expect(fake.duplicatePublishes).toBe(0)
    }

    it("publishes once when the publish answer is lost and the next two status reads fail", async () => {
      fake.faults.injectAfter("publish", { lose: true })
      fake.faults.inject("container_status", unavailable, 2, { armedBy: "publish" })
      const { caption, id } = await publishAPost()
      const target = await waitFor(id, (t) => t.status !== "publishing" && t.status !== "queued")
      expectPublishedOnce(target, caption)
    })

    it("waits publishing through a long outage after a lost answer, then publishes once, never failed", async () => {
      const publishesBefore = fake.count("publish")
      fake.faults.injectAfter("publish", { lose: true })
      // Far more than one step retries (3 attempts): the target waits and is asked again later.
      fake.faults.inject("container_status", unavailable, 12, { armedBy: "publish" })
      const { caption, id } = await publishAPost()
      const target = await waitFor(id, (t) => t.status !== "publishing" && t.status !== "queued")
      expectPublishedOnce(target, caption)
      expect(fake.count("publish")).toBe(publishesBefore + 1)
      // It was seen waiting in `publishing` during the outage, and never in `failed`.
      expect(seen.get(id)).toContain("publishing")
      expect(seen.get(id)).not.toContain("failed")
    })

    it("publishes at once and fills the permalink in later when three permalink reads fail", async () => {
      fake.faults.inject("permalink", unavailable, 3)
      const { caption, id } = await publishAPost()
      const published = await waitFor(id, (t) => t.status === "published")
      expect(published.published_at).toMatch(/Z$/)
      const target = await waitFor(id, (t) => t.permalink !== null)
      expectPublishedOnce(target, caption)
      expect(fake.count("permalink")).toBeGreaterThanOrEqual(4)
    })

    it("finds its media when 30 other posts were published between the lost answer and the recovery", async () => {
      // An older post with the same caption must not be taken for it: the search starts at the container.
      const caption = `Rye loaf, batch ${made + 1} (${platform})`
      fake.publishElsewhere(1, () => caption, Date.now() - 2 * 60 * 60_000)
      fake.faults.injectAfter("publish", { lose: true })
      fake.afterPublish = () => {
        fake.afterPublish = undefined
        fake.publishElsewhere(30)
      }
      const { id } = await publishAPost()
      const target = await waitFor(id, (t) => t.status !== "publishing" && t.status !== "queued")
      const mine = fake.media.filter((m) => m.caption === caption && m.containerId !== null)
      expect(mine).toHaveLength(1)
      expect(target).toMatchObject({ status: "published", error: null, attempts: 1, permalink: mine[0]!.permalink })
      expect(fake.duplicatePublishes).toBe(0)
    })

    it("reuses the saved container after the worker stops between creating it and publishing it", async () => {
      // The container stays IN_PROGRESS while the first server runs: it is saved, not published.
      fake.pollsBeforeFinished = 1_000_000
      const { caption, id } = await publishAPost()
      await eventually(() => fake.containers.some((c) => c.params[fake.dialect.captionField] === caption), "a container", { intervalMs: 20 })
      await server.stop()
      fake.pollsBeforeFinished = 0
      server = await startServer(backend, env(), { database, port: address.port })
      const target = await waitFor(id, (t) => t.status !== "publishing" && t.status !== "queued")
      expectPublishedOnce(target, caption)
    })
  })
})
