import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it, vi } from "vitest"
import { EVENT_ID_HEADER, SIGNATURE_HEADER, sign, type WebhookEvent } from "@postwire/webhooks"
import { createHandler, type FetchHandler } from "./handler.ts"

const secret = "whsec_ZmV0Y2gtaGFuZGxlci1leGFtcGxlLXNlY3JldC0zMmI"

const aFailedEvent = (id = "evt_01JD8XK2M3N4P5Q6R7S8T9V0W4"): WebhookEvent => ({
  id,
  type: "post.failed",
  created_at: "2026-11-22T01:02:03.456Z",
  livemode: true,
  data: {
    post_id: "post_01JD8XK2M3N4P5Q6R7S8T9V0W2",
    target_id: "tgt_01JD8XK2M3N4P5Q6R7S8T9V0W5",
    platform: "pages",
    error: {
      code: "rate_limited",
      message: "The platform is limiting requests; the target will be retried.",
      message_id: "Platform membatasi permintaan; target akan dicoba lagi.",
      retryable: true,
      docs: "https://postwire.dev/docs/errors#rate_limited"
    }
  }
})

const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()))
})

/**
 * Serves a fetch handler on a free loopback port through node:http, the way Deno.serve or
 * Bun.serve would: each request becomes a `Request`, each `Response` is written back.
 */
const serve = async (handler: FetchHandler): Promise<string> => {
  const server = createServer(async (incoming, outgoing) => {
    const chunks: Array<Buffer> = []
    for await (const chunk of incoming as AsyncIterable<Buffer>) chunks.push(chunk)
    const headers = new Headers()
    for (let i = 0; i < incoming.rawHeaders.length; i += 2) {
      headers.append(incoming.rawHeaders[i]!, incoming.rawHeaders[i + 1]!)
    }
    const hasBody = incoming.method !== "GET" && incoming.method !== "HEAD"
    const request = new Request(`http://${incoming.headers.host}${incoming.url}`, {
      method: incoming.method!,
      headers,
      ...(hasBody ? { body: Buffer.concat(chunks) } : {})
    })
    const response = await handler(request)
    outgoing.writeHead(response.status, Object.fromEntries(response.headers))
    outgoing.end(Buffer.from(await response.arrayBuffer()))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  closers.push(() => new Promise((resolve) => server.close(() => resolve())))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`
}

/** Starts the handler and records every event it hands over. */
const startHandler = async (onEvent: (event: WebhookEvent) => void | Promise<void> = () => {}) => {
  const received: Array<WebhookEvent> = []
  const url = await serve(
    createHandler({
      secret,
      onEvent: async (event) => {
        received.push(event)
        await onEvent(event)
      }
    })
  )
  return { url, received }
}

/** POSTs a body as the service does: signed with `signWith`, carrying the event id header. */
const deliver = async (url: string, event: WebhookEvent, signWith: string = secret) => {
  const body = JSON.stringify(event)
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      [SIGNATURE_HEADER]: await sign(body, signWith),
      [EVENT_ID_HEADER]: event.id
    },
    body
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

describe("fetch webhook handler", () => {
  it("acknowledges an authentic delivery with 200 and hands its event to onEvent once", async () => {
    const handler = await startHandler()

    const response = await deliver(handler.url, aFailedEvent())

    expect(response).toEqual({ status: 200, body: { received: true, duplicate: false } })
    expect(handler.received).toEqual([aFailedEvent()])
  })

  it("rejects a delivery signed with another secret with 400 and does not call onEvent", async () => {
    const handler = await startHandler()

    const response = await deliver(handler.url, aFailedEvent(), "whsec_c29tZW9uZS1lbHNlcy1zZWNyZXQ")

    expect(response).toEqual({ status: 400, body: { error: "no_matching_signature" } })
    expect(handler.received).toEqual([])
  })

  it("rejects a delivery whose body was changed after signing with 400", async () => {
    const handler = await startHandler()
    const signed = JSON.stringify(aFailedEvent())

    const response = await fetch(handler.url, {
      method: "POST",
      headers: { [SIGNATURE_HEADER]: await sign(signed, secret) },
      body: signed.replace('"retryable":true', '"retryable":false')
    })

    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ error: "no_matching_signature" })
    expect(handler.received).toEqual([])
  })

  it("acknowledges a repeated delivery of the same event with 200 but handles it once", async () => {
    const handler = await startHandler()

    const first = await deliver(handler.url, aFailedEvent())
    const repeat = await deliver(handler.url, aFailedEvent())
    const other = await deliver(handler.url, aFailedEvent("evt_01JD8XK2M3N4P5Q6R7S8T9V0W8"))

    expect([first.status, repeat.status, other.status]).toEqual([200, 200, 200])
    expect(repeat.body).toEqual({ received: true, duplicate: true })
    expect(handler.received.map((event) => event.id)).toEqual([
      "evt_01JD8XK2M3N4P5Q6R7S8T9V0W4",
      "evt_01JD8XK2M3N4P5Q6R7S8T9V0W8"
    ])
  })

  it("answers 500 when onEvent throws, and handles the event when the service retries", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {})
    let attempts = 0
    const handler = await startHandler(() => {
      attempts += 1
      if (attempts === 1) throw new Error("queue unavailable")
    })

    const failed = await deliver(handler.url, aFailedEvent())
    const retried = await deliver(handler.url, aFailedEvent())

    expect(failed.status).toBe(500)
    expect(logged).toHaveBeenCalledWith("webhook delivery failed", new Error("queue unavailable"))
    logged.mockRestore()
    expect(retried).toEqual({ status: 200, body: { received: true, duplicate: false } })
    expect(handler.received).toHaveLength(2)
  })

  it("answers 405 to anything but POST", async () => {
    const handler = await startHandler()

    const response = await fetch(handler.url)

    expect(response.status).toBe(405)
    expect(response.headers.get("allow")).toBe("POST")
  })
})
