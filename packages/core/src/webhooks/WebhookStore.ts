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
import { createHash } from "node:crypto"
import { Context, type Effect, type Option } from "effect"
import type { ApprovalLinks, Ids } from "@postwire/domain"
import type { OutboxEvent } from "../store/Outbox.ts"
import type { Keyset } from "../store/Keyset.ts"
import type { StoreError } from "../store/StoreError.ts"

/**
 * A registered endpoint. Its secrets are stored sealed for it (`WebhookSecrets`): the service opens
 * them to sign each delivery.
 */
export interface WebhookEndpointRecord {
  readonly id: Ids.WebhookId
  readonly workspaceId: Ids.WorkspaceId
  readonly url: string
  /** Subscribed event types, in the order they were given; the first is used by the test event. */
  readonly events: ReadonlyArray<string>
  readonly secret: string
  /** During a rotation, the secret before the current one, which also signs until it expires. */
  readonly previousSecret: string | null
  readonly previousSecretExpiresAt: number | null
  readonly active: boolean
  /** Why the endpoint is disabled (`delivery_failed`, `disabled_by_request`), `null` while active. */
  readonly disabledReason: string | null
  readonly disabledAt: number | null
  /** The last time a delivery to the endpoint succeeded. */
  readonly lastSuccessAt: number | null
  /** The first failed attempt since the last success; `null` when the latest attempt succeeded. */
  readonly failingSince: number | null
  /** Events created at or after this instant are delivered: the registration, or the latest re-enabling. */
  readonly subscribedFrom: number
  readonly createdAt: number
  /**
   * `hidden` when a key that may not see approval links registered or changed the endpoint: its
   * deliveries carry no approval link (`approval_url` is `null`), so such a key cannot get one
   * by pointing an endpoint at itself.
   */
  readonly approvalLinks: ApprovalLinks
}

/** A change to an endpoint; what is absent stays as it is. */
export interface EndpointChange {
  readonly url?: string | undefined
  readonly events?: ReadonlyArray<string> | undefined
  /** Re-enables a disabled endpoint: it receives events created from `at` on. A no-op when active. */
  readonly enable?: boolean | undefined
  /** Disables an active endpoint for this reason; its pending deliveries are given up. */
  readonly disable?: string | undefined
  /** Keeps approval links out of the endpoint's deliveries from now on (changed by a key that may not see them). */
  readonly hideApprovalLinks?: boolean | undefined
  /**
   * A new secret. The current one becomes the previous secret until `previousExpiresAt`, or is
   * dropped when that is not after `at`.
   */
  readonly rotateSecret?: { readonly secret: string; readonly previousExpiresAt: number } | undefined
}

/** Where a delivery stands: waiting for an attempt, done, or given up after every retry. */
export type DeliveryStatus = "pending" | "delivered" | "dead"

/** One event for one endpoint, and its attempts so far. */
export interface WebhookDeliveryRecord {
  /** The delivery's `dlv_` id, derived from the endpoint and the event (see `deliveryIdOf`). */
  readonly id: Ids.DeliveryId
  readonly workspaceId: Ids.WorkspaceId
  readonly endpointId: Ids.WebhookId
  readonly eventId: Ids.EventId
  readonly eventType: string
  readonly status: DeliveryStatus
  /** Attempts made (the first one included). */
  readonly attempts: number
  readonly firstAttemptAt: number | null
  readonly lastAttemptAt: number | null
  /** When the next attempt is due; `null` once delivered or dead. */
  readonly nextAttemptAt: number | null
  /** The HTTP status of the last answer; `null` when there was none. */
  readonly lastStatusCode: number | null
  /** Why the last attempt failed (`http_500`, `timeout`, `unreachable`, `unsafe_url: …`, `endpoint_disabled`). */
  readonly lastError: string | null
  /** Worker lease: who is attempting the delivery and until when. */
  readonly leaseOwner: string | null
  readonly leaseUntil: number | null
  readonly createdAt: number
}

/** Names one delivery. */
export interface DeliveryKey {
  readonly workspaceId: Ids.WorkspaceId
  readonly endpointId: Ids.WebhookId
  readonly eventId: Ids.EventId
}

