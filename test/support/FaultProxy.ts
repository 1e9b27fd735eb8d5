/**
 * The one TCP proxy of the tests: it stands between Postwire and its PostgreSQL and, when told,
 * resets every connection, black-holes traffic (held, or swallowed for good), delays every chunk,
 * refuses new connections, or cuts or holds the one connection whose bytes a test's rule picks,
 * the way a flaky network, a failing-over database or a lost answer does. It knows nothing of the
 * protocol it carries: bytes in, bytes out, in order; a rule may look for a statement's text.
 *
 * Used by the fault-injection suite (`test/fault`), the lost-answer tests and the PostgreSQL
 * client's own tests (`packages/store-sql/test`).
 */
import { connect, createServer, type Server, type Socket } from "node:net"
import { Effect, type Scope } from "effect"

/** What the proxy has done so far (for a failing test's message). */
export interface FaultProxyStats {
  /** Connections accepted. */
  accepted: number
  /** Connections reset by `resetAll`. */
  reset: number
}

/** Which way a chunk goes: from Postwire to the database, or back. */
export type Direction = "to-server" | "to-client"

/** A chunk as a {@link Rule} sees it, with the connection (one per client socket) that carries it. */
export interface Chunk {
  readonly direction: Direction
  readonly bytes: Buffer
  /** The same object for both directions of one proxied connection. */
  readonly connection: object
}

/**
 * What to do with a chunk: pass it on, drop it, cut its connection (both sockets closed, as a
 * broken path would), or hold it (and what follows it that way) for `holdMs` before passing it on.
 */
export type Verdict = "forward" | "drop" | "cut" | { readonly holdMs: number }

/** A test's rule, asked about every chunk before anything else is done with it. */
export type Rule = (chunk: Chunk) => Verdict

/** A running proxy. */
export interface FaultProxy {
  /** The loopback port it listens on. */
  readonly port: number
  readonly stats: FaultProxyStats
  /** Connections open now (each counts once, client and server side together). */
  readonly open: () => number
  /** Resets every open connection (both ends get a TCP RST); returns how many. New ones are let through. */
  readonly resetAll: () => number
  /**
   * Forwards nothing, either way, for `ms`: connections are accepted and data is read but held,
   * as in a network partition; when it ends, what was held arrives in order (as TCP's
   * retransmissions would bring it), unless the connection was reset meanwhile.
   */
  readonly blackHole: (ms: number) => void
  /** Delays every chunk by a random time in `[min, max]` ms (order kept), or no more when `undefined`. */
  readonly setLatency: (range: readonly [min: number, max: number] | undefined) => void
  /**
   * Refuses new connections for `ms` (the port is closed: a client gets ECONNREFUSED); open
   * ones go on. Resolves when the port listens again.
   */
  readonly refuse: (ms: number) => Promise<void>
  /** Drops every byte either way from now on, connections left open, until {@link FaultProxy.forward}. */
  readonly swallow: () => void
  /** Passes bytes on again after {@link FaultProxy.swallow}. */
  readonly forward: () => void
  /** Asks `rule` about every chunk from now on (none: every chunk goes on as the faults above say). */
  readonly inspect: (rule: Rule | undefined) => void
  /** `url` (a database URL) with its host and port replaced by the proxy's. */
  readonly urlFor: (url: string) => string
  /** Ends any black hole and latency now (a refusal ends by itself). */
  readonly heal: () => void
  /** Closes the port and every connection. */
  readonly close: () => Promise<void>
}

/** A chunk waiting to be forwarded, and when it may go. */
interface Held {
  readonly chunk: Buffer
  readonly due: number
}

/**
 * Starts a proxy on a free loopback port to `target`. `random` (in [0, 1)) draws the latencies,
 * so a seeded one makes a run repeatable.
 */
