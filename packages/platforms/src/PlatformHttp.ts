/**
 * A lighter way for the adapters to send a call than the `HttpClient`: the method, the full
 * address, the headers and the bytes of the body in, the status and the body's text out.
 *
 * The routers (`PlatformRouter`, `CommentRouter`, `ConnectRouter`) use it when one is in
 * context and the tracer is off; with the tracer on, or without one, every call goes through the
 * `HttpClient` (one client span per call, as before). A `PlatformHttp` must behave like the
 * `HttpClient` it stands beside, which is fetch's behaviour by default: redirects followed the
 * way fetch follows them, no limit on the body beyond the call's time, a call cut off at its
 * timeout. The server provides one over `node:http` with keep-alive connections
 * (`@postwire/server`'s `NodePlatformHttp`); without it the fetch-based client is used, on any
 * runtime with `fetch`.
 *
 * @since 0.4.0
 */
import { Context, type Effect } from "effect"

/** One call, ready to send. */
export interface PlatformHttpRequest {
  readonly method: string
  /** The full address, query included. */
  readonly url: string
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array | undefined
  /** The whole call (redirects and the body included) is cut off after this long. */
  readonly timeoutMs: number
}

/** What the platform answered. */
export interface PlatformHttpResponse {
  readonly status: number
  readonly text: string
  /**
   * The answer's headers, lower-case names, values of a repeated header joined with `, `.
   * Optional for senders written before 0.5; without them a platform's rate-limit headers (Meta's
   * `X-Business-Use-Case-Usage`) are not read and its documented default wait applies.
   */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** Why no answer came: the time ran out, or the connection failed (refused, reset, closed). */
export type PlatformHttpFailure = "timeout" | "network_error"

/**
 * The sender, as a service.
 *
 * @since 0.4.0
 */
export class PlatformHttp extends Context.Service<
  PlatformHttp,
  {
    readonly send: (request: PlatformHttpRequest) => Effect.Effect<PlatformHttpResponse, PlatformHttpFailure>
  }
>()("@postwire/platforms/PlatformHttp") {}
