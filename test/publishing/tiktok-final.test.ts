/**
 * TikTok's "no" is final, its "maybe" is bounded, and its per-minute limits are paced: through
 * the real server on both databases, to the fake TikTok server, on a clock the test moves (the
 * server's and the fake's together, so TikTok's minute windows pass when the server's do).
 *
 * - A publish TikTok reports `FAILED` ends `failed` at once with the code its `fail_reason`
 *   maps to, in both languages, and is not polled again.
 * - Eight direct posts to one account in one minute all end `published`, none `failed`: the
 *   seventh and eighth wait for their turn, and TikTok never sees more than 6 inits in any 60 s.
 *   When TikTok itself refuses an init for its limit, the post waits for the window likewise.
 * - A publish whose status never ends is looked for among the creator's videos once its window
 *   (2 hours) has passed, and, not found, fails `publish_unconfirmed` instead of being polled
 *   forever.
 */
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as TikTokFake from "../platforms/tiktok/TikTokFake.ts"
import { aVideo } from "../support/Builders.ts"
import { eventually } from "../support/Eventually.ts"
import { call } from "../support/Http.ts"
import { aMovableClock } from "../support/MovableClock.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"

/** The most inits the fake received within any 60 seconds. */
const mostInitsInAMinute = (times: ReadonlyArray<number>): number => {
  const sorted = [...times].sort((a, b) => a - b)
  let most = 0
  for (let i = 0; i < sorted.length; i++) {
    let n = 0
    while (i + n < sorted.length && sorted[i + n]! - sorted[i]! < 60_000) n++
    most = Math.max(most, n)
  }
  return most
}

