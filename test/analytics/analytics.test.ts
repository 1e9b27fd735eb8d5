/**
 * Analytics through the real server, on both databases: sandbox accounts whose simulated
 * platform's numbers grow with the item's age, a movable clock walked through the collection
 * schedule, and the API's answers (post metrics with their snapshots, the metrics block of a
 * post, the totals and daily series in several time zones, pages, errors, scopes, a revoked
 * token, and the hourly call budget).
 */
import { SimulatedAnalytics } from "@postwire/platforms"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aKeyWithScopes, anImage, aPost } from "../support/Builders.ts"
import { eventually } from "../support/Eventually.ts"
import { call, errorOf, type Reply } from "../support/Http.ts"
import { aMovableClock, type MovableClock } from "../support/MovableClock.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"

const minute = 60_000
const hour = 60 * minute
const day = 24 * hour

/** The date (`YYYY-MM-DD`) of an instant in an IANA zone, as the runtime's locale data writes it. */
const dateIn = (zone: string, at: number) => new Date(at).toLocaleDateString("en-CA", { timeZone: zone })

/** Moves the clock forward to the next instant whose UTC time of day is `ms` after midnight. */
const advanceToTimeOfDay = (clock: MovableClock, ms: number) => {
  const now = clock.now()
  const today = Math.floor(now / day) * day
  const target = today + ms > now + 5_000 ? today + ms : today + day + ms
  clock.advance(target - now)
}

interface Harness {
  server: TestServer
  clock: MovableClock
  image: string
}

const start = async (backend: Parameters<typeof startServer>[0], env: Record<string, string> = {}): Promise<Harness> => {
  const clock = aMovableClock()
  const server = await startServer(
    backend,
    {
      POSTWIRE_PUBLISH_POLL_MS: "100",
      POSTWIRE_ANALYTICS_POLL_MS: "100",
      // Comment polling sleeps past every step the tests take: the budget is the collector's alone.
      POSTWIRE_COMMENT_POLL_MS: "864000000",
      POSTWIRE_RATE_LIMIT_PER_KEY: "100000",
      ...env
    },
    { clock: clock.clock }
  )
  return { server, clock, image: await anImage(server) }
}

const send = (h: Harness, method: string, path: string, body?: unknown, key = h.server.testKey): Promise<Reply> =>
  call(h.server.baseUrl, method, path, { key, body })

const aSandboxAccount = async (h: Harness, platform = "photo", simulate?: Record<string, unknown>, profileId = h.server.profileId) =>
  h.server.admin<{ id: string }>(`/workspaces/${h.server.workspaceId}/accounts`, {
    profile_id: profileId,
    platform,
    sandbox: true,
    handle: `shop${Math.floor(Math.random() * 1e6)}`,
    external_id: `${Math.floor(Math.random() * 1e12)}`,
    ...(simulate === undefined ? {} : { simulate })
  })

/** Publishes a post to the account now; answers its id, target id and publish time once published. */
const aPublishedPost = async (h: Harness, accountId: string, profileId = h.server.profileId) => {
  const created = await send(
    h,
    "POST",
    "/v1/posts",
    aPost(h.server, [h.image], { profile_id: profileId, approval: { mode: "none" }, targets: [{ account_id: accountId }] })
  )
  expect(created.status).toBe(201)
  const post = await eventually(
    () => send(h, "GET", `/v1/posts/${created.body.id}`),
    (reply) => reply.body.status === "published",
    "the post to publish"
  )
  return {
    postId: post.body.id as string,
    targetId: post.body.targets[0].id as string,
    publishedAt: Date.parse(post.body.targets[0].published_at as string)
  }
}

const metricsOf = (h: Harness, postId: string, series = false) =>
  send(h, "GET", `/v1/posts/${postId}/metrics${series ? "?series=true" : ""}`)

/** Waits until the target's next reading is planned at `at` (the collector placed it). */
const plannedAt = (h: Harness, postId: string, at: number) =>
  eventually(
    () => metricsOf(h, postId),
    (reply) => reply.body.targets?.[0]?.next_collection_at === new Date(at).toISOString(),
    `the next reading planned at ${new Date(at).toISOString()}`
  )

/** Moves the clock to `at` and waits for a reading made then. */
const readingAt = async (h: Harness, postId: string, at: number, snapshots: number) => {
  h.clock.advance(Math.max(0, at - h.clock.now()))
  return eventually(
    () => metricsOf(h, postId, true),
    (reply) => reply.body.targets?.[0]?.series?.length === snapshots,
    `snapshot ${snapshots}`
  )
}

