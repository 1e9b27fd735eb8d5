/**
 * The `CommentPlatform` of a running service: sandbox accounts go to the sandbox implementation
 * given as a parameter (the simulated platform's comments), every other account to the comment
 * adapter of its platform's plugin (`publish.comments`; a plugin without one has no comments API).
 *
 * Hosts, app secrets, token refresh and retries are the publishing adapters' own settings
 * (`PlatformRouter.Options`), so one configuration points both at the same place (a fake server in
 * tests); `comments` adds the polling budget.
 *
 * @example
 * ```ts
 * import { CommentRouter } from "@postwire/platforms"
 *
 * const CommentsLive = CommentRouter.layer(
 *   { photo: { appSecret: "meta app secret" }, comments: { maxPagesPerPoll: 10 } },
 *   simulatedComments
 * )
 * ```
 *
 * @since 0.3.0
 */
import { type CommentCapabilities, CommentPlatform, countersOf, makeMemoryCounters } from "@postwire/core"
import type { Platform } from "@postwire/domain"
import { Effect, Layer } from "effect"
import { FetchHttpClient, type HttpClient } from "effect/http"
import type * as Wire from "../internal/Wire.ts"
import * as PlatformRouter from "../PlatformRouter.ts"
import type { PlatformPlugin, PluginServices } from "../Plugin.ts"
import * as Registry from "../Registry.ts"
import * as CommentAdapter from "./CommentAdapter.ts"

/** The publishing adapters' settings, plus the comment polling budget. */
export interface Options extends PlatformRouter.Options {
  readonly comments?: Partial<CommentAdapter.Config> | undefined
}

/**
 * What serves sandbox accounts: the same operations as a platform's. `capabilities`, when given,
 * answers for sandbox accounts; otherwise everything but `push`.
 */
export type SandboxComments = CommentAdapter.CommentOperations & {
  readonly capabilities?: ((platform: Platform) => CommentCapabilities) | undefined
}

/** What a platform without a comments API answers: nothing to read, every action refused. */
const noCommentsApi = (platform: string): CommentAdapter.CommentAdapter => ({
  poll: (input) => Effect.succeed({ comments: [], cursor: input.cursor ?? null, calls: 0 }),
  reply: () => Effect.fail(CommentAdapter.unsupported(`${platform}_comments_unavailable`)),
  setHidden: () => Effect.fail(CommentAdapter.unsupported(`${platform}_comments_unavailable`)),
  remove: () => Effect.fail(CommentAdapter.unsupported(`${platform}_comments_unavailable`))
})

/** The comment adapters of the registry's platforms, built from the settings. */
export const adapters = (
  options: Options,
  wire: Wire.Wire,
  services: (plugin: PlatformPlugin) => PluginServices = (() => {
    const memory = makeMemoryCounters()
    return (plugin) => ({ counters: countersOf(memory, plugin.name) })
  })()
): Readonly<Record<Platform, CommentAdapter.CommentAdapter>> => {
  const registry = Registry.make(options.plugins)
  const comments: CommentAdapter.Config = { ...CommentAdapter.defaults, ...options.comments }
  return Object.fromEntries(
    registry.plugins.map((plugin) => [
      plugin.name,
      plugin.publish.comments?.(PlatformRouter.settingsOf(plugin, options), wire, comments, services(plugin)) ??
        noCommentsApi(plugin.name)
    ])
  ) as Record<Platform, CommentAdapter.CommentAdapter>
}

const sandboxCapabilities: CommentCapabilities = { read: true, reply: true, hide: true, delete: true, push: false }
const none: CommentCapabilities = { read: false, reply: false, hide: false, delete: false, push: false }

/** Builds the router over the `HttpClient` in context. */
export const make = (
  options: Options,
  sandbox: SandboxComments
): Effect.Effect<CommentPlatform["Service"], never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const registry = Registry.make(options.plugins)
    const wire = yield* PlatformRouter.makeWire(options)
    const real = adapters(options, wire, yield* PlatformRouter.pluginServices)
    const of = (account: { readonly platform: Platform; readonly sandbox: boolean }): CommentAdapter.CommentOperations =>
      account.sandbox ? sandbox : (real[account.platform] ?? noCommentsApi(account.platform))
    return CommentPlatform.of({
      capabilities: (platform, isSandbox) =>
        isSandbox
          ? (sandbox.capabilities?.(platform) ?? sandboxCapabilities)
          : (registry.get(platform)?.rules.comments ?? none),
      poll: (input) => of(input.account).poll(input),
      reply: (input) => of(input.account).reply(input),
      setHidden: (input) => of(input.account).setHidden(input),
      remove: (input) => of(input.account).remove(input)
    })
  })

/** The router as a layer, on the fetch-based `HttpClient` (Node 20 and later). */
export const layer = (options: Options, sandbox: SandboxComments): Layer.Layer<CommentPlatform> =>
  Layer.effect(CommentPlatform, make(options, sandbox)).pipe(Layer.provide(FetchHttpClient.layer))

/** The router as a layer over an `HttpClient` you provide. */
export const layerWithoutHttpClient = (
  options: Options,
  sandbox: SandboxComments
): Layer.Layer<CommentPlatform, never, HttpClient.HttpClient> => Layer.effect(CommentPlatform, make(options, sandbox))
