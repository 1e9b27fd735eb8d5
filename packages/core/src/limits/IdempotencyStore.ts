/**
 * The idempotency keys' own store (`Idempotency-Key` is an HTTP concern; the server uses it): a
 * request claims its key, then completes it with its response (replayed to the same
 * key with the same body) or releases it (so the request may be retried).
 *
 * A key is either completed together with what its request created, or not used at all: the
 * request runs its use-case and `complete` inside one `transaction`, so the created resource and
 * the stored response commit (or roll back) together. `complete` and `release` act only on the
 * request's own claim (its `lockedUntil`), so a claim taken over by another request can never be
 * completed or released by the first. When the outcome of the commit is unknown (its answer was
 * lost), `settle` waits for that transaction's fate on the key's row and tells which it was.
 *
 * `MemoryIdempotencyStore` keeps the keys in the process; `SqlIdempotencyStore` (in
 * `@postwire/store-sql`) in the `idempotency_keys` table of the current `SqlClient`, where a claim
 * is one atomic statement, so two instances on one PostgreSQL never both start the same key.
 *
 * @since 0.2.0
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "../store/StoreError.ts"

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
>()("postwire/IdempotencyStore") {}

export const started: IdempotencyBegin = { _tag: "Started" }
export const mismatch: IdempotencyBegin = { _tag: "Mismatch" }
export const inProgress: IdempotencyBegin = { _tag: "InProgress" }

/** Whether `record` may claim over `existing`: the rule both stores apply. */
export const claimable = (
  existing: Pick<IdempotencyRecord, "requestHash" | "state" | "createdAt" | "lockedUntil"> | undefined,
  record: IdempotencyRecord,
  expiredBefore: number
) =>
  existing === undefined ||
  existing.createdAt < expiredBefore ||
  (existing.requestHash === record.requestHash && existing.state === "in_progress" && existing.lockedUntil <= record.createdAt)

/** What a request meets when it may not claim `existing`. */
export const found = (existing: Pick<IdempotencyRecord, "requestHash" | "state" | "status" | "body">, record: IdempotencyRecord): IdempotencyBegin => {
  if (existing.requestHash !== record.requestHash) return mismatch
  if (existing.state === "completed") return { _tag: "Replay", status: existing.status ?? 0, body: existing.body ?? "" }
  return inProgress
}

/** The key of a scope's record. */
export const scopeKey = (scope: IdempotencyScope) => `${scope.workspaceId}\u0000${scope.keyId}\u0000${scope.key}`

