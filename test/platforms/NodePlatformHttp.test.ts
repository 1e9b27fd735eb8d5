/**
 * The server's node:http sender for platform calls behaves like fetch where an adapter could
 * tell (redirects, encodings, failures), keeps its connections open between calls, and cuts a
 * call off at its timeout.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { gzipSync } from "node:zlib"
import { assert, describe, it } from "@effect/vitest"
import type { PlatformHttp } from "@postwire/platforms"
import { NodePlatformHttp } from "@postwire/server"
import { Effect, Exit, Fiber, type Scope } from "effect"
import { eventually } from "../support/Eventually.ts"

interface Seen {
  readonly method: string
  readonly path: string
  readonly body: string
  readonly authorization: string | undefined
  readonly contentType: string | undefined
}

interface TestServer {
  readonly origin: string
  readonly seen: Array<Seen>
  /** Connections opened, and closed, so far. */
  readonly connections: { opened: number; closed: number }
}

/** A server whose routes answer redirects, encoded bodies, or nothing. */
const aServer = (other?: () => string): Effect.Effect<TestServer, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.callback<{ server: Server; state: TestServer; sockets: Set<Socket> }>((resume) => {
      const seen: Array<Seen> = []
      const connections = { opened: 0, closed: 0 }
      const sockets = new Set<Socket>()
      const handle = (request: IncomingMessage, body: string, response: ServerResponse) => {
        const url = new URL(request.url ?? "/", "http://x")
        seen.push({
          method: request.method ?? "",
          path: url.pathname,
          body,
          authorization: request.headers.authorization,
          contentType: request.headers["content-type"]
        })
        const redirect = /^\/redirect\/(\d+)\/(\d+)$/.exec(url.pathname)
        if (redirect !== null) {
          const left = Number(redirect[2])
          const to = left === 0 ? "/done" : `/redirect/${redirect[1]}/${left - 1}`
          response.writeHead(Number(redirect[1]), { location: to }).end()
          return
        }
        switch (url.pathname) {
          case "/throttled":
            response
              .writeHead(400, {
                "content-type": "application/json",
                "x-business-use-case-usage": JSON.stringify({ "1": [{ type: "instagram", call_count: 100, estimated_time_to_regain_access: 19 }] })
              })
              .end(JSON.stringify({ error: { code: 80002, type: "OAuthException" } }))
            return
          case "/done":
            response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ method: request.method, body }))
            return
          case "/elsewhere":
            response.writeHead(302, { location: `${other?.() ?? ""}/done` }).end()
            return
          case "/ftp":
            response.writeHead(302, { location: "ftp://127.0.0.1/file" }).end()
            return
          case "/gzip":
            response.writeHead(200, { "content-encoding": "gzip" }).end(gzipSync('{"ok":"gzip"}'))
            return
          case "/bom":
            response.writeHead(200).end(`\uFEFF{"ok":"bom"}`)
            return
          case "/hang":
            return
          case "/lose":
            request.socket.destroy()
            return
          default:
            response.writeHead(404).end("{}")
        }
      }
      const server = createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => handle(request, Buffer.concat(chunks).toString("utf8"), response))
      })
      server.on("connection", (socket) => {
        connections.opened++
        sockets.add(socket)
        socket.on("close", () => {
          connections.closed++
          sockets.delete(socket)
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ server, sockets, state: { origin: `http://127.0.0.1:${port}`, seen, connections } }))
      })
    }),
    ({ server, sockets }) =>
      Effect.callback<void>((resume) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ state }) => state))

/** Waits until the server saw the one connection it opened close. */
const closed = (server: TestServer) =>
  Effect.promise(() => eventually(() => server.connections, (c) => c.opened === 1 && c.closed === 1, "the call's connection to close"))

const aRequest = (url: string, extra: Partial<PlatformHttp.PlatformHttpRequest> = {}): PlatformHttp.PlatformHttpRequest => ({
  method: "GET",
  url,
  headers: {},
  body: undefined,
  timeoutMs: 5_000,
  ...extra
})

const form = (text: string) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded", "content-length": String(Buffer.byteLength(text)) },
  body: Buffer.from(text)
})

/** What fetch answers to the same request (as Effect's fetch client sends it): the reference behaviour. */
const viaFetch = (request: PlatformHttp.PlatformHttpRequest) =>
  Effect.promise(async () => {
    const { "content-length": _, ...headers } = request.headers
    try {
      const response = await fetch(request.url, {
        method: request.method,
        headers,
        ...(request.body === undefined ? {} : { body: request.body as Uint8Array<ArrayBuffer> })
      })
      return {
        status: response.status,
        text: await response.text(),
        contentType: response.headers.get("content-type"),
        usage: response.headers.get("x-business-use-case-usage")
      }
    } catch {
      return "network_error" as const
    }
  })

