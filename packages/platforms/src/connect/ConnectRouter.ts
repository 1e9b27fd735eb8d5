/**
 * The `AccountConnector` of a running service: sandbox connects go to the simulated platform,
 * every other connect to the connector of its platform's plugin (`Registry`: TikTok, Instagram,
 * Facebook Pages, Threads and added plugins), with the app credentials and hosts of the server's
 * configuration.
 *
 * Every address is configuration, so tests and staging point each platform at a fake
 * authorization server; a platform without app credentials says which settings it lacks
 * (`configured`) and refuses with `platform_not_configured`.
 *
 * @example
 * ```ts
 * import { ConnectRouter } from "@postwire/platforms"
 *
 * const ConnectorLive = ConnectRouter.layer({
 *   publicUrl: "https://postwire.example.com",
 *   sandboxSecret: "a server secret",
 *   shortvideo: { clientKey: "aw41...", clientSecret: "..." },
 *   pages: { appId: "1234", appSecret: "..." }
 * })
 * ```
 *
 * @since 0.2.0
 */
import { AccountConnector, ConnectFailure } from "@postwire/core"
import { ErrorDetail, type Platform } from "@postwire/domain"
import { Effect, Layer, Option, Redacted } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import { connectFailure } from "../internal/ConnectWire.ts"
import * as Settings from "../internal/Settings.ts"
import * as Wire from "../internal/Wire.ts"
import * as MetaSignedRequest from "../meta/MetaSignedRequest.ts"
import { PlatformHttp } from "../PlatformHttp.ts"
import type { PlatformConnector, PlatformPlugin } from "../Plugin.ts"
import * as Registry from "../Registry.ts"
import * as SimulatedConnect from "../simulated/SimulatedConnect.ts"

/** A secret given as plain text or already redacted. */
export type Secret = string | Redacted.Redacted<string>

/** A plugin's connect settings as a deployment gives them: any subset, secrets plain or redacted. */
export type WithSecret<S, K extends keyof S> = Partial<Omit<S, K>> & { readonly [P in K]?: Secret | undefined }

/**
 * What a deployment sets; everything else takes its default. Each platform's connect settings are
 * given under its wire word, built-in or a plugin's (`shortvideo: { clientKey, clientSecret }`):
 * any of its plugin's connect settings (`connect.defaults`), secrets as plain strings or
 * `Redacted` values ({@link WithSecret} types one entry).
 */
export interface Options {
  /** A platform's connect settings, under its wire word (see above). */
  readonly [platform: string]: unknown
  /** The server's public address: the sandbox consent page is at `{publicUrl}/connect/sandbox/authorize`. */
  readonly publicUrl: string
  /** Signs the sandbox consent page's codes; the page must issue them with the same secret. */
  readonly sandboxSecret: Secret
  /** Retries of a 5xx or 429 answer inside one call (a person may be waiting: keep it short). */
  readonly retry?: Partial<Wire.RetryPolicy> | undefined
  /** Time allowed for one HTTP call to a platform. */
  readonly requestTimeoutMs?: number | undefined
  /** Platforms added to the built-in ones (see `PlatformPlugin`). */
  readonly plugins?: ReadonlyArray<PlatformPlugin> | undefined
}

/** Defaults: 2 attempts 1 s apart, 15 s per call. */
export const defaults = {
  retry: { attempts: 2, baseDelayMs: 1_000 },
  requestTimeoutMs: 15_000
} as const

const redact = (secret: Secret | undefined): Redacted.Redacted<string> =>
  secret === undefined ? Redacted.make("") : Redacted.isRedacted(secret) ? (secret as Redacted.Redacted<string>) : Redacted.make(secret)

/** The complete connect settings of one plugin. */
export const settingsOf = <S>(plugin: PlatformPlugin<unknown, S>, options: Omit<Options, "publicUrl" | "sandboxSecret">): S | undefined =>
  plugin.connect === undefined ? undefined : Settings.complete(plugin.connect, Settings.given(options, plugin.name))

/** The complete connect settings of each built-in platform under its wire word, defaults filled in. */
export const makeSettings = (options: Options): Readonly<Record<string, unknown>> =>
  Object.fromEntries(Registry.builtins.map((plugin) => [plugin.name, settingsOf(plugin, options)]))

const notConfigured = (displayName: string, missing: ReadonlyArray<string>): ConnectFailure =>
  connectFailure("platform_not_configured", "not_configured", {
    // The operator can fix it: a refresh or revoke may succeed later.
    retryable: true,
    details: { platform: displayName, settings: missing.join(", ") }
  })

/** What a plugin platform without a connect flow answers: its accounts are created without one. */
const noConnect = (plugin: PlatformPlugin): PlatformConnector => {
  const refuse = Effect.fail(
    connectFailure("platform_not_configured", "no_connect_flow", {
      retryable: false,
      details: { platform: plugin.displayName, settings: "a connect flow (create its accounts with credentials instead)" }
    })
  )
  return {
    missing: [],
    authorizationUrl: () => "",
    exchange: () => refuse,
    // Nothing to refresh: its credentials are what the account was created with.
    refresh: () => Effect.succeed({ _tag: "NothingToRefresh" } as const),
    revoke: () => Effect.succeed({ _tag: "Revoked" } as const)
  }
}