/** A delivery claimed by a worker, with what it needs to send it. */
export interface ClaimedDelivery {
  readonly delivery: WebhookDeliveryRecord
  readonly endpoint: WebhookEndpointRecord
  readonly event: OutboxEvent
}

/**
 * Why an attempt failed, as data: the facts, not the words. The API renders it in the shared
 * error shape, in the reader's language, when the log is read.
 */
export type DeliveryFailureData =
  | { readonly kind: "http_status"; readonly status: number }
  | { readonly kind: "timeout"; readonly seconds: number }
  | { readonly kind: "unreachable"; readonly cause: string }
  | { readonly kind: "unsafe_url"; readonly reason: string; readonly host?: string | undefined; readonly address?: string | undefined }
  | { readonly kind: "signing_secret_unreadable" }

/** A failed attempt's error as stored: `{ code, details, platform_code, retryable }`. */
export interface StoredDeliveryError {
  readonly code: "webhook_delivery_failed" | "invalid_url"
  readonly details: DeliveryFailureData
  readonly platform_code: null
  readonly retryable: boolean
}

/** What one attempt looked like, for the delivery log. */
export interface AttemptRecord {
  /** 1 for the first attempt, counting redeliveries. */
  readonly number: number
  readonly at: number
  readonly durationMs: number
  readonly statusCode: number | null
  /** The first 1,024 bytes of the answer's body as text; `null` when there was no answer. */
  readonly responseBody: string | null
  readonly error: StoredDeliveryError | null
  /** Asked for through the API rather than scheduled. */
  readonly redelivery: boolean
}

/** What an attempt came to, as the dispatcher decided it. */
export interface AttemptOutcome {
  readonly at: number
  readonly result: "delivered" | "retry" | "dead"
  readonly statusCode: number | null
  readonly error: string | null
  /** When to try again; only for `retry`. */
  readonly nextAttemptAt: number | null
  /** The attempt for the log; absent for callers that keep none (its fields then default to empty). */
  readonly attempt?: Pick<AttemptRecord, "durationMs" | "responseBody" | "error"> | undefined
  /**
   * For `dead`: disable the endpoint when every attempt to it has failed since this instant or
   * earlier (its `failingSince`, counting this attempt). Its pending deliveries are given up.
   */
  readonly disableIfFailingSince?: number | undefined
  /** The `webhook_endpoint.disabled` event written to the outbox when this attempt disables the endpoint. */
  readonly disabledNotice?: OutboxEvent | undefined
}

/** A redelivery's attempt, sent outside the schedule. */
export interface RedeliveryOutcome extends Pick<AttemptRecord, "at" | "durationMs" | "statusCode" | "responseBody" | "error"> {
  readonly delivered: boolean
}

/** Filters of a delivery log; `from` inclusive, `to` exclusive, on `createdAt`. */
export interface DeliveryFilter {
  readonly status?: DeliveryStatus | undefined
  readonly eventType?: string | undefined
  readonly from?: number | undefined
  readonly to?: number | undefined
}

/** A delivery with its latest attempt, as the log lists it. */
export interface DeliveryLogEntry {
  readonly delivery: WebhookDeliveryRecord
  readonly lastAttempt: AttemptRecord | null
}

/** A delivery with its attempts, newest first. */
export interface DeliveryDetail {
  readonly delivery: WebhookDeliveryRecord
  readonly attempts: ReadonlyArray<AttemptRecord>
}

/** Filters of the events list; `from` inclusive, `to` exclusive, on `createdAt`. */
export interface EventFilter {
  /** Any of these types; absent or empty for every type. */
  readonly types?: ReadonlyArray<string> | undefined
  readonly from?: number | undefined
  readonly to?: number | undefined
  readonly postId?: Ids.PostId | undefined
  readonly accountId?: Ids.AccountId | undefined
}

/** The most attempts a delivery's detail shows (the newest). */
export const maxAttemptsShown = 100

