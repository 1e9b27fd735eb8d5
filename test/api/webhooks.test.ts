import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aKeyWithScopes, anImage, anotherWorkspace, aPost } from "../support/Builders.ts"
import { call, errorOf } from "../support/Http.ts"
import { newestFirst } from "../support/Listing.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"
import { aReceiver, type Receiver, subjectOf } from "../webhooks/Receiver.ts"

const loopbackAllowed = { POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS: "1" }

/** A registration request for `url` with the given event types. */
const anEndpoint = (url: string, events: ReadonlyArray<string> = ["comment.created"]) => ({ url, events })

describe.each(backends())("webhooks API on %s", (backend) => {
  let server: TestServer
  let receiver: Receiver
  const send = (method: string, path: string, body?: unknown, key = server.testKey) =>
    call(server.baseUrl, method, path, { key, ...(body === undefined ? {} : { body }) })
  const register = async (body: unknown, key = server.testKey) => {
    const reply = await send("POST", "/v1/webhooks", body, key)
    if (reply.status !== 201) throw new Error(`register failed: ${reply.status} ${JSON.stringify(reply.body)}`)
    return reply.body as { id: string; secret: string; url: string; events: Array<string>; created_at: string }
  }

  beforeAll(async () => {
    server = await startServer(backend, loopbackAllowed)
    receiver = await aReceiver()
  })
  afterAll(async () => {
    await receiver?.close()
    await server?.stop()
  })

  describe("POST /v1/webhooks", () => {
    it("registers an endpoint and shows its secret this once", async () => {
      const reply = await send("POST", "/v1/webhooks", anEndpoint(receiver.url, ["post.published", "post.failed"]))

      expect(reply.status).toBe(201)
      expect(reply.body).toEqual({
        id: expect.stringMatching(/^wh_[0-9A-Z]{26}$/),
        url: receiver.url,
        events: ["post.published", "post.failed"],
        active: true,
        disabled_reason: null,
        disabled_at: null,
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        previous_secret_expires_at: null,
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/)
      })
      const listed = await send("GET", "/v1/webhooks?limit=100")
      const found = listed.body.data.find((endpoint: { id: string }) => endpoint.id === reply.body.id)
      expect(found).toBeDefined()
      expect(found).not.toHaveProperty("secret")
      expect(JSON.stringify(listed.body)).not.toContain(reply.body.secret)
    })

    it.each([
      ["http on a public host", "http://hooks.example.com/postwire"],
      ["a private address", "https://10.1.2.3/postwire"],
      ["a link-local address", "https://169.254.169.254/latest/meta-data"],
      ["an IPv4-mapped private address", "https://[::ffff:192.168.0.1]/postwire"],
      ["a URL with credentials", "https://user:secret@127.0.0.1/postwire"],
      ["something that is not a URL", "not a url"],
      ["whitespace alone", " \t\n"],
      ["a host name that does not resolve", "https://hooks.does-not-exist.invalid/postwire"]
    ])("refuses %s with 400 invalid_url", async (_, url) => {
      const reply = await send("POST", "/v1/webhooks", anEndpoint(url))

      expect(reply.status).toBe(400)
      expect(errorOf(reply)).toMatchObject({ code: "invalid_url", field: "url", retryable: false })
    })

    it("drops the whitespace around a pasted url, and stores and shows the address alone", async () => {
      const reply = await send("POST", "/v1/webhooks", anEndpoint(`  ${receiver.url}\n`))

      expect(reply.status).toBe(201)
      expect(reply.body.url).toBe(receiver.url)
      const listed = await send("GET", "/v1/webhooks?limit=100")
      expect(listed.body.data.find((endpoint: { id: string }) => endpoint.id === reply.body.id)?.url).toBe(receiver.url)
    })

    it("names a host that does not resolve in the invalid_url message", async () => {
      const reply = await call(server.baseUrl, "POST", "/v1/webhooks", {
        key: server.testKey,
        body: anEndpoint("https://hooks.does-not-exist.invalid/postwire"),
        headers: { "accept-language": "id" }
      })

      expect(errorOf(reply)).toMatchObject({
        code: "invalid_url",
        message: "url harus berupa alamat https publik: hooks.does-not-exist.invalid tidak mengarah ke alamat IP mana pun",
        message_id: "url harus berupa alamat https publik: hooks.does-not-exist.invalid tidak mengarah ke alamat IP mana pun"
      })
    })

    it("names the unknown event type by its position", async () => {
      const reply = await send("POST", "/v1/webhooks", anEndpoint(receiver.url, ["post.published", "post.exploded"]))

      expect(reply.status).toBe(400)
      expect(errorOf(reply)).toMatchObject({ code: "invalid_request", field: "events[1]" })
    })

    it("refuses an empty list of events", async () => {
      const reply = await send("POST", "/v1/webhooks", anEndpoint(receiver.url, []))

      expect(reply.status).toBe(400)
      expect(errorOf(reply)).toMatchObject({ code: "invalid_request", field: "events" })
    })

    it("answers in Indonesian when asked", async () => {
      const reply = await call(server.baseUrl, "POST", "/v1/webhooks", {
        key: server.testKey,
        body: anEndpoint("https://192.168.1.1/"),
        headers: { "accept-language": "id" }
      })

      const error = errorOf(reply)
      expect(error.message).toBe(error.message_id)
      expect(error.message).toContain("https publik")
    })
  })

  describe("GET /v1/webhooks", () => {
    it("pages through the endpoints newest first with a cursor", async () => {
      const other = await anotherWorkspace(server)
      const created: Array<{ id: string; created_at: string }> = []
      for (let i = 0; i < 3; i++) created.push(await register(anEndpoint(`${receiver.url}?n=${i}`), other.key))

      const first = await send("GET", "/v1/webhooks?limit=2", undefined, other.key)
      const second = await send("GET", `/v1/webhooks?limit=2&cursor=${first.body.cursor.next}`, undefined, other.key)

      expect(first.status).toBe(200)
      expect(first.body.cursor).toEqual({ next: expect.any(String), has_more: true })
      expect(second.body.cursor).toEqual({ next: null, has_more: false })
      expect([...first.body.data, ...second.body.data].map((endpoint: { id: string }) => endpoint.id)).toEqual(newestFirst(created))
    })

    it("refuses a tampered cursor", async () => {
      const reply = await send("GET", "/v1/webhooks?cursor=abc.def")

      expect(reply.status).toBe(400)
      expect(errorOf(reply).code).toBe("invalid_cursor")
    })
  })

  describe("DELETE /v1/webhooks/{id}", () => {
    it("removes the endpoint once", async () => {
      const endpoint = await register(anEndpoint(receiver.url))

      const deleted = await send("DELETE", `/v1/webhooks/${endpoint.id}`)
      const again = await send("DELETE", `/v1/webhooks/${endpoint.id}`)
      const listed = await send("GET", "/v1/webhooks?limit=100")

      expect(deleted.status).toBe(200)
      expect(deleted.body).toEqual({ id: endpoint.id, deleted: true })
      expect(again.status).toBe(404)
      expect(errorOf(again).code).toBe("not_found")
      expect(listed.body.data.map((e: { id: string }) => e.id)).not.toContain(endpoint.id)
    })
  })

  describe("workspaces and scopes", () => {
    it("hides an endpoint from another workspace: 404 not_found, and absent from its list", async () => {
      const endpoint = await register(anEndpoint(receiver.url))
      const other = await anotherWorkspace(server)

      const deleted = await send("DELETE", `/v1/webhooks/${endpoint.id}`, undefined, other.key)
      const tested = await send("POST", `/v1/webhooks/${endpoint.id}/test`, undefined, other.key)
      const listed = await send("GET", "/v1/webhooks", undefined, other.key)

      expect([deleted.status, tested.status]).toEqual([404, 404])
      expect([errorOf(deleted).code, errorOf(tested).code]).toEqual(["not_found", "not_found"])
      expect(listed.body.data.map((e: { id: string }) => e.id)).not.toContain(endpoint.id)
      expect((await send("GET", "/v1/webhooks?limit=100")).body.data.map((e: { id: string }) => e.id)).toContain(endpoint.id)
    })

    it("needs the webhooks:write scope on every endpoint", async () => {
      const endpoint = await register(anEndpoint(receiver.url))
      const postsOnly = await aKeyWithScopes(server, ["posts:read", "posts:write"])

      const replies = await Promise.all([
        send("POST", "/v1/webhooks", anEndpoint(receiver.url), postsOnly),
        send("GET", "/v1/webhooks", undefined, postsOnly),
        send("DELETE", `/v1/webhooks/${endpoint.id}`, undefined, postsOnly),
        send("POST", `/v1/webhooks/${endpoint.id}/test`, undefined, postsOnly)
      ])

      for (const reply of replies) {
        expect(reply.status).toBe(403)
        expect(errorOf(reply)).toMatchObject({ code: "insufficient_scope" })
      }
    })
  })

  describe("POST /v1/webhooks/{id}/test", () => {
    it("sends a signed synthetic event of the first subscribed type now", async () => {
      const endpoint = await register(anEndpoint(receiver.url, ["post.published", "post.failed"]))
      receiver.secret = endpoint.secret
      receiver.mode = 204

      const reply = await send("POST", `/v1/webhooks/${endpoint.id}/test`)

      expect(reply.status).toBe(200)
      expect(reply.body).toEqual({
        event_id: expect.stringMatching(/^evt_/),
        type: "post.published",
        delivered: true,
        status_code: 204,
        duration_ms: expect.any(Number)
      })
      const event = receiver.events.find((e) => e.id === reply.body.event_id)
      expect(event).toMatchObject({ type: "post.published", test: true, livemode: false })
      expect(event?.data).toMatchObject({ platform: expect.any(String), permalink: expect.any(String) })
      expect(receiver.rejected).toEqual([])
    })

    it("reports an endpoint that fails, in the shared error shape", async () => {
      const endpoint = await register(anEndpoint(receiver.url, ["post.failed"]))
      receiver.secret = endpoint.secret
      receiver.mode = 503

      const reply = await send("POST", `/v1/webhooks/${endpoint.id}/test`)
      receiver.mode = 204

      expect(reply.status).toBe(200)
      expect(reply.body).toMatchObject({ type: "post.failed", delivered: false, status_code: 503 })
      expect(reply.body.error).toMatchObject({ code: "webhook_delivery_failed", retryable: true })
      expect(reply.body.error.message).toContain("HTTP 503")
    })
  })

  describe("deliveries", () => {
    it("delivers each subscribed event of a post's life and of a new account, signed, once each", async () => {
      const events = ["post.awaiting_approval", "post.scheduled", "post.approved", "account.connected"]
      const sink = await aReceiver()
      try {
        const endpoint = await register(anEndpoint(sink.url, events))
        sink.secret = endpoint.secret
        const image = await anImage(server)

        const account = await server.admin<{ id: string }>(`/workspaces/${server.workspaceId}/accounts`, {
          profile_id: server.profileId,
          platform: "photo",
          sandbox: true,
          handle: "café_ñandú_👋"
        })
        const later = new Date(Date.now() + 3 * 3600_000).toISOString()
        const awaiting = await send("POST", "/v1/posts", aPost(server, [image], { scheduled_at: later }))
        const scheduled = await send("POST", "/v1/posts", aPost(server, [image], { scheduled_at: later, approval: { mode: "none" } }))
        const token = new URL(awaiting.body.approval.url).pathname.split("/").pop()
        const decision = await call(server.baseUrl, "POST", `/v1/approvals/${token}/decision`, { body: { decision: "approve" } })
        expect([awaiting.status, scheduled.status, decision.status]).toEqual([201, 201, 200])

        const expected = [
          ["account.connected", account.id],
          ["post.awaiting_approval", awaiting.body.id],
          ["post.scheduled", scheduled.body.id],
          ["post.approved", awaiting.body.id],
          ["post.scheduled", awaiting.body.id]
        ]
        const received = () =>
          sink.events.map((event) => [event.type, subjectOf(event)])
        await sink.waitUntil(() => received().length >= expected.length, `${expected.length} events`)

        expect(received().sort()).toEqual(expected.sort())
        expect(sink.rejected).toEqual([])
        expect(new Set(sink.events.map((event) => event.id)).size).toBe(expected.length)
        const connected = sink.events.find((event) => event.type === "account.connected")
        expect(connected?.data).toMatchObject({ account_id: account.id, handle: "café_ñandú_👋", platform: "photo" })
        expect(connected?.livemode).toBe(false)
        expect(connected?.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
        expect(sink.events.some((event) => event.test === true)).toBe(false)
        // Accounts connected at the first start, before the endpoint existed, are not sent.
        expect(sink.events.filter((event) => event.type === "account.connected")).toHaveLength(1)
      } finally {
        await sink.close()
      }
    })

    it("sends post.scheduled again, with the new time, when a scheduled post is rescheduled", async () => {
      const sink = await aReceiver()
      try {
        const endpoint = await register(anEndpoint(sink.url, ["post.scheduled"]))
        sink.secret = endpoint.secret
        const image = await anImage(server)
        const first = new Date(Date.now() + 3 * 3600_000).toISOString()
        const second = new Date(Date.now() + 5 * 3600_000).toISOString()
        const created = await send("POST", "/v1/posts", aPost(server, [image], { scheduled_at: first, approval: { mode: "none" } }))
        const moved = await send("PATCH", `/v1/posts/${created.body.id}`, { scheduled_at: second })
        expect([created.status, moved.status]).toEqual([201, 200])

        await sink.waitUntil(() => sink.events.length >= 2, "two post.scheduled events")
        expect(sink.events.map((event) => (event.data as { scheduled_at: string }).scheduled_at).sort()).toEqual([first, second])
        expect(sink.events.every((event) => subjectOf(event) === created.body.id)).toBe(true)
      } finally {
        await sink.close()
      }
    })

    it("stops delivering to a deleted endpoint", async () => {
      const sink = await aReceiver()
      const witness = await aReceiver()
      try {
        const deleted = await register(anEndpoint(sink.url, ["account.connected"]))
        const kept = await register(anEndpoint(witness.url, ["account.connected"]))
        sink.secret = deleted.secret
        witness.secret = kept.secret
        await send("DELETE", `/v1/webhooks/${deleted.id}`)

        await server.admin(`/workspaces/${server.workspaceId}/accounts`, { profile_id: server.profileId, platform: "pages", sandbox: true })
        await witness.waitUntil(() => witness.events.length === 1, "the account.connected event")

        expect(sink.deliveries() + sink.rejected.length).toBe(0)
      } finally {
        await sink.close()
        await witness.close()
      }
    })
  })
})

