/**
 * The dispatcher: turns outbox events into deliveries and delivers them, at least once.
 *
 * Each pass fans pending outbox events out to the subscribed endpoints (one delivery each,
 * written in the same transaction that marks the event dispatched), claims the due deliveries
 * with a lease, attempts them, and records each outcome: delivered, a retry at its scheduled
 * time, or dead after the last retry, which disables an endpoint whose every attempt has
 * failed for 3 days (and writes a `webhook_endpoint.disabled` event). Any number of instances can run it on one database; each works on the
 * deliveries it leased. A crash loses nothing: an unfinished delivery is claimed again once
 * its lease runs out, and a stopped dispatcher gives its leases back at once.
 *
 * @since 0.1.0
 */
import { Cause, Context, Deferred, Duration, Effect, Exit, Queue, References, Semaphore } from "effect"
import { formatInstant } from "@postwire/domain"
import { Ids } from "../ids/Ids.ts"
import { CredentialsCipher } from "../secrets/CredentialsCipher.ts"
import * as Spans from "../Spans.ts"
import type { OutboxEvent } from "../store/Outbox.ts"
import type { StoreError } from "../store/StoreError.ts"
import * as DeliveryMetrics from "./DeliveryMetrics.ts"
import { disableAfterFailingMs, nextAttemptAt } from "./DeliverySchedule.ts"
import type { Resolver } from "../urls/UrlSafety.ts"
import { type CheckedTarget, checkTarget, deliverEvent, eventBody, failureCode, storedError, type WebhookSettings } from "./Webhooks.ts"
import {
  type AttemptOutcome,
  type AttemptRecorded,
  type ClaimedDelivery,
  type DeliveryKey,
  type RecordedAttempt,
  WebhookStore
} from "./WebhookStore.ts"
import type { WebhookTransport } from "./WebhookTransport.ts"

/** How a dispatcher works. */
export interface DispatcherOptions {
  /** Names this instance in its leases; unique per running dispatcher. */
  readonly owner: string
  /** Events fanned out, and deliveries claimed, per step. Default 100. */
  readonly batchSize?: number | undefined
  /** Deliveries attempted at the same time. Default 16. */
  readonly concurrency?: number | undefined
  /** How long a claimed delivery stays with this instance. Default 60 s, well above the 10 s attempt limit. */
  readonly leaseMs?: number | undefined
  /** The pause between passes that found nothing to do. Default 1 s. */
  readonly pollInterval?: Duration.Input | undefined
}

/** What one pass did. */
export interface PassReport {
  /** Outbox events fanned out. */
  readonly eventsDispatched: number
  /** Deliveries attempted. */
  readonly attempted: number
  /** Of those, delivered. */
  readonly delivered: number
  /** Endpoints disabled by this pass. */
  readonly endpointsDisabled: number
}

type DispatchServices = WebhookStore | WebhookTransport | WebhookSettings | Resolver | Ids | CredentialsCipher

const defaults = { batchSize: 100, concurrency: 16, leaseMs: 60_000, pollInterval: Duration.seconds(1) }

const now = Effect.clockWith((clock) => clock.currentTimeMillis)

const keyOf = ({ delivery }: ClaimedDelivery): DeliveryKey => ({
  workspaceId: delivery.workspaceId,
  endpointId: delivery.endpointId,
  eventId: delivery.eventId
})

/** Fans out pending outbox events until none is left; returns how many were dispatched. */
export const fanOutEvents = Effect.fn("webhooks.fanOutEvents")(function* (batchSize: number = defaults.batchSize) {
  const store = yield* WebhookStore
  let total = 0
  for (;;) {
    const dispatched = yield* store.fanOutEvents(yield* now, batchSize)
    total += dispatched
    if (dispatched < batchSize) return total
  }
})

/**
 * The `webhook_endpoint.disabled` event written if this attempt disables the endpoint: it
 * goes to the events API and to the workspace's other endpoints subscribed to it, never to the
 * failing endpoint itself.
 */
