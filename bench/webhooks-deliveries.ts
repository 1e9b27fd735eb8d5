/**
 * Webhook deliveries per second to a loopback receiver, through the real dispatcher as a server
 * runs it (`Dispatcher.run`, the pipeline: fan-out, claims, signing, the URL check, the Node
 * transport, recording each outcome), on the in-memory store, on the embedded database and, when
 * `DATABASE_URL` is set, on PostgreSQL.
 *
 * Two baselines are measured in the same run against the same receiver, with the same body and
 * concurrency: bare node:http POSTs with one connection each, and bare node:http POSTs through a
 * keep-alive agent (connections reused), the ceiling the transport itself allows. Every figure
 * is printed as a ratio to both. Statements per delivery are counted where they are issued
 * (the Execute messages PGlite is sent; PostgreSQL's frontend messages through the wire relay of
 * posts-wire.ts), which does not depend on the machine's load.
 */
import { execFileSync } from "node:child_process"
import { Agent, createServer, request } from "node:http"
import type { AddressInfo } from "node:net"
import { PGlite } from "@electric-sql/pglite"
import { Effect, Fiber, Layer } from "effect"
import {
  CredentialsCipher,
  defaultSettings,
  Dispatcher,
  EngineConfig,
  Ids,
  MemoryStore,
  MemoryWebhookStore,
  type OutboxEvent,
  Store,
  Webhooks,
  WebhookSettings,
  type WebhookStore,
  Workspaces
} from "@postwire/core"
import { NodeResolver, NodeWebhookTransport } from "@postwire/server"
import { layerPostgres, PgliteClient, SqlStore, SqlWebhookStore } from "@postwire/store-sql"
import { relay } from "./posts-wire.ts"
import { table } from "./support.ts"
import { Ids as Id } from "@postwire/domain"
import { Registry } from "@postwire/platforms"

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
  let waiting: { readonly count: number; readonly resolve: () => void } | undefined
  const server = createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      received++
      res.writeHead(204).end()
      if (waiting !== undefined && received >= waiting.count) waiting.resolve()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received: () => received,
    /** Resolves once `count` requests have arrived in all. */
    reached: (count: number) =>
      new Promise<void>((resolve) => {
        if (received >= count) return resolve()
        waiting = { count, resolve }
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/** One POST of the body, the answer read to its end: a fresh connection each, or through `agent`. */
const post = (port: number, agent: Agent | undefined) =>
  new Promise<void>((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: "/hooks",
        method: "POST",
        agent: agent ?? false,
        headers: { "content-type": "application/json", ...(agent === undefined ? { connection: "close" } : {}) }
      },
      (res) => {
        res.resume()
        res.on("end", () => resolve())
      }
    )
    req.on("error", reject)
    req.end(body)
  })

const baseline = async (port: number, agent: Agent | undefined): Promise<number> => {
  let next = 0
  const start = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < deliveries) await post(port, agent)
    })
  )
  return (deliveries * 1000) / (performance.now() - start)
}

const engine = (stores: Layer.Layer<Store | WebhookStore, unknown>, transport: Layer.Layer<import("@postwire/core").WebhookTransport>) =>
  Layer.mergeAll(
    Ids.layer,
    CredentialsCipher.layer.pipe(
      Layer.provideMerge(EngineConfig.layer(defaultSettings("http://127.0.0.1", "bench-secret-of-at-least-thirty-two-bytes", Registry.catalog())))
    ),
    WebhookSettings.layer({ allowLoopback: true }),
    transport,
    NodeResolver.layer
  ).pipe(Layer.provideMerge(stores))

/**
 * Registers an endpoint, writes `deliveries` events, and times the running dispatcher from its
 * start until all arrived (as a server's worker runs it: its first step finds the events at
 * once). `startCounting` is called when the timed part starts; returns deliveries per second.
 */
const throughDispatcher = (receiver: Awaited<ReturnType<typeof aReceiver>>, startCounting: () => void) =>
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
    const arrived = receiver.reached(receiver.received() + deliveries)
    startCounting()
    const start = performance.now()
    const dispatcher = yield* Effect.forkScoped(Dispatcher.run({ owner: "bench", batchSize: 100, concurrency }))
    yield* Effect.promise(() => arrived)
    const rate = (deliveries * 1000) / (performance.now() - start)
    yield* Fiber.interrupt(dispatcher)
    return rate
  })

const measure = <E>(
  receiver: Awaited<ReturnType<typeof aReceiver>>,
  stores: Layer.Layer<Store | WebhookStore, E>,
  transport: Layer.Layer<import("@postwire/core").WebhookTransport> = NodeWebhookTransport.layer,
  startCounting: () => void = () => {}
) => Effect.runPromise(Effect.scoped(throughDispatcher(receiver, startCounting).pipe(Effect.provide(engine(stores, transport)))))

