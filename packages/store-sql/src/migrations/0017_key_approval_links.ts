/**
 * Keys that never see approval links (issue #37): `api_keys.approval_links` is `shown` (as
 * every key has behaved until now) or `hidden`, for keys given to agents and integrations that
 * may create posts but must never hold the link that approves them. Every existing key is
 * `shown`; a constant default adds the column without rewriting the table.
 *
 * @since 0.6.0
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Adds `approval_links` (`shown` or `hidden`, default `shown`) to `api_keys`. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(
    `ALTER TABLE api_keys ADD COLUMN approval_links text NOT NULL DEFAULT 'shown' CHECK (approval_links IN ('shown', 'hidden'))`
  )
})
