/**
 * The `WebhookTransport` service: sends one delivery over HTTP. The live transport connects
 * only to the addresses the URL check approved (never resolving the name again, so DNS
 * rebinding cannot slip in between), follows no redirects, and stops when interrupted.
 *
 * @since 0.1.0
 */
import type { LookupAddress } from "node:dns"
import { type ClientRequest, type IncomingMessage, request as httpRequest } from "node:http"
import { request as httpsRequest } from "node:https"
import { isIPv6 } from "node:net"
import { Context, Data, Effect, Layer } from "effect"

/** One POST to send. */
export interface DeliveryRequest {
  readonly url: URL
  /** The checked addresses of the URL's host; the only ones the transport may connect to. */
  readonly addresses: ReadonlyArray<string>
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/** The answer: its HTTP status and the start of its body. */
export interface DeliveryResponse {
  readonly statusCode: number
  /** The first {@link maxKeptBodyBytes} bytes of the body, as UTF-8 text (the rest is read and thrown away). */
  readonly body: string
}

/** How much of an answer's body is kept for the delivery log: 1 KB. */
export const maxKeptBodyBytes = 1024

/** No HTTP answer: the connection failed or broke (`detail` is the system's code, e.g. `ECONNREFUSED`). */
export class TransportError extends Data.TaggedError("TransportError")<{
  readonly detail: string
}> {}

/** Sends deliveries. */
export class WebhookTransport extends Context.Service<
  WebhookTransport,
  { readonly send: (request: DeliveryRequest) => Effect.Effect<DeliveryResponse, TransportError> }
>()("postwire/WebhookTransport") {
  /**
   * node:http and node:https, one connection per delivery, connecting only to
   * `request.addresses`. Redirects are answers like any other (not 2xx: a failed attempt).
   * Interrupting the send (a timeout) destroys the connection.
   */
  static readonly layer: Layer.Layer<WebhookTransport> = Layer.succeed(WebhookTransport)({
    send: (request) => Effect.callback<DeliveryResponse, TransportError>((resume) => sendOnce(request, resume))
  })
}

// How much of an answer's body is read (and thrown away) before the connection is cut.
const maxDrainBytes = 64 * 1024

const sendOnce = (
  delivery: DeliveryRequest,
  resume: (effect: Effect.Effect<DeliveryResponse, TransportError>) => void
): Effect.Effect<void> => {
  const { url } = delivery
  const send = url.protocol === "https:" ? httpsRequest : httpRequest
  const entries: Array<LookupAddress> = delivery.addresses.map((address) => ({
    address,
    family: isIPv6(address) ? 6 : 4
  }))
  let req: ClientRequest
  try {
    req = send(
      {
        method: "POST",
        protocol: url.protocol,
        hostname: url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname,
        port: url.port === "" ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        headers: { ...delivery.headers, "content-length": String(Buffer.byteLength(delivery.body)), connection: "close" },
        agent: false,
        // The name was resolved and checked already: answer with those addresses only.
        lookup: (_hostname, options, callback) => {
          const allowed = entries.filter((entry) => !options.family || entry.family === options.family)
          if (allowed.length === 0) {
            const error: NodeJS.ErrnoException = new Error("no checked address of the requested family")
            error.code = "ENOTFOUND"
            return callback(error, "", 4)
          }
          if (options.all === true) return (callback as (e: null, all: Array<LookupAddress>) => void)(null, allowed)
          return callback(null, allowed[0]!.address, allowed[0]!.family)
        }
      },
      (response) => {
        const statusCode = response.statusCode ?? 0
        drain(response, (body) => resume(Effect.succeed({ statusCode, body })))
      }
    )
  } catch (cause) {
    resume(Effect.fail(new TransportError({ detail: cause instanceof Error ? cause.message : String(cause) })))
    return Effect.void
  }
  req.on("error", (error: NodeJS.ErrnoException) => {
    resume(Effect.fail(new TransportError({ detail: error.code ?? error.message })))
  })
  req.end(delivery.body)
  return Effect.sync(() => {
    req.destroy()
  })
}

// How long the start of a body is waited for once the headers are in.
const bodyWaitMs = 1_000

// Reads the answer so a well-behaved receiver finishes cleanly, keeping its first KB for the
// log (handed to `keep` once that much came, the body ended, or a second passed); an endless
// one is cut off.
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