export const start = async (
  target: { readonly host: string; readonly port: number },
  random: () => number = Math.random
): Promise<FaultProxy> => {
  const stats: FaultProxyStats = { accepted: 0, reset: 0 }
  const pairs = new Set<readonly [Socket, Socket]>()
  let heldUntil = 0
  let latency: readonly [number, number] | undefined
  let swallowing = false
  let rule: Rule | undefined
  const pumps = new Set<() => void>()
  const wakeAll = () => {
    for (const pump of pumps) pump()
  }

  /** Forwards `from` to `to` through a queue that honours the rule, the black hole and the latency. */
  const pipe = (from: Socket, to: Socket, direction: Direction, connection: object, cut: () => void) => {
    const queue: Array<Held> = []
    let timer: NodeJS.Timeout | undefined
    let ended = false
    const pump = () => {
      if (timer !== undefined) {
        clearTimeout(timer)
        timer = undefined
      }
      if (to.destroyed) return
      const now = Date.now()
      while (queue.length > 0 && Math.max(queue[0]!.due, heldUntil) <= now) to.write(queue.shift()!.chunk)
      if (queue.length > 0) {
        timer = setTimeout(pump, Math.max(queue[0]!.due, heldUntil) - now)
        return
      }
      if (ended) to.end()
    }
    pumps.add(pump)
    from.on("data", (chunk: Buffer) => {
      const verdict = rule?.({ direction, bytes: chunk, connection }) ?? "forward"
      if (verdict === "cut") return cut()
      if (verdict === "drop" || swallowing) return
      const hold = typeof verdict === "object" ? verdict.holdMs : 0
      const delay = hold + (latency === undefined ? 0 : latency[0] + Math.floor(random() * (latency[1] - latency[0] + 1)))
      queue.push({ chunk, due: Date.now() + delay })
      pump()
    })
    from.on("end", () => {
      ended = true
      pump()
    })
    from.on("close", () => {
      pumps.delete(pump)
      if (timer !== undefined) clearTimeout(timer)
    })
  }

  const accept = (client: Socket) => {
    stats.accepted += 1
    const upstream = connect(target.port, target.host)
    const pair = [client, upstream] as const
    pairs.add(pair)
    // A reset or a failure on one side ends the other side too, as a broken path would.
    const drop = () => {
      pairs.delete(pair)
      if (!client.destroyed) client.destroy()
      if (!upstream.destroyed) upstream.destroy()
    }
    for (const socket of pair) {
      socket.setNoDelay(true)
      socket.on("error", drop)
      socket.on("close", (hadError) => hadError && drop())
    }
    client.on("close", () => pairs.delete(pair))
    const connection = {}
    pipe(client, upstream, "to-server", connection, drop)
    pipe(upstream, client, "to-client", connection, drop)
  }

  // A new listener after each refusal: a closed one only finishes closing once its connections end.
  const listen = (port: number) =>
    new Promise<Server>((resolve, reject) => {
      const server = createServer({ allowHalfOpen: true }, accept)
      server.once("error", reject)
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject)
        resolve(server)
      })
    })
  let server = await listen(0)
  let closed = false
  const { port } = server.address() as { port: number }

  const resetAll = () => {
    const count = pairs.size
    for (const pair of [...pairs]) {
      pairs.delete(pair)
      for (const socket of pair) if (!socket.destroyed) socket.resetAndDestroy()
    }
    stats.reset += count
    return count
  }

  return {
    port,
    stats,
    open: () => pairs.size,
    resetAll,
    blackHole: (ms) => {
      heldUntil = Math.max(heldUntil, Date.now() + ms)
      // Timers already set re-check the hold when they fire; nothing to wake now.
    },
    setLatency: (range) => {
      latency = range
    },
    swallow: () => {
      swallowing = true
    },
    forward: () => {
      swallowing = false
    },
    inspect: (next) => {
      rule = next
    },
    urlFor: (url) => {
      const proxied = new URL(url)
      proxied.hostname = "127.0.0.1"
      proxied.port = String(port)
      return proxied.toString()
    },
    refuse: async (ms) => {
      server.close()
      await new Promise((resolve) => setTimeout(resolve, ms))
      if (!closed) server = await listen(port)
    },
    heal: () => {
      heldUntil = 0
      latency = undefined
      wakeAll()
    },
    close: async () => {
      closed = true
      // A listener a refusal closed is not waited for: its connections are reset below.
      const listening = server.listening
      const done = new Promise<void>((resolve) => server.close(() => resolve()))
      resetAll()
      if (listening) await done
    }
  }
}

/** A proxy in front of one database. */
export interface DatabaseProxy extends FaultProxy {
  /** The database's URL through the proxy. */
  readonly url: string
}

/** A proxy to the server of the database URL `url`, closed with the scope. */
export const scoped = (url: string): Effect.Effect<DatabaseProxy, never, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(
      Effect.promise(() => {
        const target = new URL(url)
        return start({ host: target.hostname, port: Number(target.port || 5432) })
      }),
      (proxy) => Effect.promise(() => proxy.close())
    ),
    (proxy) => ({ ...proxy, url: proxy.urlFor(url) })
  )