const disabledNotice = (claimed: ClaimedDelivery, at: number): Effect.Effect<OutboxEvent, never, Ids> =>
  Effect.map(Ids.use((ids) => ids.make("event")), (id) => ({
    id,
    workspaceId: claimed.endpoint.workspaceId,
    type: "webhook_endpoint.disabled",
    createdAt: at,
    livemode: claimed.event.livemode,
    data: {
      endpoint_id: claimed.endpoint.id,
      url: claimed.endpoint.url,
      disabled_reason: "delivery_failed",
      disabled_at: formatInstant(at),
      failing_since: formatInstant(claimed.endpoint.failingSince ?? at)
    }
  }))

/**
 * Hands an attempt's outcome to the batch's group commit at once (the attempt's concurrency
 * slot is free again); the effect returned waits for the write that carried it.
 */
type RecordOutcome = (
  key: DeliveryKey,
  outcome: AttemptOutcome
) => Effect.Effect<Effect.Effect<AttemptRecorded, StoreError>>

/**
 * Group commit: outcomes that arrive while a write is in flight wait and go together in the
 * next one, so a batch of concurrent attempts costs a few multi-row writes, not a transaction
 * each, and attempts go on while outcomes are written. Each outcome's answer comes once the
 * write that carried it is done. Writes run detached from the attempt that started them, so an
 * interrupted pass still records what it attempted (an unrecorded one is delivered again when
 * its lease runs out: at least once).
 */
const groupCommit = (owner: string) =>
  Effect.gen(function* () {
    const store = yield* WebhookStore
    const writing = yield* Semaphore.make(1)
    let waiting: Array<{ readonly item: RecordedAttempt; readonly done: Deferred.Deferred<AttemptRecorded, StoreError> }> = []
    const write = Effect.suspend(() => {
      const taken = waiting
      waiting = []
      if (taken.length === 0) return Effect.void
      return store.recordAttempts(owner, taken.map(({ item }) => item)).pipe(
        Effect.exit,
        Effect.flatMap((exit) =>
          Effect.sync(() => {
            for (const [index, { done }] of taken.entries()) {
              Deferred.doneUnsafe(
                done,
                Exit.isSuccess(exit)
                  ? Effect.succeed(exit.value[index] ?? { recorded: false, endpointDisabled: false })
                  : Effect.failCause(exit.cause)
              )
            }
          })
        )
      )
    })
    const record: RecordOutcome = (key, outcome) =>
      Effect.suspend(() => {
        const done = Deferred.makeUnsafe<AttemptRecorded, StoreError>()
        waiting.push({ item: { key, outcome }, done })
        return Effect.as(Effect.forkDetach(writing.withPermit(write)), Deferred.await(done))
      })
    return record
  })

/** What an attempt came to, once its outcome is written. */
interface AttemptResult {
  readonly delivered: boolean
  readonly disabled: boolean
}

/**
 * Attempts one claimed delivery and hands its outcome to the group commit; returns the effect
 * that waits for the outcome to be written, then counts it in the metrics. Untraced: it runs
 * inside the attempt's own `webhooks.delivery` span ({@link tracedAttempt}), and a traced
 * `Effect.fn` captures a stack trace and makes a span on every call, even with tracing off.
 */
const attemptDelivery = Effect.fnUntraced(function* (
  claimed: ClaimedDelivery,
  checked: CheckedTarget | undefined,
  record: RecordOutcome
) {
  const { delivery, endpoint, event } = claimed
  const attempt = yield* deliverEvent(endpoint, event.id, eventBody(event, yield* CredentialsCipher, endpoint), checked)
  const at = yield* now
  const attemptsMade = delivery.attempts + 1
  const logged = {
    durationMs: attempt.durationMs,
    responseBody: attempt.responseBody,
    error: attempt.failure === null ? null : storedError(attempt.failure)
  }
  if (attempt.delivered) {
    const written = yield* record(keyOf(claimed), {
      at,
      result: "delivered",
      statusCode: attempt.statusCode,
      error: null,
      nextAttemptAt: null,
      attempt: logged
    })
    return Effect.flatMap(written, () =>
      Effect.as(DeliveryMetrics.recordAttempt("delivered", false), { delivered: true, disabled: false })
    ) satisfies Effect.Effect<AttemptResult, StoreError>
  }
  const error = attempt.failure === null ? null : failureCode(attempt.failure)
  const retryAt = yield* nextAttemptAt(attemptsMade, at)
  const written = yield* record(
    keyOf(claimed),
    retryAt === null
      ? {
          at,
          result: "dead",
          statusCode: attempt.statusCode,
          error,
          nextAttemptAt: null,
          attempt: logged,
          disableIfFailingSince: at - disableAfterFailingMs,
          disabledNotice: yield* disabledNotice(claimed, at)
        }
      : { at, result: "retry", statusCode: attempt.statusCode, error, nextAttemptAt: retryAt, attempt: logged }
  )
  return Effect.gen(function* () {
    const recorded = yield* written
    yield* DeliveryMetrics.recordAttempt(retryAt === null ? "dead" : "retry", recorded.endpointDisabled)
    if (recorded.endpointDisabled) {
      yield* Effect.logWarning("webhook endpoint disabled: a delivery used up its retries and every attempt failed for 3 days").pipe(
        Effect.annotateLogs({ workspace_id: endpoint.workspaceId, endpoint_id: endpoint.id, event_id: event.id })
      )
    }
    return { delivered: false, disabled: recorded.endpointDisabled }
  }) satisfies Effect.Effect<AttemptResult, StoreError>
})