/** The node sender's answer, with the headers an adapter reads (Meta's usage header among them). */
const viaNode = (sender: PlatformHttp.PlatformHttp["Service"], request: PlatformHttp.PlatformHttpRequest) =>
  Effect.match(sender.send(request), {
    onSuccess: (response) => ({
      status: response.status,
      text: response.text,
      contentType: response.headers?.["content-type"] ?? null,
      usage: response.headers?.["x-business-use-case-usage"] ?? null
    }),
    onFailure: (reason) => reason
  })

describe("NodePlatformHttp", () => {
  it.live("answers like fetch: redirects, a body kept or dropped with them, encodings, failures", () =>
    Effect.gen(function* () {
      let otherOrigin = ""
      const server = yield* aServer(() => otherOrigin)
      const other = yield* aServer()
      otherOrigin = other.origin
      const sender = yield* NodePlatformHttp.make()
      const cases: ReadonlyArray<PlatformHttp.PlatformHttpRequest> = [
        aRequest(`${server.origin}/done`),
        aRequest(`${server.origin}/throttled`),
        aRequest(`${server.origin}/redirect/307/2`),
        aRequest(`${server.origin}/redirect/303/1`, form("a=1")),
        aRequest(`${server.origin}/redirect/302/1`, form("a=1")),
        aRequest(`${server.origin}/redirect/301/1`, form("a=1")),
        aRequest(`${server.origin}/redirect/302/20`),
        aRequest(`${server.origin}/redirect/302/21`),
        aRequest(`${server.origin}/ftp`),
        aRequest(`${server.origin}/gzip`),
        aRequest(`${server.origin}/bom`),
        aRequest(`${server.origin}/lose`),
        aRequest(`${server.origin}/missing`),
        aRequest("http://127.0.0.1:1/refused")
      ]
      for (const request of cases) {
        const expected = yield* viaFetch(request)
        const actual = yield* viaNode(sender, request)
        assert.deepStrictEqual(actual, expected, `${request.method} ${request.url}`)
      }
    })
  )

  it.live("keeps the method and the body through a 307 or 308 redirect (the fetch standard)", () =>
    // Node 20's fetch fails these with a detached ArrayBuffer (an undici bug with byte bodies):
    // the node sender does what the standard says instead.
    Effect.gen(function* () {
      const server = yield* aServer()
      const sender = yield* NodePlatformHttp.make()
      for (const status of [307, 308]) {
        const result = yield* sender.send(aRequest(`${server.origin}/redirect/${status}/2`, form("a=1&b=two")))
        assert.deepStrictEqual(JSON.parse(result.text), { method: "POST", body: "a=1&b=two" })
      }
      assert.deepStrictEqual(
        server.seen.map((s) => [s.method, s.body]),
        Array.from({ length: 8 }, () => ["POST", "a=1&b=two"])
      )
    })
  )

  it.live("drops the credentials header when a redirect leaves the origin, as fetch does", () =>
    Effect.gen(function* () {
      let otherOrigin = ""
      const server = yield* aServer(() => otherOrigin)
      const other = yield* aServer()
      otherOrigin = other.origin
      const sender = yield* NodePlatformHttp.make()
      const result = yield* sender.send(aRequest(`${server.origin}/elsewhere`, { headers: { authorization: "Bearer act.1" } }))
      assert.strictEqual(result.status, 200)
      assert.strictEqual(server.seen[0]?.authorization, "Bearer act.1")
      assert.strictEqual(other.seen[0]?.path, "/done")
      assert.isUndefined(other.seen[0]?.authorization)
    })
  )

  it.live("sends calls one after another on one kept-open connection", () =>
    Effect.gen(function* () {
      const server = yield* aServer()
      const sender = yield* NodePlatformHttp.make()
      for (let i = 0; i < 5; i++) yield* sender.send(aRequest(`${server.origin}/done`, form(`n=${i}`)))
      assert.strictEqual(server.seen.length, 5)
      assert.deepStrictEqual(
        server.seen.map((s) => [s.method, s.body, s.contentType]),
        [0, 1, 2, 3, 4].map((i) => ["POST", `n=${i}`, "application/x-www-form-urlencoded"])
      )
      assert.strictEqual(server.connections.opened, 1)
    })
  )

  it.live("cuts a call off at its timeout and closes its connection", () =>
    Effect.gen(function* () {
      const server = yield* aServer()
      const sender = yield* NodePlatformHttp.make()
      const result = yield* Effect.exit(sender.send(aRequest(`${server.origin}/hang`, { timeoutMs: 200 })))
      assert.deepStrictEqual(result, Exit.fail("timeout"))
      yield* closed(server)
    })
  )

  it.live("closes the connection of an interrupted call", () =>
    Effect.gen(function* () {
      const server = yield* aServer()
      const sender = yield* NodePlatformHttp.make()
      const fiber = yield* Effect.forkChild(sender.send(aRequest(`${server.origin}/hang`)))
      yield* Effect.promise(() => eventually(() => server.seen.length > 0, "the call at the server"))
      yield* Fiber.interrupt(fiber)
      yield* closed(server)
    })
  )
})