/** Builds the connector over the `HttpClient` in context. */
export const make = (options: Options): Effect.Effect<AccountConnector["Service"], never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const registry = Registry.make(options.plugins)
    const client = yield* HttpClient.HttpClient
    const wire = Wire.make(client, {
      timeoutMs: options.requestTimeoutMs ?? defaults.requestTimeoutMs,
      retry: { ...defaults.retry, ...options.retry },
      fast: Option.getOrUndefined(yield* Effect.serviceOption(PlatformHttp))
    })
    const sandboxOptions = { publicUrl: options.publicUrl, secret: Redacted.value(redact(options.sandboxSecret)) }
    const entries = registry.plugins.map((plugin) => {
      const settings = settingsOf(plugin, options)
      return {
        plugin,
        live: plugin.connect === undefined ? noConnect(plugin) : plugin.connect.make(settings, wire),
        sandbox: SimulatedConnect.make(plugin.name as Platform, {
          ...sandboxOptions,
          tokens: plugin.sandbox?.tokens,
          creatorInfo: plugin.capabilities?.creatorInfo === true
        }),
        deauthorization: settings === undefined ? undefined : plugin.connect?.deauthorization?.(settings),
        settings
      }
    })
    const byName = new Map(entries.map((entry) => [entry.plugin.name, entry]))
    const entryOf = (platform: Platform) => {
      const found = byName.get(platform)
      return found === undefined
        ? Effect.die(new Registry.PluginProblem(`"${platform}"`, `is not registered (known: ${registry.names.join(", ")})`))
        : Effect.succeed(found)
    }

    /** The connector of a request, or the settings it lacks. */
    const route = (platform: Platform, isSandbox: boolean): Effect.Effect<PlatformConnector, ConnectFailure> =>
      Effect.flatMap(entryOf(platform), (entry) => {
        if (isSandbox) return Effect.succeed<PlatformConnector>(entry.sandbox)
        const connector = entry.live
        return connector.missing.length === 0
          ? Effect.succeed(connector)
          : Effect.fail(notConfigured(entry.plugin.displayName, connector.missing))
      })

    return AccountConnector.of({
      configured: (platform, isSandbox) => (isSandbox ? [] : (byName.get(platform)?.live.missing ?? [])),
      authorizationUrl: (request) =>
        Effect.map(route(request.platform, request.sandbox), (connector) => connector.authorizationUrl(request)),
      traits: (platform) => {
        const entry = byName.get(platform)
        return {
          choosesAccounts: entry?.plugin.capabilities?.choosesAccounts === true,
          chooser: entry?.plugin.connect?.chooser,
          signsDeauthorization: entry?.deauthorization !== undefined
        }
      },
      document: (platform, name, publicUrl) => {
        const entry = byName.get(platform)
        const documents = entry?.plugin.connect?.documents
        if (entry === undefined || documents === undefined || !Object.hasOwn(documents, name)) return undefined
        return documents[name]!(entry.settings, publicUrl.replace(/\/+$/, ""))
      },
      form: (platform, isSandbox) => (isSandbox ? [] : (byName.get(platform)?.plugin.connect?.form ?? [])),
      begin: (request) =>
        Effect.flatMap(route(request.platform, request.sandbox), (connector) =>
          connector.begin === undefined
            ? Effect.sync(() => ({ _tag: "Redirect", url: connector.authorizationUrl(request) }) as const)
            : connector.begin(request)
        ),
      exchange: (request) => Effect.flatMap(route(request.platform, request.sandbox), (connector) => connector.exchange(request)),
      refresh: (request) =>
        Effect.flatMap(route(request.platform, request.sandbox), (connector) => connector.refresh(request.credentials)),
      revoke: (request) =>
        Effect.flatMap(route(request.platform, request.sandbox), (connector) => connector.revoke(request.credentials)),
      creatorInfo: (request) =>
        Effect.flatMap(entryOf(request.platform), (entry) => {
          if (entry.plugin.capabilities?.creatorInfo !== true || entry.live.creatorInfo === undefined) {
            return Effect.die(new Error(`creatorInfo: ${request.platform} has no creator options`))
          }
          if (request.sandbox) return entry.sandbox.creatorInfo(request.credentials)
          return entry.live.missing.length > 0
            ? Effect.fail(notConfigured(entry.plugin.displayName, entry.live.missing))
            : entry.live.creatorInfo(request.credentials)
        }),
      renewal: (platform) => byName.get(platform)?.plugin.tokenRenewal ?? {},
      choosesAccounts: (platform) => byName.get(platform)?.plugin.capabilities?.choosesAccounts === true,
      verifyDeauthorization: (platform, signedRequest) =>
        Effect.flatMap(entryOf(platform), (entry) => {
          const app = entry.deauthorization
          if (app === undefined) return Effect.die(new Error(`verifyDeauthorization: ${platform} sends no signed requests`))
          const secret = Redacted.value(app.secret)
          if (secret === "") return Effect.fail(notConfigured(entry.plugin.displayName, [app.name]))
          const verified = MetaSignedRequest.verify(signedRequest, secret)
          if (verified._tag === "Valid") return Effect.succeed(verified.payload)
          return Effect.fail(
            new ConnectFailure({
              code: "invalid_request",
              platformCode: verified.reason,
              needsReconnect: false,
              retryable: false,
              details: {
                field: "signed_request",
                detail:
                  verified.reason === "bad_signature"
                    ? ErrorDetail.reason("signed_request_bad_signature")
                    : verified.reason === "unsupported_algorithm"
                      ? ErrorDetail.reason("signed_request_algorithm")
                      : ErrorDetail.reason("malformed")
              }
            })
          )
        })
    })
  })

/** The connector as a layer, on the fetch-based `HttpClient` (Node 20 and later). */
export const layer = (options: Options): Layer.Layer<AccountConnector> =>
  Layer.effect(AccountConnector, make(options)).pipe(Layer.provide(FetchHttpClient.layer))

/** The connector as a layer over an `HttpClient` you provide (a proxy, a test client). */
export const layerWithoutHttpClient = (options: Options): Layer.Layer<AccountConnector, never, HttpClient.HttpClient> =>
  Layer.effect(AccountConnector, make(options))