/** Whether deliveries are traced: the tracing setting outside the (untraced) polling pass. */
const DeliveriesTraced = Context.Reference<boolean>("postwire/Dispatcher/DeliveriesTraced", { defaultValue: () => true })

/** One delivery attempt as its own trace, even inside an untraced polling pass. */
const tracedAttempt = (claimed: ClaimedDelivery, checked: CheckedTarget | undefined, record: RecordOutcome) =>
  Effect.flatMap(DeliveriesTraced, (traced: boolean) =>
    attemptDelivery(claimed, checked, record).pipe(
      Spans.withSpan("webhooks.delivery", {
        root: true,
        kind: "producer",
        attributes: { "postwire.event_id": claimed.event.id, "postwire.event_type": claimed.event.type }
      }),
      Effect.withTracerEnabled(traced)
    )
  )

/**
 * Claims the deliveries due now (one batch, one statement), checks each endpoint URL once,
 * attempts them `concurrency` at a time, and records their outcomes by group commit (a few
 * multi-row writes per batch). Returns what happened.
 */
export const deliverDue = Effect.fn("webhooks.deliverDue")(function* (options: DispatcherOptions) {
  const store = yield* WebhookStore
  const at = yield* now
  const claimed = yield* store.claimDueDeliveries(
    options.owner,
    at,
    at + (options.leaseMs ?? defaults.leaseMs),
    options.batchSize ?? defaults.batchSize
  )
  if (claimed.length === 0) return { attempted: 0, delivered: 0, endpointsDisabled: 0 }
  // Each endpoint URL of the batch is checked (and its name resolved) once, under the current
  // settings; its deliveries connect only to the addresses that check approved.
  const urls = [...new Set(claimed.map((claim) => claim.endpoint.url))]
  const checks = new Map(
    yield* Effect.forEach(urls, (url) => Effect.map(checkTarget(url), (checked) => [url, checked] as const), {
      concurrency: 8
    })
  )
  const record = yield* groupCommit(options.owner)
  const written = yield* Effect.forEach(
    claimed,
    (claim) => tracedAttempt(claim, checks.get(claim.endpoint.url), record),
    { concurrency: options.concurrency ?? defaults.concurrency }
  )
  const results = yield* Effect.all(written)
  return {
    attempted: results.length,
    delivered: results.filter((result) => result.delivered).length,
    endpointsDisabled: results.filter((result) => result.disabled).length
  }
})

/**
 * One pass: fan out every pending event, then attempt one batch of due deliveries.
 *
 * @example
 * ```ts
 * yield* TestClock.adjust("1 minute")
 * const report = yield* Dispatcher.dispatchOnce({ owner: "test" })
 * ```
 */
export const dispatchOnce = (
  options: DispatcherOptions
): Effect.Effect<PassReport, StoreError, DispatchServices> =>
  Effect.gen(function* () {
    const eventsDispatched = yield* fanOutEvents(options.batchSize)
    const delivered = yield* deliverDue(options)
    return { eventsDispatched, ...delivered }
  })

