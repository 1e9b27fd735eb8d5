/**
 * The SDK's delivery log, redelivery, events, updates and rotation against the real server,
 * with Promises and with Effect, on both databases.
 */
import { Effect, Stream } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Postwire, PostwireApiError, PostwireClient } from "@postwire/client"
import { verify } from "@postwire/webhooks"
import { anotherWorkspace } from "../support/Builders.ts"
import { eventually } from "../support/Eventually.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"
import { aReceiver, type Receiver } from "../webhooks/Receiver.ts"

describe.each(backends())("the SDK's webhook log and events against the real server on %s", (backend) => {
  let server: TestServer
  let sink: Receiver
  let workspace: Awaited<ReturnType<typeof anotherWorkspace>>
  let client: Postwire
  const connect = (platform = "pages") =>
    server.admin<{ id: string }>(`/workspaces/${workspace.workspaceId}/accounts`, {
      profile_id: workspace.profileId,
      platform,
      sandbox: true
    })

  beforeAll(async () => {
    server = await startServer(backend, { POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS: "1" })
    sink = await aReceiver()
    workspace = await anotherWorkspace(server)
    client = new Postwire({ apiKey: workspace.key, baseUrl: server.baseUrl })
  })
  afterAll(async () => {
    await sink?.close()
    await server?.stop()
  })

  it("with Promises: lists the log, redelivers, reads the events, updates and rotates", async () => {
    const endpoint = await client.webhooks.create({ url: sink.url, events: ["account.connected"] })
    sink.secret = endpoint.secret
    sink.mode = 500
    const accounts = [await connect(), await connect("textpost")]
    await sink.waitUntil(() => sink.raw.length === 2, "two failed deliveries")

    const deliveries = await eventually(
      async () => {
        const all = []
        for await (const delivery of client.webhooks.deliveries.list(endpoint.id, { limit: 1 })) all.push(delivery)
        return all
      },
      (all) => all.length === 2 && all.every((delivery) => delivery.attempt_count === 1),
      "both attempts in the log"
    )
    expect(deliveries.map((delivery) => delivery.status)).toEqual(["pending", "pending"])
    const detail = await client.webhooks.deliveries.get(endpoint.id, deliveries[0]!.id)
    expect(detail.attempts[0]).toMatchObject({ status_code: 500, error: { code: "webhook_delivery_failed" } })

    sink.mode = 204
    const redelivered = await client.webhooks.deliveries.redeliver(endpoint.id, deliveries[0]!.id)
    expect(redelivered).toMatchObject({ status: "delivered", attempt_count: 2 })
    expect(sink.events.map((event) => event.id)).toEqual([deliveries[0]!.event_id])

    const events = []
    for await (const event of client.events.list({ type: ["account.connected", "account.disconnected"], limit: 1 })) {
      events.push(event)
    }
    const ids = accounts.map((account) => account.id)
    expect(events.filter((event) => ids.includes(event.data.account_id as string))).toHaveLength(2)
    const delivered = sink.raw.find((raw) => raw.eventId === deliveries[0]!.event_id)!
    expect(await client.events.get(deliveries[0]!.event_id)).toEqual(JSON.parse(delivered.body))

    const refused = await client.webhooks.update(endpoint.id, { url: "https://192.168.0.10/hook" }).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(PostwireApiError)
    expect(refused).toMatchObject({ code: "invalid_url", field: "url", status: 400 })
    const paused = await client.webhooks.update(endpoint.id, { active: false })
    expect(paused).toMatchObject({ active: false, disabled_reason: "disabled_by_request" })
    expect(await client.webhooks.update(endpoint.id, { active: true })).toMatchObject({ active: true })

    const rotated = await client.webhooks.rotateSecret(endpoint.id)
    expect(rotated.secret).not.toBe(endpoint.secret)
    expect(rotated.previous_secret_expires_at).not.toBeNull()
    expect((await client.webhooks.get(endpoint.id)).previous_secret_expires_at).toBe(rotated.previous_secret_expires_at)
    const retired = await client.webhooks.rotateSecret(endpoint.id, { expires_in_seconds: 0 })
    expect(retired.previous_secret_expires_at).toBeNull()
    sink.secret = retired.secret
    await connect()
    await sink.waitUntil(() => sink.events.length === 2, "a delivery signed with the newest secret")
    await expect(verify(sink.raw.at(-1)!.body, sink.raw.at(-1)!.signature, rotated.secret)).rejects.toThrow()
  })

  it("with Effect: streams the log and the events, and redelivers with an idempotency key", async () => {
    const sink = await aReceiver()
    const program = Effect.gen(function* () {
      const postwire = yield* PostwireClient
      const endpoint = yield* postwire.webhooks.create({ url: sink.url, events: ["account.disconnected", "account.connected"] })
      sink.secret = endpoint.secret
      sink.mode = 503
      const account = yield* Effect.promise(() => connect())
      yield* Effect.promise(() => sink.waitUntil(() => sink.raw.some((raw) => raw.body.includes(account.id)), "the failed delivery"))
      const [delivery] = yield* Effect.promise(() =>
        eventually(
          () => Effect.runPromise(Stream.runCollect(postwire.webhooks.deliveries.listAll(endpoint.id)).pipe(Effect.provide(layer))),
          (all) => all.length === 1 && all[0]!.attempt_count === 1,
          "the attempt in the log"
        )
      )
      sink.mode = 204
      const first = yield* postwire.webhooks.deliveries.redeliver(endpoint.id, delivery!.id, { idempotencyKey: "effect-catch-up" })
      const again = yield* postwire.webhooks.deliveries.redeliver(endpoint.id, delivery!.id, { idempotencyKey: "effect-catch-up" })
      const events = yield* Stream.runCollect(postwire.events.listAll({ account_id: account.id }))
      const missing = yield* postwire.events.get("evt_0000000000000000000000000").pipe(Effect.flip)
      const rotated = yield* postwire.webhooks.rotateSecret(endpoint.id, { expires_in_seconds: 60 })
      return { delivery: delivery!, first, again, events, missing, rotated }
    })
    const layer = PostwireClient.layer({ apiKey: workspace.key, baseUrl: server.baseUrl })

    const result = await Effect.runPromise(program.pipe(Effect.provide(layer), Effect.ensuring(Effect.promise(() => sink.close()))))

    expect(result.first).toMatchObject({ status: "delivered", attempt_count: 2 })
    expect(result.again).toEqual(result.first)
    expect(sink.raw.filter((raw) => raw.eventId === result.delivery.event_id)).toHaveLength(2)
    expect(result.events.map((event) => event.id)).toEqual([result.delivery.event_id])
    expect(result.missing).toMatchObject({ _tag: "PostwireApiError", code: "not_found", status: 404 })
    expect(Date.parse(result.rotated.previous_secret_expires_at!) - Date.now()).toBeLessThanOrEqual(60_000)
  })
})
