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

import {
  type AttemptRecord,
  type AttemptRecorded,
  type ClaimedDelivery,
  type DeliveryDetail,
  type DeliveryKey,
  maxAttemptsShown,
  inTimeOrder,
  type WebhookEndpointRecord,
  WebhookStore,
  type WebhookStoreShape
} from "@postwire/core"
import { Effect, type Layer, Option, } from "effect"
import { SqlClient, } from "effect/sql"
import { attemptFromRow, deliveryFromRow, endpointFromRow, eventFromRow } from "./internal/Rows.ts"
import { insertEvents, migratedLayer, operations, toNumber, toNumberOrNull } from "./internal/SqlToolkit.ts"

type Row = Readonly<Record<string, unknown>>

/** Builds the `WebhookStore` on the current `SqlClient`; the schema must already be migrated. */
export const make: Effect.Effect<WebhookStoreShape, never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const operation = operations("WebhookStore")

  const giveUpPending = (workspaceId: string, endpointId: string) =>
    sql`UPDATE webhook_deliveries
      SET status = 'dead', next_attempt_at = NULL, last_error = 'endpoint_disabled', lease_owner = NULL, lease_until = NULL
      WHERE workspace_id = ${workspaceId} AND endpoint_id = ${endpointId} AND status = 'pending'`

  const insertAttempt = (key: DeliveryKey, attempt: AttemptRecord) =>
    sql`INSERT INTO webhook_attempts ${sql.insert({
      workspace_id: key.workspaceId,
      endpoint_id: key.endpointId,
      event_id: key.eventId,
      number: attempt.number,
      attempted_at: attempt.at,
      duration_ms: Math.round(attempt.durationMs),
      status_code: attempt.statusCode,
      response_body: attempt.responseBody,
      error: attempt.error === null ? null : JSON.stringify(attempt.error),
      redelivery: attempt.redelivery
    })}`

  const attemptsOf = (key: DeliveryKey, limit: number) =>
    sql`SELECT * FROM webhook_attempts
        WHERE workspace_id = ${key.workspaceId} AND endpoint_id = ${key.endpointId} AND event_id = ${key.eventId}
        ORDER BY number DESC LIMIT ${limit}`.pipe(Effect.map((rows) => rows.map(attemptFromRow)))

  const detailOf = (row: Row) =>
    Effect.gen(function* () {
      const delivery = deliveryFromRow(row)
      return { delivery, attempts: yield* attemptsOf(delivery, maxAttemptsShown) } satisfies DeliveryDetail
    })

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

    updateEndpoint: (workspaceId, id, change, at) =>
      operation("updateEndpoint")(
        sql.withTransaction(
          Effect.gen(function* () {
            const rotation = change.rotateSecret
            const rotating = rotation === undefined ? sql`false` : sql`true`
            const keepsPrevious = rotation !== undefined && rotation.previousExpiresAt > at ? sql`true` : sql`false`
            const enabling = change.enable === true ? sql`(NOT active)` : sql`false`
            const disabling = change.disable === undefined ? sql`false` : sql`active`
            // Every right-hand side reads the row as it was: the old secret becomes the previous one.
            const rows = yield* sql`UPDATE webhook_endpoints SET
                url = ${change.url === undefined ? sql`url` : sql`${change.url}`},
                events = ${change.events === undefined ? sql`events` : sql`${JSON.stringify(change.events)}::jsonb`},
                approval_links = ${change.hideApprovalLinks === true ? sql`'hidden'` : sql`approval_links`},
                secret = ${rotation === undefined ? sql`secret` : sql`${rotation.secret}`},
                previous_secret = CASE WHEN ${rotating} THEN (CASE WHEN ${keepsPrevious} THEN secret ELSE NULL END)
                  ELSE previous_secret END,
                previous_secret_expires_at = CASE WHEN ${rotating}
                  THEN (CASE WHEN ${keepsPrevious} THEN ${rotation?.previousExpiresAt ?? 0}::bigint ELSE NULL END)
                  ELSE previous_secret_expires_at END,
                subscribed_from = CASE WHEN ${enabling} THEN ${at}::bigint ELSE subscribed_from END,
                failing_since = CASE WHEN ${enabling} THEN NULL ELSE failing_since END,
                disabled_reason = CASE WHEN ${enabling} THEN NULL
                  WHEN ${disabling} THEN ${change.disable ?? ""}::text ELSE disabled_reason END,
                disabled_at = CASE WHEN ${enabling} THEN NULL WHEN ${disabling} THEN ${at}::bigint ELSE disabled_at END,
                active = CASE WHEN ${enabling} THEN true WHEN ${disabling} THEN false ELSE active END
              WHERE workspace_id = ${workspaceId} AND id = ${id}
              RETURNING *`
            if (rows.length === 0) return Option.none()
            if (change.disable !== undefined) yield* giveUpPending(workspaceId, id)
            return Option.some(endpointFromRow(rows[0]!))
          })
        )
      ),

    // One statement, so one transaction: take a batch of queued events off the queue (oldest
    // first, skipping those another instance holds) and create their deliveries. The events'
    // own rows are only read: fanning out never rewrites them.
    fanOutEvents: (at, limit) =>
      operation("fanOutEvents")(
        // The batch's sequence numbers as an array: its rows are deleted through the queue's
        // index whatever the planner knows of the queue's size (a join to them was planned as a
        // scan of the whole queue on a table not analyzed yet). Bounded by the batch, however
        // many events wait (test/history/bounded-queries.test.ts).
        sql`WITH batch AS (
              DELETE FROM outbox_pending
              WHERE seq = ANY (ARRAY(
                SELECT seq FROM outbox_pending ORDER BY seq LIMIT ${limit} FOR UPDATE SKIP LOCKED
              ))
              RETURNING seq, workspace_id
            ), fanned AS (
              INSERT INTO webhook_deliveries
                (workspace_id, endpoint_id, event_id, id, event_type, status, attempts, next_attempt_at, created_at)
              SELECT o.workspace_id, e.id, o.id, 'dlv_' || upper(substr(md5(e.id || ':' || o.id), 1, 26)), o.type,
                'pending', 0, ${at}, ${at}
              FROM batch b
              -- One look-up by key per event of the batch (the LIMIT keeps the planner from
              -- hashing the whole table when it misjudges the batch's size).
              CROSS JOIN LATERAL (
                SELECT workspace_id, id, type, created_at, data FROM outbox_events
                WHERE workspace_id = b.workspace_id AND seq = b.seq
                LIMIT 1
              ) o
              JOIN webhook_endpoints e ON e.workspace_id = o.workspace_id
              WHERE e.active AND e.events @> jsonb_build_array(o.type) AND e.subscribed_from <= o.created_at
                AND NOT (o.type = 'webhook_endpoint.disabled' AND o.data ->> 'endpoint_id' = e.id)
              ON CONFLICT DO NOTHING
              RETURNING 1
            )
            SELECT count(*) AS n FROM batch`.pipe(Effect.map(([row]) => toNumber(row?.n ?? 0)))
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
              e.previous_secret AS endpoint_previous_secret,
              e.previous_secret_expires_at AS endpoint_previous_secret_expires_at,
              e.active AS endpoint_active, e.disabled_reason AS endpoint_disabled_reason,
              e.disabled_at AS endpoint_disabled_at, e.last_success_at AS endpoint_last_success_at,
              e.failing_since AS endpoint_failing_since, e.subscribed_from AS endpoint_subscribed_from,
              e.created_at AS endpoint_created_at, e.approval_links AS endpoint_approval_links,
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
            yield* insertAttempt(key, {
              number: toNumber(updated[0]!.attempts),
              at: outcome.at,
              durationMs: outcome.attempt?.durationMs ?? 0,
              statusCode: outcome.statusCode,
              responseBody: outcome.attempt?.responseBody ?? null,
              error: outcome.attempt?.error ?? null,
              redelivery: false
            })
            const endpoint = sql`workspace_id = ${key.workspaceId} AND id = ${key.endpointId}`
            if (outcome.result === "delivered") {
              yield* sql`UPDATE webhook_endpoints
                SET last_success_at = greatest(coalesce(last_success_at, ${outcome.at}), ${outcome.at}), failing_since = NULL
                WHERE ${endpoint}`
              return { recorded: true, endpointDisabled: false }
            }
            yield* sql`UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, ${outcome.at}) WHERE ${endpoint}`
            if (outcome.result !== "dead" || outcome.disableIfFailingSince === undefined) {
              return { recorded: true, endpointDisabled: false }
            }
            const disabled = yield* sql`UPDATE webhook_endpoints
              SET active = false, disabled_reason = 'delivery_failed', disabled_at = ${outcome.at}
              WHERE ${endpoint} AND active AND failing_since <= ${outcome.disableIfFailingSince}
              RETURNING id`
            if (disabled.length === 0) return { recorded: true, endpointDisabled: false }
            yield* giveUpPending(key.workspaceId, key.endpointId)
            if (outcome.disabledNotice !== undefined) {
              yield* insertEvents(sql, [outcome.disabledNotice])
            }
            return { recorded: true, endpointDisabled: true }
          })
        )
      ),

    // A batch of delivered and retry outcomes in ONE statement, so one transaction: the
    // deliveries, their attempts in the log, and each endpoint's last success and failing
    // streak, folded per endpoint in the order of the attempts' times exactly as recording them
    // one by one would leave them. A batch with a `dead` outcome (rare: it may disable an
    // endpoint) is recorded one by one, in that order.
    recordAttempts: (owner, attempts) =>
      operation("recordAttempts")(
        Effect.gen(function* () {
          const ordered = inTimeOrder(attempts)
          if (ordered.some(({ item }) => item.outcome.result === "dead")) {
            const answers: Array<AttemptRecorded> = attempts.map(() => ({ recorded: false, endpointDisabled: false }))
            for (const { item, index } of ordered) answers[index] = yield* store.recordAttempt(item.key, owner, item.outcome)
            return answers
          }
          if (ordered.length === 0) return []
          const rows = JSON.stringify(
            ordered.map(({ item: { key, outcome } }, ord) => ({
              ord,
              workspace_id: key.workspaceId,
              endpoint_id: key.endpointId,
              event_id: key.eventId,
              status: outcome.result === "retry" ? "pending" : "delivered",
              at: outcome.at,
              next_attempt_at: outcome.result === "retry" ? outcome.nextAttemptAt : null,
              status_code: outcome.statusCode,
              error: outcome.error,
              duration_ms: Math.round(outcome.attempt?.durationMs ?? 0),
              response_body: outcome.attempt?.responseBody ?? null,
              attempt_error: outcome.attempt?.error ?? null
            }))
          )
          const recorded = yield* sql`WITH v AS (
              SELECT DISTINCT ON (workspace_id, endpoint_id, event_id) * FROM jsonb_to_recordset(${rows}::jsonb) AS x(
                ord integer, workspace_id text, endpoint_id text, event_id text, status text, at bigint,
                next_attempt_at bigint, status_code integer, error text, duration_ms integer, response_body text,
                attempt_error jsonb)
              ORDER BY workspace_id, endpoint_id, event_id, ord
            ), updated AS (
              UPDATE webhook_deliveries d SET
                status = v.status,
                attempts = d.attempts + 1,
                first_attempt_at = coalesce(d.first_attempt_at, v.at),
                last_attempt_at = v.at,
                next_attempt_at = v.next_attempt_at,
                last_status_code = v.status_code,
                last_error = v.error,
                lease_owner = NULL,
                lease_until = NULL
              FROM v
              WHERE d.workspace_id = v.workspace_id AND d.endpoint_id = v.endpoint_id AND d.event_id = v.event_id
                AND d.status = 'pending' AND d.lease_owner = ${owner}
              RETURNING d.workspace_id, d.endpoint_id, d.event_id, d.attempts
            ), done AS (
              SELECT v.*, u.attempts FROM updated u
              JOIN v ON v.workspace_id = u.workspace_id AND v.endpoint_id = u.endpoint_id AND v.event_id = u.event_id
            ), logged AS (
              INSERT INTO webhook_attempts
                (workspace_id, endpoint_id, event_id, number, attempted_at, duration_ms, status_code, response_body, error, redelivery)
              SELECT workspace_id, endpoint_id, event_id, attempts, at, duration_ms, status_code, response_body, attempt_error, false
              FROM done
            ), successes AS (
              SELECT workspace_id, endpoint_id,
                max(at) FILTER (WHERE status = 'delivered') AS success_at,
                max(ord) FILTER (WHERE status = 'delivered') AS success_ord
              FROM done GROUP BY workspace_id, endpoint_id
            ), streaks AS (
              SELECT s.workspace_id, s.endpoint_id, s.success_at,
                (SELECT min(f.at) FROM done f
                  WHERE f.workspace_id = s.workspace_id AND f.endpoint_id = s.endpoint_id AND f.status <> 'delivered'
                    AND (s.success_ord IS NULL OR f.ord > s.success_ord)) AS failed_at
              FROM successes s
            ), endpoints AS (
              UPDATE webhook_endpoints e SET
                last_success_at = CASE WHEN p.success_at IS NULL THEN e.last_success_at
                  ELSE greatest(coalesce(e.last_success_at, p.success_at), p.success_at) END,
                failing_since = CASE
                  WHEN p.failed_at IS NULL THEN (CASE WHEN p.success_at IS NULL THEN e.failing_since ELSE NULL END)
                  WHEN p.success_at IS NULL THEN coalesce(e.failing_since, p.failed_at)
                  ELSE p.failed_at END
              FROM streaks p
              WHERE e.workspace_id = p.workspace_id AND e.id = p.endpoint_id
            )
            SELECT ord FROM done`
          const recordedOrds = new Set(recorded.map((row) => toNumber(row.ord)))
          const answers: Array<AttemptRecorded> = attempts.map(() => ({ recorded: false, endpointDisabled: false }))
          for (const [ord, { index }] of ordered.entries()) {
            if (recordedOrds.has(ord)) answers[index] = { recorded: true, endpointDisabled: false }
          }
          return answers
        })
      ),

    deliveryBacklog: () =>
      operation("deliveryBacklog")(
        // The pending count reads the partial index of pending deliveries; endpoints are few; the
        // events waiting are the fan-out's queue (as long as the dispatcher's backlog, not the
        // history), the oldest its first row by `seq`, read by key.
        sql`SELECT
            (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending') AS pending,
            (SELECT count(*) FROM webhook_endpoints WHERE NOT active) AS disabled,
            (SELECT count(*) FROM outbox_pending) AS waiting,
            (SELECT o.created_at FROM (SELECT seq, workspace_id FROM outbox_pending ORDER BY seq LIMIT 1) first
              JOIN outbox_events o ON o.workspace_id = first.workspace_id AND o.seq = first.seq) AS oldest`.pipe(
          Effect.map(([row]) => ({
            pending: toNumber(row?.pending ?? 0),
            disabledEndpoints: toNumber(row?.disabled ?? 0),
            eventsWaiting: toNumber(row?.waiting ?? 0),
            oldestEventWaitingAt: toNumberOrNull(row?.oldest)
          }))
        )
      ),

    releaseDeliveries: (owner) =>
      operation("releaseDeliveries")(
        sql`UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL
            WHERE status = 'pending' AND lease_owner = ${owner}`.pipe(Effect.asVoid)
      ),

    recordRedelivery: (key, outcome) =>
      operation("recordRedelivery")(
        sql.withTransaction(
          Effect.gen(function* () {
            const where = sql`workspace_id = ${key.workspaceId} AND endpoint_id = ${key.endpointId} AND event_id = ${key.eventId}`
            const delivered = outcome.delivered ? sql`true` : sql`false`
            const updated = yield* sql`UPDATE webhook_deliveries SET
                attempts = attempts + 1,
                first_attempt_at = coalesce(first_attempt_at, ${outcome.at}),
                last_attempt_at = greatest(coalesce(last_attempt_at, ${outcome.at}), ${outcome.at}),
                last_status_code = ${outcome.statusCode},
                status = CASE WHEN ${delivered} THEN 'delivered' ELSE status END,
                next_attempt_at = CASE WHEN ${delivered} THEN NULL ELSE next_attempt_at END,
                last_error = CASE WHEN ${delivered} THEN NULL ELSE last_error END,
                lease_owner = CASE WHEN ${delivered} THEN NULL ELSE lease_owner END,
                lease_until = CASE WHEN ${delivered} THEN NULL ELSE lease_until END
              WHERE ${where}
              RETURNING *`
            if (updated.length === 0) return Option.none()
            yield* insertAttempt(key, {
              number: toNumber(updated[0]!.attempts),
              at: outcome.at,
              durationMs: outcome.durationMs,
              statusCode: outcome.statusCode,
              responseBody: outcome.responseBody,
              error: outcome.error,
              redelivery: true
            })
            const endpoint = sql`workspace_id = ${key.workspaceId} AND id = ${key.endpointId}`
            yield* outcome.delivered
              ? sql`UPDATE webhook_endpoints
                  SET last_success_at = greatest(coalesce(last_success_at, ${outcome.at}), ${outcome.at}), failing_since = NULL
                  WHERE ${endpoint}`
              : sql`UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, ${outcome.at}) WHERE ${endpoint}`
            return Option.some(yield* detailOf(updated[0]!))
          })
        )
      ),

    listDeliveries: (workspaceId, endpointId) =>
      operation("listDeliveries")(
        sql`SELECT * FROM webhook_deliveries WHERE workspace_id = ${workspaceId} AND endpoint_id = ${endpointId}
            ORDER BY created_at, event_id`.pipe(Effect.map((rows) => rows.map(deliveryFromRow)))
      ),

    // The latest attempt of each delivery of the page comes from the attempts' primary key.
    listDeliveryLog: (workspaceId, endpointId, filter, after, limit) =>
      operation("listDeliveryLog")(
        sql`SELECT d.*, a.number AS attempt_number, a.attempted_at AS attempt_attempted_at,
              a.duration_ms AS attempt_duration_ms, a.status_code AS attempt_status_code,
              a.response_body AS attempt_response_body, a.error AS attempt_error, a.redelivery AS attempt_redelivery
            FROM (
              SELECT * FROM webhook_deliveries
              WHERE ${sql.and([
                sql`workspace_id = ${workspaceId}`,
                sql`endpoint_id = ${endpointId}`,
                ...(filter.status === undefined ? [] : [sql`status = ${filter.status}`]),
                ...(filter.eventType === undefined ? [] : [sql`event_type = ${filter.eventType}`]),
                ...(filter.from === undefined ? [] : [sql`created_at >= ${filter.from}`]),
                ...(filter.to === undefined ? [] : [sql`created_at < ${filter.to}`]),
                ...(after === undefined ? [] : [sql`(created_at, id) < (${after.sortKey}, ${after.id})`])
              ])}
              ORDER BY created_at DESC, id DESC LIMIT ${limit}
            ) d
            LEFT JOIN LATERAL (
              SELECT * FROM webhook_attempts la
              WHERE la.workspace_id = d.workspace_id AND la.endpoint_id = d.endpoint_id AND la.event_id = d.event_id
              ORDER BY la.number DESC LIMIT 1
            ) a ON true
            ORDER BY d.created_at DESC, d.id DESC`.pipe(
          Effect.map((rows) =>
            rows.map((row) => ({
              delivery: deliveryFromRow(row),
              lastAttempt:
                row.attempt_number === null || row.attempt_number === undefined
                  ? null
                  : attemptFromRow({
                      number: row.attempt_number,
                      attempted_at: row.attempt_attempted_at,
                      duration_ms: row.attempt_duration_ms,
                      status_code: row.attempt_status_code,
                      response_body: row.attempt_response_body,
                      error: row.attempt_error,
                      redelivery: row.attempt_redelivery
                    })
            }))
          )
        )
      ),

    getDelivery: (workspaceId, endpointId, deliveryId) =>
      operation("getDelivery")(
        Effect.gen(function* () {
          const rows = yield* sql`SELECT * FROM webhook_deliveries
            WHERE workspace_id = ${workspaceId} AND id = ${deliveryId} AND endpoint_id = ${endpointId}`
          return rows.length === 0 ? Option.none() : Option.some(yield* detailOf(rows[0]!))
        })
      ),

    // Several types: one index range per type (each newest first, at most `limit`), merged, so
    // the page never scans the events of other types.
    listEventLog: (workspaceId, filter, after, limit) =>
      operation("listEventLog")(
        Effect.gen(function* () {
          const page = (type: string | undefined) =>
            sql`SELECT id, workspace_id, type, created_at, livemode, data FROM outbox_events
              WHERE ${sql.and([
                sql`workspace_id = ${workspaceId}`,
                ...(type === undefined ? [] : [sql`type = ${type}`]),
                ...(filter.postId === undefined ? [] : [sql`post_id = ${filter.postId}`]),
                ...(filter.accountId === undefined ? [] : [sql`account_id = ${filter.accountId}`]),
                ...(filter.from === undefined ? [] : [sql`created_at >= ${filter.from}`]),
                ...(filter.to === undefined ? [] : [sql`created_at < ${filter.to}`]),
                ...(after === undefined ? [] : [sql`(created_at, id) < (${after.sortKey}, ${after.id})`])
              ])}
              ORDER BY created_at DESC, id DESC LIMIT ${limit}`
          const types = filter.types === undefined || filter.types.length === 0 ? [undefined] : [...new Set(filter.types)]
          const pages = yield* Effect.forEach(types, page)
          return pages
            .flat()
            .map(eventFromRow)
            .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
            .slice(0, limit)
        })
      ),

    getEvent: (workspaceId, id) =>
      operation("getEvent")(
        sql`SELECT id, workspace_id, type, created_at, livemode, data FROM outbox_events
            WHERE workspace_id = ${workspaceId} AND id = ${id}`.pipe(
          Effect.map((rows) => (rows.length === 0 ? Option.none() : Option.some(eventFromRow(rows[0]!))))
        )
      ),

    claimPruneLease: (owner, at, leaseUntil) =>
      operation("claimPruneLease")(
        sql`INSERT INTO webhook_log_leases (name, owner, lease_until) VALUES ('prune', ${owner}, ${leaseUntil})
            ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until
            WHERE webhook_log_leases.lease_until <= ${at}
            RETURNING owner`.pipe(Effect.map((rows) => rows.length > 0))
      ),

    // Two bounded statements: finished deliveries first (their attempts go with them), then the
    // events no delivery refers to any more.
    pruneLog: (before, limit) =>
      operation("pruneLog")(
        Effect.gen(function* () {
          const deliveries = yield* sql`DELETE FROM webhook_deliveries d
            USING (
              SELECT workspace_id, endpoint_id, event_id FROM webhook_deliveries
              WHERE status <> 'pending' AND created_at < ${before}
              ORDER BY created_at LIMIT ${limit}
              FOR UPDATE SKIP LOCKED
            ) old
            WHERE d.workspace_id = old.workspace_id AND d.endpoint_id = old.endpoint_id AND d.event_id = old.event_id
            RETURNING 1`
          const events = yield* sql`DELETE FROM outbox_events o
            USING (
              SELECT e.workspace_id, e.seq FROM outbox_events e
              WHERE e.created_at < ${before}
                AND NOT EXISTS (SELECT 1 FROM outbox_pending p WHERE p.seq = e.seq AND p.workspace_id = e.workspace_id)
                AND NOT EXISTS (
                  SELECT 1 FROM webhook_deliveries d WHERE d.workspace_id = e.workspace_id AND d.event_id = e.id
                )
              ORDER BY e.created_at LIMIT ${limit}
              FOR UPDATE OF e SKIP LOCKED
            ) old
            WHERE o.workspace_id = old.workspace_id AND o.seq = old.seq
            RETURNING 1`
          return deliveries.length + events.length
        })
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
export const layer: Layer.Layer<WebhookStore, never, SqlClient.SqlClient> = migratedLayer(WebhookStore, make)

const endpointRow = (endpoint: WebhookEndpointRecord) => ({
  workspace_id: endpoint.workspaceId,
  id: endpoint.id,
  url: endpoint.url,
  events: JSON.stringify(endpoint.events),
  secret: endpoint.secret,
  previous_secret: endpoint.previousSecret,
  previous_secret_expires_at: endpoint.previousSecretExpiresAt,
  active: endpoint.active,
  disabled_reason: endpoint.disabledReason,
  disabled_at: endpoint.disabledAt,
  last_success_at: endpoint.lastSuccessAt,
  failing_since: endpoint.failingSince,
  subscribed_from: endpoint.subscribedFrom,
  created_at: endpoint.createdAt,
  approval_links: endpoint.approvalLinks
})


const claimedFromRow = (row: Row): ClaimedDelivery => {
  const event = eventFromRow({
    id: row.event_id,
    workspace_id: row.workspace_id,
    type: row.event_type,
    created_at: row.event_created_at,
    livemode: row.event_livemode,
    data: row.event_data
  })
  const endpoint = endpointFromRow(
    Object.fromEntries([
      ["workspace_id", row.workspace_id],
      ["id", row.endpoint_id],
      ...Object.entries(row)
        .filter(([name]) => name.startsWith("endpoint_") && name !== "endpoint_id")
        .map(([name, value]) => [name.slice("endpoint_".length), value])
    ])
  )
  return { delivery: deliveryFromRow(row), endpoint, event }
}
