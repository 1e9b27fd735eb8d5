/**
 * The Node side of webhook delivery, against real sockets on loopback: the keep-alive
 * transport reuses a connection only for the origin, checked addresses and rules it was opened
 * under, never connects anywhere but the checked addresses, and the Node resolver answers from
 * the operating system.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { type DeliveryRequest, UrlSafety, WebhookTransport } from "@postwire/core"
import { NodeResolver, NodeWebhookTransport } from "@postwire/server"

/** A receiver on 127.0.0.1 answering 204, counting the connections it accepted and the requests it got. */
const aCountingReceiver = () =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const peers: Array<Socket> = []
      let requests = 0
      const server: Server = createServer((req, res) => {
        req.resume()
        req.on("end", () => {
          requests++
          res.writeHead(204).end()
        })
      })
      server.on("connection", (socket) => peers.push(socket))
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      const { port } = server.address() as AddressInfo
      return { server, port, connections: () => peers.length, requests: () => requests }
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

const aDelivery = (url: string, overrides: Partial<DeliveryRequest> = {}): DeliveryRequest => ({
  url: new URL(url),
  addresses: ["127.0.0.1"],
  headers: { "content-type": "application/json" },
  body: "{}",
  policy: "loopback-allowed",
  ...overrides
})

describe("NodeWebhookTransport", () => {
  it.live("sends one delivery after another over one kept connection", () =>
    Effect.gen(function* () {
      const receiver = yield* aCountingReceiver()
      const transport = yield* NodeWebhookTransport.make()
      for (let i = 0; i < 5; i++) {
        const answer = yield* transport.send(aDelivery(`http://127.0.0.1:${receiver.port}/hooks`))
        assert.strictEqual(answer.statusCode, 204)
      }
      assert.deepStrictEqual([receiver.requests(), receiver.connections()], [5, 1])
    }).pipe(Effect.scoped)
  )

  it.live("opens a connection per delivery with keepAlive off", () =>
    Effect.gen(function* () {
      const receiver = yield* aCountingReceiver()
      const transport = yield* NodeWebhookTransport.make({ keepAlive: false })
      for (let i = 0; i < 3; i++) yield* transport.send(aDelivery(`http://127.0.0.1:${receiver.port}/hooks`))
      assert.deepStrictEqual([receiver.requests(), receiver.connections()], [3, 3])
    }).pipe(Effect.scoped)
  )

  it.live("never reuses a connection for another host name, address set or set of rules", () =>
    Effect.gen(function* () {
      const receiver = yield* aCountingReceiver()
      const transport = yield* NodeWebhookTransport.make()
      const port = receiver.port
      yield* transport.send(aDelivery(`http://127.0.0.1:${port}/hooks`))
      yield* transport.send(aDelivery(`http://localhost:${port}/hooks`))
      assert.strictEqual(receiver.connections(), 2, "another host name: another connection")
      yield* transport.send(aDelivery(`http://localhost:${port}/hooks`, { addresses: ["127.0.0.1", "::1"] }))
      assert.strictEqual(receiver.connections(), 3, "the name checked to other addresses: another connection")
      yield* transport.send(aDelivery(`http://localhost:${port}/hooks`, { policy: "public-only" }))
      assert.strictEqual(receiver.connections(), 4, "checked under other rules: another connection")
      yield* transport.send(aDelivery(`http://127.0.0.1:${port}/other-path`))
      yield* transport.send(aDelivery(`http://localhost:${port}/hooks`))
      assert.strictEqual(receiver.connections(), 4, "the same origin, addresses and rules reuse theirs")
    }).pipe(Effect.scoped)
  )

  it.live("connects only to the checked addresses, whatever the name resolves to", () =>
    Effect.gen(function* () {
      const receiver = yield* aCountingReceiver()
      const transport = yield* NodeWebhookTransport.make()
      // `localhost` resolves to 127.0.0.1 here, but the check approved only 127.0.0.2, where nothing listens.
      const error = yield* Effect.flip(
        transport.send(aDelivery(`http://localhost:${receiver.port}/hooks`, { addresses: ["127.0.0.2"] }))
      )
      assert.strictEqual(error._tag, "TransportError")
      assert.strictEqual(error.detail, "ECONNREFUSED")
      assert.strictEqual(receiver.requests(), 0)
    }).pipe(Effect.scoped)
  )

  it.live("keeps at most maxOrigins pools, closing the idle connections of the least recently used", () =>
    Effect.gen(function* () {
      const receiver = yield* aCountingReceiver()
      const transport = yield* NodeWebhookTransport.make({ maxOrigins: 1 })
      const port = receiver.port
      yield* transport.send(aDelivery(`http://127.0.0.1:${port}/hooks`))
      yield* transport.send(aDelivery(`http://localhost:${port}/hooks`))
      yield* transport.send(aDelivery(`http://127.0.0.1:${port}/hooks`))
      assert.strictEqual(receiver.connections(), 3, "the evicted pool's connection is not reused")
    }).pipe(Effect.scoped)
  )

  it.live("is the service the server provides", () =>
    Effect.gen(function* () {
      const receiver = yield* aCountingReceiver()
      const transport = yield* WebhookTransport
      const answer = yield* transport.send(aDelivery(`http://127.0.0.1:${receiver.port}/hooks`))
      assert.strictEqual(answer.statusCode, 204)
    }).pipe(Effect.provide(NodeWebhookTransport.layer), Effect.scoped)
  )
})

describe("NodeResolver", () => {
  it.live("resolves with the operating system, /etc/hosts included", () =>
    Effect.gen(function* () {
      const addresses = yield* UrlSafety.Resolver.use((resolver) => resolver.resolve("localhost"))
      assert.isAbove(addresses.length, 0)
      for (const address of addresses) assert.strictEqual(UrlSafety.classifyAddress(address), "loopback")
      const missing = yield* Effect.flip(UrlSafety.Resolver.use((resolver) => resolver.resolve("no-such-host.invalid")))
      assert.strictEqual(missing._tag, "ResolveError")
    }).pipe(Effect.provide(NodeResolver.layer))
  )
})
