import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it, vi } from "vitest"
import { EVENT_ID_HEADER, SIGNATURE_HEADER, sign, type WebhookEvent } from "@postwire/webhooks"
import { createReceiver, MAX_BODY_BYTES } from "./receiver.ts"

const secret = "whsec_bm9kZS1odHRwLWV4YW1wbGUtc2VjcmV0LTMyYnl0ZXM"

const aPublishedEvent = (id = "evt_01JD8XK2M3N4P5Q6R7S8T9V0W1"): WebhookEvent => ({
  id,
  type: "post.published",
  created_at: "2026-11-22T01:02:03.456Z",
  livemode: false,
  data: {
    post_id: "post_01JD8XK2M3N4P5Q6R7S8T9V0W2",
    target_id: "tgt_01JD8XK2M3N4P5Q6R7S8T9V0W3",
    platform: "textpost",
    permalink: "https://example.com/t/1",
    published_at: "2026-11-22T01:02:03.123Z"
  }
})

const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()))
})

/** Starts the receiver on a free loopback port and records every event it hands over. */
const startReceiver = async (onEvent: (event: WebhookEvent) => void | Promise<void> = () => {}) => {
  const received: Array<WebhookEvent> = []
  const server = createReceiver({
    secret,
    onEvent: async (event) => {
      received.push(event)
      await onEvent(event)
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  closers.push(() => new Promise((resolve) => server.close(() => resolve())))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}/webhooks`, received }
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

describe("node:http webhook receiver", () => {
  it("acknowledges an authentic delivery with 200 and hands its event to onEvent once", async () => {
    const receiver = await startReceiver()

    const response = await deliver(receiver.url, aPublishedEvent())

    expect(response).toEqual({ status: 200, body: { received: true, duplicate: false } })
    expect(receiver.received).toEqual([aPublishedEvent()])
  })

  it("rejects a delivery signed with another secret with 400 and does not call onEvent", async () => {
    const receiver = await startReceiver()

    const response = await deliver(receiver.url, aPublishedEvent(), "whsec_c29tZW9uZS1lbHNlcy1zZWNyZXQ")

    expect(response).toEqual({ status: 400, body: { error: "no_matching_signature" } })
    expect(receiver.received).toEqual([])
  })

  it("rejects a delivery without a signature with 400", async () => {
    const receiver = await startReceiver()

    const response = await fetch(receiver.url, { method: "POST", body: JSON.stringify(aPublishedEvent()) })

    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ error: "missing_header" })
    expect(receiver.received).toEqual([])
  })

  it("acknowledges a repeated delivery of the same event with 200 but handles it once", async () => {
    const receiver = await startReceiver()

    const first = await deliver(receiver.url, aPublishedEvent())
    const repeat = await deliver(receiver.url, aPublishedEvent())
    const other = await deliver(receiver.url, aPublishedEvent("evt_01JD8XK2M3N4P5Q6R7S8T9V0W9"))

    expect([first.status, repeat.status, other.status]).toEqual([200, 200, 200])
    expect(repeat.body).toEqual({ received: true, duplicate: true })
    expect(receiver.received.map((event) => event.id)).toEqual([
      "evt_01JD8XK2M3N4P5Q6R7S8T9V0W1",
      "evt_01JD8XK2M3N4P5Q6R7S8T9V0W9"
    ])
  })

  it("answers 500 when onEvent throws, and handles the event when the service retries", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {})
    let attempts = 0
    const receiver = await startReceiver(() => {
      attempts += 1
      if (attempts === 1) throw new Error("database unavailable")
    })

    const failed = await deliver(receiver.url, aPublishedEvent())
    const retried = await deliver(receiver.url, aPublishedEvent())

    expect(failed.status).toBe(500)
    expect(logged).toHaveBeenCalledWith("webhook delivery failed", new Error("database unavailable"))
    logged.mockRestore()
    expect(retried).toEqual({ status: 200, body: { received: true, duplicate: false } })
    expect(receiver.received).toHaveLength(2)
  })

  it("rejects a body larger than MAX_BODY_BYTES with 413", async () => {
    const receiver = await startReceiver()
    const body = "x".repeat(MAX_BODY_BYTES + 1)

    const response = await fetch(receiver.url, {
      method: "POST",
      headers: { [SIGNATURE_HEADER]: await sign(body, secret) },
      body
    })

    expect(response.status).toBe(413)
    expect(receiver.received).toEqual([])
  })

  it("answers 405 to anything but POST", async () => {
    const receiver = await startReceiver()

    const response = await fetch(receiver.url)

    expect(response.status).toBe(405)
    expect(response.headers.get("allow")).toBe("POST")
  })
})
