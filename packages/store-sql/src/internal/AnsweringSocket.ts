/**
 * The TCP connection the PostgreSQL client talks over, watched for answers: a connection that
 * sent a statement and heard nothing back for `answerWithinMs` is destroyed.
 *
 * Why: `@effect/sql-pg` 4.0.5 runs a transaction's `COMMIT` and `ROLLBACK` uninterruptibly and
 * has no time limit on a statement, so when the network swallows a `COMMIT` (a partition, a
 * proxy that black-holes traffic) the transaction neither succeeds nor fails, and no
 * `Effect.timeout` around it can return either (it waits for the interruption that the
 * uninterruptible region never allows). Destroying the socket is the one thing the driver
 * always reacts to: it fails the statement on the wire with a connection error and retires
 * the connection from its pool, so the call fails promptly and nothing reuses the connection.
 *
 * @internal
 */
import * as Net from "node:net"

/** How one connection is opened and watched. */
export interface AnsweringSocketOptions {
  readonly host: string
  readonly port: number
  /** Longest silence after a request before the connection is given up. */
  readonly answerWithinMs: number
  /** Idle time before TCP keepalive probes start (a dead peer of an idle pooled connection). */
  readonly keepAliveMs: number
}

/** `ReadyForQuery`: `Z`, length 5, then the transaction status (`I`, `T` or `E`). */
const endsWithReadyForQuery = (chunk: Uint8Array): boolean => {
  const n = chunk.length
  return (
    n >= 6 &&
    chunk[n - 6] === 0x5a &&
    chunk[n - 5] === 0 &&
    chunk[n - 4] === 0 &&
    chunk[n - 3] === 0 &&
    chunk[n - 2] === 5 &&
    (chunk[n - 1] === 0x49 || chunk[n - 1] === 0x54 || chunk[n - 1] === 0x45)
  )
}

/**
 * Opens a connection whose requests must be answered: from each write until the server has
 * answered everything (its `ReadyForQuery` ends a chunk), a silence longer than
 * `answerWithinMs` destroys the socket. Any bytes from the server count as progress, so a
 * long result streaming in is not cut. On an encrypted connection the answers cannot be read,
 * so any bytes after the last write count as the answer.
 */
export const open = (options: AnsweringSocketOptions): Net.Socket => {
  const socket = Net.connect({
    host: options.host,
    port: options.port,
    // A statement is one write and then a wait for its answer: Nagle would only hold it back.
    noDelay: true,
    keepAlive: true,
    keepAliveInitialDelay: options.keepAliveMs
  })
  let awaiting = false
  let lastProgress = 0
  let encrypted: boolean | undefined
  let timer: ReturnType<typeof setTimeout> | undefined

  const check = () => {
    timer = undefined
    if (!awaiting || socket.destroyed) return
    const silentFor = Date.now() - lastProgress
    if (silentFor < options.answerWithinMs) return arm(options.answerWithinMs - silentFor)
    socket.destroy(new Error(`PostgreSQL did not answer within ${options.answerWithinMs} ms: connection given up`))
  }
  const arm = (ms: number) => {
    timer = setTimeout(check, ms)
    timer.unref()
  }

  const write = socket.write.bind(socket) as (...args: Array<unknown>) => boolean
  socket.write = ((...args: Array<unknown>) => {
    if (!awaiting) {
      awaiting = true
      lastProgress = Date.now()
      if (timer === undefined) arm(options.answerWithinMs)
    }
    return write(...args)
  }) as typeof socket.write

  socket.on("data", (chunk: Uint8Array) => {
    lastProgress = Date.now()
    // The answer to the SSLRequest is one byte; `S` means everything after it is encrypted.
    if (encrypted === undefined) encrypted = chunk.length === 1 && chunk[0] === 0x53
    if (encrypted || endsWithReadyForQuery(chunk)) awaiting = false
  })
  socket.on("close", () => {
    if (timer !== undefined) clearTimeout(timer)
  })
  return socket
}
