/**
 * Webhook endpoints and their deliveries. Both lead with `workspace_id` like every other
 * table. A delivery is one event for one endpoint, so its key is the pair; the partial index on
 * pending deliveries keeps the dispatcher's "what is due" query small however many deliveries
 * have finished.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const statements: ReadonlyArray<string> = [
  `CREATE TABLE webhook_endpoints (
    workspace_id text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    url text NOT NULL,
    events jsonb NOT NULL,
    secret text NOT NULL,
    active boolean NOT NULL,
    disabled_reason text,
    disabled_at bigint,
    last_success_at bigint,
    created_at bigint NOT NULL,
    PRIMARY KEY (workspace_id, id)
  )`,
  `CREATE INDEX webhook_endpoints_by_created_at ON webhook_endpoints (workspace_id, created_at DESC, id DESC)`,
  `CREATE TABLE webhook_deliveries (
    workspace_id text COLLATE "C" NOT NULL,
    endpoint_id text COLLATE "C" NOT NULL,
    event_id text COLLATE "C" NOT NULL,
    status text NOT NULL,
    attempts integer NOT NULL,
    first_attempt_at bigint,
    last_attempt_at bigint,
    next_attempt_at bigint,
    last_status_code integer,
    last_error text,
    lease_owner text,
    lease_until bigint,
    created_at bigint NOT NULL,
    PRIMARY KEY (workspace_id, endpoint_id, event_id),
    FOREIGN KEY (workspace_id, endpoint_id) REFERENCES webhook_endpoints (workspace_id, id) ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, event_id) REFERENCES outbox_events (workspace_id, id)
  )`,
  `CREATE INDEX webhook_deliveries_due ON webhook_deliveries (workspace_id, next_attempt_at) WHERE status = 'pending'`,
  `CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries (workspace_id, event_id)`
]

/** Creates the webhook tables. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
