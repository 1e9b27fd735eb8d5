/**
 * Webhook delivery in the server: the services a delivery needs (the server's loopback
 * setting, the operating system's resolver, the live HTTP transport), and the worker that runs
 * the dispatcher, and the pruning of the 30-day delivery log, for as long as the server does.
 *
 * @since 0.1.0
 */
import { randomUUID } from "node:crypto"
import { hostname } from "node:os"
import { Effect, Layer } from "effect"
import { type CredentialsCipher, Dispatcher, type Ids, LogPruner, type UrlSafety, type WebhookStore, type WebhookTransport, Webhooks } from "@postwire/core"
import { ServerConfig } from "../config/ServerConfig.ts"
import * as NodeResolver from "../node/NodeResolver.ts"
import * as NodeWebhookTransport from "../node/NodeWebhookTransport.ts"
import * as BackgroundLoops from "../observability/BackgroundLoops.ts"

/** The webhook settings of the engine, from the server's configuration. */
export const WebhookSettingsLive: Layer.Layer<Webhooks.WebhookSettings, never, ServerConfig> = Layer.effect(
  Webhooks.WebhookSettings
)(
  Effect.gen(function* () {
    const config = yield* ServerConfig
    return { allowLoopback: config.unsafeAllowLoopbackWebhooks }
  })
)

/** What sending a delivery needs, live: settings, DNS through the OS, HTTP through node (connections reused per origin). */
export const DeliveryServices: Layer.Layer<
  Webhooks.WebhookSettings | UrlSafety.Resolver | WebhookTransport,
  never,
  ServerConfig
> = Layer.mergeAll(WebhookSettingsLive, NodeResolver.layer, NodeWebhookTransport.layer)

/**
 * Runs the webhook dispatcher and the log pruner in the background while the layer is alive.
 * Each instance leases under its own name; when the server stops, the dispatcher gives its
 * leases back so the next instance to run delivers at once. One instance prunes per hour.
 */
export const layer = (
  options: Omit<Dispatcher.DispatcherOptions, "owner"> = {}
): Layer.Layer<never, never, WebhookStore | ServerConfig | Ids | CredentialsCipher> =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const owner = `${hostname()}:${process.pid}:${randomUUID()}`
      yield* BackgroundLoops.running("dispatcher", yield* Effect.forkScoped(Dispatcher.run({ ...options, owner })))
      yield* BackgroundLoops.running("log_pruner", yield* Effect.forkScoped(LogPruner.run({ owner })))
    })
  ).pipe(Layer.provide(DeliveryServices))
