/**
 * The shape the engine's background loops share (comment polling, permalink backfill, token
 * renewal): claim a batch of due rows under a lease, work each, and go round again.
 *
 * A claimed row is held by this instance until its lease runs out; its worker saves the outcome
 * only while it still holds the lease. A worker that fails unexpectedly is logged and counted as
 * `lost`: nothing is given back, the lease runs out and the row is worked again then (by any
 * instance).
 *
 * @internal
 */
import { Cause, Clock, Effect, Fiber, type Scope } from "effect"
import { StoreError } from "../store/StoreError.ts"

/**
 * Logs a failed round or pass of a background loop: a store that did not answer (a lost
 * database, which the loop rides out) is one warning line naming the operation, anything else
 * an error with its cause.
 */
export const logFailure = (message: string, cause: Cause.Cause<unknown>): Effect.Effect<void> => {
  const failure = Cause.findErrorOption(cause)
  if (failure._tag === "Some" && failure.value instanceof StoreError) {
    const reason: unknown = failure.value.cause
    return Effect.logWarning(message, {
      operation: failure.value.operation,
      reason: reason instanceof Error ? reason.message : String(reason)
    })
  }
  return Effect.logError(message, cause)
}

/** What every leased loop is configured with. */
export interface LeasedSettings {
  /** This instance's name in every lease it takes; unique per process. */
  readonly owner: string
  /** Rows claimed, and worked at once, per round. */
  readonly concurrency: number
  /** How long a claim lasts. */
  readonly leaseMs: number
  /** How long to wait before looking again when the last round found fewer rows than it could take. */
  readonly idlePollMs: number
}

/** What a store's claim is asked for. */
export interface Claim {
  readonly owner: string
  readonly at: number
  readonly leaseUntil: number
  readonly limit: number
}

/**
 * One round: claims up to `settings.concurrency` due rows, leased until now plus
 * `settings.leaseMs`, and works them all concurrently, waiting for every one. A worker's
 * unexpected failure (not an interruption) is logged with `unexpected` and counts as `lost`.
 */
export const round = <Row, Outcome, E, R, E2, R2>(
  settings: LeasedSettings,
  claim: (claim: Claim) => Effect.Effect<ReadonlyArray<Row>, E, R>,
  work: (row: Row) => Effect.Effect<Outcome, E2, R2>,
  unexpected: string
): Effect.Effect<Array<Outcome | "lost">, E | E2, R | R2> =>
  Effect.gen(function* () {
    const at = yield* Clock.currentTimeMillis
    const claimed = yield* claim({ owner: settings.owner, at, leaseUntil: at + settings.leaseMs, limit: settings.concurrency })
    return yield* Effect.forEach(
      claimed,
      (row) =>
        work(row).pipe(
          // The lease is left to run out: the row is worked again then.
          Effect.catchCause((cause) =>
            Cause.hasInterruptsOnly(cause)
              ? Effect.failCause(cause)
              : Effect.as(Effect.logError(unexpected, cause), "lost" as const)
          )
        ),
      { concurrency: "unbounded" }
    )
  })

/**
 * `oneRound`, given at most `settings.leaseMs`: a round still running then has lost its rows'
 * leases anyway (another instance works them). It is interrupted in the background (the
 * interruption may wait on a database call, itself bounded) and the loop does not wait for it:
 * `None` says so.
 */
const boundedRound = <A, E, R>(settings: LeasedSettings, oneRound: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const round = yield* Effect.forkChild(oneRound)
    const done = yield* Fiber.join(round).pipe(Effect.timeoutOption(settings.leaseMs))
    if (done._tag === "None") yield* Effect.forkDetach(Fiber.interrupt(round))
    return done
  })

/**
 * Runs `oneRound` in the current scope until it closes: again at once when it worked a full batch
 * (more may be due), otherwise after `settings.idlePollMs`. A failed round (a lost database) is
 * logged with `failed`, and the loop goes on after the same pause; so does a round still running
 * after `settings.leaseMs` (a call that never answers), logged with `failed` too and left behind.
 */
export const loop = <E, R>(
  settings: LeasedSettings,
  oneRound: Effect.Effect<ReadonlyArray<unknown>, E, R>,
  failed: string
): Effect.Effect<void, never, R | Scope.Scope> => {
  const next = boundedRound(settings, oneRound).pipe(
    Effect.flatMap((done) =>
      done._tag === "Some"
        ? Effect.succeed(done.value)
        : Effect.as(
            Effect.logWarning(failed, { reason: "the round did not finish within its lease", lease_ms: settings.leaseMs }),
            [] as ReadonlyArray<unknown>
          )
    ),
    Effect.flatMap((worked) => (worked.length < settings.concurrency ? Effect.sleep(settings.idlePollMs) : Effect.void)),
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause)
        ? Effect.failCause(cause)
        : logFailure(failed, cause).pipe(Effect.andThen(Effect.sleep(settings.idlePollMs)))
    )
  )
  return Effect.asVoid(Effect.forkScoped(Effect.forever(next)))
}
