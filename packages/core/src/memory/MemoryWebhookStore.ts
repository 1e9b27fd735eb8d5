/**
 * The `WebhookStore` in memory, over the tables of the in-memory `Store` (`MemoryState`), so
 * it fans out the very events the `Store` writes. Every method reads and writes in one
 * synchronous step, which makes it atomic without locks, like the SQL version's transactions.
 *
 * @since 0.1.0
 */
import { Effect, Layer, Option } from "effect"
import { MemoryState, type MemoryTables, rowKey } from "./MemoryState.ts"
import type { OutboxEvent } from "../store/Outbox.ts"
import type { Keyset } from "../store/Keyset.ts"
import { StoreError } from "../store/StoreError.ts"
import {
  type AttemptOutcome,
  type AttemptRecord,
  type AttemptRecorded,
  type ClaimedDelivery,
  type DeliveryDetail,
  type DeliveryKey,
  deliveryIdOf,
  type EndpointChange,
  inTimeOrder,
  maxAttemptsShown,
  type WebhookDeliveryRecord,
  type WebhookEndpointRecord,
  WebhookStore,
  type WebhookStoreShape
} from "../webhooks/WebhookStore.ts"

const deliveryKey = (key: DeliveryKey) => rowKey(key.workspaceId, key.endpointId, key.eventId)

const compareDesc = (a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0)

/** After `after` in a `(sortKey desc, id desc)` order. */
const isAfter = (sortKey: number, id: string, after: Keyset | undefined) =>
  after === undefined || sortKey < after.sortKey || (sortKey === after.sortKey && id < after.id)

const isDue = (delivery: WebhookDeliveryRecord, at: number) =>
  delivery.status === "pending" &&
  delivery.nextAttemptAt !== null &&
  delivery.nextAttemptAt <= at &&
  (delivery.leaseUntil === null || delivery.leaseUntil <= at)