/** What recording an attempt changed. */
export interface AttemptRecorded {
  /** False when the worker no longer held the lease (or the endpoint was deleted): nothing changed. */
  readonly recorded: boolean
  /** True when this attempt disabled the endpoint. */
  readonly endpointDisabled: boolean
}

/** One attempt to record, with the delivery it was made on. */
export interface RecordedAttempt {
  readonly key: DeliveryKey
  readonly outcome: AttemptOutcome
}

/** What the webhook dispatcher has left to do, across workspaces (metrics read it). */
export interface DeliveryBacklog {
  /** Deliveries still to be delivered (due now or waiting for a retry). */
  readonly pending: number
  /** Endpoints disabled because their deliveries kept failing. */
  readonly disabledEndpoints: number
  /**
   * Events written and not fanned out to their endpoints yet: near zero while the dispatcher
   * keeps up (it fans out every event within its poll interval).
   */
  readonly eventsWaiting: number
  /** When the longest-waiting of those events was written (epoch ms); `null` when none waits. */
  readonly oldestEventWaitingAt: number | null
}

/** Storage of webhook endpoints and deliveries. */
export interface WebhookStoreShape {
  readonly createEndpoint: (endpoint: WebhookEndpointRecord) => Effect.Effect<void, StoreError>
  readonly getEndpoint: (
    workspaceId: Ids.WorkspaceId,
    id: Ids.WebhookId
  ) => Effect.Effect<Option.Option<WebhookEndpointRecord>, StoreError>
  /** Newest first (`sortKey` is `createdAt`), after the keyset position when given. */
  readonly listEndpoints: (
    workspaceId: Ids.WorkspaceId,
    after: Keyset | undefined,
    limit: number
  ) => Effect.Effect<ReadonlyArray<WebhookEndpointRecord>, StoreError>
  /** Removes an endpoint and its deliveries; false when there was none. */
  readonly deleteEndpoint: (workspaceId: Ids.WorkspaceId, id: Ids.WebhookId) => Effect.Effect<boolean, StoreError>
  /**
   * Applies a change to an endpoint at `at`, in one transaction (disabling gives up its pending
   * deliveries), and returns the endpoint as it now is; `None` when there is none.
   */
  readonly updateEndpoint: (
    workspaceId: Ids.WorkspaceId,
    id: Ids.WebhookId,
    change: EndpointChange,
    at: number
  ) => Effect.Effect<Option.Option<WebhookEndpointRecord>, StoreError>

  /**
   * Takes up to `limit` outbox events not yet dispatched, oldest first, and in one
   * transaction creates one delivery, due at `at`, for every active endpoint of the event's
   * workspace subscribed to its type whose `subscribedFrom` is at or before the event (never
   * a `webhook_endpoint.disabled` notice to the endpoint it is about), and marks the events
   * dispatched. Events locked by another instance are skipped. Returns how many events were
   * dispatched.
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
   * Records an attempt on a delivery leased by `owner` (in the log too) and releases the
   * lease, with what it implies for the endpoint (its last success, its failing streak, or its
   * disablement with the notice event), in one transaction.
   */
  readonly recordAttempt: (
    key: DeliveryKey,
    owner: string,
    outcome: AttemptOutcome
  ) => Effect.Effect<AttemptRecorded, StoreError>

  /**
   * Records many attempts at once (the dispatcher's group commit), leaving everything as
   * {@link recordAttempt} would one after another in the order of their `at` (ties in the
   * order given; see {@link inTimeOrder}): one answer per attempt, in the order given. A
   * store may record delivered and retry outcomes in one multi-row statement.
   */
  readonly recordAttempts: (
    owner: string,
    attempts: ReadonlyArray<RecordedAttempt>
  ) => Effect.Effect<ReadonlyArray<AttemptRecorded>, StoreError>

  /** Gives up every lease `owner` holds, so another instance can take the deliveries at once. */
  readonly releaseDeliveries: (owner: string) => Effect.Effect<void, StoreError>

  /** The delivery backlog across workspaces, for metrics: pending deliveries and disabled endpoints. */
  readonly deliveryBacklog: () => Effect.Effect<DeliveryBacklog, StoreError>

