/**
 * A TCP proxy in front of PostgreSQL for tests: it forwards bytes both ways until told to
 * swallow them (a black hole: the connections stay open, nothing arrives) or to reset every
 * connection. A small focused tool; the fault-injection suite has its own.
 */
import * as Net from "node:net"
import { Effect, type Scope } from "effect"

/** A running proxy. */
export interface ConnectionProxy {
  /** `url` with its host and port replaced by the proxy's. */
  readonly url: string
  /** From now on, bytes in either direction are dropped (until {@link ConnectionProxy.forward}). */
  readonly blackHole: () => void
  /** Forwards bytes again. */
  readonly forward: () => void
  /** Resets (TCP RST) every open connection, both sides. */
  readonly resetAll: () => void
}

/** Starts a proxy to the server of `url` on a random loopback port; stopped when the scope closes. */
export const start = (url: string): Effect.Effect<ConnectionProxy, never, Scope.Scope> =>
  Effect.gen(function* () {
    const target = new URL(url)
    const sockets = new Set<Net.Socket>()
    let swallowing = false
    const server = Net.createServer((client) => {
      const upstream = Net.connect(Number(target.port || 5432), target.hostname)
      for (const [from, to] of [
        [client, upstream],
        [upstream, client]
      ] as const) {
        sockets.add(from)
        from.on("data", (chunk) => {
          if (!swallowing) to.write(chunk)
        })
        from.on("error", () => to.destroy())
        from.on("close", () => {
          sockets.delete(from)
          to.destroy()
        })
      }
    })
    const port = yield* Effect.acquireRelease(
      Effect.promise(
        () =>
          new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as Net.AddressInfo).port)))
      ),
      () =>
        Effect.promise(() => {
          for (const socket of sockets) socket.destroy()
          return new Promise<void>((resolve) => server.close(() => resolve()))
        })
    )
    const proxied = new URL(url)
    proxied.hostname = "127.0.0.1"
    proxied.port = String(port)
    return {
      url: proxied.toString(),
      blackHole: () => {
        swallowing = true
      },
      forward: () => {
        swallowing = false
      },
      resetAll: () => {
        for (const socket of sockets) socket.resetAndDestroy()
      }
    }
  })