describe.each(backends())("TikTok: final refusals, bounded waits and paced inits on %s", (backend) => {
  const time = aMovableClock()
  let scope: Scope.Closeable
  let fake: TikTokFake.TikTokFake
  let server: TestServer
  let liveKey: string
  let video: string
  let made = 0

  beforeAll(async () => {
    scope = Effect.runSync(Scope.make())
    fake = await Effect.runPromise(TikTokFake.make({ now: time.now }).pipe(Scope.provide(scope)))
    server = await startServer(
      backend,
      {
        POSTWIRE_TIKTOK_BASE_URL: fake.url,
        POSTWIRE_TIKTOK_CLIENT_KEY: fake.clientKey,
        POSTWIRE_TIKTOK_CLIENT_SECRET: fake.clientSecret,
        POSTWIRE_PLATFORM_POLL_INTERVAL_MS: "1",
        POSTWIRE_PLATFORM_RETRY_DELAY_MS: "5",
        POSTWIRE_PUBLISH_POLL_MS: "20",
        POSTWIRE_RATE_LIMIT_PER_KEY: "100000",
        POSTWIRE_RATE_LIMIT_POSTS_CREATE: "100000"
      },
      { clock: time.clock }
    )
    const key = await server.admin<{ key: string }>(`/workspaces/${server.workspaceId}/keys`, {
      kind: "live",
      scopes: ["posts:read", "posts:write"]
    })
    liveKey = key.key
    video = await aVideo(server, 12, liveKey)
  })
  afterAll(async () => {
    await server?.stop()
    if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  /** A live TikTok account of its own (its own pacing window), on the fake's tokens. */
  const anAccount = async () =>
    (
      await server.admin(`/workspaces/${server.workspaceId}/accounts`, {
        profile_id: server.profileId,
        platform: "shortvideo",
        sandbox: false,
        handle: "maya.bakes",
        credentials: { access_token: fake.accessToken, refresh_token: fake.refreshToken },
        external_id: `open-id-${made}`
      })
    ).id

  /** Creates a public direct post, with consent, to `accountId`. */
  const publishAPost = async (accountId: string) => {
    const created = await call(server.baseUrl, "POST", "/v1/posts", {
      key: liveKey,
      body: {
        profile_id: server.profileId,
        caption: `Sourdough, batch ${++made} (${backend})`,
        media: [video],
        targets: [
          {
            account_id: accountId,
            shortvideo: { mode: "direct", consent: { privacy_level: "PUBLIC_TO_EVERYONE", music_usage_confirmed: true } }
          }
        ],
        approval: { mode: "none" }
      }
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    return created.body.id as string
  }

  /** Every status each post's target was seen in, in order. */
  const seen = new Map<string, Array<string>>()

  const targetOf = async (id: string, language = "en") => {
    const reply = await call(server.baseUrl, "GET", `/v1/posts/${id}`, { key: liveKey, headers: { "accept-language": language } })
    const target = reply.body.targets?.[0]
    if (target !== undefined) seen.set(id, [...(seen.get(id) ?? []), target.status])
    return target
  }

  /** Reads the posts until `done` holds for all of their targets. */
  const waitFor = (ids: ReadonlyArray<string>, done: (target: any) => boolean, withinMs?: number) =>
    eventually(
      () => Promise.all(ids.map((id) => targetOf(id))),
      (targets) => targets.every((t) => t !== undefined && done(t)),
      "the targets to move on",
      { intervalMs: 20, ...(withinMs === undefined ? {} : { withinMs }) }
    )

  const ended = (t: any) => t.status === "published" || t.status === "failed"

  /** Reads the posts until `published` of their targets are published; their statuses then. */
  const waitForPublished = async (ids: ReadonlyArray<string>, published: number) => {
    const statuses = await eventually(
      async () => (await Promise.all(ids.map((id) => targetOf(id)))).map((t) => t?.status as string),
      (statuses) => statuses.includes("failed") || statuses.filter((s) => s === "published").length === published,
      `${published} published`,
      { intervalMs: 20 }
    )
    expect(statuses, "none failed").not.toContain("failed")
    return statuses
  }

  it("ends a publish TikTok reports FAILED at once, failed with its mapped code in both languages, polled no more", async () => {
    // TikTok's minute windows of the earlier tests have passed.
    time.advance(61_000)
    fake.failReason = "spam_risk_text"
    try {
      const accountId = await anAccount()
      const publishesBefore = fake.publishes.length
      const id = await publishAPost(accountId)
      const [target] = await waitFor([id], ended)
      expect(target).toMatchObject({
        status: "failed",
        attempts: 1,
        error: {
          code: "content_rejected",
          message: "The platform refused the post's content: the caption was flagged as a spam risk",
          message_id: "Platform menolak isi unggahan: caption ditandai sebagai berisiko spam",
          retryable: false
        }
      })
      // Processing once, then FAILED: its status fetched that often.
      const publish = fake.publishes[publishesBefore]!
      const fetched = publish.polls
      expect(fetched).toBe(fake.pollsBeforeComplete + 1)
      const indonesian = await targetOf(id, "id")
      expect(indonesian.error.message).toBe("Platform menolak isi unggahan: caption ditandai sebagai berisiko spam")
      // Nothing asked after the answer that ended it: the poller sees another publish of the
      // account through its processing to the end, and the failed one's status is not fetched.
      fake.failReason = null
      const [next] = await waitFor([await publishAPost(accountId)], ended)
      expect(next.status).toBe("published")
      expect(fake.publishes[publishesBefore + 1]!.polls).toBeGreaterThan(fake.pollsBeforeComplete)
      expect(publish.polls).toBe(fetched)
    } finally {
      fake.failReason = null
    }
  })

  // TikTok's OAuth errors: `invalid_client` is the app's credentials, not the account
  // (https://developers.tiktok.com/doc/oauth-error-handling).
  it("fails a target whose token refresh TikTok refuses as invalid_client with platform_app_rejected, the account left connected", async () => {
    time.advance(61_000)
    const accountId = (
      await server.admin<{ id: string }>(`/workspaces/${server.workspaceId}/accounts`, {
        profile_id: server.profileId,
        platform: "shortvideo",
        sandbox: false,
        handle: "maya.bakes",
        // The access token has expired: the step refreshes it first.
        credentials: { access_token: "act.expired", refresh_token: fake.refreshToken, expires_at: time.now() - 1_000 },
        external_id: `open-id-client-${made}`
      })
    ).id
    // As TikTok answers a refresh sent with a client secret it does not know.
    fake.faults.inject("token", {
      status: 400,
      json: { error: "invalid_client", error_description: "Client key or secret is incorrect.", log_id: "20261205081500C0FFEE" }
    })
    try {
      const id = await publishAPost(accountId)
      const [target] = await waitFor([id], ended)
      expect(target).toMatchObject({ status: "failed", error: { code: "platform_app_rejected", platform_code: "invalid_client", retryable: true } })
      expect(target.error.message).toContain("POSTWIRE_TIKTOK_CLIENT_KEY, POSTWIRE_TIKTOK_CLIENT_SECRET")
      expect(target.error.message).toContain("does not need to be reconnected")
      const account = await call(server.baseUrl, "GET", `/v1/accounts/${accountId}`, { key: liveKey })
      expect(account.body.status).toBe("connected")
    } finally {
      fake.faults.clear()
    }
  })

  it("publishes 8 direct posts to one account in one minute, none failed: TikTok never sees more than 6 inits in 60 s", async () => {
    time.advance(61_000)
    const accountId = await anAccount()
    const initsBefore = fake.initTimes.length
    const publishedBefore = fake.publishes.length
    const ids: Array<string> = []
    for (let i = 0; i < 8; i++) ids.push(await publishAPost(accountId))
    // Six go out at once; the other two wait for their turn, still publishing (once claimed: an
    // account's targets are worked a few at a time, so the last may still be queued a moment).
    await waitForPublished(ids, 6)
    const firstMinute = (await waitFor(ids, () => true)).map((t) => t.status as string)
    expect(firstMinute.filter((s) => s === "published")).toHaveLength(6)
    const waiting = (await waitFor(ids, (t) => t.status !== "queued")).map((t) => t.status as string)
    expect(waiting.filter((s) => s === "published")).toHaveLength(6)
    expect(waiting.filter((s) => s === "publishing")).toHaveLength(2)
    expect(fake.initTimes.length - initsBefore).toBe(6)
    // The minute passes: their turn.
    time.advance(61_000)
    const targets = await waitFor(ids, ended)
    expect(targets.map((t) => [t.status, t.attempts, t.error])).toEqual(Array(8).fill(["published", 1, null]))
    for (const id of ids) expect(seen.get(id)).not.toContain("failed")
    const inits = fake.initTimes.slice(initsBefore)
    expect(inits).toHaveLength(8)
    expect(fake.publishes.length - publishedBefore).toBe(8)
    expect(mostInitsInAMinute(inits)).toBeLessThanOrEqual(6)
  })

  it("waits for the window when TikTok itself answers rate_limit_exceeded (another app on the token), then publishes, none failed", async () => {
    time.advance(61_000)
    // Something else spends the token's inits: TikTok refuses the third of this minute.
    fake.rateLimits.init = 2
    try {
      const accountId = await anAccount()
      const initsBefore = fake.initTimes.length
      const publishedBefore = fake.publishes.length
      const ids: Array<string> = []
      for (let i = 0; i < 4; i++) ids.push(await publishAPost(accountId))
      // Two publish; the others are refused with a 429 (or, once one was, not sent) and wait.
      const firstMinute = await waitForPublished(ids, 2)
      expect(firstMinute.filter((s) => s === "publishing")).toHaveLength(2)
      const refused = fake.initTimes.length - initsBefore - 2
      // Each refused init was sent once: not again within its step.
      expect(refused).toBeGreaterThanOrEqual(1)
      expect(refused).toBeLessThanOrEqual(2)
      time.advance(61_000)
      const targets = await waitFor(ids, ended)
      expect(targets.map((t) => t.status)).toEqual(Array(4).fill("published"))
      for (const id of ids) expect(seen.get(id)).not.toContain("failed")
      expect(fake.publishes.length - publishedBefore).toBe(4)
    } finally {
      fake.rateLimits.init = 6
    }
  })

  it("fails a publish whose status never ends publish_unconfirmed once its 2-hour window passed and the creator's videos do not show it", async () => {
    time.advance(61_000)
    fake.pollsBeforeComplete = Number.MAX_SAFE_INTEGER
    fake.postIdHeld = true
    try {
      const accountId = await anAccount()
      const sentAt = time.now()
      const statusBefore = fake.count("status")
      const id = await publishAPost(accountId)
      // Polled (paced at 30 a minute), publishing, while the window lasts.
      await eventually(() => fake.count("status") >= statusBefore + 3, "three status fetches", { intervalMs: 20 })
      expect((await targetOf(id)).status).toBe("publishing")
      const listedBefore = fake.count("video_list")
      time.advance(2 * 60 * 60_000)
      // Once in CI, on a loaded machine, the target was still publishing 60 s after the clock
      // moved (cause not found yet; suspected: a worker waiting out TikTok's one-minute status
      // window in real time). The wait allows for that minute; the suite's limit is 120 s.
      const [target] = await waitFor([id], ended, 100_000)
      expect(target).toMatchObject({ status: "failed", error: { code: "publish_unconfirmed", retryable: false } })
      expect(target.error.message).toContain(new Date(sentAt).toISOString().slice(0, 16))
      expect(fake.count("video_list")).toBeGreaterThan(listedBefore)
      expect(seen.get(id)).toContain("publishing")
    } finally {
      fake.pollsBeforeComplete = 1
      fake.postIdHeld = false
    }
  })
})
