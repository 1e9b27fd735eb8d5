/**
 * The `PlatformClient` of a running service: sandbox accounts go to the simulated platform, every
 * other account to the publisher of its platform's plugin (`Registry`: TikTok, Instagram,
 * Facebook Pages, Threads, and the plugins added in `plugins`).
 *
 * Every address and every app credential is configuration, so a test or a staging setup can
 * point each platform at a fake server.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { PlatformRouter } from "@postwire/platforms"
 *
 * const PlatformsLive = PlatformRouter.layer({
 *   shortvideo: { clientKey: "aw41...", clientSecret: Redacted.make("secret") },
 *   photo: { appSecret: Redacted.make("meta app secret") },
 *   retry: { attempts: 3, baseDelayMs: 10_000 },
 *   plugins: [myBlogPlugin]
 * })
 * ```
 *
 * @since 0.1.0
 */
import { type CreatorInfo, type CredentialsUpdate, PlatformClient, PlatformCounters, type PlatformFailure, countersOf, makeMemoryCounters } from "@postwire/core"
import { Effect, Layer, Option, type Redacted } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import * as Settings from "./internal/Settings.ts"
import * as Wire from "./internal/Wire.ts"
import { PlatformHttp } from "./PlatformHttp.ts"
import type { PlatformPlugin, PlatformPublisher, PluginServices } from "./Plugin.ts"
import * as Registry from "./Registry.ts"
import * as SimulatedPlatform from "./simulated/SimulatedPlatform.ts"

/** A secret given as plain text or already redacted. */
export type Secret = string | Redacted.Redacted<string>

/** A plugin's settings as a deployment gives them: any subset, secrets plain or redacted. */
export type Given<S, K extends keyof S> = Partial<Omit<S, K>> & { readonly [P in K]?: Secret | undefined }

/**
 * What a deployment sets; everything else takes its default. Each platform's publishing settings
 * are given under its wire word, built-in or a plugin's (`shortvideo: { clientKey, clientSecret }`,
 * `blog: { baseUrl }`): any of the plugin's settings (its `publish.defaults`), secrets as plain
 * strings or `Redacted` values. {@link Given} types one platform's entry
 * (`satisfies PlatformRouter.Given<TikTok.Config, "clientSecret">`).
 */
export interface Options {
  /** A platform's publishing settings, under its wire word (see above). */
  readonly [platform: string]: unknown
  /** Retries of `platform_unavailable` inside one step. */
  readonly retry?: Partial<Wire.RetryPolicy>
  /** Time allowed for one HTTP call to a platform. */
  readonly requestTimeoutMs?: number
  /** Platforms added to the built-in ones (see `PlatformPlugin`). */
  readonly plugins?: ReadonlyArray<PlatformPlugin> | undefined
  /**
   * Where the server shows its sandbox targets (`{public URL}/sandbox`): a sandbox target's
   * permalink is its page there, never an address on the real platform. Absent: the address the
   * platform's plugin makes up (`sandbox.post`), for code that runs the router alone.
   */
  readonly sandboxPageUrl?: string | undefined
}

/** Defaults: the platforms' production hosts, 3 attempts 10 s and 20 s apart, 30 s per call. */
export const defaults = {
  retry: { attempts: 3, baseDelayMs: 10_000 },
  requestTimeoutMs: 30_000
} as const

/**
 * The complete configuration of the built-in platforms' publishing (see {@link makeConfig}): each
 * platform's complete settings under its wire word.
 */
export interface Config {
  readonly [platform: string]: unknown
  /** Retries of `platform_unavailable` inside one step. */
  readonly retry: Wire.RetryPolicy
  /** Time allowed for one HTTP call to a platform. */
  readonly requestTimeoutMs: number
}

/** Completes options with the defaults (the built-in platforms' settings, retries, timeout). */
export const makeConfig = (options: Options = {}): Config =>
  ({
    ...Object.fromEntries(Registry.builtins.map((plugin) => [plugin.name, settingsOf(plugin, options)])),
    retry: { ...defaults.retry, ...options.retry },
    requestTimeoutMs: options.requestTimeoutMs ?? defaults.requestTimeoutMs
  }) as unknown as Config

