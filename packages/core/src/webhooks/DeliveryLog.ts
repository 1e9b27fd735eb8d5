/**
 * The delivery log of an endpoint: every delivery with every attempt (its time, duration, the
 * answer's status and first KB, the error as stored data, the next attempt), and
 * redelivery, which sends a delivery's event again now, whatever its status, as one more
 * attempt in the log.
 *
 * @since 0.1.0
 */
import type { Ids as Id } from "@postwire/domain"
import { Effect, Option } from "effect"
import { defaultPageSize, ErrorDetail, parseInstant, PostwireError, type Webhook } from "@postwire/domain"
import type { Caller } from "../Caller.ts"
import { EngineConfig } from "../EngineConfig.ts"
import { decodeCursor, encodeCursor, filterDigest } from "../posts/Cursor.ts"
import type { Keyset } from "../store/Keyset.ts"
import { CredentialsCipher } from "../secrets/CredentialsCipher.ts"
import { deliverEvent, eventBody, refuseTestKeyInLiveWorkspace, storedError } from "./Webhooks.ts"
import { type DeliveryDetail, type DeliveryLogEntry, type WebhookDeliveryRecord, WebhookStore } from "./WebhookStore.ts"

const now = Effect.clockWith((clock) => clock.currentTimeMillis)

const endpointNotFound = () =>
  new PostwireError({ code: "not_found", details: { resource: ErrorDetail.resource("webhook_endpoint") } })
const deliveryNotFound = () =>
  new PostwireError({ code: "not_found", details: { resource: ErrorDetail.resource("webhook_delivery") } })

/** The `lastError` of a delivery given up because its endpoint was disabled. */
const endpointDisabled = "endpoint_disabled"

/** Why a delivery was given up (`null` while it is not): its endpoint was disabled, or its retries ran out. */
export const givenUpReason = (delivery: WebhookDeliveryRecord): "endpoint_disabled" | "retries_exhausted" | null =>
  delivery.status !== "dead" ? null : delivery.lastError === endpointDisabled ? "endpoint_disabled" : "retries_exhausted"

/** A page of the delivery log: each delivery with its latest attempt (the server renders it). */
export interface DeliveryPage {
  readonly data: ReadonlyArray<DeliveryLogEntry>
  readonly cursor: { readonly next: string | null; readonly has_more: boolean }
}

/**
 * Checks a `from`/`to` range: `to` after `from`, and no longer than the longest range a list
 * allows; `invalid_range` naming `to` otherwise.
 */
export const checkRange = Effect.fn("lists.checkRange")(function* (from: string | undefined, to: string | undefined) {
  const settings = yield* EngineConfig
  const start = from === undefined ? undefined : parseInstant(from)
  const end = to === undefined ? undefined : parseInstant(to)
  if (start !== undefined && end !== undefined) {
    if (end <= start) {
      return yield* new PostwireError({ code: "invalid_range", field: "to", details: { detail: ErrorDetail.reason("range_order") } })
    }
    if (end - start > settings.maxRangeMs) {
      return yield* new PostwireError({
        code: "invalid_range",
        field: "to",
        details: { detail: ErrorDetail.reason("range_too_long", { days: Math.round(settings.maxRangeMs / 86_400_000) }) }
      })
    }
  }
  return { from: start, to: end }
})

/** Reads a cursor for `digest`, or fails with `invalid_cursor`. */
export const readCursor = Effect.fn("lists.readCursor")(function* (cursor: string | undefined, digest: string) {
  if (cursor === undefined) return undefined
  const settings = yield* EngineConfig
  const decoded = decodeCursor(settings.keyring, cursor, digest, yield* now, settings.cursorTtlMs)
  if (Option.isNone(decoded)) return yield* new PostwireError({ code: "invalid_cursor", field: "cursor" })
  return decoded.value satisfies Keyset
})

/**
 * An endpoint's deliveries, newest first, each with its latest attempt; filtered by `status`,
 * `event_type` and a `from`/`to` range on when the delivery was created.
 */
