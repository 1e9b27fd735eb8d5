/**
 * The sealed platform credentials of every account, read and replaced in bulk: what
 * `postwire secrets reseal` walks to re-seal them under the newest master secret.
 *
 * @since 0.2.0
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** One account's sealed credentials. */
export interface SealedCredentials {
  readonly workspaceId: string
  readonly accountId: string
  readonly credentials: string
}

/** Up to `limit` accounts with credentials, in (workspace, account) order, after the one named. */
export const listAfter = (after: { readonly workspaceId: string; readonly accountId: string } | undefined, limit: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* (after === undefined
      ? sql<{ workspace_id: string; id: string; credentials: string }>`
          SELECT workspace_id, id, credentials FROM accounts WHERE credentials IS NOT NULL
          ORDER BY workspace_id, id LIMIT ${limit}`
      : sql<{ workspace_id: string; id: string; credentials: string }>`
          SELECT workspace_id, id, credentials FROM accounts WHERE credentials IS NOT NULL
            AND (workspace_id, id) > (${after.workspaceId}, ${after.accountId})
          ORDER BY workspace_id, id LIMIT ${limit}`)
    return rows.map((row): SealedCredentials => ({ workspaceId: row.workspace_id, accountId: row.id, credentials: row.credentials }))
  })

/**
 * Replaces an account's sealed credentials if they are still `expected` (a running server may
 * have stored rotated tokens meanwhile); true when replaced.
 */
export const replace = (sealed: SealedCredentials, next: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql`UPDATE accounts SET credentials = ${next}
      WHERE workspace_id = ${sealed.workspaceId} AND id = ${sealed.accountId} AND credentials = ${sealed.credentials}
      RETURNING id`
    return rows.length > 0
  })
