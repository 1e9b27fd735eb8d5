/**
 * The `PlatformClient` of a running service: sandbox accounts go to the simulated platform, every
 * other account to the adapter of its platform (TikTok, Instagram, Facebook Pages, Threads).
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
 *   retry: { attempts: 3, baseDelayMs: 10_000 }
 * })
 * ```
 *
 * @since 0.1.0
 */
import { PlatformClient } from "@postwire/core"
import { Effect, Layer, Option, Redacted } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import { PlatformHttp } from "./PlatformHttp.ts"
import * as Wire from "./internal/Wire.ts"
import * as FacebookPages from "./facebook/FacebookPages.ts"
import * as Instagram from "./instagram/Instagram.ts"
import * as TikTok from "./tiktok/TikTok.ts"
import * as SimulatedPlatform from "./simulated/SimulatedPlatform.ts"
import * as Threads from "./threads/Threads.ts"

/** The complete configuration of the platform adapters. */
export interface Config {
  readonly shortvideo: TikTok.Config
  readonly photo: Instagram.Config
  readonly pages: FacebookPages.Config
  readonly textpost: Threads.Config
  /** Retries of `platform_unavailable` inside one step. */
  readonly retry: Wire.RetryPolicy
  /** Time allowed for one HTTP call to a platform. */
  readonly requestTimeoutMs: number
}

/** A secret given as plain text or already redacted. */
export type Secret = string | Redacted.Redacted<string>

/**
 * What a deployment sets; everything else takes its default. Secrets may be plain strings or
 * `Redacted` values.
 */
export interface Options {
  readonly shortvideo?: Partial<Omit<TikTok.Config, "clientSecret">> & { readonly clientSecret?: Secret | undefined }
  readonly photo?: Partial<Omit<Instagram.Config, "appSecret">> & { readonly appSecret?: Secret | undefined }
  readonly pages?: Partial<Omit<FacebookPages.Config, "appSecret">> & { readonly appSecret?: Secret | undefined }
  readonly textpost?: Partial<Omit<Threads.Config, "appSecret">> & { readonly appSecret?: Secret | undefined }
  readonly retry?: Partial<Wire.RetryPolicy>
  readonly requestTimeoutMs?: number
}

/** Defaults: the platforms' production hosts, 3 attempts 10 s and 20 s apart, 30 s per call. */
export const defaults = {
  retry: { attempts: 3, baseDelayMs: 10_000 },
  requestTimeoutMs: 30_000
} as const

const redact = (secret: Secret | undefined): Redacted.Redacted<string> | undefined =>
  secret === undefined ? undefined : Redacted.isRedacted(secret) ? (secret as Redacted.Redacted<string>) : Redacted.make(secret)

/** Options of a Meta platform with its app secret redacted. */
const withAppSecret = <C extends { readonly appSecret?: Secret | undefined }>(options: C | undefined) => {
  const { appSecret, ...rest } = options ?? ({} as C)
  const value = redact(appSecret)
  return value === undefined ? rest : { ...rest, appSecret: value }
}

/** Completes options with the defaults. */
export const makeConfig = (options: Options = {}): Config => {
  const { clientSecret, ...shortvideo } = options.shortvideo ?? {}
  return {
    shortvideo: { ...TikTok.defaults, clientKey: "", ...shortvideo, clientSecret: redact(clientSecret) ?? Redacted.make("") },
    photo: { ...Instagram.defaults, ...withAppSecret(options.photo) },
    pages: { ...FacebookPages.defaults, ...withAppSecret(options.pages) },
    textpost: { ...Threads.defaults, ...withAppSecret(options.textpost) },
    retry: { ...defaults.retry, ...options.retry },
    requestTimeoutMs: options.requestTimeoutMs ?? defaults.requestTimeoutMs
  }
}

/**
 * Builds the router over the `HttpClient` in context, and the `PlatformHttp` when there is one
 * (used while the tracer is off, see `PlatformHttp`).
 */
export const make = (options: Options = {}): Effect.Effect<PlatformClient["Service"], never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const config = makeConfig(options)
    const client = yield* HttpClient.HttpClient
    const wire = Wire.make(client, {
      timeoutMs: config.requestTimeoutMs,
      retry: config.retry,
      fast: Option.getOrUndefined(yield* Effect.serviceOption(PlatformHttp))
    })
    const simulated = SimulatedPlatform.make()
    const tiktok = TikTok.make(config.shortvideo, wire)
    const instagram = Instagram.make(config.photo, wire)
    const threads = Threads.make(config.textpost, wire)
    const pages = FacebookPages.make(config.pages, wire)
    const adapters = { shortvideo: tiktok, photo: instagram, pages, textpost: threads }
    return PlatformClient.of({
      publish: (input) =>
        input.account.sandbox ? simulated.publish(input) : adapters[input.account.platform].publish(input),
      creatorInfo: (account) =>
        account.sandbox
          ? simulated.creatorInfo(account)
          : account.platform === "shortvideo"
            ? tiktok.creatorInfo(account)
            : Effect.die(new Error(`creatorInfo is a shortvideo call; account ${account.id} is ${account.platform}`)),
      // TikTok publishes before its public address exists (moderation); the others leave one
      // pending when it could not be read (or, Instagram and Threads, their media was not listed yet).
      permalink: (input) => {
        if (input.account.sandbox) return Effect.succeed({ _tag: "Never" } as const)
        switch (input.account.platform) {
          case "shortvideo":
            return tiktok.permalink(input)
          case "photo":
            return instagram.permalink(input)
          case "textpost":
            return threads.permalink(input)
          case "pages":
            return pages.permalink(input)
        }
      }
    })
  })

/** The router as a layer, on the fetch-based `HttpClient` (Node 20 and later). */
export const layer = (options: Options = {}): Layer.Layer<PlatformClient> =>
  Layer.effect(PlatformClient, make(options)).pipe(Layer.provide(FetchHttpClient.layer))

/** The router as a layer over an `HttpClient` you provide (a proxy, a custom agent, a test client). */
export const layerWithoutHttpClient = (options: Options = {}): Layer.Layer<PlatformClient, never, HttpClient.HttpClient> =>
  Layer.effect(PlatformClient, make(options))
