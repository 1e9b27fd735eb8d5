/**
 * The dispatcher on the embedded database with the Node transport, against a real receiver on
 * loopback: a batch of deliveries goes over a few kept connections (never more than the
 * concurrency), and every outcome of the batch, successes and failures, is recorded with its
 * attempt in the log.
 */
import { Ids as Id } from "@postwire/domain"
import { createServer } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import {
  Dispatcher,
  defaultSettings,
  EngineConfig,
  Ids,
  type OutboxEvent,
  Store,
  WebhookSettings,
  WebhookStore,
  Webhooks,
  Workspaces
} from "@postwire/core"
import { NodeResolver, NodeWebhookTransport } from "@postwire/server"
import { PgliteClient, SqlStore, SqlWebhookStore } from "@postwire/store-sql"

const concurrency = 8
const count = 40

/** A receiver counting connections, answering 500 to the events in `failing` and 204 to the rest. */
const aReceiver = (failing: Set<string>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const connections: Array<Socket> = []
      const received: Array<string> = []
      const server = createServer((req, res) => {
        const id = String(req.headers["service-event-id"] ?? "")
        req.resume()
        req.on("end", () => {
          received.push(id)
          res.writeHead(failing.has(id) ? 500 : 204).end()
        })
      })
      server.on("connection", (socket) => connections.push(socket))
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      const { port } = server.address() as AddressInfo
      return { server, url: `http://127.0.0.1:${port}/hooks`, connections: () => connections.length, received }
    }),
    ({ server }) =>
      Effect.promise(
        () =>
          new Promise<void>((resolve) => {
            server.closeAllConnections()
            server.close(() => resolve())
          })
      )
  )

const Engine = Layer.mergeAll(
  Ids.layer,
  EngineConfig.layer(defaultSettings("http://127.0.0.1", "test-secret-of-at-least-thirty-two-bytes")),
  WebhookSettings.layer({ allowLoopback: true }),
  NodeWebhookTransport.layer,
  NodeResolver.layer
).pipe(Layer.provideMerge(SqlWebhookStore.layer.pipe(Layer.provideMerge(SqlStore.layer), Layer.provide(PgliteClient.layer()))))

describe("Dispatcher batches on the embedded database", () => {
  it.live("delivers a batch over at most `concurrency` kept connections and records every outcome in the log", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const webhooks = yield* WebhookStore
      const ids = yield* Ids
      const workspace = yield* Workspaces.createWorkspace({ name: "acme" })
      const key = yield* Workspaces.createKey(workspace.id, { kind: "test", scopes: ["webhooks:write"] })
      const caller = { workspaceId: workspace.id, keyId: key.id, kind: "test" as const }
      const eventIds: Array<Id.EventId> = []
      for (let i = 0; i < count; i++) eventIds.push(yield* ids.make("event"))
      const failing = new Set(eventIds.slice(0, 5))
      const receiver = yield* aReceiver(failing)
      const created = yield* Webhooks.createEndpoint(caller, { url: receiver.url, events: ["post.published"] })
      const endpoint = { ...created, id: Id.unchecked("webhook", created.id) }
      // Created after the endpoint was registered, so it receives them.
      const events: Array<OutboxEvent> = eventIds.map((id, i) => ({
        id,
        workspaceId: workspace.id,
        type: "post.published",
        createdAt: Date.now() + 1,
        livemode: false,
        data: { post_id: `post_${i}` }
      }))
      yield* store.updateAccountStatus(workspace.id, Id.unchecked("account", "acc_none"), "connected", events)

      while (receiver.received.length < count) {
        yield* Dispatcher.dispatchOnce({ owner: "batches", batchSize: 100, concurrency })
      }

      assert.deepStrictEqual([...receiver.received].sort(), events.map((event) => event.id).sort())
      assert.isAtMost(receiver.connections(), concurrency, "connections are kept and reused")
      const deliveries = yield* webhooks.listDeliveries(workspace.id, endpoint.id)
      assert.strictEqual(deliveries.length, count)
      for (const delivery of deliveries) {
        const fails = failing.has(delivery.eventId)
        assert.deepStrictEqual(
          [delivery.status, delivery.attempts, delivery.lastStatusCode, delivery.leaseOwner],
          [fails ? "pending" : "delivered", 1, fails ? 500 : 204, null]
        )
        const detail = Option.getOrThrow(yield* webhooks.getDelivery(workspace.id, endpoint.id, delivery.id))
        assert.deepStrictEqual(
          detail.attempts.map((attempt) => [attempt.number, attempt.statusCode]),
          [[1, fails ? 500 : 204]]
        )
      }
      const stored = Option.getOrThrow(yield* webhooks.getEndpoint(workspace.id, endpoint.id))
      assert.isNotNull(stored.lastSuccessAt)
      assert.isTrue(stored.active)
    }).pipe(Effect.scoped, Effect.provide(Engine))
  )
})
