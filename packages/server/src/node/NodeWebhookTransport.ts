/**
 * The `WebhookTransport` on Node: node:http and node:https, with connections kept open and
 * reused per origin (a bounded pool), connecting only to the addresses the URL check approved.
 *
 * A pooled connection is keyed by everything its safety depended on when it was opened: the
 * scheme, the host name (which also names the TLS server), the port, the checked addresses
 * and the rules they were checked under (`DeliveryRequest.policy`). A request whose check
 * came out differently (the name now answers with other addresses, or the loopback setting
 * changed) gets another pool, so a connection is never reused for a host, port or address set
 * it was not opened for. Each pool resolves nothing: its `lookup` answers with its own
 * checked addresses, and a socket whose peer is not one of them is refused.
 *
 * @since 0.3.0
 */
import { Agent as HttpAgent, type ClientRequest, type IncomingMessage, request as httpRequest } from "node:http"
import { Agent as HttpsAgent, request as httpsRequest } from "node:https"
import type { Socket } from "node:net"
import { Effect, Layer } from "effect"
import { type DeliveryRequest, type DeliveryResponse, maxKeptBodyBytes, TransportError, UrlSafety, WebhookTransport } from "@postwire/core"

/** How the transport keeps connections. */
export interface PoolOptions {
  /** Connections open at once to one origin (and address set). Default 16, the dispatcher's concurrency. */
  readonly maxSocketsPerOrigin?: number | undefined
  /** Origins kept with idle connections; the least recently used beyond this are closed. Default 256. */
  readonly maxOrigins?: number | undefined
  /** How long an idle connection stays open. Default 4 s, below the 5 s most servers keep one. */
  readonly idleMs?: number | undefined
  /** False: one connection per delivery, closed after it (the transport before 0.3). Default true. */
  readonly keepAlive?: boolean | undefined
}

const defaults = { maxSocketsPerOrigin: 16, maxOrigins: 256, idleMs: 4_000 }

/**
 * A transport with its own pool; the pool's connections are closed when the scope closes.
 *
 * @since 0.3.0
 */
export const make = (options: PoolOptions = {}) =>
  Effect.map(
    Effect.acquireRelease(
      Effect.sync(() => new Pools(options)),
      (pools) => Effect.sync(() => pools.close())
    ),
    (pools) =>
      WebhookTransport.of({
        send: (request) => Effect.callback<DeliveryResponse, TransportError>((resume) => send(pools, request, resume))
      })
  )

/**
 * The transport with keep-alive connections and the default pool bounds.
 *
 * @example
 * ```ts
 * const Delivery = Layer.mergeAll(NodeWebhookTransport.layer, NodeResolver.layer)
 * ```
 *
 * @since 0.3.0
 */
export const layer: Layer.Layer<WebhookTransport> = Layer.effect(WebhookTransport)(make())

/**
 * The transport with other pool bounds, or `keepAlive: false` for one connection per delivery.
 *
 * @since 0.3.0
 */
export const layerWith = (options: PoolOptions): Layer.Layer<WebhookTransport> => Layer.effect(WebhookTransport)(make(options))

/** What a pool was opened for; two requests share connections only when every field agrees. */
const poolKey = (request: DeliveryRequest): string =>
  JSON.stringify([
    request.url.protocol,
    request.url.hostname,
    request.url.port,
    request.policy ?? "",
    [...request.addresses].sort()
  ])

const hostOf = (url: URL) => (url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname)


interface Pool {
  readonly agent: HttpAgent
  readonly addresses: ReadonlySet<string>
}

/** The pools by key, least recently used first; at most `maxOrigins`. */
class Pools {
  private readonly pools = new Map<string, Pool>()
  private readonly maxSockets: number
  private readonly maxOrigins: number
  private readonly idleMs: number
  readonly keepAlive: boolean

  constructor(options: PoolOptions) {
    this.maxSockets = options.maxSocketsPerOrigin ?? defaults.maxSocketsPerOrigin
    this.maxOrigins = options.maxOrigins ?? defaults.maxOrigins
    this.idleMs = options.idleMs ?? defaults.idleMs
    this.keepAlive = options.keepAlive ?? true
  }

  for(request: DeliveryRequest): Pool {
    const key = poolKey(request)
    const found = this.pools.get(key)
    if (found !== undefined) {
      this.pools.delete(key)
      this.pools.set(key, found)
      return found
    }
    const settings = {
      keepAlive: true,
      maxSockets: this.maxSockets,
      maxFreeSockets: this.maxSockets,
      timeout: this.idleMs,
      scheduling: "lifo" as const,
      lookup: UrlSafety.lookupAmong(request.addresses)
    }
    const pool: Pool = {
      agent: request.url.protocol === "https:" ? new HttpsAgent(settings) : new HttpAgent(settings),
      addresses: new Set(request.addresses)
    }
    this.pools.set(key, pool)
    while (this.pools.size > this.maxOrigins) {
      const [oldest, evicted] = this.pools.entries().next().value!
      this.pools.delete(oldest)
      retire(evicted.agent)
    }
    return pool
  }

