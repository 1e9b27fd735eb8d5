/**
 * The approval links `post.awaiting_approval` events hold in clear, written before links were
 * sealed (issue #37): what `postwire secrets reseal` walks to seal them.
 *
 * @since 0.6.0
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** One event's link in clear. */
export interface ClearLink {
  readonly workspaceId: string
  readonly seq: string
  readonly approvalId: string
  readonly url: string
}

interface Row {
  readonly workspace_id: string
  readonly seq: string | number | bigint
  readonly approval_id: string | null
  readonly url: string
}

/** Up to `limit` events with a link in clear, in (workspace, seq) order, after the one named. */
export const listAfter = (after: { readonly workspaceId: string; readonly seq: string } | undefined, limit: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const clear = sql`type = 'post.awaiting_approval' AND data->>'approval_url' LIKE 'http%'`
    const rows = yield* (after === undefined
      ? sql<Row>`SELECT workspace_id, seq, data->>'approval_id' AS approval_id, data->>'approval_url' AS url
          FROM outbox_events WHERE ${clear} ORDER BY workspace_id, seq LIMIT ${limit}`
      : sql<Row>`SELECT workspace_id, seq, data->>'approval_id' AS approval_id, data->>'approval_url' AS url
          FROM outbox_events WHERE ${clear} AND (workspace_id, seq) > (${after.workspaceId}, ${after.seq}::bigint)
          ORDER BY workspace_id, seq LIMIT ${limit}`)
    return rows.map((row): ClearLink => ({
      workspaceId: row.workspace_id,
      seq: String(row.seq),
      approvalId: row.approval_id ?? "",
      url: row.url
    }))
  })

/** Replaces an event's link in clear with its sealed form, if it is still the one read; true when replaced. */
export const replace = (link: ClearLink, sealed: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql`UPDATE outbox_events SET data = jsonb_set(data, '{approval_url}', to_jsonb(${sealed}::text))
      WHERE workspace_id = ${link.workspaceId} AND seq = ${link.seq}::bigint AND data->>'approval_url' = ${link.url}
      RETURNING seq`
    return rows.length > 0
  })
