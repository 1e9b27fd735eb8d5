/**
 * Calls to a Mastodon server's REST API: the bearer token, the error body `{"error": "..."}`
 * (https://docs.joinmastodon.org/entities/Error/) mapped into the shared failure shape, and the
 * rate limit headers `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` (an ISO
 * 8601 time; https://docs.joinmastodon.org/api/rate-limits/) turned into a retry time.
 *
 * | status | meaning (https://docs.joinmastodon.org/methods/statuses/#create) | failure |
 * |---|---|---|
 * | 401 | the token is invalid or revoked | `token_expired`, reconnect |
 * | 403 | outside the authorized scopes, or the account is suspended | `permission_missing` / `account_restricted` |
 * | 404 | record not found | `content_rejected` (`platform_code` `http_404`) |
 * | 422 | validation failed (text too long, media not processed, …) | `caption_too_long`, `media_invalid` or `content_rejected` |
 * | 429 | rate limited | `platform_unavailable` with `retryAt` from `X-RateLimit-Reset` |
 * | 5xx | the server failed | `platform_unavailable`, retried |
 *
 * @internal
 */
import type { PlatformFailure } from "@postwire/core"
import { Effect } from "effect"
import { HttpClientRequest } from "effect/http"
import { amend, failure, retrying, stringField, type Wire, type WireResponse } from "../internal/Wire.ts"
import * as Reasons from "./Reasons.ts"

/** The platform's wire word. */
export const platform = "fediverse"

/** What a call needs: the server's address (`https://host`, no trailing slash) and the token. */
export interface Session {
  readonly server: string
  readonly token: string
}

/** The epoch-ms time `X-RateLimit-Reset` names; `undefined` when absent or unreadable. */
export const resetAt = (headers: WireResponse["headers"]): number | undefined => {
  const reset = headers?.["x-ratelimit-reset"]
  if (reset === undefined) return undefined
  const at = Date.parse(reset)
  return Number.isFinite(at) ? at : undefined
}

/** The `error` text of an error body (`{"error": "..."}`), or the status. */
export const errorText = (response: WireResponse): string => stringField(response.json, "error") ?? `http_${response.status}`

/** The server's own words, for a message's `{detail}`. */
const said = (text: string) => Reasons.reason("fediverse_server_said", { value: text })

/** Whether the answer is a 2xx. */
export const ok = (response: WireResponse): boolean => response.status >= 200 && response.status < 300

/** Mastodon's refusal of text over the server's limit ("Text character limit of 500 exceeded"). */
const characterLimit = /character limit of (\d+) exceeded/i

/**
 * A refusal as a failure. `notPublished`: the server refused the status, nothing was posted
 * (every 4xx of `POST /api/v1/statuses`).
 */
export const refusal = (response: WireResponse, options: { readonly notPublished?: boolean } = {}): PlatformFailure => {
  const text = errorText(response)
  const platformCode = `http_${response.status}`
  const notPublished = options.notPublished
  switch (response.status) {
    case 401:
      return failure("token_expired", platformCode, { needsReconnect: true, notPublished, details: { detail: said(text) } })
    case 403:
      return /suspend|disabled|silenc|limited/i.test(text)
        ? failure("account_restricted", platformCode, { notPublished, retryable: false })
        : failure("permission_missing", platformCode, { notPublished })
    case 422: {
      const limit = characterLimit.exec(text)
      if (limit !== null) {
        return failure("caption_too_long", "text_character_limit", {
          notPublished,
          details: { limit: Number(limit[1]), platform }
        })
      }
      if (/media|attach|file|process/i.test(text)) {
        return failure("media_invalid", "validation_failed", { notPublished, details: { platform, detail: said(text) } })
      }
      return failure("content_rejected", "validation_failed", { notPublished, retryable: false, details: { platform, detail: said(text) } })
    }
    case 429:
      return failure("platform_unavailable", "rate_limited", {
        retryable: true,
        retryAt: resetAt(response.headers) ?? Date.now() + 60_000
      })
    default:
      if (response.status >= 500) return failure("platform_unavailable", platformCode, { retryable: true })
      return failure("content_rejected", platformCode, { notPublished, retryable: false, details: { platform, detail: said(text) } })
  }
}

/** The server part of an address: `https://host[:port]`, no path, no trailing slash. */
export const origin = (server: string): string => new URL(server).origin

const authorized = (request: HttpClientRequest.HttpClientRequest, session: Session) =>
  HttpClientRequest.bearerToken(request, session.token).pipe(HttpClientRequest.acceptJson)

/**
 * Sends a call that cannot publish (a read, a media upload, a delete): a 5xx or a lost answer is
 * retried with the wire's backoff; a refusal fails with {@link refusal}.
 */
export const call = (
  wire: Wire,
  session: Session,
  request: HttpClientRequest.HttpClientRequest,
  accept: (response: WireResponse) => boolean = ok
): Effect.Effect<WireResponse, PlatformFailure> =>
  wire.send(authorized(request, session)).pipe(
    Effect.flatMap((response) => (accept(response) ? Effect.succeed(response) : Effect.fail(refusal(response)))),
    retrying(wire.retry)
  )

/**
 * Sends a call that may publish (`POST /api/v1/statuses`): never re-sent here when its answer was
 * lost (the caller looks first); a 5xx is retried only because Mastodon's `Idempotency-Key`
 * makes the same call return the status already made.
 */
export const publishing = (
  wire: Wire,
  session: Session,
  request: HttpClientRequest.HttpClientRequest
): Effect.Effect<WireResponse, PlatformFailure> =>
  wire.send(authorized(request, session)).pipe(
    Effect.flatMap((response) => (ok(response) ? Effect.succeed(response) : Effect.fail(refusal(response, { notPublished: response.status < 500 && response.status !== 429 })))),
    retrying(wire.retry, { publishes: true })
  )

/** `GET {server}{path}` with query parameters. */
export const get = (session: Session, path: string, params: Readonly<Record<string, string>> = {}) =>
  HttpClientRequest.get(`${session.server}${path}`).pipe(HttpClientRequest.setUrlParams(params))

/** Form fields as `application/x-www-form-urlencoded`; an array repeats its key (`media_ids[]`). */
export const form = (fields: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>): URLSearchParams => {
  const body = new URLSearchParams()
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue
    if (typeof value === "string") body.append(key, value)
    else for (const item of value) body.append(key, item)
  }
  return body
}

/** `POST {server}{path}` with form fields. */
export const post = (session: Session, path: string, fields: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>) =>
  HttpClientRequest.post(`${session.server}${path}`).pipe(
    HttpClientRequest.bodyText(form(fields).toString(), "application/x-www-form-urlencoded")
  )

/** Strips a status's HTML `content` to its text (paragraphs and line breaks as new lines). */
export const plainText = (html: string): string =>
  html
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<\/p>\s*<p>/gi, "\n\n")
    .replace(/<[^>]*>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&")
    .trim()

/** The failure with the resume state to persist (a publish that may have happened). */
export const withState = (f: PlatformFailure, state: unknown): PlatformFailure => amend(f, { state })
