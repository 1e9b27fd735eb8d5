/**
 * The idempotency keys' own store, owned by the server because `Idempotency-Key` is an HTTP
 * concern: a request claims its key, then completes it with its response (replayed to the same
 * key with the same body) or releases it (so the request may be retried).
 *
 * A key is either completed together with what its request created, or not used at all: the
 * request runs its use-case and `complete` inside one `transaction`, so the created resource and
 * the stored response commit (or roll back) together. `complete` and `release` act only on the
 * request's own claim (its `lockedUntil`), so a claim taken over by another request can never be
 * completed or released by the first. When the outcome of the commit is unknown (its answer was
 * lost), `settle` waits for that transaction's fate on the key's row and tells which it was.
 *
 * `layerMemory` keeps the keys in the process; `layerSql` in the `idempotency_keys` table of the
 * current `SqlClient`, where a claim is one atomic statement, so two instances on one
 * PostgreSQL never both start the same key.
 *
 * @since 0.2.0
 */
import { Spans, StoreError } from "@postwire/core"
import { Context, Effect, Layer } from "effect"
import { SqlClient, SqlError } from "effect/sql"

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

/**
 * One request's claim on a key: its scope and the `lockedUntil` it claimed with. Every claim of a
 * key has a distinct `lockedUntil` (a takeover happens only after the previous one has passed,
 * and sets its own later one), so it tells this request's claim from a later one.
 */
export interface IdempotencyClaim extends IdempotencyScope {
  readonly lockedUntil: number
}

/** What {@link IdempotencyStore} `settle` found once a claim's transaction had ended. */
export type IdempotencySettled =
  | { readonly _tag: "Committed"; readonly status: number; readonly body: string }
  | { readonly _tag: "Released" }
  | { readonly _tag: "Gone" }

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
    /**
     * Runs `effect` in one transaction of the store's database (as is in memory), so the writes
     * of a use-case and `complete` commit together.
     */
    readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreError, R>
    /**
     * Stores the response of a claim, if the claim is still this request's: `false` when another
     * request took the key over (its lock had passed), and nothing is written.
     */
    readonly complete: (claim: IdempotencyClaim, status: number, body: string) => Effect.Effect<boolean, StoreError>
    /** Releases a claim whose request failed without effect, so it may be retried; a completed key stays. */
    readonly release: (claim: IdempotencyClaim) => Effect.Effect<void, StoreError>
    /**
     * After a commit whose answer was lost: waits until the claim's transaction has ended (its
     * lock on the key's row), then answers the stored response if it committed, or releases the
     * claim if it did not (`Released`). `Gone`: the key holds neither (taken over, or expired).
     */
    readonly settle: (claim: IdempotencyClaim) => Effect.Effect<IdempotencySettled, StoreError>
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

/**
 * Keys in the process: for tests and an engine without a shared database. Writes in memory are
 * never in doubt and cannot be rolled back, so `transaction` runs the effect as is.
 */
export const makeMemory = (): IdempotencyStore["Service"] => {
  const records = new Map<string, IdempotencyRecord>()
  const ownClaim = (claim: IdempotencyClaim) => {
    const existing = records.get(scopeKey(claim))
    return existing !== undefined && existing.state === "in_progress" && existing.lockedUntil === claim.lockedUntil
      ? existing
      : undefined
  }
  return IdempotencyStore.of({
    begin: (record, expiredBefore) =>
      Effect.sync(() => {
        const existing = records.get(scopeKey(record))
        if (!claimable(existing, record, expiredBefore)) return found(existing!, record)
        records.set(scopeKey(record), record)
        return started
      }),
    transaction: (effect) => effect,
    complete: (claim, status, body) =>
      Effect.sync(() => {
        const existing = ownClaim(claim)
        if (existing === undefined) return false
        records.set(scopeKey(claim), { ...existing, state: "completed", status, body })
        return true
      }),
    release: (claim) =>
      Effect.sync(() => {
        if (ownClaim(claim) !== undefined) records.delete(scopeKey(claim))
      }),
    settle: (claim) =>
      Effect.sync((): IdempotencySettled => {
        if (ownClaim(claim) !== undefined) {
          records.delete(scopeKey(claim))
          return { _tag: "Released" }
        }
        const existing = records.get(scopeKey(claim))
        return existing?.state === "completed" && existing.lockedUntil === claim.lockedUntil
          ? { _tag: "Committed", status: existing.status ?? 0, body: existing.body ?? "" }
          : { _tag: "Gone" }
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

/** {@link makeSql} as a layer; the schema must be migrated (the `Store`'s layer does it). */
export const layerSql: Layer.Layer<IdempotencyStore, never, SqlClient.SqlClient> = Layer.effect(IdempotencyStore)(makeSql)
