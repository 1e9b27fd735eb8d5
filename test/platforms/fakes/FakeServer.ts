/**
 * A real HTTP server on 127.0.0.1 (random port) for the fake platforms, with faults a test can
 * inject per route: an error answer instead of the real one, an answer lost after the platform
 * acted (the socket closes), or no answer at all.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { Effect, type Scope } from "effect"

/** A request as the fakes see it. */
export interface FakeRequest {
  readonly method: string
  readonly path: string
  readonly query: URLSearchParams
  readonly headers: IncomingHttpHeaders
  readonly body: string
  /** Query parameters, form fields and top-level JSON string/number/boolean fields together. */
  readonly params: Readonly<Record<string, string>>
  /** The JSON body, when there is one. */
  readonly json: unknown
}

/** What a fake answers. */
export type FakeReply =
  /** `headers`: more answer headers (Meta's `X-Business-Use-Case-Usage`), lower-case names. */
  | { readonly status: number; readonly json: unknown; readonly headers?: Readonly<Record<string, string>> }
  /** A body written as is (int64 ids that JSON numbers would round). */
  | { readonly status: number; readonly raw: string }
  /** The connection closes without an answer. */
  | { readonly lose: true }
  /** No answer, ever (until the server stops). */
  | { readonly hang: true }

/** A fault armed on a route. */
interface Fault {
  readonly route: string
  readonly reply: FakeReply
  /** `after`: the fake does the work first, then answers with the fault (a lost answer). */
  readonly after: boolean
  /** Applies only once a request of this route was received after the fault was armed. */
  readonly armedBy: string | undefined
  /** How many requests of `armedBy` had been received when the fault was armed. */
  readonly armedAt: number
  remaining: number
}

/** Faults a test arms on named routes. */
export class Faults {
  private readonly armed: Array<Fault> = []
  private readonly seen = new Map<string, number>()

  /**
   * Answers the next `times` requests of `route` with `reply`, without doing the work; with
   * `armedBy`, only the requests after one of that route.
   */
  inject(route: string, reply: FakeReply, times = 1, options: { readonly armedBy?: string } = {}): void {
    const armedAt = options.armedBy === undefined ? 0 : (this.seen.get(options.armedBy) ?? 0)
    this.armed.push({ route, reply, after: false, armedBy: options.armedBy, armedAt, remaining: times })
  }

  /** Does the work of the next `times` requests of `route`, then answers with `reply`. */
  injectAfter(route: string, reply: FakeReply, times = 1): void {
    this.armed.push({ route, reply, after: true, armedBy: undefined, armedAt: 0, remaining: times })
  }

  /** Disarms every fault still armed (a test's leftovers must not reach the next test). */
  clear(): void {
    this.armed.length = 0
  }

  /** Notes a request of `route` (it arms the faults waiting for one). */
  received(route: string): void {
    this.seen.set(route, (this.seen.get(route) ?? 0) + 1)
  }

  /** The fault to apply now, if one is armed. */
  take(route: string, after: boolean): FakeReply | undefined {
    const fault = this.armed.find(
      (f) => f.route === route && f.after === after && f.remaining > 0 && (f.armedBy === undefined || (this.seen.get(f.armedBy) ?? 0) > f.armedAt)
    )
    if (fault === undefined) return undefined
    fault.remaining -= 1
    return fault.reply
  }
}

/** A running fake server. */
export interface FakeServer {
  readonly url: string
  readonly origin: string
  /** Every request received, in order, with the route the fake gave it. */
  readonly requests: Array<FakeRequest & { readonly route: string }>
  /** How many requests a route received. */
  readonly count: (route: string) => number
  readonly faults: Faults
  /** How long the fake takes to answer, after doing the work (a slow platform); none when unset. */
  latencyMs: (() => number) | undefined
}

/** A platform's behaviour: names the route of a request and answers it. */
export interface FakeRoutes {
  readonly route: (request: FakeRequest) => string
  readonly handle: (route: string, request: FakeRequest, server: FakeServer) => FakeReply
}

const paramsOf = (query: URLSearchParams, contentType: string | undefined, body: string) => {
  const params: Record<string, string> = Object.fromEntries(query)
  let json: unknown
  if (contentType?.startsWith("application/x-www-form-urlencoded") === true) {
    Object.assign(params, Object.fromEntries(new URLSearchParams(body)))
  } else if (body !== "") {
    try {
      json = JSON.parse(body)
      if (typeof json === "object" && json !== null) {
        for (const [key, value] of Object.entries(json)) {
          if (typeof value !== "object" || value === null) params[key] = String(value)
        }
      }
    } catch {
      json = undefined
    }
  }
  return { params, json }
}

/** Starts a fake on 127.0.0.1 and stops it when the scope closes. */
export const start = (routes: FakeRoutes): Effect.Effect<FakeServer, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<{ server: Server; fake: FakeServer; sockets: Set<Socket> }>((resolve) => {
          const requests: FakeServer["requests"] = []
          const faults = new Faults()
          const sockets = new Set<Socket>()
          const fake: FakeServer = {
            url: "",
            origin: "",
            requests,
            faults,
            count: (route) => requests.filter((r) => r.route === route).length,
            latencyMs: undefined
          }
          const server = createServer((req, res) => {
            const chunks: Array<Buffer> = []
            req.on("data", (chunk: Buffer) => chunks.push(chunk))
            req.on("end", () => {
              const url = new URL(req.url ?? "/", fake.origin)
              const body = Buffer.concat(chunks).toString("utf8")
              const { params, json } = paramsOf(url.searchParams, req.headers["content-type"], body)
              const request: FakeRequest = {
                method: req.method ?? "GET",
                path: url.pathname,
                query: url.searchParams,
                headers: req.headers,
                body,
                params,
                json
              }
              const route = routes.route(request)
              requests.push({ ...request, route })
              const before = faults.take(route, false)
              let reply = before ?? routes.handle(route, request, fake)
              if (before === undefined) reply = faults.take(route, true) ?? reply
              faults.received(route)
              if ("hang" in reply) return
              const answer = () => {
                if ("lose" in reply) {
                  req.socket.destroy()
                  return
                }
                const text = "raw" in reply ? reply.raw : JSON.stringify(reply.json)
                res.writeHead(reply.status, {
                  "content-type": "application/json; charset=UTF-8",
                  ...("headers" in reply ? reply.headers : {})
                })
                res.end(text)
              }
              const delay = fake.latencyMs?.() ?? 0
              if (delay > 0) setTimeout(answer, delay)
              else answer()
            })
          })
          server.on("connection", (socket) => {
            sockets.add(socket)
            socket.on("close", () => sockets.delete(socket))
          })
          server.listen(0, "127.0.0.1", () => {
            const { port } = server.address() as AddressInfo
            const origin = `http://127.0.0.1:${port}`
            Object.assign(fake, { url: origin, origin })
            resolve({ server, fake, sockets })
          })
        })
    ),
    ({ server, sockets }) =>
      Effect.promise(
        () =>
          new Promise<void>((resolve) => {
            for (const socket of sockets) socket.destroy()
            server.close(() => resolve())
          })
      )
  ).pipe(Effect.map(({ fake }) => fake))

/** A random-looking id of digits, unique within a fake. */
export const idSequence = (prefix: string) => {
  let n = 0
  return () => {
    n += 1
    return `${prefix}${String(n).padStart(4, "0")}`
  }
}