describe.each(backends())("analytics on %s", (backend) => {
  let h: Harness
  let post: Awaited<ReturnType<typeof aPublishedPost>>
  let accountId: string

  beforeAll(async () => {
    h = await start(backend)
    accountId = (await aSandboxAccount(h)).id
    // Published at 16:10 UTC: its first reading, an hour later, is 17:10 UTC, 00:10 the next day in Jakarta.
    advanceToTimeOfDay(h.clock, 16 * hour + 10 * minute)
    post = await aPublishedPost(h, accountId)
  })
  afterAll(() => h?.server.stop())

  it("reads a published target on the schedule, a snapshot per reading, numbers growing, until it is finished", async () => {
    const before = await plannedAt(h, post.postId, post.publishedAt + hour)
    expect(before.status).toBe(200)
    expect(before.body.targets[0]).toMatchObject({
      target_id: post.targetId,
      account_id: accountId,
      platform: "photo",
      status: "published",
      collection: "active",
      collected_at: null,
      values: {}
    })
    // What the platform's plugin documents (the sandbox answers the same names).
    const provides: Array<string> = before.body.targets[0].provides
    expect(provides).toEqual(expect.arrayContaining(["views", "likes", "comments"]))
    // Nothing is read before the first reading is due.
    const detail = await send(h, "GET", `/v1/posts/${post.postId}`)
    expect(detail.body.targets[0].metrics).toBeNull()

    const first = await readingAt(h, post.postId, post.publishedAt + hour, 1)
    const target = first.body.targets[0]
    const firstAt = Date.parse(target.collected_at)
    expect(firstAt).toBeGreaterThanOrEqual(post.publishedAt + hour)
    expect(target.values).toEqual(
      Object.fromEntries(
        provides.map((name) => [
          name,
          SimulatedAnalytics.valuesAt(post.targetId, post.publishedAt, firstAt)[name as "views"]
        ])
      )
    )
    expect(target.values.views).toBeGreaterThan(0)
    expect(target.raw.simulated).toBe("true")
    expect(target.next_collection_at).toBe(new Date(firstAt + hour).toISOString())

    // The post's own view carries the latest values only.
    const withBlock = await send(h, "GET", `/v1/posts/${post.postId}`)
    expect(withBlock.body.targets[0].metrics).toEqual({ collected_at: target.collected_at, values: target.values })
    const listed = await send(h, "GET", `/v1/posts?limit=5`)
    expect(listed.body.data[0]).not.toHaveProperty("targets.0.metrics")

    // An hour later, a second snapshot with more views; the first is kept as it was.
    const second = await readingAt(h, post.postId, firstAt + hour, 2)
    const [s1, s2] = second.body.targets[0].series
    expect(s1).toEqual({ collected_at: target.collected_at, values: target.values, raw: target.raw })
    expect(s2.values.views).toBeGreaterThan(s1.values.views)
    expect(second.body.targets[0].values).toEqual(s2.values)

    // Past the first day the readings are daily.
    const thirdAt = post.publishedAt + day + 30 * minute
    const third = await readingAt(h, post.postId, thirdAt, 3)
    const latest = Date.parse(third.body.targets[0].collected_at)
    expect(third.body.targets[0].next_collection_at).toBe(new Date(latest + day).toISOString())

    // Past 30 days one last reading, then none: the collection is finished and the values stay.
    const last = await readingAt(h, post.postId, post.publishedAt + 31 * day, 4)
    expect(last.body.targets[0]).toMatchObject({ collection: "finished", next_collection_at: null })
    h.clock.advance(2 * day)
    const after = await metricsOf(h, post.postId, true)
    expect(after.body.targets[0].series).toHaveLength(4)
  })

  it("sums what items gained per day in the time zone asked, totals equal to the series and to the latest values", async () => {
    const reply = await metricsOf(h, post.postId, true)
    const snapshots: Array<{ collected_at: string; values: Record<string, number> }> = reply.body.targets[0].series
    const latest = reply.body.targets[0].values as Record<string, number>
    const from = dateIn("UTC", post.publishedAt - day)
    const to = dateIn("UTC", post.publishedAt + 32 * day)
    for (const zone of ["UTC", "Asia/Jakarta", "America/New_York", "+05:45"]) {
      const expected = new Map<string, number>()
      let previous = 0
      for (const s of snapshots) {
        const at = Date.parse(s.collected_at)
        const date = zone === "+05:45" ? new Date(at + 5 * hour + 45 * minute).toISOString().slice(0, 10) : dateIn(zone, at)
        expected.set(date, (expected.get(date) ?? 0) + (s.values.views! - previous))
        previous = s.values.views!
      }
      const answer = await send(h, "GET", `/v1/analytics?from=${from}&to=${to}&time_zone=${encodeURIComponent(zone)}`)
      expect(answer.status).toBe(200)
      expect(answer.body).toMatchObject({ from, to, time_zone: zone })
      expect(answer.body.totals).toEqual(latest)
      const gained = Object.fromEntries(
        (answer.body.series as Array<{ date: string; values: { views: number } }>)
          .filter((d) => d.values.views !== 0)
          .map((d) => [d.date, d.values.views])
      )
      expect(gained).toEqual(Object.fromEntries(expected))
      expect(answer.body.series).toHaveLength(34)
      expect(answer.body.data).toEqual([
        { profile_id: h.server.profileId, platform: "photo", totals: latest, series: answer.body.series }
      ])
    }
    // The first reading (17:10 UTC) counts on the publishing day in UTC and on the next day in Jakarta.
    const firstAt = Date.parse(snapshots[0]!.collected_at)
    expect(dateIn("UTC", firstAt)).toBe(dateIn("UTC", post.publishedAt))
    expect(dateIn("Asia/Jakarta", firstAt)).not.toBe(dateIn("UTC", post.publishedAt))
  })

  it("pages rows per profile and platform, with totals over all pages, and refuses bad ranges, zones and cursors", async () => {
    const profile = await h.server.admin<{ id: string }>(`/workspaces/${h.server.workspaceId}/profiles`, { name: "Second shop" })
    const other = await aSandboxAccount(h, "textpost", undefined, profile.id)
    const second = await aPublishedPost(h, other.id, profile.id)
    await readingAt(h, second.postId, second.publishedAt + hour, 1)
    const from = dateIn("UTC", post.publishedAt)
    const to = dateIn("UTC", h.clock.now())
    const query = `from=${from}&to=${to}`
    const page1 = await send(h, "GET", `/v1/analytics?${query}&limit=1`)
    expect(page1.status).toBe(200)
    expect(page1.body.data).toHaveLength(1)
    expect(page1.body.cursor.has_more).toBe(true)
    const page2 = await send(h, "GET", `/v1/analytics?${query}&limit=1&cursor=${encodeURIComponent(page1.body.cursor.next)}`)
    expect(page2.status).toBe(200)
    expect(page2.body.data).toHaveLength(1)
    expect(page2.body.cursor).toEqual({ next: null, has_more: false })
    const rows = [...page1.body.data, ...page2.body.data]
    expect(rows.map((r: { platform: string }) => r.platform).sort()).toEqual(["photo", "textpost"])
    expect(page1.body.totals.views).toBe(rows.reduce((sum: number, r: { totals: { views: number } }) => sum + r.totals.views, 0))
    const onlyProfile = await send(h, "GET", `/v1/analytics?${query}&profile_id=${profile.id}`)
    expect(onlyProfile.body.data).toHaveLength(1)
    expect(onlyProfile.body.data[0]).toMatchObject({ profile_id: profile.id, platform: "textpost" })

    const replayed = await send(h, "GET", `/v1/analytics?${query}&platform=photo&cursor=${encodeURIComponent(page1.body.cursor.next)}`)
    expect(replayed.status).toBe(400)
    expect(errorOf(replayed)).toMatchObject({ code: "invalid_cursor", field: "cursor" })
    const backwards = await send(h, "GET", `/v1/analytics?from=2026-03-10&to=2026-03-01`)
    expect(backwards.status).toBe(400)
    expect(errorOf(backwards)).toMatchObject({ code: "invalid_range", field: "to" })
    const tooLong = await send(h, "GET", `/v1/analytics?from=2026-01-01&to=2026-04-03`)
    expect(tooLong.status).toBe(400)
    expect(errorOf(tooLong).code).toBe("invalid_range")
    const longest = await send(h, "GET", `/v1/analytics?from=2026-01-01&to=2026-04-02&time_zone=UTC`)
    expect(longest.status).toBe(200)
    expect(longest.body.series).toHaveLength(92)
    const badZone = await send(h, "GET", `/v1/analytics?time_zone=Mars%2FOlympus`)
    expect(badZone.status).toBe(400)
    expect(errorOf(badZone)).toMatchObject({ code: "invalid_request", field: "time_zone" })
    const badDate = await send(h, "GET", `/v1/analytics?from=2026-02-30`)
    expect(badDate.status).toBe(400)
    expect(errorOf(badDate)).toMatchObject({ code: "invalid_request", field: "from" })
  })

  it("answers an account's followers by day", async () => {
    const reply = await send(h, "GET", `/v1/accounts/${accountId}/metrics?from=${dateIn("UTC", post.publishedAt)}&to=${dateIn("UTC", h.clock.now())}`)
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ account_id: accountId, platform: "photo" })
    expect(reply.body.provides).toContain("followers")
    const collectedAt = Date.parse(reply.body.collected_at)
    expect(reply.body.current).toEqual({ followers: SimulatedAnalytics.followersAt(collectedAt) })
    expect(reply.body.days.length).toBeGreaterThan(0)
    expect(reply.body.days.at(-1)).toMatchObject({ date: dateIn("UTC", collectedAt), values: reply.body.current })
    const missing = await send(h, "GET", `/v1/accounts/acc_00000000000000000000000000/metrics`)
    expect(missing.status).toBe(404)
  })

  it("needs analytics:read", async () => {
    const reader = await aKeyWithScopes(h.server, ["posts:read"])
    for (const path of [`/v1/posts/${post.postId}/metrics`, `/v1/analytics`, `/v1/accounts/${accountId}/metrics`]) {
      const refused = await send(h, "GET", path, undefined, reader)
      expect(refused.status).toBe(403)
      expect(errorOf(refused).code).toBe("insufficient_scope")
    }
    const allowed = await aKeyWithScopes(h.server, ["analytics:read"])
    expect((await send(h, "GET", `/v1/analytics`, undefined, allowed)).status).toBe(200)
  })

  it("marks an account whose token the platform refuses needs_reconnect and reads nothing for it", async () => {
    const revoked = await aSandboxAccount(h, "photo", { analytics_error: "token_expired" })
    const published = await aPublishedPost(h, revoked.id)
    await plannedAt(h, published.postId, published.publishedAt + hour)
    h.clock.advance(hour)
    const account = await eventually(
      () => send(h, "GET", `/v1/accounts/${revoked.id}`),
      (reply) => reply.body.status === "needs_reconnect",
      "the account to need reconnecting"
    )
    expect(account.body.status).toBe("needs_reconnect")
    const metrics = await metricsOf(h, published.postId, true)
    expect(metrics.body.targets[0]).toMatchObject({ collected_at: null, values: {}, series: [] })
  })
})

