/**
 * Targets published without their public address (TikTok keeps the post id back until
 * moderation ends), until the permalink backfill fills it in or gives up. A row exists only
 * while the backfill still asks, so the table stays small; it leads with `workspace_id` like
 * every other table, and goes with its target.
 *
 * - `pending_permalinks_due`: what may be claimed, by the time to ask next.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const statements: ReadonlyArray<string> = [
  `CREATE TABLE pending_permalinks (
    workspace_id text COLLATE "C" NOT NULL,
    target_id text COLLATE "C" NOT NULL,
    post_id text COLLATE "C" NOT NULL,
    account_id text COLLATE "C" NOT NULL,
    since bigint NOT NULL,
    asked integer NOT NULL,
    ask_at bigint NOT NULL,
    lease_owner text,
    lease_until bigint,
    PRIMARY KEY (workspace_id, target_id),
    FOREIGN KEY (workspace_id, target_id) REFERENCES targets (workspace_id, id) ON DELETE CASCADE
  )`,
  `CREATE INDEX pending_permalinks_due ON pending_permalinks (workspace_id, ask_at)`
]

/** Creates the table of pending permalinks. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
