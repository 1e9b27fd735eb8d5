/**
 * The operating system's resolver for the webhook URL check (`UrlSafety.Resolver`), on Node:
 * `dns.lookup` with `all: true`, so `/etc/hosts` counts exactly as it does for any other
 * client on the machine. Core keeps the service and the address rules; this is its Node side.
 *
 * @since 0.2.0
 */
import { lookup } from "node:dns/promises"
import { Effect, Layer } from "effect"
import { UrlSafety } from "@postwire/core"

/**
 * `UrlSafety.Resolver` through `dns.lookup` (every IPv4 and IPv6 answer, in the system's order).
 *
 * @example
 * ```ts
 * const Live = Layer.mergeAll(NodeResolver.layer, NodeWebhookTransport.layer)
 * ```
 *
 * @since 0.2.0
 */
export const layer: Layer.Layer<UrlSafety.Resolver> = Layer.succeed(UrlSafety.Resolver)({
  resolve: (host) =>
    Effect.tryPromise({
      try: () => lookup(host, { all: true, verbatim: true }),
      catch: (cause) => new UrlSafety.ResolveError({ host, cause })
    }).pipe(Effect.map((answers) => answers.map((answer) => answer.address)))
})