/**
 * Runs the dispatcher until interrupted, as a pipeline: `concurrency` attempts run at once, and
 * as soon as half of them are free it fans out the pending events and claims more due
 * deliveries (up to twice `concurrency` held at once, claimed and not yet attempted included, so
 * a claimed delivery waits at most two attempt limits, far less than its lease). An attempt that
 * takes its endpoint's full time limit holds up only its own slot, never the deliveries claimed
 * with it or after it. When it finds nothing to do it looks again after `pollInterval`, or as
 * soon as an attempt ends. A failing step (the database is away) is logged and tried again after
 * the pause. When interrupted, it gives back the leases it holds, so a restarted or another
 * instance delivers them at once.
 */
export const run = (options: DispatcherOptions): Effect.Effect<never, never, DispatchServices> =>
  Effect.gen(function* () {
    const store = yield* WebhookStore
    const pause = options.pollInterval ?? defaults.pollInterval
    const concurrency = Math.max(1, options.concurrency ?? defaults.concurrency)
    const batchSize = options.batchSize ?? defaults.batchSize
    const leaseMs = options.leaseMs ?? defaults.leaseMs
    // Polled every second when idle: untraced, so traces show deliveries rather than polls.
    const traced = yield* References.TracerEnabled
    const record = yield* groupCommit(options.owner)
    const ready = yield* Queue.unbounded<readonly [ClaimedDelivery, CheckedTarget | undefined]>()
    const slotFreed = yield* Queue.sliding<void>(1)
    // Claimed and not yet attempted to the end: queued in `ready` or being attempted.
    let held = 0

    const attempt = ([claim, checked]: readonly [ClaimedDelivery, CheckedTarget | undefined]) =>
      tracedAttempt(claim, checked, record).pipe(
        // Its slot is free once the attempt is made; the outcome's write is waited for aside.
        Effect.flatMap((written) => Effect.forkDetach(Effect.ignore(written))),
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause) ? Effect.interrupt : Effect.logError("webhook delivery attempt failed", cause)
        ),
        Effect.ensuring(
          Effect.suspend(() => {
            held--
            return Queue.offer(slotFreed, undefined)
          })
        ),
        Effect.provideService(DeliveriesTraced, traced)
      )

    const step = Effect.gen(function* () {
      const room = 2 * concurrency - held
      // Refilled once half of what it may hold is done: one claim for several deliveries.
      if (room < concurrency) return yield* Queue.take(slotFreed)
      yield* fanOutEvents(batchSize)
      const at = yield* now
      const claimed = yield* store.claimDueDeliveries(options.owner, at, at + leaseMs, Math.min(room, batchSize))
      if (claimed.length === 0) return yield* Effect.raceFirst(Effect.sleep(pause), Queue.take(slotFreed))
      held += claimed.length
      // Each endpoint URL of the claim is checked (and its name resolved) once, under the
      // current settings; its deliveries connect only to the addresses that check approved.
      const urls = [...new Set(claimed.map((claim) => claim.endpoint.url))]
      const checks = new Map(
        yield* Effect.forEach(urls, (url) => Effect.map(checkTarget(url), (checked) => [url, checked] as const), {
          concurrency: 8
        }).pipe(Effect.onError(() => Effect.sync(() => (held -= claimed.length))))
      )
      yield* Queue.offerAll(ready, claimed.map((claim) => [claim, checks.get(claim.endpoint.url)] as const))
    }).pipe(
      Effect.withTracerEnabled(false),
      Effect.catchCause((cause) =>
        Cause.hasInterruptsOnly(cause)
          ? Effect.interrupt
          : Effect.logError("webhook dispatch pass failed", cause).pipe(Effect.andThen(Effect.sleep(pause)))
      )
    )

    return yield* Effect.scoped(
      Effect.gen(function* () {
        for (let i = 0; i < concurrency; i++) {
          yield* Effect.forkScoped(Effect.forever(Effect.flatMap(Queue.take(ready), attempt)))
        }
        return yield* Effect.forever(step)
      })
    ).pipe(
      Effect.onInterrupt(() =>
        store.releaseDeliveries(options.owner).pipe(
          Effect.catchCause((cause) => Effect.logWarning("could not release webhook delivery leases", cause))
        )
      )
    )
  })
