/**
 * A webhook receiver as a Postwire user would write one: a node:http server on loopback that
 * verifies every delivery with `@postwire/webhooks`, answers 400 to what does not verify, and
 * handles each event once, deduplicating on `SERVICE-Event-Id`.
 */
import { createServer, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { EVENT_ID_HEADER, SIGNATURE_HEADER, verify, WebhookVerificationError, type WebhookEvent } from "@postwire/webhooks"
import { eventually } from "../support/Eventually.ts"

/** How the receiver answers an authentic delivery: a status, or `"hold"` to never answer. */
export type Mode = number | "hold"

/** A delivery as it arrived, before any check: what a verifier (ours, or Stripe's) gets. */
export interface RawDelivery {
  readonly body: string
  readonly signature: string | undefined
  readonly eventId: string | undefined
}

/** A running receiver. */
export interface Receiver {
  /** Where to register it: `http://127.0.0.1:<port>/postwire`. */
  readonly url: string
  /** The endpoint's secret (or secrets, during a rotation), once the endpoint is registered. */
  secret: string | ReadonlyArray<string> | undefined
  /** How it answers authentic deliveries from now on (default 204). */
  mode: Mode
  /** The body of its answers (default empty). */
  answerBody: string
  /** The replay check's current time, in unix seconds (default: the real clock), for servers on a moved clock. */
  now: (() => number) | undefined
  /** Every request, verified or not, as it arrived. */
  readonly raw: Array<RawDelivery>
  /** Every authentic event, once each, in the order first received. */
  readonly events: Array<WebhookEvent>
  /** Authentic deliveries received, duplicates included. */
  readonly deliveries: () => number
  /** Deliveries refused, with `verify`'s reason. */
  readonly rejected: Array<string>
  /** Waits until `done` holds (checked on every delivery and every 50 ms); fails after `timeoutMs`. */
  readonly waitUntil: (done: () => boolean, what: string, timeoutMs?: number) => Promise<void>
  readonly close: () => Promise<void>
}

/** The resource an event is about: its `post_id`, else its `account_id`. */
export const subjectOf = (event: WebhookEvent): string => {
  const data = event.data as Readonly<Record<string, unknown>>
  return String(data.post_id ?? data.account_id)
}

/** Starts a receiver on a random loopback port. */
export const aReceiver = async (): Promise<Receiver> => {
  const events: Array<WebhookEvent> = []
  const seen = new Set<string>()
  const rejected: Array<string> = []
  const held = new Set<ServerResponse>()
  let deliveries = 0

  const server = createServer(async (req, res) => {
    const chunks: Array<Buffer> = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const signature = req.headers[SIGNATURE_HEADER.toLowerCase()] as string | undefined
    receiver.raw.push({
      body: Buffer.concat(chunks).toString("utf8"),
      signature,
      eventId: req.headers[EVENT_ID_HEADER.toLowerCase()] as string | undefined
    })
    let event: WebhookEvent
    try {
      if (receiver.secret === undefined) throw new WebhookVerificationError("no_matching_signature", "no secret yet")
      event = await verify(
        Buffer.concat(chunks),
        signature,
        receiver.secret,
        receiver.now === undefined ? {} : { now: receiver.now }
      )
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error
      rejected.push(error.reason)
      res.writeHead(400).end()
      return
    }
    deliveries++
    if (req.headers[EVENT_ID_HEADER.toLowerCase()] !== event.id) {
      rejected.push("event_id_mismatch")
      res.writeHead(400).end()
      return
    }
    if (receiver.mode === "hold") {
      held.add(res)
      res.on("close", () => held.delete(res))
      return
    }
    if (receiver.mode >= 200 && receiver.mode < 300 && !seen.has(event.id)) {
      seen.add(event.id)
      events.push(event)
    }
    res.writeHead(receiver.mode).end(receiver.answerBody)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo

  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}/postwire`,
    secret: undefined,
    mode: 204,
    answerBody: "",
    now: undefined,
    raw: [],
    events,
    deliveries: () => deliveries,
    rejected,
    waitUntil: async (done, what, timeoutMs = 30_000) => {
      await eventually(
        () => ({ done: done(), received: events.map((event) => event.type), rejected: [...rejected] }),
        (state) => state.done,
        what,
        { withinMs: timeoutMs }
      )
    },

    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
  return receiver
}