/** Builds a `WebhookStore` over the tables of an in-memory `Store`. */
export const make = (tables: MemoryTables): WebhookStoreShape => {
  const webhookTables = tables
  const { attempts, deliveries, endpoints, fannedOut, pendingDeliveries: pending } = tables
  const { events } = tables

  // Events by workspace and id, filled as they are fanned out (or first looked up) and emptied
  // as they are pruned, so a claim finds its event without scanning the workspace's outbox.
  const eventIndex = new Map<string, OutboxEvent>()
  const eventKey = (workspaceId: string, id: string) => `${workspaceId}\u0000${id}`
  const findEvent = (workspaceId: string, id: string): OutboxEvent | undefined => {
    const k = eventKey(workspaceId, id)
    const indexed = eventIndex.get(k)
    if (indexed !== undefined) return indexed
    const found = events.get(workspaceId)?.find((event) => event.id === id)
    if (found !== undefined) eventIndex.set(k, found)
    return found
  }

  const detailOf = (k: string): DeliveryDetail => ({
    delivery: deliveries.get(k)!,
    attempts: [...(attempts.get(k) ?? [])].reverse().slice(0, maxAttemptsShown)
  })

  const logAttempt = (k: string, attempt: AttemptRecord) => {
    const list = attempts.get(k)
    if (list === undefined) attempts.set(k, [attempt])
    else list.push(attempt)
  }

  const giveUpPending = (workspaceId: string, endpointId: string) => {
    for (const k of [...pending]) {
      const other = deliveries.get(k)!
      if (other.workspaceId === workspaceId && other.endpointId === endpointId) {
        put({ ...other, status: "dead", nextAttemptAt: null, lastError: "endpoint_disabled", leaseOwner: null, leaseUntil: null })
      }
    }
  }

  const applyChange = (endpoint: WebhookEndpointRecord, change: EndpointChange, at: number): WebhookEndpointRecord => {
    let next: WebhookEndpointRecord = {
      ...endpoint,
      ...(change.url === undefined ? {} : { url: change.url }),
      ...(change.events === undefined ? {} : { events: change.events }),
      ...(change.hideApprovalLinks === true ? { approvalLinks: "hidden" as const } : {})
    }
    if (change.rotateSecret !== undefined) {
      const keepsPrevious = change.rotateSecret.previousExpiresAt > at
      next = {
        ...next,
        secret: change.rotateSecret.secret,
        previousSecret: keepsPrevious ? endpoint.secret : null,
        previousSecretExpiresAt: keepsPrevious ? change.rotateSecret.previousExpiresAt : null
      }
    }
    if (change.enable === true && !next.active) {
      next = { ...next, active: true, disabledReason: null, disabledAt: null, failingSince: null, subscribedFrom: at }
    }
    if (change.disable !== undefined && next.active) {
      next = { ...next, active: false, disabledReason: change.disable, disabledAt: at }
      giveUpPending(endpoint.workspaceId, endpoint.id)
    }
    return next
  }

  const appendNotice = (event: OutboxEvent) => tables.appendEvents([event])

  const put = (delivery: WebhookDeliveryRecord) => {
    const k = deliveryKey(delivery)
    deliveries.set(k, delivery)
    if (delivery.status === "pending") pending.add(k)
    else pending.delete(k)
  }

  const fanOut = (event: OutboxEvent, at: number) => {
    for (const endpoint of endpoints.all(event.workspaceId)) {
      if (!endpoint.active || !endpoint.events.includes(event.type) || endpoint.subscribedFrom > event.createdAt) continue
      if (event.type === "webhook_endpoint.disabled" && event.data.endpoint_id === endpoint.id) continue
      const key = { workspaceId: event.workspaceId, endpointId: endpoint.id, eventId: event.id }
      if (deliveries.has(deliveryKey(key))) continue
      put({
        id: deliveryIdOf(endpoint.id, event.id),
        ...key,
        eventType: event.type,
        status: "pending",
        attempts: 0,
        firstAttemptAt: null,
        lastAttemptAt: null,
        nextAttemptAt: at,
        lastStatusCode: null,
        lastError: null,
        leaseOwner: null,
        leaseUntil: null,
        createdAt: at
      })
    }
  }

  const recordOne = (key: DeliveryKey, owner: string, outcome: AttemptOutcome): AttemptRecorded => {
    const delivery = deliveries.get(deliveryKey(key))
    const endpoint = endpoints.get(key.workspaceId, key.endpointId)
    if (delivery === undefined || endpoint === undefined || delivery.status !== "pending" || delivery.leaseOwner !== owner) {
      return { recorded: false, endpointDisabled: false }
    }
    const k = deliveryKey(key)
    logAttempt(k, {
      number: delivery.attempts + 1,
      at: outcome.at,
      durationMs: outcome.attempt?.durationMs ?? 0,
      statusCode: outcome.statusCode,
      responseBody: outcome.attempt?.responseBody ?? null,
      error: outcome.attempt?.error ?? null,
      redelivery: false
    })
    put({
      ...delivery,
      status: outcome.result === "retry" ? "pending" : outcome.result,
      attempts: delivery.attempts + 1,
      firstAttemptAt: delivery.firstAttemptAt ?? outcome.at,
      lastAttemptAt: outcome.at,
      nextAttemptAt: outcome.result === "retry" ? outcome.nextAttemptAt : null,
      lastStatusCode: outcome.statusCode,
      lastError: outcome.error,
      leaseOwner: null,
      leaseUntil: null
    })
    if (outcome.result === "delivered") {
      endpoints.put({
        ...endpoint,
        lastSuccessAt: Math.max(endpoint.lastSuccessAt ?? outcome.at, outcome.at),
        failingSince: null
      })
      return { recorded: true, endpointDisabled: false }
    }
    const failing = { ...endpoint, failingSince: endpoint.failingSince ?? outcome.at }
    endpoints.put(failing)
    const since = outcome.disableIfFailingSince
    if (outcome.result !== "dead" || since === undefined || !failing.active || failing.failingSince > since) {
      return { recorded: true, endpointDisabled: false }
    }
    endpoints.put({ ...failing, active: false, disabledReason: "delivery_failed", disabledAt: outcome.at })
    giveUpPending(key.workspaceId, key.endpointId)
    if (outcome.disabledNotice !== undefined) appendNotice(outcome.disabledNotice)
    return { recorded: true, endpointDisabled: true }
  }

  return {
    createEndpoint: (endpoint) =>
      Effect.suspend(() => {
        if (endpoints.get(endpoint.workspaceId, endpoint.id) !== undefined) {
          return Effect.fail(new StoreError({ operation: "createEndpoint", cause: new Error(`duplicate key ${endpoint.id}`) }))
        }
        endpoints.put(endpoint)
        return Effect.void
      }),

    getEndpoint: (workspaceId, id) => Effect.sync(() => Option.fromNullishOr(endpoints.get(workspaceId, id))),

    listEndpoints: (workspaceId, after, limit) =>
      Effect.sync(() =>
        endpoints
          .all(workspaceId)
          .filter(
            (endpoint) =>
              after === undefined ||
              endpoint.createdAt < after.sortKey ||
              (endpoint.createdAt === after.sortKey && endpoint.id < after.id)
          )
          .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
          .slice(0, limit)
      ),

    deleteEndpoint: (workspaceId, id) =>
      Effect.sync(() => {
        if (!endpoints.remove(workspaceId, id)) return false
        for (const [k, delivery] of deliveries) {
          if (delivery.workspaceId === workspaceId && delivery.endpointId === id) {
            deliveries.delete(k)
            attempts.delete(k)
            pending.delete(k)
          }
        }
        return true
      }),

    updateEndpoint: (workspaceId, id, change, at) =>
      Effect.sync(() => {
        const endpoint = endpoints.get(workspaceId, id)
        if (endpoint === undefined) return Option.none()
        const next = applyChange(endpoint, change, at)
        endpoints.put(next)
        return Option.some(next)
      }),

    fanOutEvents: (at, limit) =>
      Effect.sync(() => {
        let dispatched = 0
        for (const [workspaceId, log] of events) {
          const from = fannedOut.get(workspaceId) ?? 0
          const to = Math.min(log.length, from + (limit - dispatched))
          for (let index = from; index < to; index++) {
            const event = log[index]!
            eventIndex.set(eventKey(workspaceId, event.id), event)
            fanOut(event, at)
          }
          fannedOut.set(workspaceId, to)
          dispatched += to - from
          if (dispatched >= limit) break
        }
        return dispatched
      }),

    claimDueDeliveries: (owner, at, leaseUntil, limit) =>
      Effect.sync(() => {
        const due: Array<WebhookDeliveryRecord> = []
        for (const k of pending) {
          const delivery = deliveries.get(k)!
          if (isDue(delivery, at) && endpoints.get(delivery.workspaceId, delivery.endpointId)?.active === true) {
            due.push(delivery)
          }
        }
        due.sort((a, b) => a.nextAttemptAt! - b.nextAttemptAt!)
        const claimed: Array<ClaimedDelivery> = []
        for (const delivery of due.slice(0, limit)) {
          const event = findEvent(delivery.workspaceId, delivery.eventId)
          const endpoint = endpoints.get(delivery.workspaceId, delivery.endpointId)
          if (event === undefined || endpoint === undefined) continue
          const leased = { ...delivery, leaseOwner: owner, leaseUntil }
          put(leased)
          claimed.push({ delivery: leased, endpoint, event })
        }
        return claimed
      }),

    recordAttempt: (key, owner, outcome) => Effect.sync(() => recordOne(key, owner, outcome)),

    recordAttempts: (owner, recorded) =>
      Effect.sync(() => {
        const answers: Array<AttemptRecorded> = recorded.map(() => ({ recorded: false, endpointDisabled: false }))
        for (const { item, index } of inTimeOrder(recorded)) answers[index] = recordOne(item.key, owner, item.outcome)
        return answers
      }),

    recordRedelivery: (key, outcome) =>
      Effect.sync(() => {
        const k = deliveryKey(key)
        const delivery = deliveries.get(k)
        const endpoint = endpoints.get(key.workspaceId, key.endpointId)
        if (delivery === undefined || endpoint === undefined) return Option.none()
        logAttempt(k, {
          number: delivery.attempts + 1,
          at: outcome.at,
          durationMs: outcome.durationMs,
          statusCode: outcome.statusCode,
          responseBody: outcome.responseBody,
          error: outcome.error,
          redelivery: true
        })
        put({
          ...delivery,
          attempts: delivery.attempts + 1,
          firstAttemptAt: delivery.firstAttemptAt ?? outcome.at,
          lastAttemptAt: Math.max(delivery.lastAttemptAt ?? outcome.at, outcome.at),
          lastStatusCode: outcome.statusCode,
          ...(outcome.delivered
            ? { status: "delivered" as const, nextAttemptAt: null, lastError: null, leaseOwner: null, leaseUntil: null }
            : {})
        })
        endpoints.put(
          outcome.delivered
            ? { ...endpoint, lastSuccessAt: Math.max(endpoint.lastSuccessAt ?? outcome.at, outcome.at), failingSince: null }
            : { ...endpoint, failingSince: endpoint.failingSince ?? outcome.at }
        )
        return Option.some(detailOf(k))
      }),

    deliveryBacklog: () =>
      Effect.sync(() => {
        let disabledEndpoints = 0
        for (const endpoint of endpoints.everywhere()) if (!endpoint.active) disabledEndpoints++
        let eventsWaiting = 0
        let oldestEventWaitingAt: number | null = null
        for (const [workspaceId, log] of events) {
          const next = fannedOut.get(workspaceId) ?? 0
          if (next >= log.length) continue
          eventsWaiting += log.length - next
          oldestEventWaitingAt = Math.min(oldestEventWaitingAt ?? Number.POSITIVE_INFINITY, log[next]!.createdAt)
        }
        return { pending: pending.size, disabledEndpoints, eventsWaiting, oldestEventWaitingAt }
      }),

    releaseDeliveries: (owner) =>
      Effect.sync(() => {
        for (const k of pending) {
          const delivery = deliveries.get(k)!
          if (delivery.leaseOwner === owner) put({ ...delivery, leaseOwner: null, leaseUntil: null })
        }
      }),

    listDeliveries: (workspaceId, endpointId) =>
      Effect.sync(() =>
        [...deliveries.values()]
          .filter((delivery) => delivery.workspaceId === workspaceId && delivery.endpointId === endpointId)
          .sort((a, b) => a.createdAt - b.createdAt || (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0))
      ),

    listDeliveryLog: (workspaceId, endpointId, filter, after, limit) =>
      Effect.sync(() =>
        [...deliveries.entries()]
          .filter(
            ([, d]) =>
              d.workspaceId === workspaceId &&
              d.endpointId === endpointId &&
              (filter.status === undefined || d.status === filter.status) &&
              (filter.eventType === undefined || d.eventType === filter.eventType) &&
              (filter.from === undefined || d.createdAt >= filter.from) &&
              (filter.to === undefined || d.createdAt < filter.to) &&
              isAfter(d.createdAt, d.id, after)
          )
          .sort(([, a], [, b]) => b.createdAt - a.createdAt || compareDesc(a.id, b.id))
          .slice(0, limit)
          .map(([k, delivery]) => ({ delivery, lastAttempt: attempts.get(k)?.at(-1) ?? null }))
      ),

    getDelivery: (workspaceId, endpointId, deliveryId) =>
      Effect.sync(() => {
        for (const [k, delivery] of deliveries) {
          if (delivery.workspaceId === workspaceId && delivery.endpointId === endpointId && delivery.id === deliveryId) {
            return Option.some(detailOf(k))
          }
        }
        return Option.none()
      }),

    listEventLog: (workspaceId, filter, after, limit) =>
      Effect.sync(() =>
        (events.get(workspaceId) ?? [])
          .filter(
            (event) =>
              (filter.types === undefined || filter.types.length === 0 || filter.types.includes(event.type)) &&
              (filter.from === undefined || event.createdAt >= filter.from) &&
              (filter.to === undefined || event.createdAt < filter.to) &&
              (filter.postId === undefined || event.data.post_id === filter.postId) &&
              (filter.accountId === undefined || event.data.account_id === filter.accountId) &&
              isAfter(event.createdAt, event.id, after)
          )
          .sort((a, b) => b.createdAt - a.createdAt || compareDesc(a.id, b.id))
          .slice(0, limit)
      ),

    getEvent: (workspaceId, id) => Effect.sync(() => Option.fromNullishOr(findEvent(workspaceId, id))),

    claimPruneLease: (owner, at, leaseUntil) =>
      Effect.sync(() => {
        const lease = webhookTables.pruneLease
        if (lease !== null && lease.until > at) return false
        webhookTables.pruneLease = { owner, until: leaseUntil }
        return true
      }),

    pruneLog: (before, limit) =>
      Effect.sync(() => {
        let deleted = 0
        for (const [k, delivery] of deliveries) {
          if (deleted >= limit) break
          if (delivery.status !== "pending" && delivery.createdAt < before) {
            deliveries.delete(k)
            attempts.delete(k)
            deleted++
          }
        }
        const referenced = new Set<string>()
        for (const delivery of deliveries.values()) referenced.add(rowKey(delivery.workspaceId, delivery.eventId))
        let eventsDeleted = 0
        for (const [workspaceId, log] of events) {
          const dispatched = fannedOut.get(workspaceId) ?? 0
          const kept: Array<OutboxEvent> = []
          let removedDispatched = 0
          for (const [index, event] of log.entries()) {
            const prunable =
              eventsDeleted < limit &&
              index < dispatched &&
              event.createdAt < before &&
              !referenced.has(rowKey(workspaceId, event.id))
            if (prunable) {
              eventIndex.delete(eventKey(workspaceId, event.id))
              eventsDeleted++
              removedDispatched++
            } else {
              kept.push(event)
            }
          }
          if (removedDispatched > 0) {
            log.splice(0, log.length, ...kept)
            fannedOut.set(workspaceId, dispatched - removedDispatched)
          }
        }
        return deleted + eventsDeleted
      })
  }
}

/**
 * The in-memory `WebhookStore`, over the tables of the in-memory `Store` it is given.
 *
 * @example
 * ```ts
 * const InMemory = MemoryWebhookStore.layer.pipe(Layer.provideMerge(MemoryStore.layer))
 * ```
 */
export const layer: Layer.Layer<WebhookStore, never, MemoryState> = Layer.effect(WebhookStore)(
  Effect.gen(function* () {
    return make(yield* MemoryState)
  })
)