// PGlite's statements, counted where the project's client sends them: each Execute message of
// its prepared statements (`execProtocol`), and each `query` (statements it does not prepare).
let pgliteStatements = 0
const pgliteQuery = PGlite.prototype.query
PGlite.prototype.query = function (this: PGlite, ...args: Parameters<PGlite["query"]>) {
  pgliteStatements++
  return pgliteQuery.apply(this, args)
} as PGlite["query"]
const pgliteExecProtocol = PGlite.prototype.execProtocol
PGlite.prototype.execProtocol = function (this: PGlite, message: Uint8Array, ...rest: Array<unknown>) {
  // Frontend messages: a type byte, then a 4-byte big-endian length that counts itself.
  for (let at = 0; at + 5 <= message.length; at += 1 + new DataView(message.buffer, message.byteOffset + at + 1, 4).getUint32(0)) {
    if (message[at] === 0x45) pgliteStatements++
  }
  return (pgliteExecProtocol as (...args: Array<unknown>) => ReturnType<PGlite["execProtocol"]>).call(this, message, ...rest)
} as PGlite["execProtocol"]

const memoryStores = () => MemoryWebhookStore.layer.pipe(Layer.provideMerge(MemoryStore.layer))
const embeddedStores = () =>
  SqlWebhookStore.layer.pipe(Layer.provideMerge(SqlStore.layer), Layer.provide(PgliteClient.layer()))

/** Prints deliveries per second and statements per delivery, each beside both baselines. */
export async function run(): Promise<void> {
  const receiver = await aReceiver()
  const keepAlive = new Agent({ keepAlive: true, maxSockets: concurrency })
  const rows: Array<{ path: string; rate: number; statements?: number }> = []
  let oneConnection = 0
  let reused = 0
  try {
    // Warm both paths, then measure the baselines interleaved with the runs.
    await baseline(receiver.port, undefined)
    await baseline(receiver.port, keepAlive)
    oneConnection = await baseline(receiver.port, undefined)
    reused = await baseline(receiver.port, keepAlive)
    rows.push({ path: "dispatcher, in-memory store, one connection each", rate: await measure(receiver, memoryStores(), NodeWebhookTransport.layerWith({ keepAlive: false })) })
    rows.push({ path: "dispatcher, in-memory store", rate: await measure(receiver, memoryStores()) })
    let counted = 0
    const embedded = await measure(receiver, embeddedStores(), NodeWebhookTransport.layer, () => {
      counted = pgliteStatements
    })
    rows.push({ path: "dispatcher, embedded database", rate: embedded, statements: (pgliteStatements - counted) / deliveries })
    const url = process.env.DATABASE_URL
    if (url) {
      const schema = `bench_dispatcher_${process.pid}`
      execFileSync("psql", [url, "-qc", `CREATE SCHEMA ${schema}`])
      const wire = await relay(new URL(url))
      try {
        const postgres = SqlWebhookStore.layer.pipe(
          Layer.provideMerge(SqlStore.layer),
          Layer.provide(layerPostgres(wire.url, { searchPath: schema }))
        )
        const rate = await measure(receiver, postgres, NodeWebhookTransport.layer, () => wire.reset())
        rows.push({ path: "dispatcher, PostgreSQL", rate, statements: wire.counts.statements / deliveries })
      } finally {
        await wire.close()
        // Quietly: PostgreSQL names every object a cascade drops.
        execFileSync("psql", [url, "-qc", `DROP SCHEMA IF EXISTS ${schema} CASCADE`], {
          env: { ...process.env, PGOPTIONS: "-c client_min_messages=warning" }
        })
      }
    }
    // The baselines again, after the runs: the ratios use the mean of both measures.
    oneConnection = (oneConnection + (await baseline(receiver.port, undefined))) / 2
    reused = (reused + (await baseline(receiver.port, keepAlive))) / 2
  } finally {
    keepAlive.destroy()
    await receiver.close()
  }
  console.log(`${deliveries} deliveries to a loopback receiver, ${concurrency} at a time`)
  table([
    { path: "bare node:http POST, one connection each (baseline 1)", "deliveries/s": oneConnection, "x baseline 1": 1, "x baseline 2": oneConnection / reused, "statements/delivery": "" },
    { path: "bare node:http POST, keep-alive agent (baseline 2)", "deliveries/s": reused, "x baseline 1": reused / oneConnection, "x baseline 2": 1, "statements/delivery": "" },
    ...rows.map((row) => ({
      path: row.path,
      "deliveries/s": row.rate,
      "x baseline 1": row.rate / oneConnection,
      "x baseline 2": row.rate / reused,
      "statements/delivery": row.statements ?? ""
    }))
  ])
}