export const listDeliveries = Effect.fn("webhooks.deliveries.list")(function* (
  caller: Caller,
  endpointId: Id.WebhookId,
  query: Webhook.ListDeliveriesQuery
) {
  const store = yield* WebhookStore
  const settings = yield* EngineConfig
  const range = yield* checkRange(query.from, query.to)
  if (Option.isNone(yield* store.getEndpoint(caller.workspaceId, endpointId))) return yield* endpointNotFound()
  yield* refuseTestKeyInLiveWorkspace(caller)
  const filter = {
    status: query.status === undefined ? undefined : query.status === "failed" ? ("dead" as const) : query.status,
    eventType: query.event_type,
    from: range.from,
    to: range.to
  }
  const digest = filterDigest(`deliveries:${caller.workspaceId}:${endpointId}`, filter)
  const after = yield* readCursor(query.cursor, digest)
  const limit = query.limit ?? defaultPageSize
  const rows = yield* store.listDeliveryLog(caller.workspaceId, endpointId, filter, after, limit + 1)
  const page = rows.slice(0, limit)
  const last = page[page.length - 1]
  const hasMore = rows.length > limit && last !== undefined
  const at = yield* now
  return {
    data: page,
    cursor: {
      next: hasMore ? encodeCursor(settings.keyring, { sortKey: last.delivery.createdAt, id: last.delivery.id }, digest, at) : null,
      has_more: hasMore
    }
  } satisfies DeliveryPage
})

/** One delivery of an endpoint with its attempts, newest first. */
export const getDelivery = Effect.fn("webhooks.deliveries.get")(function* (
  caller: Caller,
  endpointId: Id.WebhookId,
  deliveryId: Id.DeliveryId
) {
  const store = yield* WebhookStore
  if (Option.isNone(yield* store.getEndpoint(caller.workspaceId, endpointId))) return yield* endpointNotFound()
  yield* refuseTestKeyInLiveWorkspace(caller)
  const found = yield* store.getDelivery(caller.workspaceId, endpointId, deliveryId)
  if (Option.isNone(found)) return yield* deliveryNotFound()
  return found.value satisfies DeliveryDetail
})

/**
 * Sends a delivery's event to its endpoint again now, whatever the delivery's status (and
 * whether or not the endpoint is disabled): the same `SERVICE-Event-Id` and body, a fresh
 * signature and timestamp. The attempt joins the log; a success marks the delivery delivered
 * and cancels its remaining retries. Answers with the delivery and its attempts.
 *
 * @example
 * ```ts
 * const detail = yield* DeliveryLog.redeliver(caller, "wh_…", "dlv_…")
 * detail.attempts[0].redelivery // true
 * ```
 */
export const redeliver = Effect.fn("webhooks.deliveries.redeliver")(function* (
  caller: Caller,
  endpointId: Id.WebhookId,
  deliveryId: Id.DeliveryId
) {
  const store = yield* WebhookStore
  const endpoint = yield* store.getEndpoint(caller.workspaceId, endpointId)
  if (Option.isNone(endpoint)) return yield* endpointNotFound()
  yield* refuseTestKeyInLiveWorkspace(caller)
  const found = yield* store.getDelivery(caller.workspaceId, endpointId, deliveryId)
  if (Option.isNone(found)) return yield* deliveryNotFound()
  const { delivery } = found.value
  const event = yield* store.getEvent(caller.workspaceId, delivery.eventId)
  if (Option.isNone(event)) return yield* deliveryNotFound()
  const attempt = yield* deliverEvent(endpoint.value, event.value.id, eventBody(event.value, yield* CredentialsCipher, endpoint.value))
  const recorded = yield* store.recordRedelivery(
    { workspaceId: caller.workspaceId, endpointId, eventId: delivery.eventId },
    {
      at: attempt.at,
      delivered: attempt.delivered,
      durationMs: attempt.durationMs,
      statusCode: attempt.statusCode,
      responseBody: attempt.responseBody,
      error: attempt.failure === null ? null : storedError(attempt.failure)
    }
  )
  if (Option.isNone(recorded)) return yield* deliveryNotFound()
  return recorded.value satisfies DeliveryDetail
})
