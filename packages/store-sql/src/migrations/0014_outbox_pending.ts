/**
 * The outbox's queue of events to fan out in a table of its own (`outbox_pending`), so that
 * fanning an event out never rewrites its row.
 *
 * Until now an event was marked fanned out by setting `outbox_events.dispatched_at`. That column
 * was in the predicates of two partial indexes (the pending events, the prunable ones), so the
 * update could never be HOT: every event fanned out wrote a new row version (with its `data`)
 * and an entry in each of the table's seven indexes, and left a dead row behind for vacuum
 * (2,452 bytes of WAL an event, docs/performance.md, "Thirteenth round"). And the pending index
 * was ordered by workspace first: taking the oldest pending events across workspaces sorted
 * every pending event, each time.
 *
 * Now an event is inserted together with its row in `outbox_pending` (ordered by `seq`, the
 * order of the fan-out), and the fan-out deletes that row: `outbox_events` is only ever inserted
 * into and, once old, pruned. Events not fanned out when the migration runs are queued by it;
 * `dispatched_at` and its two indexes are dropped, and the prune finds old events through an
 * index on `created_at` (an event still queued is never pruned).
 *
 * @since 0.5.0
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const statements: ReadonlyArray<string> = [
  `CREATE TABLE outbox_pending (
    seq bigint NOT NULL,
    workspace_id text COLLATE "C" NOT NULL,
    PRIMARY KEY (seq, workspace_id)
  )`,
  `INSERT INTO outbox_pending (seq, workspace_id)
    SELECT seq, workspace_id FROM outbox_events WHERE dispatched_at IS NULL`,
  `DROP INDEX IF EXISTS outbox_events_pending`,
  `DROP INDEX IF EXISTS outbox_events_prunable`,
  `ALTER TABLE outbox_events DROP COLUMN dispatched_at`,
  `CREATE INDEX outbox_events_age ON outbox_events (created_at)`
]

/** Queues the events not fanned out yet in `outbox_pending` and drops `dispatched_at`. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
