/**
 * Statements whose cost does not grow with history. A quota count used to join every target of
 * an account with its post to compute each target's instant (`published_at`, else its post's
 * `publish_at`); the instant is now kept on the target as `quota_at`, written with every write of
 * the target or of its post's `publish_at`, so the count is one range of a partial index.
 *
 * - `targets.quota_at`: the instant a target counts against its account's quota (backfilled).
 * - `targets_quota`: the targets that count, by account and instant (the quota check at create).
 * - `targets_publishing`: the targets being published, by account (the quota check at publish).
 * - `approval_tokens_by_post`: a post's approval tokens (saving a post replaces them), which were
 *   found by reading every token of every workspace.
 * - `targets_by_platform`: the posts with a target on a platform, for a list filtered by a
 *   platform few posts use (a common one finds its page by walking the posts newest first).
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const statements: ReadonlyArray<string> = [
  `ALTER TABLE targets ADD COLUMN quota_at bigint`,
  `UPDATE targets t SET quota_at = coalesce(t.published_at, p.publish_at)
    FROM posts p WHERE p.workspace_id = t.workspace_id AND p.id = t.post_id`,
  `ALTER TABLE targets ALTER COLUMN quota_at SET NOT NULL`,
  `CREATE INDEX targets_quota ON targets (workspace_id, account_id, quota_at)
    WHERE status NOT IN ('cancelled', 'rejected', 'failed')`,
  `CREATE INDEX targets_publishing ON targets (workspace_id, account_id) WHERE status = 'publishing'`,
  `CREATE INDEX approval_tokens_by_post ON approval_tokens (workspace_id, post_id)`,
  `CREATE INDEX targets_by_platform ON targets (workspace_id, platform, post_id)`
]

/** Adds the quota instant to targets and the indexes that bound the quota counts. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