  close(): void {
    for (const pool of this.pools.values()) pool.agent.destroy()
    this.pools.clear()
  }
}

// An evicted pool takes no new requests: its idle connections close now, busy ones when idle.
const retire = (agent: HttpAgent) => {
  for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy()
}

// The peer a socket reached, which must be one of the checked addresses (a guard behind the lookup).
const peerChecked = (socket: Socket, addresses: ReadonlySet<string>) =>
  socket.remoteAddress === undefined || addresses.has(socket.remoteAddress)

// Errors that mean a kept connection was closed by the server while idle: sent again once on a new one.
const staleConnection = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED"])

// How much of an answer's body is read (and thrown away) before the connection is cut.
const maxDrainBytes = 64 * 1024

const send = (
  pools: Pools,
  delivery: DeliveryRequest,
  resume: (effect: Effect.Effect<DeliveryResponse, TransportError>) => void,
  retriesLeft = 1
): Effect.Effect<void> => {
  const { url } = delivery
  const request = url.protocol === "https:" ? httpsRequest : httpRequest
  const pool = pools.keepAlive ? pools.for(delivery) : undefined
  let current: ClientRequest | undefined
  let sentAgain: Effect.Effect<void> | undefined
  try {
    const req = request(
      {
        method: "POST",
        protocol: url.protocol,
        hostname: hostOf(url),
        port: url.port === "" ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        headers: {
          ...delivery.headers,
          "content-length": String(Buffer.byteLength(delivery.body)),
          ...(pool === undefined ? { connection: "close" } : {})
        },
        ...(pool === undefined ? { agent: false, lookup: UrlSafety.lookupAmong(delivery.addresses) } : { agent: pool.agent })
      },
      (response) => {
        const statusCode = response.statusCode ?? 0
        // Answered once the request is closed too, a turn later: its connection is then back
        // in the pool (or gone), so the next delivery to the origin reuses it.
        drain(response, (body) => {
          const answer = () => setImmediate(() => resume(Effect.succeed({ statusCode, body })))
          if (req.closed) answer()
          else req.once("close", answer)
        })
      }
    )
    current = req
    if (pool !== undefined) {
      req.on("socket", (socket: Socket) => {
        const check = () => {
          if (!peerChecked(socket, pool.addresses)) {
            const error: NodeJS.ErrnoException = new Error("connected to an address the URL check did not approve")
            error.code = "EADDRNOTCHECKED"
            req.destroy(error)
          }
        }
        if (socket.connecting) socket.once("connect", check)
        else check()
      })
    }
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (req.reusedSocket && retriesLeft > 0 && staleConnection.has(error.code ?? "")) {
        sentAgain = send(pools, delivery, resume, retriesLeft - 1)
        return
      }
      resume(Effect.fail(new TransportError({ detail: error.code ?? error.message })))
    })
    req.end(delivery.body)
  } catch (cause) {
    resume(Effect.fail(new TransportError({ detail: cause instanceof Error ? cause.message : String(cause) })))
    return Effect.void
  }
  // Interrupted (the attempt's time limit): the connection is destroyed, never pooled again.
  return Effect.suspend(() => {
    current?.destroy()
    return sentAgain ?? Effect.void
  })
}

// How long the start of a body is waited for once the headers are in.
const bodyWaitMs = 1_000

// Reads the answer so a well-behaved receiver finishes cleanly (and the connection can be
// reused), keeping its first KB for the log (handed to `keep` once that much came, the body
// ended, or a second passed); an endless one is cut off, closing its connection.
const drain = (response: IncomingMessage, keep: (body: string) => void) => {
  const kept: Array<Buffer> = []
  let keptBytes = 0
  let received = 0
  let handed = false
  const handOver = () => {
    if (handed) return
    handed = true
    keep(Buffer.concat(kept).subarray(0, maxKeptBodyBytes).toString("utf8"))
  }
  response.on("data", (chunk: Buffer) => {
    received += chunk.length
    if (keptBytes < maxKeptBodyBytes) {
      kept.push(chunk)
      keptBytes += chunk.length
      if (keptBytes >= maxKeptBodyBytes) handOver()
    }
    if (received > maxDrainBytes) response.destroy()
  })
  response.on("end", handOver)
  response.on("error", () => {})
  const waitForBody = setTimeout(handOver, bodyWaitMs)
  waitForBody.unref()
  const cutOff = setTimeout(() => response.destroy(), bodyWaitMs)
  cutOff.unref()
  response.on("close", () => {
    clearTimeout(cutOff)
    clearTimeout(waitForBody)
    handOver()
  })
}
