/**
 * What a receiver runs on, black-box over HTTP on both databases with a loopback receiver: the
 * delivery log and redelivery, the events API, PATCH and re-enabling, secret rotation verified
 * by `@postwire/webhooks` and by Stripe's verifier, and the `webhooks:read` scope.
 */
import Stripe from "stripe"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { verify, WebhookVerificationError } from "@postwire/webhooks"
import { aKeyWithScopes, anImage, anotherWorkspace } from "../support/Builders.ts"
import { eventually } from "../support/Eventually.ts"
import { call, errorOf } from "../support/Http.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"
import { aMovableClock } from "../support/MovableClock.ts"
import { aReceiver, type Receiver } from "../webhooks/Receiver.ts"

const loopbackAllowed = { POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS: "1" }
const minute = 60_000
const hour = 60 * minute

const stripe = new Stripe("sk_test_postwire_compatibility")

/** The unix seconds of a `SERVICE-Signature` header. */
const timestampOf = (signature: string | undefined) => Number(/t=(\d+)/.exec(signature ?? "")?.[1])

/** The `v1` entries of a `SERVICE-Signature` header. */
const v1Of = (signature: string | undefined) => (signature ?? "").split(",").filter((entry) => entry.startsWith("v1="))

describe.each(backends())("webhook log, events and rotation on %s", (backend) => {
  const time = aMovableClock()
  let server: TestServer
  const receivers: Array<Receiver> = []

  const send = (method: string, path: string, body?: unknown, key = server.testKey, headers?: Record<string, string>) =>
    call(server.baseUrl, method, path, { key, ...(body === undefined ? {} : { body }), ...(headers ? { headers } : {}) })

  /** A workspace of its own, so lists hold only what the test made. */
  const aWorkspace = async () => {
    const workspace = await anotherWorkspace(server)
    const connect = (platform = "pages") =>
      server.admin<{ id: string }>(`/workspaces/${workspace.workspaceId}/accounts`, {
        profile_id: workspace.profileId,
        platform,
        sandbox: true
      })
    return { ...workspace, connect }
  }

  /** A receiver on loopback whose replay check follows the server's clock. */
  const aSink = async () => {
    const sink = await aReceiver()
    sink.now = time.nowSeconds
    receivers.push(sink)
    return sink
  }

  const register = async (key: string, url: string, events: ReadonlyArray<string>) => {
    const reply = await send("POST", "/v1/webhooks", { url, events }, key)
    if (reply.status !== 201) throw new Error(`register failed: ${reply.status} ${JSON.stringify(reply.body)}`)
    return reply.body as { id: string; secret: string }
  }

  beforeAll(async () => {
    server = await startServer(backend, loopbackAllowed, { clock: time.clock })
  })
  afterAll(async () => {
    for (const sink of receivers) await sink.close()
    await server?.stop()
  })

  describe("the delivery log and redelivery", () => {
    it("shows every attempt while the receiver is down until it is given up, and a redelivery brings the same event", async () => {
      const workspace = await aWorkspace()
      const sink = await aSink()
      const endpoint = await register(workspace.key, sink.url, ["account.connected"])
      sink.secret = endpoint.secret
      sink.mode = 503
      sink.answerBody = "maintenance ".repeat(200)

      const deliveries = `/v1/webhooks/${endpoint.id}/deliveries`
      // Time moves on only once the server has recorded the attempt (and scheduled the next).
      const logged = (attempts: number) =>
        eventually(
          () => send("GET", deliveries, undefined, workspace.key),
          (reply) => reply.body.data?.[0]?.attempt_count === attempts,
          `${attempts} attempts in the log`
        )
      const account = await workspace.connect()
      await logged(1)
      // Each wait of the schedule, lengthened by the most jitter can add, and a minute.
      const waits = [1, 5, 15, 30, 60, 180, 360, 789].map((minutes) => Math.ceil(minutes * 1.1) * minute + minute)
      for (const [index, wait] of waits.entries()) {
        time.advance(wait)
        await logged(index + 2)
      }
      const listed = await logged(9)
      expect(sink.raw).toHaveLength(9)
      expect(listed.status).toBe(200)
      expect(listed.body.cursor).toEqual({ next: null, has_more: false })
      const [delivery] = listed.body.data
      const eventId = sink.raw[0]!.eventId
      expect(delivery).toMatchObject({
        id: expect.stringMatching(/^dlv_[0-9A-Z]{26}$/),
        endpoint_id: endpoint.id,
        event_id: eventId,
        event_type: "account.connected",
        status: "failed",
        given_up_reason: "retries_exhausted",
        attempt_count: 9,
        next_attempt_at: null,
        last_attempt: { status_code: 503, redelivery: false, error: { code: "webhook_delivery_failed" } }
      })
      expect(delivery.last_attempt.response_body).toBe("maintenance ".repeat(200).slice(0, 1024))
      const shown = await send("GET", `/v1/webhooks/${endpoint.id}`, undefined, workspace.key)
      // One bad event never disables an endpoint.
      expect(shown.body).toMatchObject({ active: true, disabled_reason: null })

      const detail = await send("GET", `${deliveries}/${delivery.id}`, undefined, workspace.key, { "accept-language": "id" })
      expect(detail.status).toBe(200)
      expect(detail.body.attempts).toHaveLength(9)
      const times = detail.body.attempts.map((attempt: { attempted_at: string }) => Date.parse(attempt.attempted_at))
      expect([...times].sort((a, b) => b - a)).toEqual(times)
      expect(times[0] - times[8]).toBeGreaterThanOrEqual(24 * hour)
      for (const attempt of detail.body.attempts) {
        expect(attempt).toMatchObject({ status_code: 503, redelivery: false, duration_ms: expect.any(Number) })
        expect(attempt.error).toMatchObject({
          code: "webhook_delivery_failed",
          message: "Endpoint webhook tidak menerima pengiriman: endpoint membalas dengan HTTP 503",
          retryable: true,
          docs: expect.stringMatching(/\/docs\/errors#webhook_delivery_failed$/)
        })
      }
      expect(new Set(sink.raw.map((raw) => raw.eventId))).toEqual(new Set([eventId]))

      sink.mode = 200
      sink.answerBody = "thanks"
      time.advance(minute)
      const redeliver = () =>
        send("POST", `${deliveries}/${delivery.id}/redeliver`, undefined, workspace.key, { "idempotency-key": "catch-up-1" })
      const redelivered = await redeliver()

      expect(redelivered.status).toBe(200)
      expect(redelivered.body).toMatchObject({
        id: delivery.id,
        status: "delivered",
        given_up_reason: null,
        attempt_count: 10,
        next_attempt_at: null
      })
      expect(redelivered.body.attempts[0]).toMatchObject({ redelivery: true, status_code: 200, response_body: "thanks", error: null })
      expect(sink.raw).toHaveLength(10)
      expect(sink.raw[9]!.eventId).toBe(eventId)
      expect(sink.raw[9]!.body).toBe(sink.raw[0]!.body)
      expect(timestampOf(sink.raw[9]!.signature)).toBeGreaterThan(timestampOf(sink.raw[8]!.signature))
      expect(sink.events.map((event) => event.id)).toEqual([eventId])
      expect(sink.rejected).toEqual([])

      const replayed = await redeliver()
      expect(replayed.status).toBe(200)
      expect(replayed.headers.get("idempotent-replayed")).toBe("true")
      expect(replayed.body).toEqual(redelivered.body)
      expect(sink.raw).toHaveLength(10)

      const event = await send("GET", `/v1/events/${eventId}`, undefined, workspace.key)
      expect(event.status).toBe(200)
      expect(event.body).toEqual(JSON.parse(sink.raw[0]!.body))
      expect(event.body.data).toMatchObject({ account_id: account.id })
    })

    it("filters the log by status and event type, and pages it newest first", async () => {
      const workspace = await aWorkspace()
      const sink = await aSink()
      const endpoint = await register(workspace.key, sink.url, ["account.connected", "post.awaiting_approval"])
      sink.secret = endpoint.secret
      sink.mode = 204
      await workspace.connect()
      await workspace.connect()
      await sink.waitUntil(() => sink.events.length === 2, "two deliveries")
      sink.mode = 500
      const image = await anImage(server, workspace.key)
      const post = await send(
        "POST",
        "/v1/posts",
        { profile_id: workspace.profileId, caption: "Hi", media: [image], targets: [{ account_id: workspace.accountId }] },
        workspace.key
      )
      expect(post.status).toBe(201)
      await sink.waitUntil(() => sink.raw.length === 3, "the failing delivery")
      const deliveries = `/v1/webhooks/${endpoint.id}/deliveries`
      await eventually(
        () => send("GET", `${deliveries}?event_type=post.awaiting_approval`, undefined, workspace.key),
        (reply) => reply.body.data?.[0]?.attempt_count === 1,
        "the failed attempt in the log"
      )

      const pending = await send("GET", `${deliveries}?status=pending`, undefined, workspace.key)
      const delivered = await send("GET", `${deliveries}?status=delivered&event_type=account.connected`, undefined, workspace.key)
      const first = await send("GET", `${deliveries}?limit=2`, undefined, workspace.key)
      const second = await send("GET", `${deliveries}?limit=2&cursor=${first.body.cursor.next}`, undefined, workspace.key)
      const mixed = await send("GET", `${deliveries}?limit=2&status=pending&cursor=${first.body.cursor.next}`, undefined, workspace.key)

      expect(pending.body.data.map((d: { event_type: string }) => d.event_type)).toEqual(["post.awaiting_approval"])
      expect(delivered.body.data).toHaveLength(2)
      expect(delivered.body.data.every((d: { status: string }) => d.status === "delivered")).toBe(true)
      const paged = [...first.body.data, ...second.body.data]
      expect(paged).toHaveLength(3)
      expect(second.body.cursor).toEqual({ next: null, has_more: false })
      const created = paged.map((d: { created_at: string }) => Date.parse(d.created_at))
      expect([...created].sort((a, b) => b - a)).toEqual(created)
      expect(mixed.status).toBe(400)
      expect(errorOf(mixed)).toMatchObject({ code: "invalid_cursor", field: "cursor" })
      const badStatus = await send("GET", `${deliveries}?status=lost`, undefined, workspace.key)
      expect(badStatus.status).toBe(400)
      expect(errorOf(badStatus)).toMatchObject({ code: "invalid_request", field: "status" })
    })

    it("answers 404 for a delivery of another endpoint or workspace", async () => {
      const workspace = await aWorkspace()
      const sink = await aSink()
      const endpoint = await register(workspace.key, sink.url, ["account.connected"])
      const sibling = await register(workspace.key, sink.url, ["account.disconnected"])
      sink.secret = endpoint.secret
      await workspace.connect()
      await sink.waitUntil(() => sink.events.length === 1, "the delivery")
      const listed = await eventually(
        () => send("GET", `/v1/webhooks/${endpoint.id}/deliveries`, undefined, workspace.key),
        (reply) => reply.body.data?.length === 1,
        "the delivery in the log"
      )
      const id = listed.body.data[0].id

      const viaSibling = await send("GET", `/v1/webhooks/${sibling.id}/deliveries/${id}`, undefined, workspace.key)
      const elsewhere = await send("GET", `/v1/webhooks/${endpoint.id}/deliveries/${id}`)
      const redeliverElsewhere = await send("POST", `/v1/webhooks/${endpoint.id}/deliveries/${id}/redeliver`)

      expect([viaSibling.status, elsewhere.status, redeliverElsewhere.status]).toEqual([404, 404, 404])
      expect(errorOf(viaSibling).message).toBe("No webhook delivery with that id exists in this workspace.")
      expect(errorOf(elsewhere).message).toBe("No webhook endpoint with that id exists in this workspace.")
    })
  })

  describe("disablement", () => {
    it("disables an endpoint failing for 3 days, tells the events API and the other endpoints, and re-enables it", async () => {
      const workspace = await aWorkspace()
      const failing = await aSink()
      const watcher = await aSink()
      const endpoint = await register(workspace.key, failing.url, ["account.connected", "webhook_endpoint.disabled"])
      const watching = await register(workspace.key, watcher.url, ["webhook_endpoint.disabled"])
      failing.secret = endpoint.secret
      watcher.secret = watching.secret
      failing.mode = 503
      const deliveries = `/v1/webhooks/${endpoint.id}/deliveries`
      const newest = (attempts: number) =>
        eventually(
          () => send("GET", `${deliveries}?limit=1`, undefined, workspace.key),
          (reply) => reply.body.data?.[0]?.attempt_count === attempts,
          `${attempts} attempts of the newest delivery`
        )
      const waits = [1, 5, 15, 30, 60, 180, 360, 789].map((minutes) => Math.ceil(minutes * 1.1) * minute + minute)
      /** Connects an account and lets its delivery fail through the whole schedule. */
      const aBadDay = async () => {
        await workspace.connect()
        await newest(1)
        for (const [index, wait] of waits.entries()) {
          time.advance(wait)
          await newest(index + 2)
        }
      }
      const endpointNow = async () => (await send("GET", `/v1/webhooks/${endpoint.id}`, undefined, workspace.key)).body

      await aBadDay()
      await aBadDay()
      expect(await endpointNow()).toMatchObject({ active: true })
      await aBadDay()

      const disabled = await endpointNow()
      expect(disabled).toMatchObject({ active: false, disabled_reason: "delivery_failed", disabled_at: expect.any(String) })
      const notices = await send("GET", "/v1/events?type=webhook_endpoint.disabled", undefined, workspace.key)
      expect(notices.body.data).toHaveLength(1)
      expect(notices.body.data[0].data).toMatchObject({
        endpoint_id: endpoint.id,
        url: failing.url,
        disabled_reason: "delivery_failed",
        disabled_at: disabled.disabled_at
      })
      await watcher.waitUntil(() => watcher.events.length === 1, "the notice at the other endpoint")
      expect(watcher.events[0]).toEqual(notices.body.data[0])
      expect(failing.raw.some((raw) => raw.body.includes("webhook_endpoint.disabled"))).toBe(false)
      const log = await send("GET", deliveries, undefined, workspace.key)
      expect(log.body.data.map((d: { status: string; given_up_reason: string }) => [d.status, d.given_up_reason])).toEqual([
        ["failed", "retries_exhausted"],
        ["failed", "retries_exhausted"],
        ["failed", "retries_exhausted"]
      ])

      failing.mode = 204
      const enabled = await send("PATCH", `/v1/webhooks/${endpoint.id}`, { active: true }, workspace.key)
      expect(enabled.body).toMatchObject({ active: true, disabled_reason: null, disabled_at: null })
      const account = await workspace.connect()
      await failing.waitUntil(() => failing.events.length === 1, "the first event after re-enabling")
      expect((failing.events[0]!.data as { account_id: string }).account_id).toBe(account.id)
      const oldest = log.body.data[2]
      const redelivered = await send("POST", `${deliveries}/${oldest.id}/redeliver`, undefined, workspace.key)
      expect(redelivered.body).toMatchObject({ status: "delivered", given_up_reason: null })
      expect(failing.events.map((event) => event.id)).toContain(oldest.event_id)
    })
  })

  describe("GET /v1/events", () => {
    it("returns what a receiver missed, filtered by type, post, account and time, paged newest first", async () => {
      const workspace = await aWorkspace()
      const sink = await aSink()
      const endpoint = await register(workspace.key, sink.url, ["account.connected", "post.awaiting_approval"])
      sink.secret = endpoint.secret
      sink.mode = 503
      const accounts = [await workspace.connect(), await workspace.connect("textpost")]
      time.advance(1000)
      const image = await anImage(server, workspace.key)
      const post = await send(
        "POST",
        "/v1/posts",
        { profile_id: workspace.profileId, caption: "Hi", media: [image], targets: [{ account_id: workspace.accountId }] },
        workspace.key
      )
      expect(post.status).toBe(201)
      await sink.waitUntil(() => new Set(sink.raw.map((raw) => raw.eventId)).size === 3, "three failed deliveries")

      const list = (query: string) => send("GET", `/v1/events${query}`, undefined, workspace.key)
      const both = "type=account.connected&type=post.awaiting_approval"
      const first = await list(`?${both}&limit=2`)
      const second = await list(`?${both}&limit=2&cursor=${encodeURIComponent(first.body.cursor.next)}`)

      expect(first.status).toBe(200)
      expect(first.body.cursor.has_more).toBe(true)
      expect(second.body.cursor).toEqual({ next: null, has_more: false })
      const missed = [...first.body.data, ...second.body.data]
      const sent = sink.raw.map((raw) => JSON.parse(raw.body))
      // The workspace's own first account (made with it) is older than the endpoint, and is listed too.
      expect(missed.filter((event) => sent.some((body) => body.id === event.id))).toHaveLength(3)
      for (const event of missed.filter((each) => sent.some((body) => body.id === each.id))) {
        expect(event).toEqual(sent.find((body) => body.id === event.id))
      }
      const created = missed.map((event) => Date.parse(event.created_at))
      expect([...created].sort((a, b) => b - a)).toEqual(created)

      const byPost = await list(`?post_id=${post.body.id}`)
      expect(byPost.body.data.map((event: { type: string }) => event.type)).toEqual(["post.awaiting_approval"])
      const byAccount = await list(`?account_id=${accounts[1]!.id}`)
      expect(byAccount.body.data.map((event: { data: { account_id: string } }) => event.data.account_id)).toEqual([accounts[1]!.id])
      const onlyAccounts = await list("?type=account.connected")
      expect(onlyAccounts.body.data.every((event: { type: string }) => event.type === "account.connected")).toBe(true)
      const postCreatedAt = (byPost.body.data[0] as { created_at: string }).created_at
      const since = await list(`?from=${encodeURIComponent(postCreatedAt)}`)
      expect(since.body.data.map((event: { id: string }) => event.id)).toEqual([byPost.body.data[0].id])
      const before = await list(`?to=${encodeURIComponent(postCreatedAt)}&type=post.awaiting_approval`)
      expect(before.body.data).toEqual([])

      const one = await send("GET", `/v1/events/${byPost.body.data[0].id}`, undefined, workspace.key)
      expect(one.body).toEqual(byPost.body.data[0])
    })

    it("refuses a bad range, a cursor of other filters and an unknown type, in the shared shape", async () => {
      const workspace = await aWorkspace()
      await workspace.connect()
      await workspace.connect()
      const list = (query: string) => send("GET", `/v1/events${query}`, undefined, workspace.key)
      const page = await list("?limit=1")

      const range = await list("?from=2026-11-22T00:00:00Z&to=2026-11-21T00:00:00Z")
      const tooLong = await list("?from=2026-01-01T00:00:00Z&to=2026-12-01T00:00:00Z")
      const otherFilters = await list(`?limit=1&type=account.connected&cursor=${encodeURIComponent(page.body.cursor.next)}`)
      const unknownType = await list("?type=post.exploded")
      const noOffset = await list("?from=2026-11-22T00:00:00")

      expect(errorOf(range)).toMatchObject({ code: "invalid_range", field: "to" })
      expect(errorOf(tooLong)).toMatchObject({ code: "invalid_range", field: "to" })
      expect(errorOf(otherFilters)).toMatchObject({ code: "invalid_cursor", field: "cursor" })
      expect(errorOf(unknownType)).toMatchObject({ code: "invalid_request", field: expect.stringMatching(/^type/) })
      expect(errorOf(noOffset)).toMatchObject({ code: "invalid_request", field: "from" })
      expect([range.status, otherFilters.status, unknownType.status, noOffset.status]).toEqual([400, 400, 400, 400])
    })

    it("hides another workspace's events", async () => {
      const workspace = await aWorkspace()
      await workspace.connect()
      const [event] = (await send("GET", "/v1/events?limit=1", undefined, workspace.key)).body.data

      const reply = await send("GET", `/v1/events/${event.id}`)
      const listed = await send("GET", "/v1/events?limit=100")

      expect(reply.status).toBe(404)
      expect(errorOf(reply)).toMatchObject({ code: "not_found", message: "No event with that id exists in this workspace." })
      expect(listed.body.data.map((each: { id: string }) => each.id)).not.toContain(event.id)
    })
  })

  describe("PATCH /v1/webhooks/{id}", () => {
    it("refuses a private url with 400 invalid_url naming url, and changes nothing", async () => {
      const workspace = await aWorkspace()
      const sink = await aSink()
      const endpoint = await register(workspace.key, sink.url, ["account.connected"])

      const reply = await send("PATCH", `/v1/webhooks/${endpoint.id}`, { url: "https://10.0.0.8/hook" }, workspace.key)

      expect(reply.status).toBe(400)
      expect(errorOf(reply)).toMatchObject({
        code: "invalid_url",
        field: "url",
        message: "The url must be a public https address: a private address"
      })
      expect((await send("GET", `/v1/webhooks/${endpoint.id}`, undefined, workspace.key)).body.url).toBe(sink.url)
    })

    it("moves an endpoint to a new url and new events", async () => {
      const workspace = await aWorkspace()
      const [before, after] = [await aSink(), await aSink()]
      const endpoint = await register(workspace.key, before.url, ["post.published"])
      before.secret = endpoint.secret
      after.secret = endpoint.secret

      const reply = await send(
        "PATCH",
        `/v1/webhooks/${endpoint.id}`,
        { url: after.url, events: ["account.connected"] },
        workspace.key
      )
      await workspace.connect()
      await after.waitUntil(() => after.events.length === 1, "the event at the new url")

      expect(reply.status).toBe(200)
      expect(reply.body).toMatchObject({ id: endpoint.id, url: after.url, events: ["account.connected"], active: true })
      expect(reply.body).not.toHaveProperty("secret")
      expect(before.raw).toEqual([])
      const repeated = await send("PATCH", `/v1/webhooks/${endpoint.id}`, { events: ["account.connected", "account.connected"] }, workspace.key)
      expect(errorOf(repeated)).toMatchObject({ code: "invalid_request", field: "events[1]" })
      const unknown = await send("PATCH", `/v1/webhooks/${endpoint.id}`, { enabled: true }, workspace.key)
      expect(errorOf(unknown)).toMatchObject({ code: "invalid_request", field: "enabled" })
      const elsewhere = await send("PATCH", `/v1/webhooks/${endpoint.id}`, { active: true })
      expect(errorOf(elsewhere)).toMatchObject({ code: "not_found" })
    })

    it("re-enables a disabled endpoint: events from then on arrive, those given up stay in the log for redelivery", async () => {
      const workspace = await aWorkspace()
      const sink = await aSink()
      const endpoint = await register(workspace.key, sink.url, ["account.connected"])
      sink.secret = endpoint.secret
      sink.mode = 503
      await workspace.connect()
      await sink.waitUntil(() => sink.raw.length === 1, "the failing attempt")
      const deliveries = `/v1/webhooks/${endpoint.id}/deliveries`
      await eventually(
        () => send("GET", deliveries, undefined, workspace.key),
        (reply) => reply.body.data?.[0]?.attempt_count === 1,
        "the attempt in the log"
      )

      const disabled = await send("PATCH", `/v1/webhooks/${endpoint.id}`, { active: false }, workspace.key)
      expect(disabled.body).toMatchObject({ active: false, disabled_reason: "disabled_by_request", disabled_at: expect.any(String) })
      const givenUp = (await send("GET", deliveries, undefined, workspace.key)).body.data[0]
      expect(givenUp).toMatchObject({ status: "failed", next_attempt_at: null, given_up_reason: "endpoint_disabled" })
      const whileDisabled = await workspace.connect()
      time.advance(2 * minute)

      const enabled = await send("PATCH", `/v1/webhooks/${endpoint.id}`, { active: true }, workspace.key)
      expect(enabled.status).toBe(200)
      expect(enabled.body).toMatchObject({ active: true, disabled_reason: null, disabled_at: null })
      sink.mode = 204
      const afterwards = await workspace.connect()
      await sink.waitUntil(() => sink.events.length === 1, "the event after re-enabling")

      expect(sink.events.map((event) => (event.data as { account_id: string }).account_id)).toEqual([afterwards.id])
      expect(sink.raw.some((raw) => raw.body.includes(whileDisabled.id))).toBe(false)
      const log = await eventually(
        () => send("GET", deliveries, undefined, workspace.key),
        (reply) => reply.body.data?.length === 2 && reply.body.data[0].status === "delivered",
        "the new delivery in the log"
      )
      expect(log.body.data.map((d: { status: string }) => d.status)).toEqual(["delivered", "failed"])

      const redelivered = await send("POST", `${deliveries}/${givenUp.id}/redeliver`, undefined, workspace.key)
      expect(redelivered.body).toMatchObject({ status: "delivered", attempt_count: 2 })
      expect(sink.events).toHaveLength(2)
    })
  })

  describe("POST /v1/webhooks/{id}/rotate-secret", () => {
    it("signs with both secrets until the old one expires, then with the new one only, for both verifiers", async () => {
      const workspace = await aWorkspace()
      const sink = await aSink()
      const endpoint = await register(workspace.key, sink.url, ["account.connected"])
      const oldSecret = endpoint.secret
      sink.secret = oldSecret

      const rotated = await send("POST", `/v1/webhooks/${endpoint.id}/rotate-secret`, { expires_in_seconds: 3600 }, workspace.key)
      expect(rotated.status).toBe(200)
      const newSecret: string = rotated.body.secret
      expect(newSecret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/)
      expect(newSecret).not.toBe(oldSecret)
      expect(Date.parse(rotated.body.previous_secret_expires_at) - time.now()).toBeGreaterThan(3590_000)

      await workspace.connect()
      await sink.waitUntil(() => sink.events.length === 1, "a delivery during the rotation")
      const during = sink.raw[0]!
      expect(v1Of(during.signature)).toHaveLength(2)
      for (const secret of [oldSecret, newSecret]) {
        await expect(verify(during.body, during.signature, secret, { now: time.nowSeconds() })).resolves.toMatchObject({ id: during.eventId })
        expect(stripe.webhooks.constructEvent(during.body, during.signature!, secret, 300, undefined, time.nowSeconds()).id).toBe(during.eventId)
      }

      time.advance(hour + minute)
      expect((await send("GET", `/v1/webhooks/${endpoint.id}`, undefined, workspace.key)).body.previous_secret_expires_at).toBeNull()
      sink.secret = newSecret
      await workspace.connect()
      await sink.waitUntil(() => sink.events.length === 2, "a delivery after the old secret expired")
      const after = sink.raw[1]!
      expect(v1Of(after.signature)).toHaveLength(1)
      await expect(verify(after.body, after.signature, newSecret, { now: time.nowSeconds() })).resolves.toBeTruthy()
      expect(stripe.webhooks.constructEvent(after.body, after.signature!, newSecret, 300, undefined, time.nowSeconds()).id).toBe(after.eventId)
      const refused = await verify(after.body, after.signature, oldSecret, { now: time.nowSeconds() }).catch((error: unknown) => error)
      expect(refused).toBeInstanceOf(WebhookVerificationError)
      expect((refused as WebhookVerificationError).reason).toBe("no_matching_signature")
      expect(() => stripe.webhooks.constructEvent(after.body, after.signature!, oldSecret, 300, undefined, time.nowSeconds())).toThrow()
    })

    it("retires the old secret at once with expires_in_seconds 0, and defaults to one day", async () => {
      const workspace = await aWorkspace()
      const sink = await aSink()
      const endpoint = await register(workspace.key, sink.url, ["account.connected"])

      const withoutBody = await send("POST", `/v1/webhooks/${endpoint.id}/rotate-secret`, undefined, workspace.key)
      expect(withoutBody.status).toBe(200)
      expect(Date.parse(withoutBody.body.previous_secret_expires_at) - time.now()).toBeGreaterThan(24 * hour - minute)
      const byDefault = await send("POST", `/v1/webhooks/${endpoint.id}/rotate-secret`, {}, workspace.key)
      expect(Date.parse(byDefault.body.previous_secret_expires_at) - time.now()).toBeGreaterThan(24 * hour - minute)
      const leaked = await send("POST", `/v1/webhooks/${endpoint.id}/rotate-secret`, { expires_in_seconds: 0 }, workspace.key)
      expect(leaked.status).toBe(200)
      expect(leaked.body.previous_secret_expires_at).toBeNull()
      sink.secret = leaked.body.secret

      await workspace.connect()
      await sink.waitUntil(() => sink.events.length === 1, "a delivery signed with the new secret")
      expect(v1Of(sink.raw[0]!.signature)).toHaveLength(1)
      for (const old of [endpoint.secret, withoutBody.body.secret, byDefault.body.secret]) {
        await expect(verify(sink.raw[0]!.body, sink.raw[0]!.signature, old, { now: time.nowSeconds() })).rejects.toThrow(WebhookVerificationError)
      }
    })

    it.each([[-1], [1.5], [604_801], ["3600"]])("refuses expires_in_seconds %j, naming the field", async (value) => {
      const workspace = await aWorkspace()
      const endpoint = await register(workspace.key, "http://127.0.0.1:9/hook", ["account.connected"])

      const reply = await send("POST", `/v1/webhooks/${endpoint.id}/rotate-secret`, { expires_in_seconds: value }, workspace.key)

      expect(reply.status).toBe(400)
      expect(errorOf(reply)).toMatchObject({ code: "invalid_request", field: "expires_in_seconds" })
    })

    it("never shows a secret in the log, the events or the endpoint", async () => {
      const workspace = await aWorkspace()
      const sink = await aSink()
      const endpoint = await register(workspace.key, sink.url, ["account.connected"])
      const rotated = await send("POST", `/v1/webhooks/${endpoint.id}/rotate-secret`, {}, workspace.key)
      sink.secret = [rotated.body.secret]
      sink.mode = 500
      await workspace.connect()
      await sink.waitUntil(() => sink.raw.length === 1, "a failed delivery")
      const deliveries = await eventually(
        () => send("GET", `/v1/webhooks/${endpoint.id}/deliveries`, undefined, workspace.key),
        (reply) => reply.body.data?.[0]?.attempt_count === 1,
        "the attempt in the log"
      )
      const detail = await send("GET", `/v1/webhooks/${endpoint.id}/deliveries/${deliveries.body.data[0].id}`, undefined, workspace.key)
      const events = await send("GET", "/v1/events", undefined, workspace.key)
      const shown = await send("GET", `/v1/webhooks/${endpoint.id}`, undefined, workspace.key)
      const listed = await send("GET", "/v1/webhooks", undefined, workspace.key)

      const everything = JSON.stringify([deliveries.body, detail.body, events.body, shown.body, listed.body, sink.raw.map((raw) => raw.body)])
      for (const secret of [endpoint.secret, rotated.body.secret]) expect(everything).not.toContain(secret)
      expect(everything).not.toContain("whsec_")
    })
  })

  describe("scopes", () => {
    it("lets a webhooks:read key read endpoints, deliveries and events, and change nothing", async () => {
      const sink = await aSink()
      const endpoint = await register(server.testKey, sink.url, ["account.connected"])
      const reader = await aKeyWithScopes(server, ["webhooks:read"])
      const writer = await aKeyWithScopes(server, ["webhooks:write"])
      const postsOnly = await aKeyWithScopes(server, ["posts:read", "posts:write"])
      const reads = [
        ["GET", "/v1/webhooks"],
        ["GET", `/v1/webhooks/${endpoint.id}`],
        ["GET", `/v1/webhooks/${endpoint.id}/deliveries`],
        ["GET", "/v1/events"]
      ] as const
      const writes = [
        ["POST", "/v1/webhooks", { url: sink.url, events: ["account.connected"] }],
        ["PATCH", `/v1/webhooks/${endpoint.id}`, { active: false }],
        ["POST", `/v1/webhooks/${endpoint.id}/rotate-secret`, {}],
        ["POST", `/v1/webhooks/${endpoint.id}/deliveries/dlv_0000000000000000000000000/redeliver`, undefined],
        ["POST", `/v1/webhooks/${endpoint.id}/test`, undefined],
        ["DELETE", `/v1/webhooks/${endpoint.id}`, undefined]
      ] as const

      for (const [method, path] of reads) {
        expect((await send(method, path, undefined, reader)).status, `${method} ${path} with webhooks:read`).toBe(200)
        expect((await send(method, path, undefined, writer)).status, `${method} ${path} with webhooks:write`).toBe(200)
        const refused = await send(method, path, undefined, postsOnly)
        expect(refused.status).toBe(403)
        expect(errorOf(refused)).toMatchObject({ code: "insufficient_scope", message: expect.stringContaining("webhooks:read") })
      }
      for (const [method, path, body] of writes) {
        const refused = await send(method, path, body, reader)
        expect(refused.status, `${method} ${path} with webhooks:read`).toBe(403)
        expect(errorOf(refused)).toMatchObject({ code: "insufficient_scope", message: expect.stringContaining("webhooks:write") })
      }
      expect((await send("GET", `/v1/webhooks/${endpoint.id}`, undefined, reader)).body.active).toBe(true)
    })
  })
})
