/**
 * The idempotency keys' own store, owned by the server because `Idempotency-Key` is an HTTP
 * concern: a request claims its key, then stores its response (replayed to the same key with
 * the same body) or releases the key (so the request may be retried).
 *
 * `layerMemory` keeps the keys in the process; `layerSql` in the `idempotency_keys` table of the
 * current `SqlClient`, where a claim is one atomic statement, so two instances on one
 * PostgreSQL never both start the same key.
 *
 * @since 0.2.0
 */
import { Spans, StoreError } from "@postwire/core"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

/** Which key: its workspace, the API key that sent it, and the client's `Idempotency-Key`. */
export interface IdempotencyScope {
  readonly workspaceId: string
  readonly keyId: string
  readonly key: string
}

/** A claimed key, or a stored response. */
export interface IdempotencyRecord extends IdempotencyScope {
  /** What makes two requests the same (a digest of method, path and body). */
  readonly requestHash: string
  readonly state: "in_progress" | "completed"
  readonly status: number | null
  readonly body: string | null
  readonly createdAt: number
  /** While in progress: when the claim is considered abandoned (crash) and may be taken again. */
  readonly lockedUntil: number
}

/** What {@link IdempotencyStore} `begin` found. */
export type IdempotencyBegin =
  | { readonly _tag: "Started" }
  | { readonly _tag: "Replay"; readonly status: number; readonly body: string }
  | { readonly _tag: "Mismatch" }
  | { readonly _tag: "InProgress" }

/** The idempotency keys. */
export class IdempotencyStore extends Context.Service<
  IdempotencyStore,
  {
    /**
     * Claims a key (`record`, in progress), or reports what is already there. A record created
     * before `expiredBefore` counts as absent; an in-progress record of the same request whose
     * `lockedUntil` has passed (its request crashed) is taken over.
     */
    readonly begin: (record: IdempotencyRecord, expiredBefore: number) => Effect.Effect<IdempotencyBegin, StoreError>
    /** Stores the response of a claimed key. */
    readonly complete: (scope: IdempotencyScope, status: number, body: string) => Effect.Effect<void, StoreError>
    /** Releases a claimed key whose request should be retryable (a 5xx, a 429); a completed key stays. */
    readonly release: (scope: IdempotencyScope) => Effect.Effect<void, StoreError>
  }
>()("postwire/server/IdempotencyStore") {}

const started: IdempotencyBegin = { _tag: "Started" }
const mismatch: IdempotencyBegin = { _tag: "Mismatch" }
const inProgress: IdempotencyBegin = { _tag: "InProgress" }

/** Whether `record` may claim over `existing`: the rule both stores apply. */
const claimable = (
  existing: Pick<IdempotencyRecord, "requestHash" | "state" | "createdAt" | "lockedUntil"> | undefined,
  record: IdempotencyRecord,
  expiredBefore: number
) =>
  existing === undefined ||
  existing.createdAt < expiredBefore ||
  (existing.requestHash === record.requestHash && existing.state === "in_progress" && existing.lockedUntil <= record.createdAt)

/** What a request meets when it may not claim `existing`. */
const found = (existing: Pick<IdempotencyRecord, "requestHash" | "state" | "status" | "body">, record: IdempotencyRecord): IdempotencyBegin => {
  if (existing.requestHash !== record.requestHash) return mismatch
  if (existing.state === "completed") return { _tag: "Replay", status: existing.status ?? 0, body: existing.body ?? "" }
  return inProgress
}

const scopeKey = (scope: IdempotencyScope) => `${scope.workspaceId}\u0000${scope.keyId}\u0000${scope.key}`

/** Keys in the process: for tests and an engine without a shared database. */
export const makeMemory = (): IdempotencyStore["Service"] => {
  const records = new Map<string, IdempotencyRecord>()
  return IdempotencyStore.of({
    begin: (record, expiredBefore) =>
      Effect.sync(() => {
        const existing = records.get(scopeKey(record))
        if (!claimable(existing, record, expiredBefore)) return found(existing!, record)
        records.set(scopeKey(record), record)
        return started
      }),
    complete: (scope, status, body) =>
      Effect.sync(() => {
        const existing = records.get(scopeKey(scope))
        if (existing !== undefined) records.set(scopeKey(scope), { ...existing, state: "completed", status, body })
      }),
    release: (scope) =>
      Effect.sync(() => {
        if (records.get(scopeKey(scope))?.state === "in_progress") records.delete(scopeKey(scope))
      })
  })
}

/** {@link makeMemory} as a layer. */
export const layerMemory: Layer.Layer<IdempotencyStore> = Layer.sync(IdempotencyStore, makeMemory)

/** Keys in the `idempotency_keys` table (created by the store's first migration). */
export const makeSql: Effect.Effect<IdempotencyStore["Service"], never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const failed = (operation: string) => Effect.mapError((cause: unknown) => new StoreError({ operation, cause }))
  const where = (scope: IdempotencyScope) =>
    sql`workspace_id = ${scope.workspaceId} AND key_id = ${scope.keyId} AND key = ${scope.key}`

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
          if (Number(row!.claimed) > 0) return started
          if (row!.request_hash === null || row!.request_hash === undefined) continue
          const existing = {
            requestHash: row!.request_hash as string,
            state: row!.state as IdempotencyRecord["state"],
            status: row!.status === null ? null : Number(row!.status),
            body: row!.body as string | null,
            createdAt: Number(row!.created_at),
            lockedUntil: Number(row!.locked_until)
          }
          if (claimable(existing, record, expiredBefore)) continue
          return found(existing, record)
        }
        return inProgress
      }).pipe(failed("beginIdempotency"), Spans.withSpan("IdempotencyStore.begin")),
    complete: (scope, status, body) =>
      sql`UPDATE idempotency_keys SET state = 'completed', status = ${status}, body = ${body} WHERE ${where(scope)}`.pipe(
        Effect.asVoid,
        failed("completeIdempotency"),
        Spans.withSpan("IdempotencyStore.complete")
      ),
    release: (scope) =>
      sql`DELETE FROM idempotency_keys WHERE ${where(scope)} AND state = 'in_progress'`.pipe(
        Effect.asVoid,
        failed("releaseIdempotency"),
        Spans.withSpan("IdempotencyStore.release")
      )
  })
})

/** {@link makeSql} as a layer; the schema must be migrated (the `Store`'s layer does it). */
export const layerSql: Layer.Layer<IdempotencyStore, never, SqlClient.SqlClient> = Layer.effect(IdempotencyStore)(makeSql)
