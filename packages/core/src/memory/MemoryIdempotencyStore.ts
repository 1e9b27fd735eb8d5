/**
 * The `IdempotencyStore` in the process: for tests and an engine without a shared database.
 *
 * @since 0.2.0
 */
import { Effect, Layer } from "effect"
import {
  claimable,
  found,
  type IdempotencyClaim,
  type IdempotencyRecord,
  type IdempotencySettled,
  IdempotencyStore,
  scopeKey,
  started
} from "../limits/IdempotencyStore.ts"

/**
 * Keys in the process: for tests and an engine without a shared database. Writes in memory are
 * never in doubt and cannot be rolled back, so `transaction` runs the effect as is.
 */
export const make = (): IdempotencyStore["Service"] => {
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

/** {@link make} as a layer. */
export const layer: Layer.Layer<IdempotencyStore> = Layer.sync(IdempotencyStore, make)