/** The complete settings of one plugin's publishing side. */
export const settingsOf = <S>(plugin: PlatformPlugin<S>, options: Options = {}): S =>
  Settings.complete(plugin.publish, Settings.given(options, plugin.name))

/** The `Wire` of the routers: the `HttpClient` in context, timeouts and retries of the options. */
export const makeWire = (options: Options) =>
  Effect.gen(function* () {
    const client = yield* HttpClient.HttpClient
    return Wire.make(client, {
      timeoutMs: options.requestTimeoutMs ?? defaults.requestTimeoutMs,
      retry: { ...defaults.retry, ...options.retry },
      fast: Option.getOrUndefined(yield* Effect.serviceOption(PlatformHttp))
    })
  })

/**
 * What each plugin gets beside its settings: its counters, in the engine's `PlatformCounters`
 * when the context has one (the server's database), else in memory, for this router alone.
 */
export const pluginServices = Effect.gen(function* () {
  const found = yield* Effect.serviceOption(PlatformCounters)
  const counters = Option.getOrElse(found, makeMemoryCounters)
  return (plugin: Pick<PlatformPlugin, "name">): PluginServices => ({ counters: countersOf(counters, plugin.name) })
})

type WithCredentials<A> = A & { readonly credentials?: CredentialsUpdate | undefined }

/**
 * Builds the router over the `HttpClient` in context, and the `PlatformHttp` when there is one
 * (used while the tracer is off, see `PlatformHttp`).
 */
export const make = (options: Options = {}): Effect.Effect<PlatformClient["Service"], never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const registry = Registry.make(options.plugins)
    const wire = yield* makeWire(options)
    const services = yield* pluginServices
    const simulated = SimulatedPlatform.make(registry, { pageUrl: options.sandboxPageUrl })
    const publishers = new Map<string, PlatformPublisher>(
      registry.plugins.map((plugin) => [plugin.name, plugin.publish.make(settingsOf(plugin, options), wire, services(plugin))])
    )
    const publisherOf = (platform: string): Effect.Effect<PlatformPublisher> => {
      const found = publishers.get(platform)
      return found === undefined
        ? Effect.die(new Registry.PluginProblem(`"${platform}"`, `is not registered (known: ${registry.names.join(", ")})`))
        : Effect.succeed(found)
    }
    return PlatformClient.of({
      publish: (input) =>
        input.account.sandbox ? simulated.publish(input) : Effect.flatMap(publisherOf(input.account.platform), (p) => p.publish(input)),
      creatorInfo: (account) =>
        account.sandbox
          ? simulated.creatorInfo(account)
          : Effect.flatMap(
              publisherOf(account.platform),
              (p): Effect.Effect<WithCredentials<CreatorInfo>, PlatformFailure> =>
                p.creatorInfo === undefined
                  ? Effect.die(new Error(`creatorInfo: account ${account.id}'s platform ${account.platform} has no creator options`))
                  : p.creatorInfo(account)
            ),
      // A plugin's up-front check (a spent budget); sandbox targets publish to the simulated platform.
      admit: (input) =>
        input.account.sandbox
          ? Effect.succeed(undefined)
          : Effect.flatMap(publisherOf(input.account.platform), (p) => (p.admit === undefined ? Effect.succeed(undefined) : p.admit(input))),
      // TikTok publishes before its public address exists (moderation); the others leave one
      // pending when it could not be read. A sandbox target always has its address.
      permalink: (input) =>
        input.account.sandbox
          ? Effect.succeed({ _tag: "Never" } as const)
          : Effect.flatMap(publisherOf(input.account.platform), (p) =>
              p.permalink === undefined ? Effect.succeed({ _tag: "Never" } as const) : p.permalink(input)
            )
    })
  })

/** The router as a layer, on the fetch-based `HttpClient` (Node 20 and later). */
export const layer = (options: Options = {}): Layer.Layer<PlatformClient> =>
  Layer.effect(PlatformClient, make(options)).pipe(Layer.provide(FetchHttpClient.layer))

/** The router as a layer over an `HttpClient` you provide (a proxy, a custom agent, a test client). */
export const layerWithoutHttpClient = (options: Options = {}): Layer.Layer<PlatformClient, never, HttpClient.HttpClient> =>
  Layer.effect(PlatformClient, make(options))
