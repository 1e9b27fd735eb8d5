/**
 * Meta's "no" is final: through the real server on both databases, to the fake Threads and
 * Instagram servers, a publish Meta refuses (the daily limit, a throttle) ends the target
 * `failed` at once with its code, even when the container cannot be read afterwards, instead of
 * waiting `publishing` to be asked again and again. The container is kept: nothing was
 * published, and a retry publishes that one.
 */
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { ContainerFake } from "../platforms/meta/ContainerFake.ts"
import { graphError } from "../platforms/meta/GraphFake.ts"
import * as InstagramFake from "../platforms/instagram/InstagramFake.ts"
import * as ThreadsFake from "../platforms/threads/ThreadsFake.ts"
import { anImage, aPublicAddress } from "../support/Builders.ts"
import { eventually } from "../support/Eventually.ts"
import { call } from "../support/Http.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"


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

describe.each(backends())("Meta's refusals are final on %s", (backend) => {
  describe.each(platforms)("$name", ({ make, platform, userId }) => {
    let scope: Scope.Closeable
    let fake: ContainerFake
    let server: TestServer
    let liveKey: string
    let accountId: string
    let image: string
    let made = 0

    beforeAll(async () => {
      scope = Effect.runSync(Scope.make())
      fake = await Effect.runPromise(make().pipe(Scope.provide(scope)))
      // Instagram downloads the image from the signed address: it must be this server's own.
      const address = await aPublicAddress()
      server = await startServer(backend, {
        ...address.env,
        POSTWIRE_THREADS_BASE_URL: fake.url,
        POSTWIRE_THREADS_REFRESH_URL: "none",
        POSTWIRE_INSTAGRAM_BASE_URL: fake.url,
        POSTWIRE_INSTAGRAM_REFRESH_URL: "none",
        POSTWIRE_PLATFORM_POLL_INTERVAL_MS: "1",
        POSTWIRE_PLATFORM_RETRY_DELAY_MS: "5",
        POSTWIRE_PUBLISH_POLL_MS: "20",
        POSTWIRE_RATE_LIMIT_PER_KEY: "100000"
      }, { port: address.port })
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
      if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
    })

    const publishAPost = async () => {
      const caption = `Rye loaf, batch ${++made} (${platform})`
      const created = await call(server.baseUrl, "POST", "/v1/posts", {
        key: liveKey,
        body: { profile_id: server.profileId, caption, media: [image], targets: [{ account_id: accountId }], approval: { mode: "none" } }
      })
      expect(created.status, JSON.stringify(created.body)).toBe(201)
      return { id: created.body.id as string, caption }
    }

    /** Reads the post until its target ends (a bounded wait). */
    const waitForEnd = async (id: string) =>
      (
        await eventually(
          () => call(server.baseUrl, "GET", `/v1/posts/${id}`, { key: liveKey }),
          (reply) => reply.body.targets?.[0]?.status === "published" || reply.body.targets?.[0]?.status === "failed",
          `post ${id}'s target to end`,
          { intervalMs: 20 }
        )
      ).body.targets[0]

    it.each([
      { refusal: "the daily limit (9/2207042)", reply: graphError(400, 9, 2207042, { message: "Maximum posts reached" }), code: "quota_exceeded" },
      { refusal: "a throttle (4)", reply: graphError(400, 4, undefined, { message: "Application request limit reached" }), code: "platform_unavailable" }
    ])("ends a publish refused for $refusal failed at once with $code, the container unreadable afterwards", async ({ code, reply }) => {
      const publishesBefore = fake.count("publish")
      fake.faults.inject("publish", reply)
      fake.faults.inject("container_status", unavailable, 100_000, { armedBy: "publish" })
      try {
        const { caption, id } = await publishAPost()
        const target = await waitForEnd(id)
        expect(target).toMatchObject({ status: "failed", attempts: 1, error: { code, retryable: true } })
        expect(fake.count("publish") - publishesBefore).toBe(1)
        expect(fake.media.filter((m) => m.caption === caption)).toHaveLength(0)
      } finally {
        fake.faults.clear()
      }
    })
  })
})
