/**
 * The `IdempotencyStore` on SQL: keys in the `idempotency_keys` table (PostgreSQL or the embedded
 * database); a claim is one atomic statement, so two instances never both start the same key.
 *
 * @since 0.2.0
 */
import {
  type IdempotencyClaim,
  type IdempotencyRecord,
  type IdempotencyScope,
  IdempotencyRules,
  IdempotencyStore,
  Spans,
  StoreError
} from "@postwire/core"
import { Effect, Layer } from "effect"
import { SqlClient, SqlError } from "effect/sql"

/** Keys in the `idempotency_keys` table (created by the store's first migration). */
export const make: Effect.Effect<IdempotencyStore["Service"], never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const failed = (operation: string) => Effect.mapError((cause: unknown) => new StoreError({ operation, cause }))
  const where = (scope: IdempotencyScope) =>
    sql`workspace_id = ${scope.workspaceId} AND key_id = ${scope.keyId} AND key = ${scope.key}`
  /** The key while it is still this request's claim. */
  const own = (claim: IdempotencyClaim) =>
    sql`${where(claim)} AND state = 'in_progress' AND locked_until = ${claim.lockedUntil}`

  /**
   * One statement: the claim (an insert, or an update of a claimable record, decided on the
   * newest version of the row) and, from the statement's snapshot, the record that was there.
   */
  const claim = (record: IdempotencyRecord, expiredBefore: number) =>
    sql`WITH claimed AS (
        INSERT INTO idempotency_keys ${sql.insert({
          workspace_id: record.workspaceId,
          key_id: record.keyId,
          key: record.key,
          request_hash: record.requestHash,
          state: record.state,
          status: record.status,
          body: record.body,
          created_at: record.createdAt,
          locked_until: record.lockedUntil
        })}
        ON CONFLICT (workspace_id, key_id, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, state = EXCLUDED.state,
          status = EXCLUDED.status, body = EXCLUDED.body, created_at = EXCLUDED.created_at, locked_until = EXCLUDED.locked_until
        WHERE idempotency_keys.created_at < ${expiredBefore}
          OR (idempotency_keys.request_hash = EXCLUDED.request_hash AND idempotency_keys.state = 'in_progress'
            AND idempotency_keys.locked_until <= EXCLUDED.created_at)
        RETURNING 1
      )
      SELECT (SELECT count(*) FROM claimed) AS claimed, k.request_hash, k.state, k.status, k.body, k.created_at, k.locked_until
      FROM (SELECT 1) AS one LEFT JOIN idempotency_keys k ON ${where(record)}`

  return IdempotencyStore.of({
    begin: (record, expiredBefore) =>
      Effect.gen(function* () {
        // A record written by a request that committed after this statement's snapshot is not
        // in the snapshot: look again (the claim itself is decided on the newest version).
        for (let attempt = 0; attempt < 3; attempt++) {
          const [row] = yield* claim(record, expiredBefore)
          if (Number(row!.claimed) > 0) return IdempotencyRules.started
          if (row!.request_hash === null || row!.request_hash === undefined) continue
          const existing = {
            requestHash: row!.request_hash as string,
            state: row!.state as IdempotencyRecord["state"],
            status: row!.status === null ? null : Number(row!.status),
            body: row!.body as string | null,
            createdAt: Number(row!.created_at),
            lockedUntil: Number(row!.locked_until)
          }
          if (IdempotencyRules.claimable(existing, record, expiredBefore)) continue
          return IdempotencyRules.found(existing, record)
        }
        return IdempotencyRules.inProgress
      }).pipe(failed("beginIdempotency"), Spans.withSpan("IdempotencyStore.begin")),
    transaction: (effect) =>
      sql.withTransaction(effect).pipe(
        Effect.catchIf(SqlError.isSqlError, (cause) => Effect.fail(new StoreError({ operation: "idempotentTransaction", cause })))
      ),
    complete: (claim, status, body) =>
      // The claim's `locked_until` stays as it was: it is the claim's identity, which `settle`
      // recognises the completed key by.
      sql`UPDATE idempotency_keys SET state = 'completed', status = ${status}, body = ${body}
          WHERE ${own(claim)} RETURNING 1`.pipe(
        Effect.map((rows) => rows.length > 0),
        failed("completeIdempotency"),
        Spans.withSpan("IdempotencyStore.complete")
      ),
    release: (claim) =>
      sql`DELETE FROM idempotency_keys WHERE ${own(claim)}`.pipe(
        Effect.asVoid,
        failed("releaseIdempotency"),
        Spans.withSpan("IdempotencyStore.release")
      ),
    settle: (claim) =>
      Effect.gen(function* () {
        // The lost transaction updated the key's row (its completion), so holds the row's lock
        // until it ends: this DELETE waits for that, then sees the row as it was left. Deleted:
        // it rolled back (or never reached the row). Not deleted: read what it committed.
        const released = yield* sql`DELETE FROM idempotency_keys WHERE ${own(claim)} RETURNING 1`
        if (released.length > 0) return { _tag: "Released" } as const
        const [row] = yield* sql`SELECT state, status, body FROM idempotency_keys
          WHERE ${where(claim)} AND locked_until = ${claim.lockedUntil}`
        return row !== undefined && row.state === "completed"
          ? { _tag: "Committed", status: Number(row.status), body: String(row.body) } as const
          : { _tag: "Gone" } as const
      }).pipe(failed("settleIdempotency"), Spans.withSpan("IdempotencyStore.settle"))
  })
})

/** {@link make} as a layer; the schema must be migrated (the `Store`'s layer does it). */
export const layer: Layer.Layer<IdempotencyStore, never, SqlClient.SqlClient> = Layer.effect(IdempotencyStore)(make)
