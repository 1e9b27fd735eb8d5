/**
 * Keeps the delivery log and the events for 30 days, then deletes them, in bounded batches,
 * under a lease: one instance prunes per interval however many run.
 *
 * @since 0.1.0
 */
import { Duration, Effect } from "effect"
import { logRetentionMs } from "./DeliverySchedule.ts"
import { WebhookStore } from "./WebhookStore.ts"

/** How the pruner works. */
export interface PrunerOptions {
  /** Names this instance in the lease. */
  readonly owner: string
  /** How often a prune runs (across all instances). Default 1 hour. */
  readonly intervalMs?: number | undefined
  /** Rows deleted per statement. Default 1,000. */
  readonly batchSize?: number | undefined
}

const defaults = { intervalMs: 60 * 60_000, batchSize: 1_000 }

const now = Effect.clockWith((clock) => clock.currentTimeMillis)

/**
 * Prunes once if this instance gets the lease for the coming interval: deletes what is older
 * than 30 days, batch after batch. Returns how many rows went (0 when another instance holds
 * the lease).
 *
 * @example
 * ```ts
 * yield* TestClock.adjust("31 days")
 * const deleted = yield* LogPruner.pruneOnce({ owner: "test" })
 * ```
 */
export const pruneOnce = Effect.fn("webhooks.pruneLog")(function* (options: PrunerOptions) {
  const store = yield* WebhookStore
  const at = yield* now
  const interval = options.intervalMs ?? defaults.intervalMs
  const batch = options.batchSize ?? defaults.batchSize
  if (!(yield* store.claimPruneLease(options.owner, at, at + interval))) return 0
  let total = 0
  for (;;) {
    const deleted = yield* store.pruneLog(at - logRetentionMs, batch)
    total += deleted
    if (deleted < batch) return total
  }
})

/**
 * Prunes every interval until interrupted; a failing prune (the database is away) is logged
 * and tried at the next interval.
 */
export const run = (options: PrunerOptions): Effect.Effect<never, never, WebhookStore> =>
  Effect.forever(
    pruneOnce(options).pipe(
      Effect.catchCause((cause) => Effect.logError("webhook log prune failed", cause)),
      Effect.andThen(Effect.sleep(Duration.millis(options.intervalMs ?? defaults.intervalMs)))
    )
  ) as Effect.Effect<never, never, WebhookStore>
