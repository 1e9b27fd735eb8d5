/**
 * Publishes whose answer may be lost: `targets.unconfirmed_since` records since when the
 * platform may have published a target without having said so (a publish was sent). Such a
 * target is never failed while the platform might have published it; it waits and its platform
 * is asked again. Cleared when the target completes.
 *
 * - `targets_unconfirmed`: the (few) targets that may be published, for the count metrics read.
 *
 * @since 0.2.0
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const statements: ReadonlyArray<string> = [
  `ALTER TABLE targets ADD COLUMN unconfirmed_since bigint`,
  `CREATE INDEX targets_unconfirmed ON targets (workspace_id, unconfirmed_since) WHERE unconfirmed_since IS NOT NULL`
]

/** Adds the possibly-published marker to targets. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