  /**
   * Records a redelivery's attempt whatever the delivery's status, without a lease: a success
   * marks the delivery delivered (no further attempt is scheduled) and counts as the
   * endpoint's last success; a failure changes only the log and the endpoint's failing streak.
   * Returns the delivery with its attempts; `None` when the delivery is gone.
   */
  readonly recordRedelivery: (
    key: DeliveryKey,
    outcome: RedeliveryOutcome
  ) => Effect.Effect<Option.Option<DeliveryDetail>, StoreError>

  /** Deliveries to an endpoint, oldest first (for support and tests). */
  readonly listDeliveries: (
    workspaceId: Ids.WorkspaceId,
    endpointId: Ids.WebhookId
  ) => Effect.Effect<ReadonlyArray<WebhookDeliveryRecord>, StoreError>

  /** The delivery log of an endpoint, newest `createdAt` first, ties by id descending, after the keyset position. */
  readonly listDeliveryLog: (
    workspaceId: Ids.WorkspaceId,
    endpointId: Ids.WebhookId,
    filter: DeliveryFilter,
    after: Keyset | undefined,
    limit: number
  ) => Effect.Effect<ReadonlyArray<DeliveryLogEntry>, StoreError>

  /** One delivery of an endpoint by its `dlv_` id, with its newest {@link maxAttemptsShown} attempts. */
  readonly getDelivery: (
    workspaceId: Ids.WorkspaceId,
    endpointId: Ids.WebhookId,
    deliveryId: Ids.DeliveryId
  ) => Effect.Effect<Option.Option<DeliveryDetail>, StoreError>

  /** The workspace's events, newest `createdAt` first, ties by id descending, after the keyset position. */
  readonly listEventLog: (
    workspaceId: Ids.WorkspaceId,
    filter: EventFilter,
    after: Keyset | undefined,
    limit: number
  ) => Effect.Effect<ReadonlyArray<OutboxEvent>, StoreError>

  /** One event of the workspace. */
  readonly getEvent: (workspaceId: Ids.WorkspaceId, id: Ids.EventId) => Effect.Effect<Option.Option<OutboxEvent>, StoreError>

  /**
   * Takes the log-pruning lease until `leaseUntil` when nobody holds it at `at`; true when
   * `owner` got it. Holding it for the whole interval between prunes makes one instance prune
   * per interval however many run.
   */
  readonly claimPruneLease: (owner: string, at: number, leaseUntil: number) => Effect.Effect<boolean, StoreError>

  /**
   * Deletes up to `limit` finished deliveries (with their attempts) created before `before`,
   * then up to `limit` dispatched events created before `before` that no delivery still
   * refers to. Returns how many rows went; call again until it returns less than `limit`.
   */
  readonly pruneLog: (before: number, limit: number) => Effect.Effect<number, StoreError>
}

/** Storage of webhook endpoints and deliveries. */
export class WebhookStore extends Context.Service<WebhookStore, WebhookStoreShape>()("postwire/WebhookStore") {}

/**
 * The `dlv_` id of the delivery of `eventId` to `endpointId`: derived from the pair (the first
 * 26 hex digits of its MD5, upper case), so every store, and the SQL fan-out, computes the
 * same id without generating one per row.
 *
 * @example
 * ```ts
 * deliveryIdOf("wh_01JD…", "evt_01JD…") // "dlv_3F2A…"
 * ```
 */
export const deliveryIdOf = (endpointId: string, eventId: string): Ids.DeliveryId =>
  `dlv_${createHash("md5").update(`${endpointId}:${eventId}`).digest("hex").slice(0, 26).toUpperCase()}` as Ids.DeliveryId

/**
 * Attempts in the order their outcomes are applied by `recordAttempts`: by `at`, ties in the
 * order given, each with its position in the input.
 */
export const inTimeOrder = <A extends RecordedAttempt>(
  attempts: ReadonlyArray<A>
): ReadonlyArray<{ readonly item: A; readonly index: number }> =>
  attempts.map((item, index) => ({ item, index })).sort((a, b) => a.item.outcome.at - b.item.outcome.at || a.index - b.index)
