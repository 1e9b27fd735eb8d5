/**
 * The `WebhookStore` service: webhook endpoints, the fan-out of outbox events into deliveries,
 * delivery claims with a lease, and the outcome of every attempt. It works on the same
 * database as the `Store` (the outbox is the `Store`'s), and passes one conformance suite in
 * memory, on PGlite and on PostgreSQL.
 *
 * A delivery is one event for one endpoint, keyed by `(workspaceId, endpointId, eventId)`, so
 * fanning an event out twice can never deliver it twice to the same endpoint.
 *
 * @since 0.1.0
 */
import { Context, type Effect, type Option } from "effect"
import type { OutboxEvent } from "../store/Records.ts"
import type { Keyset, StoreError } from "../store/Store.ts"

/** A registered endpoint. The secret is kept as is: the service signs every delivery with it. */
export interface WebhookEndpointRecord {
  readonly id: string
  readonly workspaceId: string
  readonly url: string
  /** Subscribed event types, in the order they were given; the first is used by the test event. */
  readonly events: ReadonlyArray<string>
  readonly secret: string
  readonly active: boolean
  /** Why the service disabled the endpoint (`delivery_failed`), `null` while active. */
  readonly disabledReason: string | null
  readonly disabledAt: number | null
  /** The last time a delivery to the endpoint succeeded. */
  readonly lastSuccessAt: number | null
  readonly createdAt: number
}

/** Where a delivery stands: waiting for an attempt, done, or given up after every retry. */
export type DeliveryStatus = "pending" | "delivered" | "dead"

/** One event for one endpoint, and its attempts so far. */
export interface WebhookDeliveryRecord {
  readonly workspaceId: string
  readonly endpointId: string
  readonly eventId: string
  readonly status: DeliveryStatus
  /** Attempts made (the first one included). */
  readonly attempts: number
  readonly firstAttemptAt: number | null
  readonly lastAttemptAt: number | null
  /** When the next attempt is due; `null` once delivered or dead. */
  readonly nextAttemptAt: number | null
  /** The HTTP status of the last answer; `null` when there was none. */
  readonly lastStatusCode: number | null
  /** Why the last attempt failed (`http_500`, `timeout`, `unreachable`, `unsafe_url: …`). */
  readonly lastError: string | null
  /** Worker lease: who is attempting the delivery and until when. */
  readonly leaseOwner: string | null
  readonly leaseUntil: number | null
  readonly createdAt: number
}

/** Names one delivery. */
export interface DeliveryKey {
  readonly workspaceId: string
  readonly endpointId: string
  readonly eventId: string
}

/** A delivery claimed by a worker, with what it needs to send it. */
export interface ClaimedDelivery {
  readonly delivery: WebhookDeliveryRecord
  readonly endpoint: WebhookEndpointRecord
  readonly event: OutboxEvent
}

/** What an attempt came to, as the dispatcher decided it. */
export interface AttemptOutcome {
  readonly at: number
  readonly result: "delivered" | "retry" | "dead"
  readonly statusCode: number | null
  readonly error: string | null
  /** When to try again; only for `retry`. */
  readonly nextAttemptAt: number | null
  /**
   * For `dead`: disable the endpoint when no delivery to it has succeeded since this instant
   * (counting from its creation when none ever has). Its pending deliveries die with it.
   */
  readonly disableIfIdleSince?: number | undefined
}

/** What recording an attempt changed. */
export interface AttemptRecorded {
  /** False when the worker no longer held the lease (or the endpoint was deleted): nothing changed. */
  readonly recorded: boolean
  /** True when this attempt disabled the endpoint. */
  readonly endpointDisabled: boolean
}

/** Storage of webhook endpoints and deliveries. */
export interface WebhookStoreShape {
  readonly createEndpoint: (endpoint: WebhookEndpointRecord) => Effect.Effect<void, StoreError>
  readonly getEndpoint: (
    workspaceId: string,
    id: string
  ) => Effect.Effect<Option.Option<WebhookEndpointRecord>, StoreError>
  /** Newest first (`sortKey` is `createdAt`), after the keyset position when given. */
  readonly listEndpoints: (
    workspaceId: string,
    after: Keyset | undefined,
    limit: number
  ) => Effect.Effect<ReadonlyArray<WebhookEndpointRecord>, StoreError>
  /** Removes an endpoint and its deliveries; false when there was none. */
  readonly deleteEndpoint: (workspaceId: string, id: string) => Effect.Effect<boolean, StoreError>

  /**
   * Takes up to `limit` outbox events not yet dispatched, oldest first, and in one
   * transaction creates one delivery, due at `at`, for every active endpoint of the event's
   * workspace subscribed to its type and registered at or before the event, and marks the
   * events dispatched. Events locked by another instance are skipped. Returns how many events
   * were dispatched.
   */
  readonly fanOutEvents: (at: number, limit: number) => Effect.Effect<number, StoreError>

  /**
   * Leases up to `limit` pending deliveries of active endpoints that are due at `at` and not
   * leased by anyone (or whose lease has run out), earliest due first, to `owner` until
   * `leaseUntil`. Deliveries locked by another instance are skipped.
   */
  readonly claimDueDeliveries: (
    owner: string,
    at: number,
    leaseUntil: number,
    limit: number
  ) => Effect.Effect<ReadonlyArray<ClaimedDelivery>, StoreError>

  /**
   * Records an attempt on a delivery leased by `owner` and releases the lease, with what it
   * implies for the endpoint (its last success, or its disablement), in one transaction.
   */
  readonly recordAttempt: (
    key: DeliveryKey,
    owner: string,
    outcome: AttemptOutcome
  ) => Effect.Effect<AttemptRecorded, StoreError>

  /** Gives up every lease `owner` holds, so another instance can take the deliveries at once. */
  readonly releaseDeliveries: (owner: string) => Effect.Effect<void, StoreError>

  /** Deliveries to an endpoint, oldest first (for support and tests). */
  readonly listDeliveries: (
    workspaceId: string,
    endpointId: string
  ) => Effect.Effect<ReadonlyArray<WebhookDeliveryRecord>, StoreError>
}

/** Storage of webhook endpoints and deliveries. */
export class WebhookStore extends Context.Service<WebhookStore, WebhookStoreShape>()("postwire/WebhookStore") {}
