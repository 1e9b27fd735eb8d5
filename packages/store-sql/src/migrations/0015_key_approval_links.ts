/**
 * Keys that never see approval links (issue #37): `api_keys.approval_links` is `shown` (as
 * every key has behaved until now) or `hidden`, for keys given to agents and integrations that
 * may create posts but must never hold the link that approves them; and
 * `webhook_endpoints.approval_links`, `hidden` once such a key registered or changed the
 * endpoint (its deliveries then carry no link). Every existing key and endpoint is `shown`; a
 * constant default adds a column without rewriting the table.
 *
 * @since 0.6.0
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Adds `approval_links` (`shown` or `hidden`, default `shown`) to `api_keys` and `webhook_endpoints`. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const table of ["api_keys", "webhook_endpoints"]) {
    yield* sql.unsafe(
      `ALTER TABLE ${table} ADD COLUMN approval_links text NOT NULL DEFAULT 'shown' CHECK (approval_links IN ('shown', 'hidden'))`
    )
  }
})
