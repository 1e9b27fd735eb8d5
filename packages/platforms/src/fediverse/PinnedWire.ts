/**
 * Every call to a Mastodon server, its address checked and pinned: the name is resolved and
 * checked (`UrlSafety.checkDeliveryAddress` of `@postwire/core`, the webhooks' rules) before each
 * call, and the connection goes to an address that was checked, never to a second answer of the
 * resolver. A server's name that answered a public address at connect and answers a private or
 * loopback one later (DNS rebinding) is refused at that call, before anything is sent: the
 * connect-time check alone (`ServerAddress.checkServer`) would not stop it.
 *
 * A refused address fails the call with `platform_unavailable`, `platform_code`
 * `server_{range}` (`server_loopback`, `server_private_address`, `server_link_local`, …), not
 * retryable and `notPublished` (nothing was sent), the range named in `details.detail`; a name
 * that no longer resolves is `server_unresolvable`, retryable. Redirects are not followed (a
 * redirect to another address would escape the check); Mastodon's API does not redirect.
 *
 * @since 0.8.0
 */
import { request as httpRequest, type IncomingMessage } from "node:http"
import { request as httpsRequest } from "node:https"
import { type PlatformFailure, UrlSafety, Webhooks } from "@postwire/core"
import { ErrorDetail } from "@postwire/domain"
import { Effect } from "effect"
import type { HttpClientRequest } from "effect/http"
import { failure, fullUrl, parseJson, type Wire, type WireResponse } from "../internal/Wire.ts"

/** What the pinned wire needs. */
export interface Options {
  /** Loopback servers are reached too (development and tests; the webhooks' switch). */
  readonly allowLoopback: boolean
  /** The resolver whose answers are checked and then connected to. */
  readonly resolver: UrlSafety.Resolver["Service"]
  /** The whole call is cut off after this long; the wire's own time limit by default. */
  readonly timeoutMs?: number | undefined
}

/** The time limit of a call when neither the options nor the wire give one. */
const defaultTimeoutMs = 30_000

/** Why a call was refused before it was sent, as the target's failure. */
export const refusalOf = (error: UrlSafety.UnsafeUrl): PlatformFailure => {
  const described = Webhooks.describeUnsafeUrl(error)
  if (error.reason === "unresolvable") return failure("platform_unavailable", "server_unresolvable", { notPublished: true, details: { detail: described } })
  const range = error.reason !== "not_a_url" && error.reason !== "not_https" && error.reason !== "credentials"
  return failure("platform_unavailable", `server_${error.reason}`, {
    retryable: false,
    notPublished: true,
    details: { detail: range ? ErrorDetail.reason("fediverse_server_not_public", { range: described }) : described }
  })
}

const headersOf = (response: IncomingMessage): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(response.headers)) {
    if (typeof value === "string") out[name] = value
    else if (Array.isArray(value)) out[name] = value.join(", ")
  }
  return out
}

/** Sends one call to `url`, connecting only to `addresses` (one fresh connection: nothing pooled across names). */
const sendTo = (
  request: HttpClientRequest.HttpClientRequest,
  url: URL,
  addresses: ReadonlyArray<string>,
  timeoutMs: number
): Effect.Effect<WireResponse, PlatformFailure> =>
  Effect.callback<WireResponse, PlatformFailure>((resume) => {
    const body = request.body
    const bytes = body._tag === "Uint8Array" ? body.body : body._tag === "Empty" ? undefined : null
    if (bytes === null) {
      resume(Effect.die(new Error(`a Mastodon call's body must be bytes, not ${body._tag}`)))
      return
    }
    const headers: Record<string, string> = { accept: "*/*", "user-agent": "node", ...request.headers }
    if (bytes !== undefined) {
      headers["content-length"] = String(bytes.byteLength)
      if (body._tag === "Uint8Array" && headers["content-type"] === undefined) headers["content-type"] = body.contentType
    }
    let done = false
    const finish = (outcome: Effect.Effect<WireResponse, PlatformFailure>) => {
      if (done) return
      done = true
      clearTimeout(timer)
      resume(outcome)
    }
    const send = url.protocol === "https:" ? httpsRequest : httpRequest
    const outgoing = send(url, { method: request.method, headers, agent: false, lookup: UrlSafety.lookupAmong(addresses) }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8")
        finish(Effect.succeed({ status: response.statusCode ?? 0, text, json: parseJson(text), headers: headersOf(response) }))
      })
      response.on("error", () => finish(Effect.fail(failure("platform_unavailable", "network_error"))))
      response.on("aborted", () => finish(Effect.fail(failure("platform_unavailable", "network_error"))))
    })
    const timer = setTimeout(() => {
      finish(Effect.fail(failure("platform_unavailable", "timeout")))
      outgoing.destroy()
    }, timeoutMs)
    outgoing.on("error", () => finish(Effect.fail(failure("platform_unavailable", "network_error"))))
    outgoing.end(bytes)
    return Effect.sync(() => {
      done = true
      clearTimeout(timer)
      outgoing.destroy()
    })
  })

/**
 * The wire to Mastodon servers: each call's address checked, then sent to a checked address.
 *
 * @example
 * ```ts
 * const pinned = PinnedWire.make(wire, { allowLoopback: false, resolver: ServerAddress.systemResolver })
 * ```
 */
export const make = (wire: Wire, options: Options): Wire => ({
  retry: wire.retry,
  send: (request) =>
    Effect.gen(function* () {
      const target = yield* UrlSafety.checkDeliveryAddress(fullUrl(request), { allowLoopback: options.allowLoopback }).pipe(
        Effect.provideService(UrlSafety.Resolver, options.resolver),
        Effect.mapError(refusalOf)
      )
      return yield* sendTo(request, target.url, target.addresses, options.timeoutMs ?? wire.timeoutMs ?? defaultTimeoutMs)
    })
})
