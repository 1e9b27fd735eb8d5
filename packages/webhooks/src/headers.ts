/**
 * Name of the request header that carries the delivery's signature,
 * `t=<unix seconds>,v1=<hex HMAC-SHA256>`.
 *
 * HTTP header names are case-insensitive: Node lowercases them
 * (`req.headers["service-signature"]`), `Headers.get` accepts any case.
 *
 * @example
 * ```ts
 * import { SIGNATURE_HEADER } from "@postwire/webhooks"
 *
 * const header = request.headers.get(SIGNATURE_HEADER)
 * ```
 */
export const SIGNATURE_HEADER = "SERVICE-Signature"

/**
 * Name of the request header that carries the event's `evt_` id, the same value as the
 * body's `id`. A retried delivery repeats it, so it is the key to deduplicate on.
 *
 * @example
 * ```ts
 * import { EVENT_ID_HEADER } from "@postwire/webhooks"
 *
 * const eventId = request.headers.get(EVENT_ID_HEADER) // "evt_01JD..."
 * ```
 */
export const EVENT_ID_HEADER = "SERVICE-Event-Id"
