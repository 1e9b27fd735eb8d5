import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { accountOf, anImage, aPost, aVideo } from "../support/Builders.ts"
import { call, errorOf, inOneRateLimitWindow } from "../support/Http.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"
import { aMovableClock } from "../support/MovableClock.ts"

/** A date `days` from now in +07:00, as `YYYY-MM-DD`. */
const dayInJakarta = (days: number): string =>
  new Date(Date.now() + 7 * 3600_000 + days * 86_400_000).toISOString().slice(0, 10)

describe.each(backends())("POST /v1/posts/batch on %s", (backend) => {
  let server: TestServer
  let image: string
  let video: string
  const post = (path: string, body: unknown, headers?: Record<string, string>) =>
    call(server.baseUrl, "POST", path, { key: server.testKey, body, ...(headers ? { headers } : {}) })
  const get = (path: string) => call(server.baseUrl, "GET", path, { key: server.testKey })
  /** A sandbox photo account of the first profile allowing `dailyQuota` posts a day. */
  const aLimitedAccount = (dailyQuota: number) =>
    server.admin(`/workspaces/${server.workspaceId}/accounts`, {
      profile_id: server.profileId,
      platform: "photo",
      sandbox: true,
      daily_quota: dailyQuota
    })
  const anItem = (accountId: string, scheduledAt: string) =>
    aPost(server, [image], { targets: [{ account_id: accountId }], approval: { mode: "none" }, scheduled_at: scheduledAt })

  beforeAll(async () => {
    server = await startServer(backend)
    image = await anImage(server)
    video = await aVideo(server, 12)
  })
  afterAll(() => server?.stop())

  it("creates a 31-item batch item by item: a full day, an unknown account and a missing consent are refused, the rest created", async () => {
    const limited = await aLimitedAccount(2)
    const fullDay = dayInJakarta(40)
    const before = await post("/v1/posts", anItem(limited.id, `${fullDay}T08:00:00+07:00`))
    expect(before.status).toBe(201)
    const items = [
      anItem(limited.id, `${fullDay}T09:00:00+07:00`),
      anItem(limited.id, `${fullDay}T10:00:00+07:00`),
      anItem("acc_01JDQ0YP57RCYBVN5SXS5AA819", `${dayInJakarta(41)}T09:00:00+07:00`),
      aPost(server, [video], {
        targets: [{ account_id: accountOf(server, "shortvideo"), shortvideo: { mode: "direct" } }],
        approval: { mode: "none" }
      }),
      ...Array.from({ length: 27 }, (_, i) => aPost(server, [image], { caption: `Day ${i}`, scheduled_at: `${dayInJakarta(42 + i)}T09:00:00+07:00` }))
    ]
    expect(items).toHaveLength(31)
    const reply = await post("/v1/posts/batch", { items })
    expect(reply.status).toBe(200)
    expect(reply.body.data.map((r: { index: number }) => r.index)).toEqual(items.map((_, i) => i))
    expect(reply.body.data.map((r: { status: number }) => r.status)).toEqual([201, 429, 403, 422, ...Array(27).fill(201)])
    expect(reply.body).toMatchObject({ created: 28, refused: 3 })

    const [first, full, unknown, consent] = reply.body.data
    expect(first.error).toBeUndefined()
    expect(full.post).toBeUndefined()
    expect(full.error).toMatchObject({ code: "quota_exceeded_for_day", field: "items[1].scheduled_at", retryable: true })
    expect(full.error.message).toBe(`The day ${fullDay} of scheduled_at is already full for account ${limited.id}, which allows 2 posts a day.`)
    expect(full.error.message_id).toContain(limited.id)
    expect(full.error.docs).toMatch(/\/docs\/errors#quota_exceeded_for_day$/)
    expect(unknown.error).toMatchObject({ code: "account_forbidden", field: "items[2].targets[0].account_id" })
    expect(consent.error).toMatchObject({ code: "consent_required", field: "items[3].targets[0].shortvideo.consent" })
    expect(consent.error.issues[0]).toMatchObject({ code: "consent_required", field: "items[3].targets[0].shortvideo.consent" })

    // Every created item is a real post, as a single create would have made it.
    for (const result of reply.body.data.filter((r: { status: number }) => r.status === 201)) {
      const stored = await get(`/v1/posts/${result.post.id}`)
      expect(stored.status).toBe(200)
      expect(stored.body.caption).toBe(items[result.index]!.caption)
      expect(Date.parse(stored.body.scheduled_at)).toBe(Date.parse((items[result.index] as { scheduled_at?: string }).scheduled_at ?? ""))
    }
    expect(reply.body.data[4].post.approval.url).toMatch(/\/approve\//)
    expect(reply.body.data[4].post.status).toBe("awaiting_approval")
    expect(first.post.status).toBe("scheduled")
    const account = await get(`/v1/accounts/${limited.id}`)
    expect(account.status).toBe(200)
  })

  it("emits each created item's events as a single create would", async () => {
    const limited = await aLimitedAccount(5)
    const day = dayInJakarta(80)
    const reply = await post("/v1/posts/batch", {
      items: [anItem(limited.id, `${day}T09:00:00+07:00`), aPost(server, [image], { targets: [{ account_id: limited.id }] })]
    })
    expect(reply.body.data.map((r: { status: number }) => r.status)).toEqual([201, 201])
    const events = await get("/v1/events?limit=100")
    expect(events.status).toBe(200)
    const about = (postId: string) =>
      events.body.data.filter((e: { data: { post_id?: string } }) => e.data.post_id === postId).map((e: { type: string }) => e.type)
    expect(about(reply.body.data[0].post.id)).toEqual(["post.scheduled"])
    expect(about(reply.body.data[1].post.id)).toEqual(["post.awaiting_approval"])
  })

  it("counts the items of one batch against each other", async () => {
    const limited = await aLimitedAccount(1)
    const day = dayInJakarta(100)
    const reply = await post("/v1/posts/batch", {
      items: [
        anItem(limited.id, `${day}T09:00:00+07:00`),
        anItem(limited.id, `${day}T09:00:00+07:00`),
        anItem(limited.id, `${dayInJakarta(102)}T09:00:00+07:00`)
      ]
    })
    expect(reply.status).toBe(200)
    expect(reply.body.data.map((r: { status: number }) => r.status)).toEqual([201, 429, 201])
    expect(reply.body.data[1].error).toMatchObject({ code: "quota_exceeded_for_day", field: "items[1].scheduled_at" })
  })

  it("counts an item toward the day of the offset scheduled_at was written in", async () => {
    const limited = await aLimitedAccount(1)
    const day = dayInJakarta(120)
    // 00:30 in +07:00 is still the previous day in UTC; 23:30 is the same +07:00 day, another UTC
    // day, and more than a rolling 24 hours from nothing else: only the +07:00 day refuses it.
    const reply = await post("/v1/posts/batch", {
      items: [anItem(limited.id, `${day}T00:30:00+07:00`), anItem(limited.id, `${day}T23:30:00+07:00`)]
    })
    expect(new Date(Date.parse(`${day}T00:30:00+07:00`)).toISOString().slice(0, 10)).not.toBe(day)
    expect(reply.body.data.map((r: { status: number }) => r.status)).toEqual([201, 429])
    expect(reply.body.data[1].error.code).toBe("quota_exceeded_for_day")
    expect(reply.body.data[1].error.message).toContain(`The day ${day} `)

    // The same two instants written in UTC fall on two UTC days: the day rule lets the second
    // through, and only the rolling 24 hours of a single create refuse it (422).
    const other = await aLimitedAccount(1)
    const utc = await post("/v1/posts/batch", {
      items: [
        anItem(other.id, new Date(Date.parse(`${day}T00:30:00+07:00`)).toISOString()),
        anItem(other.id, new Date(Date.parse(`${day}T23:30:00+07:00`)).toISOString())
      ]
    })
    expect(utc.body.data.map((r: { status: number }) => r.status)).toEqual([201, 422])
    expect(utc.body.data[1].error).toMatchObject({ code: "quota_exceeded", field: "items[1].targets[0].account_id" })
  })

  it("uses the ordinary quota_exceeded for an item without scheduled_at", async () => {
    const limited = await aLimitedAccount(1)
    const now = aPost(server, [image], { targets: [{ account_id: limited.id }], approval: { mode: "none" } })
    const reply = await post("/v1/posts/batch", { items: [now, now] })
    expect(reply.body.data.map((r: { status: number }) => r.status)).toEqual([201, 422])
    expect(reply.body.data[1].error).toMatchObject({ code: "quota_exceeded", field: "items[1].targets[0].account_id" })
    expect(reply.body.data[1].error.issues).toHaveLength(1)
  })

  it("refuses 32 items, and none, with 400 naming items, creating nothing", async () => {
    const limited = await aLimitedAccount(100)
    const items = Array.from({ length: 32 }, (_, i) => anItem(limited.id, `${dayInJakarta(200 + i)}T09:00:00+07:00`))
    const tooMany = await post("/v1/posts/batch", { items })
    expect(tooMany.status).toBe(400)
    expect(errorOf(tooMany)).toMatchObject({ code: "invalid_request", field: "items" })
    const none = await post("/v1/posts/batch", { items: [] })
    expect(none.status).toBe(400)
    expect(errorOf(none)).toMatchObject({ code: "invalid_request", field: "items" })
    const account = await get(`/v1/accounts/${limited.id}`)
    expect(account.body.quota.used).toBe(0)
    const malformed = await post("/v1/posts/batch", { items: [{ ...items[0], caption: 7 }] })
    expect(malformed.status).toBe(400)
    expect(errorOf(malformed).field).toBe("items[0].caption")
  })

  it("replays the whole batch for the same Idempotency-Key, creating nothing again", async () => {
    const limited = await aLimitedAccount(2)
    const day = dayInJakarta(300)
    const body = { items: [anItem(limited.id, `${day}T09:00:00+07:00`), anItem(limited.id, `${day}T10:00:00+07:00`), anItem(limited.id, `${day}T11:00:00+07:00`)] }
    const key = { "idempotency-key": `batch-${backend}-${Date.now()}` }
    const first = await post("/v1/posts/batch", body, key)
    expect(first.status).toBe(200)
    expect(first.body.data.map((r: { status: number }) => r.status)).toEqual([201, 201, 429])
    const again = await post("/v1/posts/batch", body, key)
    expect(again.status).toBe(200)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(again.body).toEqual(first.body)
    const listed = await get(`/v1/posts?limit=100&from=${day}T00:00:00%2B07:00&to=${dayInJakarta(301)}T00:00:00%2B07:00`)
    expect(listed.body.data.filter((p: { targets: Array<{ account_id: string }> }) => p.targets[0]!.account_id === limited.id)).toHaveLength(2)
    const changed = await post("/v1/posts/batch", { items: body.items.slice(0, 1) }, key)
    expect(changed.status).toBe(409)
    expect(errorOf(changed).code).toBe("idempotency_conflict")
  })

  it("never lets two concurrent batches together exceed a day", async () => {
    const limited = await aLimitedAccount(3)
    const day = dayInJakarta(400)
    const batch = { items: Array.from({ length: 3 }, (_, i) => anItem(limited.id, `${day}T0${i + 1}:00:00+07:00`)) }
    const replies = await Promise.all([post("/v1/posts/batch", batch), post("/v1/posts/batch", batch), post("/v1/posts/batch", batch)])
    const statuses = replies.flatMap((r) => r.body.data.map((d: { status: number }) => d.status))
    const codes = replies.flatMap((r) => r.body.data.map((d: { error?: { code: string } }) => d.error?.code ?? "created"))
    expect(statuses.filter((s) => s === 201), JSON.stringify(codes)).toHaveLength(3)
    expect(statuses.filter((s) => s === 429), JSON.stringify(codes)).toHaveLength(6)
  })
})

describe.each(backends())("POST /v1/posts/batch rate limits on %s", (backend) => {
  let server: TestServer
  const time = aMovableClock()
  beforeAll(async () => {
    server = await startServer(backend, { POSTWIRE_RATE_LIMIT_PER_KEY: "20", POSTWIRE_RATE_LIMIT_POSTS_CREATE: "3" }, { clock: time.clock })
  })
  afterAll(() => server?.stop())

  it("counts a batch as one request toward the key's limit and the POST /posts limit", async () => {
    inOneRateLimitWindow(time)
    const image = await anImage(server)
    const items = Array.from({ length: 10 }, () => aPost(server, [image]))
    const first = await call(server.baseUrl, "POST", "/v1/posts/batch", { key: server.testKey, body: { items } })
    expect(first.status).toBe(200)
    expect(first.body.created).toBe(10)
    expect(first.headers.get("x-ratelimit-limit")).toBe("3")
    expect(first.headers.get("x-ratelimit-remaining")).toBe("2")
    const single = await call(server.baseUrl, "POST", "/v1/posts", { key: server.testKey, body: items[0] })
    expect(single.status).toBe(201)
    expect(single.headers.get("x-ratelimit-remaining")).toBe("1")
    await call(server.baseUrl, "POST", "/v1/posts/batch", { key: server.testKey, body: { items } })
    const over = await call(server.baseUrl, "POST", "/v1/posts/batch", { key: server.testKey, body: { items } })
    expect(over.status).toBe(429)
    expect(errorOf(over).code).toBe("rate_limited")
    const other = await call(server.baseUrl, "GET", "/v1/posts?limit=1", { key: server.testKey })
    // The key's own limit (20) saw each call once: 3 batches, 1 create, the media upload, this GET.
    expect(Number(other.headers.get("x-ratelimit-remaining"))).toBe(20 - 6)
  })
})
