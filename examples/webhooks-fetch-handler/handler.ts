import {
  SIGNATURE_HEADER,
  verify,
  type WebhookEvent,
  type WebhookSecret,
  WebhookVerificationError
} from "@postwire/webhooks"

/** Options of {@link createHandler}. */
export interface HandlerOptions {
  /** The endpoint's `whsec_...` secret, or both secrets while you rotate. */
  readonly secret: WebhookSecret
  /**
   * Called once per event, after its signature is verified. Throwing answers the delivery
   * with a 500, so the service retries it later.
   */
  readonly onEvent: (event: WebhookEvent) => void | Promise<void>
}

/** A fetch-style handler, as Deno.serve, Bun.serve and Cloudflare Workers take. */
export type FetchHandler = (request: Request) => Promise<Response>

const json = (status: number, body: Record<string, unknown>, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } })

/**
 * A fetch handler that receives Postwire webhook deliveries: it verifies each one against
 * the raw body, answers 400 to deliveries it cannot trust, and hands each event to
 * `onEvent` once, however many times it is delivered.
 *
 * @example
 * ```ts
 * Deno.serve(createHandler({ secret: Deno.env.get("POSTWIRE_WEBHOOK_SECRET")!, onEvent: console.log }))
 * ```
 */
export const createHandler = ({ secret, onEvent }: HandlerOptions): FetchHandler => {
  // Event ids already handled (or being handled). Kept in memory for the example, which is
  // per isolate on edge runtimes; a real receiver records them in durable storage (a database
  // unique index, a KV namespace) to cover the service's 24 hours of retries.
  const handled = new Map<string, Promise<void>>()

  const handleOnce = (event: WebhookEvent): Promise<void> => {
    let handling = handled.get(event.id)
    if (handling === undefined) {
      handling = Promise.resolve().then(() => onEvent(event))
      handled.set(event.id, handling)
      // A failed attempt is forgotten, so that the service's retry handles the event again.
      handling.catch(() => handled.delete(event.id))
    }
    return handling
  }

  return async (request) => {
    if (request.method !== "POST") return json(405, { error: "method_not_allowed" }, { allow: "POST" })

    let event: WebhookEvent
    try {
      // The bytes, not request.json(): the signature covers the body exactly as sent.
      event = await verify(await request.arrayBuffer(), request.headers.get(SIGNATURE_HEADER), secret)
    } catch (error) {
      if (error instanceof WebhookVerificationError) return json(400, { error: error.reason })
      throw error
    }

    // The signed body's id is the same value as the SERVICE-Event-Id header, but the header
    // itself is not covered by the signature, so deduplicate on the verified id.
    const duplicate = handled.has(event.id)
    try {
      await handleOnce(event)
    } catch (error) {
      console.error("webhook delivery failed", error)
      return json(500, { error: "handler_failed" })
    }
    return json(200, { received: true, duplicate })
  }
}