describe.each(backends())("the hourly call budget on %s", (backend) => {
  let h: Harness
  beforeAll(async () => {
    h = await start(backend, { POSTWIRE_COMMENT_HOURLY_CALL_BUDGET: "1" })
  })
  afterAll(() => h?.server.stop())

  it("reads no more than the budget in a clock hour, and the rest when the next hour starts", async () => {
    const account = await aSandboxAccount(h, "photo")
    advanceToTimeOfDay(h.clock, 9 * hour + 5 * minute)
    const a = await aPublishedPost(h, account.id)
    h.clock.advance(30 * minute)
    const b = await aPublishedPost(h, account.id)
    // 10:05: a is read, spending the hour's one call.
    await readingAt(h, a.postId, a.publishedAt + hour, 1)
    // 10:35: b is due, but the hour's call is spent: it is put off to 11:00.
    const hourEnd = Math.floor((b.publishedAt + hour) / hour) * hour + hour
    h.clock.advance(b.publishedAt + hour - h.clock.now())
    const putOff = await plannedAt(h, b.postId, hourEnd)
    expect(putOff.body.targets[0].collected_at).toBeNull()
    // The account's own metrics were read once, with the publishing hour's call; not again at 10:05.
    const accountRead = Date.parse((await send(h, "GET", `/v1/accounts/${account.id}/metrics`)).body.collected_at)
    expect(accountRead).toBeLessThan(Math.floor((a.publishedAt + hour) / hour) * hour)
    const read = await readingAt(h, b.postId, hourEnd, 1)
    expect(Date.parse(read.body.targets[0].collected_at)).toBeGreaterThanOrEqual(hourEnd)
  })
})
