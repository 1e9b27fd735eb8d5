/**
 * The `WebhookStore` over any PostgreSQL `SqlClient` (PostgreSQL or the embedded PGlite),
 * beside the `Store` on the same database: the outbox it fans out is the `Store`'s.
 *
 * Fan-out and claims lock rows with `FOR UPDATE SKIP LOCKED`, so instances sharing a
 * database never take the same event or delivery; every statement names `workspace_id` in its
 * joins and keys, and every database failure becomes a `StoreError` naming the operation.
 *
 * @since 0.1.0
 */
import { Effect, Layer, Option } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import {
  type ClaimedDelivery,
  type OutboxEvent,
  StoreError,
  type WebhookDeliveryRecord,
  type WebhookEndpointRecord,
  WebhookStore,
  type WebhookStoreShape
} from "@postwire/core"
import * as Migrations from "./migrations/Migrations.ts"

type Row = Readonly<Record<string, unknown>>

/** Builds the `WebhookStore` on the current `SqlClient`; the schema must already be migrated. */
export const make: Effect.Effect<WebhookStoreShape, never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const operation =
    (name: string) =>
    <A, E>(effect: Effect.Effect<A, E | SqlError.SqlError>): Effect.Effect<A, Exclude<E, SqlError.SqlError> | StoreError> =>
      effect.pipe(
        Effect.catchIf(SqlError.isSqlError, (cause) => Effect.fail(new StoreError({ operation: name, cause }))),
        Effect.withSpan(`WebhookStore.${name}`)
      )

  const store: WebhookStoreShape = {
    createEndpoint: (endpoint) =>
      operation("createEndpoint")(sql`INSERT INTO webhook_endpoints ${sql.insert(endpointRow(endpoint))}`.pipe(Effect.asVoid)),

    getEndpoint: (workspaceId, id) =>
      operation("getEndpoint")(
        sql`SELECT * FROM webhook_endpoints WHERE workspace_id = ${workspaceId} AND id = ${id}`.pipe(
          Effect.map((rows) => (rows.length === 0 ? Option.none() : Option.some(endpointFromRow(rows[0]!))))
        )
      ),

    listEndpoints: (workspaceId, after, limit) =>
      operation("listEndpoints")(
        sql`SELECT * FROM webhook_endpoints
            WHERE ${sql.and([
              sql`workspace_id = ${workspaceId}`,
              ...(after === undefined ? [] : [sql`(created_at, id) < (${after.sortKey}, ${after.id})`])
            ])}
            ORDER BY created_at DESC, id DESC LIMIT ${limit}`.pipe(Effect.map((rows) => rows.map((row) => endpointFromRow(row))))
      ),

    // Deliveries go with the endpoint (ON DELETE CASCADE).
    deleteEndpoint: (workspaceId, id) =>
      operation("deleteEndpoint")(
        sql`DELETE FROM webhook_endpoints WHERE workspace_id = ${workspaceId} AND id = ${id} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0)
        )
      ),

    // One statement, so one transaction: lock a batch of pending events, create their
    // deliveries, mark them dispatched.
    fanOutEvents: (at, limit) =>
      operation("fanOutEvents")(
        sql`WITH batch AS (
              SELECT workspace_id, seq, id, type, created_at FROM outbox_events
              WHERE dispatched_at IS NULL
              ORDER BY seq LIMIT ${limit}
              FOR UPDATE SKIP LOCKED
            ), fanned AS (
              INSERT INTO webhook_deliveries (workspace_id, endpoint_id, event_id, status, attempts, next_attempt_at, created_at)
              SELECT b.workspace_id, e.id, b.id, 'pending', 0, ${at}, ${at}
              FROM batch b
              JOIN webhook_endpoints e ON e.workspace_id = b.workspace_id
              WHERE e.active AND e.events @> jsonb_build_array(b.type) AND e.created_at <= b.created_at
              ON CONFLICT DO NOTHING
              RETURNING 1
            )
            UPDATE outbox_events o SET dispatched_at = ${at}
            FROM batch b
            WHERE o.workspace_id = b.workspace_id AND o.seq = b.seq
            RETURNING o.seq`.pipe(Effect.map((rows) => rows.length))
      ),

    claimDueDeliveries: (owner, at, leaseUntil, limit) =>
      operation("claimDueDeliveries")(
        sql`UPDATE webhook_deliveries d SET lease_owner = ${owner}, lease_until = ${leaseUntil}
            FROM (
              SELECT due.workspace_id, due.endpoint_id, due.event_id FROM webhook_deliveries due
              JOIN webhook_endpoints target ON target.workspace_id = due.workspace_id AND target.id = due.endpoint_id
              WHERE due.status = 'pending' AND due.next_attempt_at <= ${at}
                AND (due.lease_until IS NULL OR due.lease_until <= ${at})
                AND target.active
              ORDER BY due.next_attempt_at
              LIMIT ${limit}
              FOR UPDATE OF due SKIP LOCKED
            ) claimed, webhook_endpoints e, outbox_events o
            WHERE d.workspace_id = claimed.workspace_id AND d.endpoint_id = claimed.endpoint_id
              AND d.event_id = claimed.event_id
              AND e.workspace_id = d.workspace_id AND e.id = d.endpoint_id
              AND o.workspace_id = d.workspace_id AND o.id = d.event_id
            RETURNING d.*,
              e.url AS endpoint_url, e.events AS endpoint_events, e.secret AS endpoint_secret,
              e.active AS endpoint_active, e.disabled_reason AS endpoint_disabled_reason,
              e.disabled_at AS endpoint_disabled_at, e.last_success_at AS endpoint_last_success_at,
              e.created_at AS endpoint_created_at,
              o.type AS event_type, o.created_at AS event_created_at, o.livemode AS event_livemode,
              o.data AS event_data`.pipe(
          Effect.map((rows) =>
            rows
              .map(claimedFromRow)
              .sort((a, b) => (a.delivery.nextAttemptAt ?? 0) - (b.delivery.nextAttemptAt ?? 0))
          )
        )
      ),

    recordAttempt: (key, owner, outcome) =>
      operation("recordAttempt")(
        sql.withTransaction(
          Effect.gen(function* () {
            const where = sql`workspace_id = ${key.workspaceId} AND endpoint_id = ${key.endpointId} AND event_id = ${key.eventId}`
            const status = outcome.result === "retry" ? "pending" : outcome.result
            const updated = yield* sql`UPDATE webhook_deliveries SET
                status = ${status},
                attempts = attempts + 1,
                first_attempt_at = coalesce(first_attempt_at, ${outcome.at}),
                last_attempt_at = ${outcome.at},
                next_attempt_at = ${outcome.result === "retry" ? outcome.nextAttemptAt : null},
                last_status_code = ${outcome.statusCode},
                last_error = ${outcome.error},
                lease_owner = NULL,
                lease_until = NULL
              WHERE ${where} AND status = 'pending' AND lease_owner = ${owner}
              RETURNING attempts`
            if (updated.length === 0) return { recorded: false, endpointDisabled: false }
            const endpoint = sql`workspace_id = ${key.workspaceId} AND id = ${key.endpointId}`
            if (outcome.result === "delivered") {
              yield* sql`UPDATE webhook_endpoints
                SET last_success_at = greatest(coalesce(last_success_at, ${outcome.at}), ${outcome.at})
                WHERE ${endpoint}`
              return { recorded: true, endpointDisabled: false }
            }
            if (outcome.result !== "dead" || outcome.disableIfIdleSince === undefined) {
              return { recorded: true, endpointDisabled: false }
            }
            const disabled = yield* sql`UPDATE webhook_endpoints
              SET active = false, disabled_reason = 'delivery_failed', disabled_at = ${outcome.at}
              WHERE ${endpoint} AND active AND coalesce(last_success_at, created_at) <= ${outcome.disableIfIdleSince}
              RETURNING id`
            if (disabled.length === 0) return { recorded: true, endpointDisabled: false }
            yield* sql`UPDATE webhook_deliveries
              SET status = 'dead', next_attempt_at = NULL, last_error = 'endpoint_disabled', lease_owner = NULL, lease_until = NULL
              WHERE workspace_id = ${key.workspaceId} AND endpoint_id = ${key.endpointId} AND status = 'pending'`
            return { recorded: true, endpointDisabled: true }
          })
        )
      ),

    releaseDeliveries: (owner) =>
      operation("releaseDeliveries")(
        sql`UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL
            WHERE status = 'pending' AND lease_owner = ${owner}`.pipe(Effect.asVoid)
      ),

    listDeliveries: (workspaceId, endpointId) =>
      operation("listDeliveries")(
        sql`SELECT * FROM webhook_deliveries WHERE workspace_id = ${workspaceId} AND endpoint_id = ${endpointId}
            ORDER BY created_at, event_id`.pipe(Effect.map((rows) => rows.map(deliveryFromRow)))
      )
  }
  return store
})

/**
 * The `WebhookStore` on the current `SqlClient`, after applying pending migrations (a no-op
 * when the `Store` on the same database applied them first).
 *
 * @example
 * ```ts
 * const Embedded = SqlWebhookStore.layer.pipe(
 *   Layer.provideMerge(SqlStore.layer),
 *   Layer.provide(PgliteClient.layer({ dataDir: ".postwire/db" }))
 * )
 * ```
 */
export const layer: Layer.Layer<WebhookStore, never, SqlClient.SqlClient> = Layer.effect(WebhookStore)(
  Migrations.migrate.pipe(
    Effect.mapError((cause) => new StoreError({ operation: "migrate", cause })),
    Effect.orDie,
    Effect.andThen(make)
  )
)

// Drivers differ: PGlite returns int8 as a number, @effect/sql-pg as a bigint, others as a string.
const toNumber = (value: unknown): number => (typeof value === "number" ? value : Number(value))
const toNumberOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : toNumber(value))
const fromJson = (value: unknown): unknown => (typeof value === "string" ? JSON.parse(value) : value)

const endpointRow = (endpoint: WebhookEndpointRecord) => ({
  workspace_id: endpoint.workspaceId,
  id: endpoint.id,
  url: endpoint.url,
  events: JSON.stringify(endpoint.events),
  secret: endpoint.secret,
  active: endpoint.active,
  disabled_reason: endpoint.disabledReason,
  disabled_at: endpoint.disabledAt,
  last_success_at: endpoint.lastSuccessAt,
  created_at: endpoint.createdAt
})

const endpointFromRow = (row: Row, prefix = ""): WebhookEndpointRecord => ({
  id: row[prefix === "" ? "id" : "endpoint_id"] as string,
  workspaceId: row.workspace_id as string,
  url: row[`${prefix}url`] as string,
  events: fromJson(row[`${prefix}events`]) as ReadonlyArray<string>,
  secret: row[`${prefix}secret`] as string,
  active: row[`${prefix}active`] as boolean,
  disabledReason: (row[`${prefix}disabled_reason`] ?? null) as string | null,
  disabledAt: toNumberOrNull(row[`${prefix}disabled_at`]),
  lastSuccessAt: toNumberOrNull(row[`${prefix}last_success_at`]),
  createdAt: toNumber(row[`${prefix}created_at`])
})

const deliveryFromRow = (row: Row): WebhookDeliveryRecord => ({
  workspaceId: row.workspace_id as string,
  endpointId: row.endpoint_id as string,
  eventId: row.event_id as string,
  status: row.status as WebhookDeliveryRecord["status"],
  attempts: toNumber(row.attempts),
  firstAttemptAt: toNumberOrNull(row.first_attempt_at),
  lastAttemptAt: toNumberOrNull(row.last_attempt_at),
  nextAttemptAt: toNumberOrNull(row.next_attempt_at),
  lastStatusCode: toNumberOrNull(row.last_status_code),
  lastError: (row.last_error ?? null) as string | null,
  leaseOwner: (row.lease_owner ?? null) as string | null,
  leaseUntil: toNumberOrNull(row.lease_until),
  createdAt: toNumber(row.created_at)
})

const claimedFromRow = (row: Row): ClaimedDelivery => {
  const event: OutboxEvent = {
    id: row.event_id as string,
    workspaceId: row.workspace_id as string,
    type: row.event_type as string,
    createdAt: toNumber(row.event_created_at),
    livemode: row.event_livemode as boolean,
    data: fromJson(row.event_data) as OutboxEvent["data"]
  }
  return { delivery: deliveryFromRow(row), endpoint: endpointFromRow(row, "endpoint_"), event }
}
