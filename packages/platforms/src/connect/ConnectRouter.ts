/**
 * The `AccountConnector` of a running service: sandbox connects go to the simulated platform,
 * every other connect to the connector of its platform (TikTok, Instagram, Facebook Pages,
 * Threads), with the app credentials and hosts of the server's configuration.
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
import { ErrorDetail, type Platform, platformRules } from "@postwire/domain"
import { Effect, Layer, Option, Redacted } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import { PlatformHttp } from "../PlatformHttp.ts"
import { connectFailure, type PlatformConnect } from "../internal/ConnectWire.ts"
import * as Wire from "../internal/Wire.ts"
import * as FacebookConnect from "../facebook/FacebookConnect.ts"
import * as InstagramConnect from "../instagram/InstagramConnect.ts"
import * as MetaSignedRequest from "../meta/MetaSignedRequest.ts"
import * as SimulatedConnect from "../simulated/SimulatedConnect.ts"
import * as ThreadsConnect from "../threads/ThreadsConnect.ts"
import * as TikTokConnect from "../tiktok/TikTokConnect.ts"

/** A secret given as plain text or already redacted. */
export type Secret = string | Redacted.Redacted<string>

type WithSecret<S, K extends keyof S> = Partial<Omit<S, K>> & { readonly [P in K]?: Secret | undefined }

/** What a deployment sets; everything else takes its default. */
export interface Options {
  /** The server's public address: the sandbox consent page is at `{publicUrl}/connect/sandbox/authorize`. */
  readonly publicUrl: string
  /** Signs the sandbox consent page's codes; the page must issue them with the same secret. */
  readonly sandboxSecret: Secret
  readonly shortvideo?: WithSecret<TikTokConnect.Settings, "clientSecret"> | undefined
  readonly photo?: WithSecret<InstagramConnect.Settings, "appSecret"> | undefined
  readonly pages?: WithSecret<FacebookConnect.Settings, "appSecret"> | undefined
  readonly textpost?: WithSecret<ThreadsConnect.Settings, "appSecret"> | undefined
  /** Retries of a 5xx or 429 answer inside one call (a person may be waiting: keep it short). */
  readonly retry?: Partial<Wire.RetryPolicy> | undefined
  /** Time allowed for one HTTP call to a platform. */
  readonly requestTimeoutMs?: number | undefined
}

/** Defaults: 2 attempts 1 s apart, 15 s per call. */
export const defaults = {
  retry: { attempts: 2, baseDelayMs: 1_000 },
  requestTimeoutMs: 15_000
} as const

const redact = (secret: Secret | undefined): Redacted.Redacted<string> =>
  secret === undefined ? Redacted.make("") : Redacted.isRedacted(secret) ? (secret as Redacted.Redacted<string>) : Redacted.make(secret)

/** The complete settings of each platform, defaults filled in. */
export const makeSettings = (options: Options) => {
  const { clientSecret, ...shortvideo } = options.shortvideo ?? {}
  const { appSecret: photoSecret, ...photo } = options.photo ?? {}
  const { appSecret: pagesSecret, ...pages } = options.pages ?? {}
  const { appSecret: textpostSecret, ...textpost } = options.textpost ?? {}
  return {
    shortvideo: { ...TikTokConnect.defaults, clientKey: "", ...shortvideo, clientSecret: redact(clientSecret) } satisfies TikTokConnect.Settings,
    photo: { ...InstagramConnect.defaults, appId: "", ...photo, appSecret: redact(photoSecret) } satisfies InstagramConnect.Settings,
    pages: { ...FacebookConnect.defaults, appId: "", ...pages, appSecret: redact(pagesSecret) } satisfies FacebookConnect.Settings,
    textpost: { ...ThreadsConnect.defaults, appId: "", ...textpost, appSecret: redact(textpostSecret) } satisfies ThreadsConnect.Settings
  }
}

const notConfigured = (platform: Platform, missing: ReadonlyArray<string>): ConnectFailure =>
  connectFailure("platform_not_configured", "not_configured", {
    // The operator can fix it: a refresh or revoke may succeed later.
    retryable: true,
    details: { platform: platformRules[platform].displayName, settings: missing.join(", ") }
  })

/** Builds the connector over the `HttpClient` in context. */
export const make = (options: Options): Effect.Effect<AccountConnector["Service"], never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const settings = makeSettings(options)
    const client = yield* HttpClient.HttpClient
    const wire = Wire.make(client, {
      timeoutMs: options.requestTimeoutMs ?? defaults.requestTimeoutMs,
      retry: { ...defaults.retry, ...options.retry },
      fast: Option.getOrUndefined(yield* Effect.serviceOption(PlatformHttp))
    })
    const tiktok = TikTokConnect.make(settings.shortvideo, wire)
    const live: Readonly<Record<Platform, PlatformConnect>> = {
      shortvideo: tiktok,
      photo: InstagramConnect.make(settings.photo, wire),
      pages: FacebookConnect.make(settings.pages, wire),
      textpost: ThreadsConnect.make(settings.textpost, wire)
    }
    const sandboxOptions = { publicUrl: options.publicUrl, secret: Redacted.value(redact(options.sandboxSecret)) }
    const sandbox = {
      shortvideo: SimulatedConnect.make("shortvideo", sandboxOptions),
      photo: SimulatedConnect.make("photo", sandboxOptions),
      pages: SimulatedConnect.make("pages", sandboxOptions),
      textpost: SimulatedConnect.make("textpost", sandboxOptions)
    } as const

    /** The connector of a request, or the settings it lacks. */
    const route = (platform: Platform, isSandbox: boolean): Effect.Effect<PlatformConnect, ConnectFailure> => {
      if (isSandbox) return Effect.succeed(sandbox[platform])
      const connector = live[platform]
      return connector.missing.length === 0 ? Effect.succeed(connector) : Effect.fail(notConfigured(platform, connector.missing))
    }

    const appSecrets = {
      photo: { secret: settings.photo.appSecret, name: InstagramConnect.settingNames.appSecret },
      pages: { secret: settings.pages.appSecret, name: FacebookConnect.settingNames.appSecret },
      textpost: { secret: settings.textpost.appSecret, name: ThreadsConnect.settingNames.appSecret }
    } as const

    return AccountConnector.of({
      configured: (platform, isSandbox) => (isSandbox ? [] : live[platform].missing),
      authorizationUrl: (request) =>
        Effect.map(route(request.platform, request.sandbox), (connector) => connector.authorizationUrl(request)),
      exchange: (request) => Effect.flatMap(route(request.platform, request.sandbox), (connector) => connector.exchange(request)),
      refresh: (request) =>
        Effect.flatMap(route(request.platform, request.sandbox), (connector) => connector.refresh(request.credentials)),
      revoke: (request) =>
        Effect.flatMap(route(request.platform, request.sandbox), (connector) => connector.revoke(request.credentials)),
      creatorInfo: (request) => {
        if (request.platform !== "shortvideo") {
          return Effect.die(new Error(`creatorInfo is a shortvideo call, not ${request.platform}`))
        }
        if (request.sandbox) return sandbox.shortvideo.creatorInfo(request.credentials)
        return tiktok.missing.length > 0 ? Effect.fail(notConfigured("shortvideo", tiktok.missing)) : tiktok.creatorInfo(request.credentials)
      },
      verifyDeauthorization: (platform, signedRequest) =>
        Effect.suspend(() => {
          const app = appSecrets[platform]
          const secret = Redacted.value(app.secret)
          if (secret === "") return Effect.fail(notConfigured(platform, [app.name]))
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
