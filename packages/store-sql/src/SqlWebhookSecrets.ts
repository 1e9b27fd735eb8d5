/**
 * The stored signing secrets of every webhook endpoint (the current one and, during a rotation,
 * the previous one), read and replaced in bulk: what `postwire secrets reseal` walks to seal
 * them under the newest master secret.
 *
 * @since 0.5.0
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** One endpoint's stored secrets. */
export interface StoredSecrets {
  readonly workspaceId: string
  readonly endpointId: string
  readonly secret: string
  readonly previousSecret: string | null
}

interface Row {
  readonly workspace_id: string
  readonly id: string
  readonly secret: string
  readonly previous_secret: string | null
}

const toStored = (row: Row): StoredSecrets => ({
  workspaceId: row.workspace_id,
  endpointId: row.id,
  secret: row.secret,
  previousSecret: row.previous_secret ?? null
})

/** Up to `limit` endpoints, in (workspace, endpoint) order, after the one named. */
export const listAfter = (after: { readonly workspaceId: string; readonly endpointId: string } | undefined, limit: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* (after === undefined
      ? sql<Row>`SELECT workspace_id, id, secret, previous_secret FROM webhook_endpoints
          ORDER BY workspace_id, id LIMIT ${limit}`
      : sql<Row>`SELECT workspace_id, id, secret, previous_secret FROM webhook_endpoints
          WHERE (workspace_id, id) > (${after.workspaceId}, ${after.endpointId})
          ORDER BY workspace_id, id LIMIT ${limit}`)
    return rows.map(toStored)
  })

/**
 * Replaces an endpoint's stored secrets if they are still the ones read (a running server may
 * have rolled the secret meanwhile); true when replaced.
 */
export const replace = (stored: StoredSecrets, next: { readonly secret: string; readonly previousSecret: string | null }) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql`UPDATE webhook_endpoints SET secret = ${next.secret}, previous_secret = ${next.previousSecret}
      WHERE workspace_id = ${stored.workspaceId} AND id = ${stored.endpointId}
        AND secret = ${stored.secret} AND previous_secret IS NOT DISTINCT FROM ${stored.previousSecret}
      RETURNING id`
    return rows.length > 0
  })
