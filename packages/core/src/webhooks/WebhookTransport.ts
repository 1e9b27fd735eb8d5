/**
 * The `WebhookTransport` service: sends one delivery over HTTP. A transport connects only to
 * the addresses the URL check approved (never resolving the name again, so DNS rebinding
 * cannot slip in between), follows no redirects, and stops when interrupted. The Node
 * implementation lives in `@postwire/server` (`NodeWebhookTransport`), outside core.
 *
 * @since 0.1.0
 */
import { Context, Data, type Effect } from "effect"

/** One POST to send. */
export interface DeliveryRequest {
  readonly url: URL
  /** The checked addresses of the URL's host; the only ones the transport may connect to. */
  readonly addresses: ReadonlyArray<string>
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  /**
   * Names the rules the addresses were checked under (for example whether loopback is
   * allowed). A transport that keeps connections open keys them by it too, so a connection
   * opened under other rules is never reused.
   */
  readonly policy?: string | undefined
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

/**
 * Sends deliveries. Core holds only the contract; the Node implementation (node:http and
 * node:https with keep-alive connections per origin) is `NodeWebhookTransport` in
 * `@postwire/server`, and an embedder on another runtime provides its own.
 *
 * A transport must connect only to `request.addresses` (never resolving the name again), follow
 * no redirects, stop when interrupted, and never reuse a connection for a request whose
 * origin (scheme, host, port) or checked addresses differ from the ones it was opened for.
 */
export class WebhookTransport extends Context.Service<
  WebhookTransport,
  { readonly send: (request: DeliveryRequest) => Effect.Effect<DeliveryResponse, TransportError> }
>()("postwire/WebhookTransport") {}