describe.each(backends())("webhooks API on %s without the loopback setting", (backend) => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer(backend)
  })
  afterAll(() => server?.stop())

  it.each([
    ["http://127.0.0.1:9/hook", "127.0.0.1"],
    ["https://localhost/hook", "localhost"],
    ["https://[::1]/hook", "[::1]"]
  ])("refuses the loopback address %s with 400 invalid_url naming the setting that allows it", async (url, host) => {
    const reply = await call(server.baseUrl, "POST", "/v1/webhooks", { key: server.testKey, body: anEndpoint(url) })

    expect(reply.status).toBe(400)
    expect(errorOf(reply)).toMatchObject({
      code: "invalid_url",
      field: "url",
      message: `The url must be a public https address: ${host} is a loopback address, refused unless the server runs with \`POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS=1\` (for development only)`
    })
  })

  it("names an IPv6 address as it is, in English and in Indonesian", async () => {
    const reply = await call(server.baseUrl, "POST", "/v1/webhooks", { key: server.testKey, body: anEndpoint("https://[::1]/hook") })

    expect(errorOf(reply)).toMatchObject({
      message_id:
        "url harus berupa alamat https publik: [::1] adalah alamat loopback, ditolak kecuali server dijalankan dengan `POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS=1` (hanya untuk pengembangan)"
    })
  })
})
