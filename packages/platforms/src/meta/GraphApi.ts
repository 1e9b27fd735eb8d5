/**
 * Calls to a Meta Graph API host (Instagram, Facebook Pages, Threads): the token in the
 * `access_token` parameter, `appsecret_proof` when the app secret is configured, form-encoded
 * POST bodies, and the error envelope normalized by `GraphError`.
 *
 * @since 0.1.0
 */
import { createHmac } from "node:crypto"
import type { PlatformFailure } from "@postwire/core"
import type { Platform } from "@postwire/domain"
import { Clock, Effect, Redacted } from "effect"
import { HttpClientRequest } from "effect/http"
import { retrying, type Wire, type WireResponse } from "../internal/Wire.ts"
import * as GraphError from "./GraphError.ts"

/** Parameters of a Graph call; `undefined` values are left out. */
export type GraphParams = Readonly<Record<string, string | number | boolean | undefined>>

/**
 * Which `platform_unavailable` answers a call retries by itself: `all` (reads, harmless writes),
 * `unambiguous` (a publish that cannot be looked up: a lost answer is not re-sent), or `none`
 * (the caller retries a look-up-then-publish unit as a whole).
 */
export type GraphRetry = "all" | "unambiguous" | "none"

/** A Graph API host. */
export interface GraphApi {
  /** A read. */
  readonly get: (path: string, params: GraphParams, token: string, retry?: GraphRetry) => Effect.Effect<unknown, PlatformFailure>
  /** A write. */
  readonly post: (path: string, params: GraphParams, token: string, retry?: GraphRetry) => Effect.Effect<unknown, PlatformFailure>
  /** A deletion (`DELETE /{id}`), the token in the query. */
  readonly del: (path: string, params: GraphParams, token: string, retry?: GraphRetry) => Effect.Effect<unknown, PlatformFailure>
  /** Reads a Graph answer: the JSON body on success, the normalized failure otherwise. */
  readonly interpret: (response: WireResponse) => Effect.Effect<unknown, PlatformFailure>
  readonly wire: Wire
}

/** Creates the caller of one Graph host. */
export const make = (options: {
  readonly wire: Wire
  readonly baseUrl: string
  readonly platform: Platform
  readonly appSecret?: Redacted.Redacted<string> | undefined
}): GraphApi => {
  const { wire } = options
  const base = options.baseUrl.replace(/\/+$/, "")

  /** `appsecret_proof` of the tokens in use (an HMAC per token, not per call). */
  const proofs = new Map<string, string>()
  const proofOf = (appSecret: Redacted.Redacted<string>, token: string): string => {
    let proof = proofs.get(token)
    if (proof === undefined) {
      proof = createHmac("sha256", Redacted.value(appSecret)).update(token).digest("hex")
      if (proofs.size >= 1_000) proofs.delete(proofs.keys().next().value as string)
      proofs.set(token, proof)
    }
    return proof
  }

  const withToken = (params: GraphParams, token: string): Record<string, string> => {
    const out: Record<string, string> = {}
    for (const key in params) {
      const value = params[key]
      if (value !== undefined) out[key] = String(value)
    }
    out.access_token = token
    if (options.appSecret !== undefined) out.appsecret_proof = proofOf(options.appSecret, token)
    return out
  }

  const interpret = (response: WireResponse): Effect.Effect<unknown, PlatformFailure> =>
    response.status >= 200 && response.status < 300 && GraphError.parse(response.json) === undefined
      ? Effect.succeed(response.json)
      : Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.fail(GraphError.toFailure(options.platform, response.status, response.json, { headers: response.headers, now }))
        )

  const url = (path: string) => `${base}/${path.replace(/^\/+/, "")}`

  const send = (request: HttpClientRequest.HttpClientRequest, retry: GraphRetry) => {
    const once = Effect.flatMap(wire.send(request), interpret)
    return retry === "none" ? once : once.pipe(retrying(wire.retry, { publishes: retry === "unambiguous" }))
  }

  return {
    wire,
    interpret,
    get: (path, params, token, retry = "all") =>
      send(HttpClientRequest.get(url(path)).pipe(HttpClientRequest.setUrlParams(withToken(params, token))), retry),
    post: (path, params, token, retry = "all") =>
      send(HttpClientRequest.post(url(path)).pipe(HttpClientRequest.bodyUrlParams(withToken(params, token))), retry),
    del: (path, params, token, retry = "all") =>
      send(HttpClientRequest.delete(url(path)).pipe(HttpClientRequest.setUrlParams(withToken(params, token))), retry)
  }
}
