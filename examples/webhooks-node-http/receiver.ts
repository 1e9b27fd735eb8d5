import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import {
  SIGNATURE_HEADER,
  verify,
  type WebhookEvent,
  type WebhookSecret,
  WebhookVerificationError
} from "@postwire/webhooks"

/** Options of {@link createReceiver}. */
export interface ReceiverOptions {
  /** The endpoint's `whsec_...` secret, or both secrets while you rotate. */
  readonly secret: WebhookSecret
  /**
   * Called once per event, after its signature is verified. Throwing answers the delivery
   * with a 500, so the service retries it later.
   */
  readonly onEvent: (event: WebhookEvent) => void | Promise<void>
}

/** Deliveries are a few kilobytes; anything far larger is not from the service. */
export const MAX_BODY_BYTES = 1024 * 1024

/**
 * A node:http server that receives Postwire webhook deliveries on any path: it verifies each
 * one against the raw body, answers 400 to deliveries it cannot trust, and hands each event
 * to `onEvent` once, however many times it is delivered.
 *
 * @example
 * ```ts
 * createReceiver({ secret: process.env.POSTWIRE_WEBHOOK_SECRET!, onEvent: console.log }).listen(3000)
 * ```
 */
export const createReceiver = ({ secret, onEvent }: ReceiverOptions): Server => {
  // Event ids already handled (or being handled). Kept in memory for the example; a real
  // receiver records them in its database (a unique index on the id), so that they survive
  // restarts, are shared by every instance, and cover the service's 24 hours of retries.
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

  const receiveDelivery = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (request.method !== "POST") return reply(response, 405, { error: "method_not_allowed" }, { allow: "POST" })

    const body = await readBody(request)
    if (body === undefined) return reply(response, 413, { error: "body_too_large" })

    let event: WebhookEvent
    try {
      // Node lowercases header names; the signature covers the body exactly as received.
      event = await verify(body, request.headers[SIGNATURE_HEADER.toLowerCase()], secret)
    } catch (error) {
      if (error instanceof WebhookVerificationError) return reply(response, 400, { error: error.reason })
      throw error
    }

    // The signed body's id is the same value as the SERVICE-Event-Id header, but the header
    // itself is not covered by the signature, so deduplicate on the verified id.
    const duplicate = handled.has(event.id)
    await handleOnce(event)
    reply(response, 200, { received: true, duplicate })
  }

  return createServer((request, response) => {
    receiveDelivery(request, response).catch((error: unknown) => {
      console.error("webhook delivery failed", error)
      if (!response.headersSent) reply(response, 500, { error: "handler_failed" })
    })
  })
}

/** The whole body as bytes, or `undefined` when it exceeds {@link MAX_BODY_BYTES}. */
const readBody = async (request: IncomingMessage): Promise<Buffer | undefined> => {
  const chunks: Array<Buffer> = []
  let size = 0
  // Read to the end even when too large, so that the 413 reaches the sender.
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size <= MAX_BODY_BYTES) chunks.push(chunk)
  }
  return size <= MAX_BODY_BYTES ? Buffer.concat(chunks) : undefined
}

const reply = (
  response: ServerResponse,
  status: number,
  body: Record<string, unknown>,
  headers: Record<string, string> = {}
): void => {
  response.writeHead(status, { "content-type": "application/json", ...headers })
  response.end(JSON.stringify(body))
}
