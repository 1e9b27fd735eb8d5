/**
 * The publisher's indexes on `targets`. Each leads with `workspace_id`, as every index does, so
 * the schema can still be distributed by workspace (Citus), and each is partial: it holds only
 * the rows its query looks at, so it stays small however many targets have finished.
 *
 * - `targets_due`: what may be claimed (queued, scheduled, or waiting for a next step), by due time.
 * - `targets_leased`: the targets being worked on now, by account (per-account concurrency).
 * - `targets_published`: what an account published, by time (the quota check at publish time).
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const statements: ReadonlyArray<string> = [
  `CREATE INDEX targets_due ON targets (workspace_id, due_at)
    WHERE status IN ('queued', 'scheduled', 'publishing')`,
  `CREATE INDEX targets_leased ON targets (workspace_id, account_id) WHERE lease_owner IS NOT NULL`,
  `CREATE INDEX targets_published ON targets (workspace_id, account_id, published_at) WHERE status = 'published'`
]

/** Creates the publisher's indexes. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
