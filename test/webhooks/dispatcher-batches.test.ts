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
  CredentialsCipher,
  defaultSettings,
  Dispatcher,
  EngineConfig,
  Ids,
  type OutboxEvent,
  Store,
  Webhooks,
  WebhookSettings,
  WebhookStore,
  Workspaces
} from "@postwire/core"
import { NodeResolver, NodeWebhookTransport } from "@postwire/server"
import { PgliteClient, SqlStore, SqlWebhookStore } from "@postwire/store-sql"
import { eventually } from "../support/Eventually.ts"
import { anEmbeddedTemplate } from "../support/TestServer.ts"
import { Registry } from "@postwire/platforms"

/** Each embedded database here starts as a copy of a new one (no `initdb` of its own). */
const template = await anEmbeddedTemplate()

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
  CredentialsCipher.layer.pipe(
    Layer.provideMerge(EngineConfig.layer(defaultSettings("http://127.0.0.1", "test-secret-of-at-least-thirty-two-bytes", Registry.catalog())))
  ),
  WebhookSettings.layer({ allowLoopback: true }),
  NodeWebhookTransport.layer,
  NodeResolver.layer
).pipe(Layer.provideMerge(SqlWebhookStore.layer.pipe(Layer.provideMerge(SqlStore.layer), Layer.provide(PgliteClient.layer({ template })))))

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

  it.live("keeps delivering to other endpoints while one endpoint holds its answer", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const ids = yield* Ids
      const workspace = yield* Workspaces.createWorkspace({ name: "acme" })
      const key = yield* Workspaces.createKey(workspace.id, { kind: "test", scopes: ["webhooks:write"] })
      const caller = { workspaceId: workspace.id, keyId: key.id, kind: "test" as const }
      // The slow receiver keeps every request open until the test lets it answer.
      const slow = yield* Effect.acquireRelease(
        Effect.promise(async () => {
          const state = { open: 0, closedEarly: 0, release: () => {} }
          const released = new Promise<void>((resolve) => (state.release = resolve))
          const server = createServer((req, res) => {
            state.open++
            req.resume()
            res.on("close", () => {
              if (!res.writableEnded) state.closedEarly++
            })
            void released.then(() => res.writeHead(204).end())
          })
          await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
          return { server, state, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` }
        }),
        ({ server, state }) =>
          Effect.promise(() => {
            state.release()
            server.closeAllConnections()
            return new Promise<void>((resolve) => server.close(() => resolve()))
          })
      )
      const fast = yield* aReceiver(new Set())
      yield* Webhooks.createEndpoint(caller, { url: slow.url, events: ["post.failed"] })
      yield* Webhooks.createEndpoint(caller, { url: fast.url, events: ["post.published"] })
      const emit = (type: string, n: number) =>
        Effect.gen(function* () {
          const events: Array<OutboxEvent> = []
          for (let i = 0; i < n; i++) {
            events.push({ id: yield* ids.make("event"), workspaceId: workspace.id, type, createdAt: Date.now(), livemode: false, data: { i } })
          }
          yield* store.updateAccountStatus(workspace.id, Id.unchecked("account", "acc_none"), "connected", events)
        })
      const until = (done: () => boolean, what: string) => Effect.promise(() => eventually(done, what, { intervalMs: 20 }))

      yield* Effect.forkScoped(Dispatcher.run({ owner: "pipeline", concurrency: 4, pollInterval: "50 millis" }))
      yield* emit("post.failed", 1)
      yield* until(() => slow.state.open === 1, "the slow endpoint's request")
      // Events for the other endpoint, after the slow attempt began: they go out while it waits.
      yield* emit("post.published", 10)
      yield* until(() => fast.received.length === 10, "the other endpoint's deliveries")
      assert.strictEqual(slow.state.closedEarly, 0, "the slow attempt was still waiting for its answer")
      assert.strictEqual(slow.state.open, 1)
    }).pipe(Effect.scoped, Effect.provide(Engine))
  )
})
