/**
 * The platforms' limits as a user meets them through the API, on both databases, against the fake
 * Meta servers (issue #38):
 *
 * - Facebook's Reels API publishes at most 30 reels a Page in 24 hours
 *   (https://developers.facebook.com/docs/video-api/guides/reels-publishing, "Rate Limit"): the
 *   31st fails `quota_exceeded` and its message names the limit and the reset time, in English
 *   and Indonesian, never "a daily posting limit of ." with the numbers missing; a platform's
 *   refusal that names no limit is given the account's quota.
 * - A Business Use Case throttle (Instagram `80002`,
 *   https://developers.facebook.com/docs/graph-api/overview/rate-limiting#buc-rate-limits) is no
 *   media error: the target waits until the `X-Business-Use-Case-Usage` header's
 *   `estimated_time_to_regain_access` and is published then, its account still connected.
 */
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as FacebookPagesFake from "../platforms/facebook/FacebookPagesFake.ts"
import { bucThrottle, graphError } from "../platforms/meta/GraphFake.ts"
import * as InstagramFake from "../platforms/instagram/InstagramFake.ts"
import { anImage, aPublicAddress, aVideo } from "../support/Builders.ts"
import { eventually } from "../support/Eventually.ts"
import { call } from "../support/Http.ts"
import { aMovableClock, type MovableClock } from "../support/MovableClock.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"

const minute = 60_000
const hour = 60 * minute

