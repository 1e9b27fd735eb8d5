/**
 * The `WebhookStore` in memory, over the tables of the in-memory `Store` (`MemoryState`), so
 * it fans out the very events the `Store` writes. Every method reads and writes in one
 * synchronous step, which makes it atomic without locks, like the SQL version's transactions.
 *
 * @since 0.1.0
 */
import { Effect, Layer, Option } from "effect"
import { MemoryState, type MemoryTables } from "../store/MemoryStore.ts"
import type { OutboxEvent } from "../store/Records.ts"
import { StoreError } from "../store/Store.ts"
import {
  type ClaimedDelivery,
  type DeliveryKey,
  type WebhookDeliveryRecord,
  type WebhookEndpointRecord,
  WebhookStore,
  type WebhookStoreShape
} from "./WebhookStore.ts"

/** Endpoints by workspace, then id. */
class Endpoints {
  private readonly byWorkspace = new Map<string, Map<string, WebhookEndpointRecord>>()

  get(workspaceId: string, id: string): WebhookEndpointRecord | undefined {
    return this.byWorkspace.get(workspaceId)?.get(id)
  }

  all(workspaceId: string): ReadonlyArray<WebhookEndpointRecord> {
    return [...(this.byWorkspace.get(workspaceId)?.values() ?? [])]
  }

  put(endpoint: WebhookEndpointRecord): void {
    const rows = this.byWorkspace.get(endpoint.workspaceId)
    if (rows === undefined) this.byWorkspace.set(endpoint.workspaceId, new Map([[endpoint.id, endpoint]]))
    else rows.set(endpoint.id, endpoint)
  }

  remove(workspaceId: string, id: string): boolean {
    return this.byWorkspace.get(workspaceId)?.delete(id) ?? false
  }
}

/** The webhook tables kept beside one set of `MemoryTables`. */
class WebhookTables {
  readonly endpoints = new Endpoints()
  readonly deliveries = new Map<string, WebhookDeliveryRecord>()
  /** Keys of pending deliveries, so claims never scan finished ones. */
  readonly pending = new Set<string>()
  /** Per workspace, how many of its outbox events (an append-only list) have been fanned out. */
  readonly fannedOut = new Map<string, number>()
}

// Every WebhookStore built over the same MemoryTables shares one set of webhook tables, as
// every SQL store over one database shares its tables.
const webhookTables = new WeakMap<MemoryTables, WebhookTables>()

const tablesFor = (tables: MemoryTables): WebhookTables => {
  let found = webhookTables.get(tables)
  if (found === undefined) {
    found = new WebhookTables()
    webhookTables.set(tables, found)
  }
  return found
}

const deliveryKey = (key: DeliveryKey) => [key.workspaceId, key.endpointId, key.eventId].join("\u0000")

const isDue = (delivery: WebhookDeliveryRecord, at: number) =>
  delivery.status === "pending" &&
  delivery.nextAttemptAt !== null &&
  delivery.nextAttemptAt <= at &&
  (delivery.leaseUntil === null || delivery.leaseUntil <= at)

/** Builds a `WebhookStore` over the tables of an in-memory `Store`. */
export const make = (tables: MemoryTables): WebhookStoreShape => {
  const { endpoints, deliveries, pending, fannedOut } = tablesFor(tables)
  const { events } = tables

  const findEvent = (workspaceId: string, id: string): OutboxEvent | undefined =>
    events.get(workspaceId)?.find((event) => event.id === id)

  const put = (delivery: WebhookDeliveryRecord) => {
    const k = deliveryKey(delivery)
    deliveries.set(k, delivery)
    if (delivery.status === "pending") pending.add(k)
    else pending.delete(k)
  }

  const fanOut = (event: OutboxEvent, at: number) => {
    for (const endpoint of endpoints.all(event.workspaceId)) {
      if (!endpoint.active || !endpoint.events.includes(event.type) || endpoint.createdAt > event.createdAt) continue
      const key = { workspaceId: event.workspaceId, endpointId: endpoint.id, eventId: event.id }
      if (deliveries.has(deliveryKey(key))) continue
      put({
        ...key,
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
            pending.delete(k)
          }
        }
        return true
      }),

    fanOutEvents: (at, limit) =>
      Effect.sync(() => {
        let dispatched = 0
        for (const [workspaceId, log] of events) {
          const from = fannedOut.get(workspaceId) ?? 0
          const to = Math.min(log.length, from + (limit - dispatched))
          for (let index = from; index < to; index++) fanOut(log[index]!, at)
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

    recordAttempt: (key, owner, outcome) =>
      Effect.sync(() => {
        const delivery = deliveries.get(deliveryKey(key))
        const endpoint = endpoints.get(key.workspaceId, key.endpointId)
        if (delivery === undefined || endpoint === undefined || delivery.status !== "pending" || delivery.leaseOwner !== owner) {
          return { recorded: false, endpointDisabled: false }
        }
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
            lastSuccessAt: Math.max(endpoint.lastSuccessAt ?? outcome.at, outcome.at)
          })
          return { recorded: true, endpointDisabled: false }
        }
        const idleSince = outcome.disableIfIdleSince
        if (
          outcome.result !== "dead" ||
          idleSince === undefined ||
          !endpoint.active ||
          (endpoint.lastSuccessAt ?? endpoint.createdAt) > idleSince
        ) {
          return { recorded: true, endpointDisabled: false }
        }
        endpoints.put({
          ...endpoint,
          active: false,
          disabledReason: "delivery_failed",
          disabledAt: outcome.at
        })
        for (const k of [...pending]) {
          const other = deliveries.get(k)!
          if (other.workspaceId === key.workspaceId && other.endpointId === key.endpointId) {
            put({ ...other, status: "dead", nextAttemptAt: null, lastError: "endpoint_disabled", leaseOwner: null, leaseUntil: null })
          }
        }
        return { recorded: true, endpointDisabled: true }
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
      )
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
