/**
 * The `AnalyticsPlatform` of a running service: sandbox accounts read the simulated platform's
 * deterministic numbers (`SimulatedAnalytics`), every other account the analytics adapter of its
 * platform's plugin (`publish.analytics`, with the metrics its `analytics` capabilities list; a
 * plugin without them has no analytics). Hosts, app secrets, token refresh and retries are the
 * publishing adapters' own settings (`PlatformRouter.Options`).
 *
 * @example
 * ```ts
 * import { AnalyticsRouter } from "@postwire/platforms"
 *
 * const AnalyticsLive = AnalyticsRouter.layer({ photo: { appSecret: "meta app secret" } })
 * ```
 *
 * @since 0.5.0
 */
import { AnalyticsPlatform, type AnalyticsCapabilities } from "@postwire/core"
import type { Platform } from "@postwire/domain"
import { Effect, Layer } from "effect"
import { FetchHttpClient, type HttpClient } from "effect/http"
import type { AnalyticsAdapter } from "../Plugin.ts"
import * as PlatformRouter from "../PlatformRouter.ts"
import * as Registry from "../Registry.ts"
import * as SimulatedAnalytics from "../simulated/SimulatedAnalytics.ts"
import { failure } from "../internal/Wire.ts"

const noAnalytics = (platform: string): AnalyticsAdapter => ({
  collectPosts: () => Effect.fail(failure("invalid_request", `${platform}_analytics_unavailable`, { retryable: false })),
  collectAccount: () => Effect.fail(failure("invalid_request", `${platform}_analytics_unavailable`, { retryable: false }))
})

/** Builds the router over the `HttpClient` in context. */
export const make = (options: PlatformRouter.Options): Effect.Effect<AnalyticsPlatform["Service"], never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const registry = Registry.make(options.plugins)
    const wire = yield* PlatformRouter.makeWire(options)
    const real: Record<string, AnalyticsAdapter> = {}
    for (const plugin of registry.plugins) {
      const factory = plugin.publish.analytics
      if (plugin.analytics !== undefined && factory !== undefined) {
        real[plugin.name] = factory(PlatformRouter.settingsOf(plugin, options), wire)
      }
    }
    const capabilities = (platform: Platform, sandbox?: boolean): AnalyticsCapabilities | undefined => {
      const own = registry.get(platform)?.analytics
      if (sandbox !== true) return real[platform] === undefined ? undefined : own
      return own !== undefined && own.post.length > 0 ? own : SimulatedAnalytics.capabilities
    }
    const simulated = SimulatedAnalytics.make((platform) => capabilities(platform, true) ?? SimulatedAnalytics.capabilities)
    const of = (account: { readonly platform: Platform; readonly sandbox: boolean }) =>
      account.sandbox ? simulated : (real[account.platform] ?? noAnalytics(account.platform))
    return AnalyticsPlatform.of({
      capabilities,
      collectPosts: (input) => of(input.account).collectPosts(input),
      collectAccount: (input) => of(input.account).collectAccount(input)
    })
  })

/** The router as a layer, on the fetch-based `HttpClient`. */
export const layer = (options: PlatformRouter.Options): Layer.Layer<AnalyticsPlatform> =>
  Layer.effect(AnalyticsPlatform, make(options)).pipe(Layer.provide(FetchHttpClient.layer))

/** The router as a layer over an `HttpClient` you provide. */
export const layerWithoutHttpClient = (
  options: PlatformRouter.Options
): Layer.Layer<AnalyticsPlatform, never, HttpClient.HttpClient> => Layer.effect(AnalyticsPlatform, make(options))
