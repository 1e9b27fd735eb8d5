/**
 * The live `MediaFetcher`: downloads URL imports over Node's HTTP client under the webhook SSRF
 * rules (`UrlSafety.checkDeliveryAddress`): every address the host resolves to must be public
 * (loopback only with `POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS=1`), the connection goes only to
 * the addresses checked, each redirect is checked again before it is followed (at most 5), and
 * the download stops past the size limit or the time limit.
 *
 * @since 0.3.0
 */
import type { ClientRequest, IncomingMessage } from "node:http"
import { request as httpRequest } from "node:http"
import { request as httpsRequest } from "node:https"
import type { LookupAddress } from "node:dns"
import { isIPv6 } from "node:net"
import { Effect, Layer, Stream } from "effect"
import {
  type FetchLimits,
  MediaFetcher,
  MediaFetchFailed,
  type MediaFailure,
  UrlSafety,
  Webhooks
} from "@postwire/core"
import { ErrorDetail } from "@postwire/domain"

const maxRedirects = 5

const failed = (detail: ReturnType<typeof ErrorDetail.reason>): MediaFetchFailed =>
  new MediaFetchFailed({ failure: { code: "invalid_url", field: "url", details: { detail } } satisfies MediaFailure })

/** Sends one GET to the checked addresses; answers the response once its headers are in. */
const get = (target: UrlSafety.DeliveryTarget, signal: AbortSignal) =>
  Effect.callback<IncomingMessage, MediaFetchFailed>((resume) => {
    const { url } = target
    const send = url.protocol === "https:" ? httpsRequest : httpRequest
    const entries: Array<LookupAddress> = target.addresses.map((address) => ({ address, family: isIPv6(address) ? 6 : 4 }))
    let req: ClientRequest
    try {
      req = send(
        {
          method: "GET",
          protocol: url.protocol,
          hostname: url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname,
          port: url.port === "" ? undefined : Number(url.port),
          path: `${url.pathname}${url.search}`,
          headers: { accept: "image/*, video/*, */*", "user-agent": "Postwire media import" },
          agent: false,
          signal,
          // The name was resolved and checked already: connect to those addresses only.
          lookup: (_hostname, options, callback) => {
            const allowed = entries.filter((entry) => !options.family || entry.family === options.family)
            if (allowed.length === 0) {
              const error: NodeJS.ErrnoException = new Error("no checked address of the requested family")
              error.code = "ENOTFOUND"
              return callback(error, "", 4)
            }
            if (options.all === true) return (callback as (e: null, all: Array<LookupAddress>) => void)(null, allowed)
            return callback(null, allowed[0]!.address, allowed[0]!.family)
          }
        },
        (response) => resume(Effect.succeed(response))
      )
    } catch {
      resume(Effect.fail(failed(ErrorDetail.reason("url_unreachable"))))
      return
    }
    req.on("error", () => resume(Effect.fail(failed(ErrorDetail.reason("url_unreachable")))))
    req.end()
  })

const checked = (url: string, allowLoopback: boolean) =>
  UrlSafety.checkDeliveryAddress(url, { allowLoopback }).pipe(
    Effect.mapError((error) => failed(Webhooks.describeUnsafeUrl(error)))
  )

/** Follows redirects, each checked again, up to the first answer that is not one. */
const open = Effect.fn("media.fetch.open")(function* (url: string, allowLoopback: boolean, signal: AbortSignal) {
  let next = url
  for (let hop = 0; hop <= maxRedirects; hop++) {
    const target = yield* checked(next, allowLoopback)
    const response = yield* get(target, signal)
    const status = response.statusCode ?? 0
    const location = response.headers.location
    if (status >= 300 && status < 400 && location !== undefined) {
      response.destroy()
      next = new URL(location, target.url).href
      continue
    }
    if (status < 200 || status >= 300) {
      response.destroy()
      return yield* failed(ErrorDetail.reason("url_answered", { status }))
    }
    return { response, url: target.url }
  }
  return yield* failed(ErrorDetail.reason("too_many_redirects", { max: maxRedirects }))
})

const lastSegment = (url: URL): string | undefined => {
  const last = url.pathname.split("/").filter((s) => s !== "").at(-1)
  return last === undefined ? undefined : last.slice(0, 255)
}

/** Downloads one URL under the limits; the body stream fails past them. */
const fetchFile = (url: string, limits: FetchLimits, allowLoopback: boolean) =>
  Effect.gen(function* () {
    const controller = new AbortController()
    const timeout = setTimeout(() => controller.abort(), limits.timeoutMs)
    const timedOut = () => failed(ErrorDetail.reason("url_timed_out", { seconds: Math.round(limits.timeoutMs / 1000) }))
    const opened = yield* open(url, allowLoopback, controller.signal).pipe(
      Effect.mapError((error) => (controller.signal.aborted ? timedOut() : error)),
      Effect.onError(() => Effect.sync(() => clearTimeout(timeout)))
    )
    const tooLarge = () => failed(ErrorDetail.reason("url_too_large", { limit: limits.maxBytes }))
    const declared = Number(opened.response.headers["content-length"])
    if (Number.isFinite(declared) && declared > limits.maxBytes) {
      clearTimeout(timeout)
      opened.response.destroy()
      return yield* tooLarge()
    }
    let received = 0
    const body = Stream.fromAsyncIterable<Uint8Array, MediaFetchFailed>(opened.response, () =>
      controller.signal.aborted ? timedOut() : failed(ErrorDetail.reason("url_unreachable"))
    ).pipe(
      Stream.mapEffect((chunk) => {
        received += chunk.length
        if (received > limits.maxBytes) {
          opened.response.destroy()
          return Effect.fail(tooLarge())
        }
        return Effect.succeed(chunk)
      }),
      Stream.ensuring(
        Effect.sync(() => {
          clearTimeout(timeout)
          opened.response.destroy()
        })
      )
    )
    return { body, name: lastSegment(opened.url) }
  })

/** The live fetcher, with the server's loopback setting and the operating system's resolver. */
export const layer: Layer.Layer<MediaFetcher, never, Webhooks.WebhookSettings | UrlSafety.Resolver> = Layer.effect(MediaFetcher)(
  Effect.gen(function* () {
    const settings = yield* Webhooks.WebhookSettings
    const resolver = yield* UrlSafety.Resolver
    return {
      fetch: (url, limits) =>
        fetchFile(url, limits, settings.allowLoopback).pipe(Effect.provideService(UrlSafety.Resolver, resolver))
    }
  })
)