describe.each(backends())("platform limits through the API on %s", (backend) => {
  let scope: Scope.Closeable
  let fb: FacebookPagesFake.FacebookPagesFake
  let ig: InstagramFake.InstagramFake
  let clock: MovableClock
  let server: TestServer
  let key: string
  let pagesAccount: string
  let photoAccount: string
  let made = 0

  beforeAll(async () => {
    scope = Effect.runSync(Scope.make())
    fb = await Effect.runPromise(FacebookPagesFake.make().pipe(Scope.provide(scope)))
    ig = await Effect.runPromise(InstagramFake.make().pipe(Scope.provide(scope)))
    ig.pollsBeforeFinished = -1
    clock = aMovableClock()
    // Instagram downloads the image from the signed address: it must be this server's own.
    const address = await aPublicAddress()
    server = await startServer(
      backend,
      {
        ...address.env,
        POSTWIRE_FACEBOOK_BASE_URL: fb.url,
        POSTWIRE_INSTAGRAM_BASE_URL: ig.url,
        POSTWIRE_INSTAGRAM_REFRESH_URL: "none",
        POSTWIRE_PLATFORM_POLL_INTERVAL_MS: "1",
        POSTWIRE_PLATFORM_RETRY_DELAY_MS: "5",
        POSTWIRE_PUBLISH_POLL_MS: "20",
        POSTWIRE_RATE_LIMIT_PER_KEY: "100000"
      },
      { clock: clock.clock, port: address.port }
    )
    key = (
      await server.admin<{ key: string }>(`/workspaces/${server.workspaceId}/keys`, {
        kind: "live",
        scopes: ["posts:read", "posts:write"]
      })
    ).key
    const anAccount = async (platform: string, handle: string, externalId: string, credentials: unknown) =>
      (
        await server.admin<{ id: string }>(`/workspaces/${server.workspaceId}/accounts`, {
          profile_id: server.profileId,
          platform,
          sandbox: false,
          handle,
          credentials,
          external_id: externalId
        })
      ).id
    pagesAccount = await anAccount("pages", "Maya Bakes", FacebookPagesFake.pageId, { page_access_token: fb.pageAccessToken })
    photoAccount = await anAccount("photo", "maya.bakes", InstagramFake.igUserId, { access_token: ig.accessToken })
  })
  afterAll(async () => {
    await server?.stop()
    if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  const publish = async (accountId: string, media: ReadonlyArray<string>) => {
    const caption = `Sourdough, batch ${++made}`
    const created = await call(server.baseUrl, "POST", "/v1/posts", {
      key,
      body: { profile_id: server.profileId, caption, media, targets: [{ account_id: accountId }], approval: { mode: "none" } }
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    return { id: created.body.id as string, caption }
  }

  /** Reads the post until its target ends. */
  const ended = async (id: string, language = "en") =>
    (
      await eventually(
        () => call(server.baseUrl, "GET", `/v1/posts/${id}`, { key, headers: { "accept-language": language } }),
        (reply) => reply.body.targets?.[0]?.status === "published" || reply.body.targets?.[0]?.status === "failed",
        `post ${id}'s target to end`,
        { intervalMs: 20 }
      )
    ).body.targets[0]

  it("fails the 31st reel of a day quota_exceeded, the message naming the limit of 30 and when it resets, EN and ID", async () => {
    fb.reelsUsedBefore = FacebookPagesFake.reelsPerDay
    try {
      const { id } = await publish(pagesAccount, [await aVideo(server, 12, key)])
      const target = await ended(id)
      expect(target).toMatchObject({ status: "failed", error: { code: "quota_exceeded", platform_code: "9", retryable: true } })
      expect(target.error.message).toMatch(/^The account reached its daily posting limit of 30\. It resets at \d{4}-\d{2}-\d{2}T\d{2}:\d{2}/)
      const resetsAt = Date.parse(/resets at (\S+?)\.?$/.exec(target.error.message)![1]!)
      expect(resetsAt).toBeGreaterThan(clock.now() + 23 * hour)
      const indonesian = await ended(id, "id")
      expect(indonesian.error.message).toMatch(/^Akun telah mencapai batas unggahan harian 30\. Batas diatur ulang pada \d{4}-/)
      expect(fb.posts.filter((p) => p.kind === "reel")).toHaveLength(0)
    } finally {
      fb.reelsUsedBefore = 0
    }
  })

  it("gives a quota refusal that names no limit the account's quota, never a message with blanks", async () => {
    // A photo post refused with Meta's code 9 and no number: the message takes the account's
    // quota (the Page's daily quota) and the latest the rolling window frees a post.
    fb.faults.inject("photos", graphError(400, 9, undefined, { message: "(#9) Too many posts", type: "OAuthException" }))
    try {
      const { id } = await publish(pagesAccount, [await anImage(server, key)])
      const target = await ended(id)
      expect(target).toMatchObject({ status: "failed", error: { code: "quota_exceeded", platform_code: "9" } })
      expect(target.error.message).toMatch(/^The account reached its daily posting limit of \d+\. It resets at \d{4}-\d{2}-\d{2}T/)
      expect(target.error.message).not.toContain("limit of .")
    } finally {
      fb.faults.clear()
    }
  })

  it("waits out an Instagram Business Use Case throttle until the header's time, then publishes; the account stays connected", async () => {
    // Two minutes: shorter than the wait taken when the header says nothing (5 minutes), so the
    // target is published after the clock passes two minutes only if the header was read.
    ig.faults.inject("limit", bucThrottle(80002, { minutes: 2 }))
    try {
      const image = await anImage(server, key)
      const limitCalls = ig.count("limit")
      const { caption, id } = await publish(photoAccount, [image])
      await eventually(() => ig.count("limit") > limitCalls, "the throttled call", { intervalMs: 20 })
      const throttledAt = clock.now()
      // The server notes the time to come back as it reads the answer, a moment after the fake
      // sent it: the clock is moved on by the header's two minutes every hundred reads until the
      // target is published.
      let reads = 0
      const target: { status: string; published_at: string } = (
        await eventually(
          () => call(server.baseUrl, "GET", `/v1/posts/${id}`, { key }),
          (reply) => reply.body.targets[0].status !== "publishing",
          "the throttled target to end",
          { intervalMs: 20, step: () => reads++ % 100 === 0 && clock.advance(2 * minute + 1_000) }
        )
      ).body.targets[0]
      expect(target.status, JSON.stringify(target)).toBe("published")
      // Published once the header's two minutes had passed, before the 5 minutes taken without it.
      const waited = Date.parse(target.published_at) - throttledAt
      expect(waited).toBeGreaterThanOrEqual(2 * minute - 1_000)
      expect(waited).toBeLessThan(5 * minute)
      expect(ig.media.filter((m) => m.caption === caption)).toHaveLength(1)
      const account = await call(server.baseUrl, "GET", `/v1/accounts/${photoAccount}`, { key })
      expect(account.body.status).toBe("connected")
    } finally {
      ig.faults.clear()
    }
  })
})
