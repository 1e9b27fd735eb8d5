/**
 * The webhook log: every attempt of every delivery, deliveries addressable by a `dlv_` id and
 * filterable by status and event type, the events list, secret rotation, re-enabling, the
 * failing streak that disables an endpoint, and the lease of the job that prunes all of it
 * after 30 days.
 *
 * Every list is keyset-paged on an index that leads with `workspace_id` (and the endpoint), so
 * reading a page never scans history; the prune job finds old rows through indexes on their
 * age and deletes them in bounded batches.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const statements: ReadonlyArray<string> = [
  // Endpoints: the previous secret during a rotation, when events start counting for it
  // (registration or re-enabling), and since when every attempt has failed.
  `ALTER TABLE webhook_endpoints
    ADD COLUMN previous_secret text,
    ADD COLUMN previous_secret_expires_at bigint,
    ADD COLUMN failing_since bigint,
    ADD COLUMN subscribed_from bigint`,
  `UPDATE webhook_endpoints SET subscribed_from = created_at`,
  `ALTER TABLE webhook_endpoints ALTER COLUMN subscribed_from SET NOT NULL`,

  // Deliveries: a public id (derived from the endpoint and the event, as the stores compute it)
  // and the event's type, for the log's filters.
  `ALTER TABLE webhook_deliveries ADD COLUMN id text COLLATE "C", ADD COLUMN event_type text`,
  `UPDATE webhook_deliveries d SET
    id = 'dlv_' || upper(substr(md5(d.endpoint_id || ':' || d.event_id), 1, 26)),
    event_type = o.type
   FROM outbox_events o WHERE o.workspace_id = d.workspace_id AND o.id = d.event_id`,
  `ALTER TABLE webhook_deliveries ALTER COLUMN id SET NOT NULL, ALTER COLUMN event_type SET NOT NULL`,
  `CREATE UNIQUE INDEX webhook_deliveries_by_id ON webhook_deliveries (workspace_id, id)`,
  `CREATE INDEX webhook_deliveries_log ON webhook_deliveries (workspace_id, endpoint_id, created_at DESC, id DESC)`,
  `CREATE INDEX webhook_deliveries_log_by_status
    ON webhook_deliveries (workspace_id, endpoint_id, status, created_at DESC, id DESC)`,
  `CREATE INDEX webhook_deliveries_log_by_type
    ON webhook_deliveries (workspace_id, endpoint_id, event_type, created_at DESC, id DESC)`,
  `CREATE INDEX webhook_deliveries_prunable ON webhook_deliveries (created_at) WHERE status <> 'pending'`,

  // Attempts, numbered per delivery; they go with it.
  `CREATE TABLE webhook_attempts (
    workspace_id text COLLATE "C" NOT NULL,
    endpoint_id text COLLATE "C" NOT NULL,
    event_id text COLLATE "C" NOT NULL,
    number integer NOT NULL,
    attempted_at bigint NOT NULL,
    duration_ms integer NOT NULL,
    status_code integer,
    response_body text,
    error jsonb,
    redelivery boolean NOT NULL,
    PRIMARY KEY (workspace_id, endpoint_id, event_id, number),
    FOREIGN KEY (workspace_id, endpoint_id, event_id)
      REFERENCES webhook_deliveries (workspace_id, endpoint_id, event_id) ON DELETE CASCADE
  )`,

  // Events: what a list filters on, and the keyset order newest first.
  `ALTER TABLE outbox_events
    ADD COLUMN post_id text COLLATE "C" GENERATED ALWAYS AS (data ->> 'post_id') STORED,
    ADD COLUMN account_id text COLLATE "C" GENERATED ALWAYS AS (data ->> 'account_id') STORED`,
  `CREATE INDEX outbox_events_log ON outbox_events (workspace_id, created_at DESC, id DESC)`,
  `CREATE INDEX outbox_events_log_by_type ON outbox_events (workspace_id, type, created_at DESC, id DESC)`,
  `CREATE INDEX outbox_events_log_by_post
    ON outbox_events (workspace_id, post_id, created_at DESC, id DESC) WHERE post_id IS NOT NULL`,
  `CREATE INDEX outbox_events_log_by_account
    ON outbox_events (workspace_id, account_id, created_at DESC, id DESC) WHERE account_id IS NOT NULL`,
  `CREATE INDEX outbox_events_prunable ON outbox_events (created_at) WHERE dispatched_at IS NOT NULL`,

  // The lease of the prune job: one row per job, held for the interval between prunes.
  `CREATE TABLE webhook_log_leases (
    name text PRIMARY KEY,
    owner text NOT NULL,
    lease_until bigint NOT NULL
  )`
]

/** Adds the webhook log. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
