/**
 * Room for the publisher's updates on the page of the row they change (PostgreSQL's HOT updates:
 * a new row version on the same page, no new index entries, when no indexed column changes).
 *
 * While a target is published its post is written four or five times (its version bumped by
 * every step) and the target as often: on full pages each of those writes added an entry to
 * every index of the table (nine for a target being published, four for a post), which was most
 * of the database's time per target (docs/performance.md, "Fifth round").
 *
 * - `posts` and `targets` leave 15% of each new page free (`fillfactor = 85`): a version bump of
 *   a post, and a checkpoint of a target, stay on their page.
 * - `targets_unconfirmed` is dropped: the checkpoint before a publish sets `unconfirmed_since`,
 *   and that column being indexed made every checkpoint write nine index entries. The one read
 *   that used it (the count of targets that may be published) reads the `publishing` targets
 *   through `targets_publishing`: as many rows as are being published, never the history.
 *
 * @since 0.4.0
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const statements: ReadonlyArray<string> = [
  `ALTER TABLE posts SET (fillfactor = 85)`,
  `ALTER TABLE targets SET (fillfactor = 85)`,
  `DROP INDEX IF EXISTS targets_unconfirmed`
]

/** Frees room on new pages of posts and targets and drops the index a checkpoint changed. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
