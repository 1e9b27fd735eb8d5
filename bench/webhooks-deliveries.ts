/**
 * Webhook deliveries per second to a loopback receiver, through the real dispatcher (fan-out,
 * claims, signing, the URL check, one connection per delivery, recording each outcome), on the
 * in-memory store and on the embedded database. The baseline, measured in the same run, is bare
 * node:http POSTs of the same body to the same receiver with the same concurrency: the ceiling
 * the transport itself allows.
 */
import { request } from "node:http"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Layer } from "effect"
import {
  Dispatcher,
  defaultSettings,
  EngineConfig,
  Ids,
  MemoryStore,
  MemoryWebhookStore,
  type OutboxEvent,
  Resolver,
  Store,
  type WebhookStore,
  WebhookSettings,
  WebhookTransport,
  Webhooks,
  Workspaces
} from "@postwire/core"
import { PgliteClient, SqlStore, SqlWebhookStore } from "@postwire/store-sql"
import { table } from "./support.ts"
import { Ids as Id } from "@postwire/domain"

const deliveries = 2_000
const concurrency = 16

const body = JSON.stringify({
  id: "evt_01JD8XK2M3N4P5Q6R7S8T9V0W1",
  type: "post.published",
  created_at: "2026-11-22T01:02:03.456Z",
  livemode: false,
  data: { post_id: "post_01JD8XK2M3N4P5Q6R7S8T9V0W2", platform: "photo", permalink: "https://example.com/p/1" }
})

/** A receiver answering 204 to everything, counting what it got. */
const aReceiver = async () => {
  let received = 0
  const server = createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      received++
      res.writeHead(204).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received: () => received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/** One POST the way the transport sends it: a fresh connection, the body, the answer's status. */
const post = (port: number) =>
  new Promise<void>((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, path: "/hooks", method: "POST", agent: false, headers: { "content-type": "application/json", connection: "close" } },
      (res) => {
        res.resume()
        res.on("end", () => resolve())
      }
    )
    req.on("error", reject)
    req.end(body)
  })

const baseline = async (port: number): Promise<number> => {
  let next = 0
  const start = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < deliveries) await post(port)
    })
  )
  return (deliveries * 1000) / (performance.now() - start)
}

const engine = (stores: Layer.Layer<Store | WebhookStore, unknown>) =>
  Layer.mergeAll(
    Ids.layer,
    EngineConfig.layer(defaultSettings("http://127.0.0.1", "bench-secret-of-at-least-thirty-two-bytes")),
    WebhookSettings.layer({ allowLoopback: true }),
    WebhookTransport.layer,
    Resolver.layerNode
  ).pipe(Layer.provideMerge(stores))

/** Registers an endpoint, writes `deliveries` events, and times the dispatcher until all arrived. */
const throughDispatcher = (receiver: Awaited<ReturnType<typeof aReceiver>>) =>
  Effect.gen(function* () {
    const store = yield* Store
    const ids = yield* Ids
    const workspace = yield* Workspaces.createWorkspace({ name: "bench" })
    const key = yield* Workspaces.createKey(workspace.id, { kind: "test", scopes: ["webhooks:write"] })
    const caller = { workspaceId: workspace.id, keyId: key.id, kind: "test" as const }
    yield* Webhooks.createEndpoint(caller, { url: receiver.url, events: ["post.published"] })
    const at = Date.now()
    for (let written = 0; written < deliveries; written += 100) {
      const events: Array<OutboxEvent> = []
      for (let i = 0; i < 100; i++) {
        events.push({
          id: yield* ids.make("event"),
          workspaceId: workspace.id,
          type: "post.published",
          createdAt: at,
          livemode: false,
          data: JSON.parse(body).data
        })
      }
      yield* store.updateAccountStatus(workspace.id, Id.unchecked("account", "acc_none"), "connected", events)
    }
    const before = receiver.received()
    const start = performance.now()
    while (receiver.received() - before < deliveries) {
      yield* Dispatcher.dispatchOnce({ owner: "bench", batchSize: 100, concurrency })
    }
    return (deliveries * 1000) / (performance.now() - start)
  })

/** Prints deliveries per second: bare HTTP, the dispatcher in memory, and on the embedded database. */
export async function run(): Promise<void> {
  const receiver = await aReceiver()
  try {
    await baseline(receiver.port)
    const bare = await baseline(receiver.port)
    const memory = await Effect.runPromise(
      throughDispatcher(receiver).pipe(
        Effect.provide(engine(MemoryWebhookStore.layer.pipe(Layer.provideMerge(MemoryStore.layer))))
      )
    )
    const embedded = await Effect.runPromise(
      throughDispatcher(receiver).pipe(
        Effect.provide(
          engine(SqlWebhookStore.layer.pipe(Layer.provideMerge(SqlStore.layer), Layer.provide(PgliteClient.layer())))
        )
      )
    )
    console.log(`${deliveries} deliveries to a loopback receiver, ${concurrency} at a time, one connection each`)
    table([
      { path: "bare node:http POST (baseline)", "deliveries/s": bare, "x baseline": 1 },
      { path: "dispatcher, in-memory store", "deliveries/s": memory, "x baseline": memory / bare },
      { path: "dispatcher, embedded database", "deliveries/s": embedded, "x baseline": embedded / bare }
    ])
  } finally {
    await receiver.close()
  }
}
