/**
 * The `CommentPlatform` of a running service: sandbox accounts go to the sandbox implementation
 * given as a parameter (the simulated platform's comments), every other account to the comment
 * adapter of its platform: Instagram, Facebook Pages, Threads, and TikTok (which has none).
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
import { type CommentCapabilities, CommentPlatform } from "@postwire/core"
import { Comment, type Platform } from "@postwire/domain"
import { Effect, Layer, Option } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import { PlatformHttp } from "../PlatformHttp.ts"
import * as GraphApi from "../meta/GraphApi.ts"
import * as Sessions from "../meta/Sessions.ts"
import * as Wire from "../internal/Wire.ts"
import * as PlatformRouter from "../PlatformRouter.ts"
import * as CommentAdapter from "./CommentAdapter.ts"
import * as FacebookComments from "../facebook/FacebookComments.ts"
import * as InstagramComments from "../instagram/InstagramComments.ts"
import * as ThreadsComments from "../threads/ThreadsComments.ts"
import * as TikTokComments from "../tiktok/TikTokComments.ts"

/** The publishing adapters' settings, plus the comment polling budget. */
export interface Options extends PlatformRouter.Options {
  readonly comments?: Partial<CommentAdapter.Config> | undefined
}

/**
 * What serves sandbox accounts: the same operations as a platform's. `capabilities`, when given,
 * answers for sandbox accounts; otherwise the domain's (everything but `push`).
 */
export type SandboxComments = CommentAdapter.CommentOperations & {
  readonly capabilities?: ((platform: Platform) => CommentCapabilities) | undefined
}

/** The adapters of the four platforms, built from the settings. */
export const adapters = (
  options: Options,
  wire: Wire.Wire
): Readonly<Record<Platform, CommentAdapter.CommentAdapter>> => {
  const config = PlatformRouter.makeConfig(options)
  const comments: CommentAdapter.Config = { ...CommentAdapter.defaults, ...options.comments }
  const photoGraph = GraphApi.make({ wire, baseUrl: config.photo.baseUrl, platform: "photo", appSecret: config.photo.appSecret })
  const threadsGraph = GraphApi.make({
    wire,
    baseUrl: config.textpost.baseUrl,
    platform: "textpost",
    appSecret: config.textpost.appSecret
  })
  const pagesGraph = GraphApi.make({ wire, baseUrl: config.pages.baseUrl, platform: "pages", appSecret: config.pages.appSecret })
  return {
    photo: InstagramComments.make({
      graph: photoGraph,
      config: comments,
      openSession: Sessions.longLived({
        platform: "photo",
        graph: photoGraph,
        wire,
        refreshUrl: config.photo.refreshUrl,
        refreshWithinMs: config.photo.refreshWithinMs,
        refreshGrantType: "ig_refresh_token"
      })
    }),
    textpost: ThreadsComments.make({
      graph: threadsGraph,
      config: comments,
      openSession: Sessions.longLived({
        platform: "textpost",
        graph: threadsGraph,
        wire,
        refreshUrl: config.textpost.refreshUrl,
        refreshWithinMs: config.textpost.refreshWithinMs,
        refreshGrantType: "th_refresh_token"
      })
    }),
    pages: FacebookComments.make({ graph: pagesGraph, config: comments, openSession: Sessions.page(pagesGraph) }),
    shortvideo: TikTokComments.adapter
  }
}

/** Builds the router over the `HttpClient` in context. */
export const make = (
  options: Options,
  sandbox: SandboxComments
): Effect.Effect<CommentPlatform["Service"], never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const config = PlatformRouter.makeConfig(options)
    const client = yield* HttpClient.HttpClient
    const wire = Wire.make(client, {
      timeoutMs: config.requestTimeoutMs,
      retry: config.retry,
      fast: Option.getOrUndefined(yield* Effect.serviceOption(PlatformHttp))
    })
    const real = adapters(options, wire)
    const of = (account: { readonly platform: Platform; readonly sandbox: boolean }): CommentAdapter.CommentOperations =>
      account.sandbox ? sandbox : real[account.platform]
    return CommentPlatform.of({
      capabilities: (platform, isSandbox) =>
        isSandbox
          ? (sandbox.capabilities?.(platform) ?? Comment.commentCapabilities(platform, true))
          : Comment.commentCapabilities(platform, false),
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
