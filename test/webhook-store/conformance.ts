/**
 * The one specification every `WebhookStore` implementation passes: in memory, PGlite and
 * PostgreSQL run these same cases. One database serves the whole suite, so each case works in
 * its own workspace; fan-out and claims span workspaces by design, so a case first sets aside
 * whatever earlier cases left due (`aClearQueue`).
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect, type Layer, Option } from "effect"
import {
  type AttemptOutcome,
  type ClaimedDelivery,
  deliveryIdOf,
  type OutboxEvent,
  Store,
  StoreError,
  type WebhookDeliveryRecord,
  WebhookStore
} from "@postwire/core"
import { anAccount, anEndpoint, anEvent, anId, aProfile, aWorkspace, t0 } from "./builders.ts"
import { Ids as Id } from "@postwire/domain"

const minute = 60_000
const day = 24 * 60 * minute

/** A workspace with an account whose status changes write events to the outbox. */
const withWorkspace = Effect.gen(function* () {
  const store = yield* Store
  const webhooks = yield* WebhookStore
  const workspace = aWorkspace()
  const profile = aProfile(workspace.id)
  const account = anAccount(workspace.id, profile.id)
  yield* store.createWorkspace(workspace)
  yield* store.createProfile(profile)
  yield* store.createAccount(account)
  const emit = (...events: ReadonlyArray<OutboxEvent>) =>
    store.updateAccountStatus(workspace.id, account.id, "connected", events)
  return { webhooks, workspaceId: workspace.id, emit }
})

/** Fans out and leases away everything earlier cases left, so this case sees only its own work. */
const aClearQueue = Effect.gen(function* () {
  const webhooks = yield* WebhookStore
  while ((yield* webhooks.fanOutEvents(t0, 1_000)) > 0) {
    // every pending event is now dispatched
  }
  const farFuture = 4_000_000_000_000
  while ((yield* webhooks.claimDueDeliveries("set-aside", farFuture, 9_000_000_000_000_000, 1_000)).length > 0) {
    // every due delivery is now leased for good
  }
})

const fanOutAll = (at: number, batchSize = 1_000) =>
  Effect.gen(function* () {
    const webhooks = yield* WebhookStore
    let total = 0
    for (;;) {
      const dispatched = yield* webhooks.fanOutEvents(at, batchSize)
      if (dispatched === 0) return total
      total += dispatched
    }
  })

const mine = (workspaceId: string, claims: ReadonlyArray<ClaimedDelivery>) =>
  claims.filter((claim) => claim.delivery.workspaceId === workspaceId)

const eventIds = (deliveries: ReadonlyArray<WebhookDeliveryRecord>) => deliveries.map((d) => d.eventId).sort()

const keyOf = ({ delivery }: ClaimedDelivery) => ({
  workspaceId: delivery.workspaceId,
  endpointId: delivery.endpointId,
  eventId: delivery.eventId
})

/** Leases the one due delivery of the workspace at `at`. */
const claimOne = (workspaceId: string, owner: string, at: number) =>
  Effect.gen(function* () {
    const webhooks = yield* WebhookStore
    const [claim] = mine(workspaceId, yield* webhooks.claimDueDeliveries(owner, at, at + minute, 10))
    assert.isDefined(claim)
    return claim!
  })

/** A failed attempt at `at` (a retry unless `result` says otherwise), as the dispatcher records it. */
const failed = (at: number, overrides: Partial<AttemptOutcome> = {}): AttemptOutcome => ({
  at,
  result: "retry",
  statusCode: 503,
  error: "http_503",
  nextAttemptAt: overrides.result === "dead" ? null : at + minute,
  attempt: {
    durationMs: 12,
    responseBody: "busy",
    error: { code: "webhook_delivery_failed", details: { kind: "http_status", status: 503 }, platform_code: null, retryable: true }
  },
  ...overrides
})

/**
 * Registers the conformance suite for one implementation.
 *
 * @param makeLayer builds the stores under test (the `Store` and the `WebhookStore` on one
 * database) once for the whole suite.
 */
export const webhookStoreConformance = <E>(name: string, makeLayer: () => Layer.Layer<Store | WebhookStore, E>): void =>
  // The real clock: stores keep no time of their own, and drivers' pool timers must run.
  layer(makeLayer(), { excludeTestServices: true })(`WebhookStore conformance: ${name}`, (it) => {
    describe("endpoints", () => {
      it.effect("creates an endpoint and reads it back exactly, only in its own workspace", () =>
        Effect.gen(function* () {
          const { webhooks, workspaceId } = yield* withWorkspace
          const other = yield* withWorkspace
          const endpoint = anEndpoint(workspaceId, { events: ["post.failed", "post.published"] })
          yield* webhooks.createEndpoint(endpoint)

          assert.deepStrictEqual(Option.getOrThrow(yield* webhooks.getEndpoint(workspaceId, endpoint.id)), endpoint)
          assert.isTrue(Option.isNone(yield* webhooks.getEndpoint(other.workspaceId, endpoint.id)))
          assert.isTrue(Option.isNone(yield* webhooks.getEndpoint(workspaceId, Id.unchecked("webhook", anId("wh")))))
        }))

      it.effect("refuses a second endpoint with the same id with a StoreError naming the operation", () =>
        Effect.gen(function* () {
          const { webhooks, workspaceId } = yield* withWorkspace
          const endpoint = anEndpoint(workspaceId)
          yield* webhooks.createEndpoint(endpoint)
          const error = yield* Effect.flip(webhooks.createEndpoint({ ...endpoint, url: "https://other.example.com/" }))

          assert.instanceOf(error, StoreError)
          assert.strictEqual(error.operation, "createEndpoint")
          assert.strictEqual(Option.getOrThrow(yield* webhooks.getEndpoint(workspaceId, endpoint.id)).url, endpoint.url)
        }))

      it.effect("lists endpoints newest first, ties by id descending, in keyset pages", () =>
        Effect.gen(function* () {
          const { webhooks, workspaceId } = yield* withWorkspace
          const endpoints = [
            anEndpoint(workspaceId, { createdAt: t0 + 3 }),
            anEndpoint(workspaceId, { createdAt: t0 + 1 }),
            anEndpoint(workspaceId, { createdAt: t0 + 3 }),
            anEndpoint(workspaceId, { createdAt: t0 + 2 }),
            anEndpoint(workspaceId, { createdAt: t0 + 5 })
          ]
          for (const endpoint of endpoints) yield* webhooks.createEndpoint(endpoint)
          yield* webhooks.createEndpoint(anEndpoint((yield* withWorkspace).workspaceId, { createdAt: t0 + 4 }))
          const expected = [...endpoints]
            .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
            .map((endpoint) => endpoint.id)

          const first = yield* webhooks.listEndpoints(workspaceId, undefined, 2)
          const last = first[first.length - 1]!
          const second = yield* webhooks.listEndpoints(workspaceId, { sortKey: last.createdAt, id: last.id }, 2)
          const lastOfSecond = second[second.length - 1]!
          const third = yield* webhooks.listEndpoints(workspaceId, { sortKey: lastOfSecond.createdAt, id: lastOfSecond.id }, 2)

          assert.deepStrictEqual([...first, ...second, ...third].map((endpoint) => endpoint.id), expected)
          assert.strictEqual(third.length, 1)
        }))

      it.effect("deletes an endpoint of its own workspace once, with its deliveries", () =>
        Effect.gen(function* () {
          const { webhooks, workspaceId, emit } = yield* withWorkspace
          const other = yield* withWorkspace
          const endpoint = anEndpoint(workspaceId)
          yield* webhooks.createEndpoint(endpoint)
          yield* emit(anEvent(workspaceId, { type: "post.published" }))
          yield* fanOutAll(t0)
          assert.strictEqual((yield* webhooks.listDeliveries(workspaceId, endpoint.id)).length, 1)

          assert.isFalse(yield* webhooks.deleteEndpoint(other.workspaceId, endpoint.id))
          assert.isTrue(yield* webhooks.deleteEndpoint(workspaceId, endpoint.id))
          assert.isFalse(yield* webhooks.deleteEndpoint(workspaceId, endpoint.id))
          assert.isTrue(Option.isNone(yield* webhooks.getEndpoint(workspaceId, endpoint.id)))
          assert.deepStrictEqual(yield* webhooks.listDeliveries(workspaceId, endpoint.id), [])
        }))
    })

    describe("fan-out", () => {
      it.effect("creates one pending delivery per subscribed active endpoint of the event's workspace", () =>
        Effect.gen(function* () {
          yield* aClearQueue
          const { webhooks, workspaceId, emit } = yield* withWorkspace
          const other = yield* withWorkspace
          const published = anEndpoint(workspaceId, { events: ["post.published"] })
          const both = anEndpoint(workspaceId, { events: ["post.failed", "post.published"] })
          const failedOnly = anEndpoint(workspaceId, { events: ["post.failed"] })
          const disabled = anEndpoint(workspaceId, { active: false, disabledReason: "delivery_failed", disabledAt: t0 })
          const later = anEndpoint(workspaceId, { createdAt: t0 + 2 * day })
          const elsewhere = anEndpoint(other.workspaceId)
          for (const endpoint of [published, both, failedOnly, disabled, later, elsewhere]) {
            yield* webhooks.createEndpoint(endpoint)
          }
          const event = anEvent(workspaceId, { type: "post.published", createdAt: t0 + day })
          yield* emit(event)

          assert.strictEqual(yield* fanOutAll(t0 + day + 5), 1)

          for (const endpoint of [published, both]) {
            assert.deepStrictEqual(yield* webhooks.listDeliveries(workspaceId, endpoint.id), [
              {
                id: deliveryIdOf(endpoint.id, event.id),
                workspaceId,
                endpointId: endpoint.id,
                eventId: event.id,
                eventType: "post.published",
                status: "pending",
                attempts: 0,
                firstAttemptAt: null,
                lastAttemptAt: null,
                nextAttemptAt: t0 + day + 5,
                lastStatusCode: null,
                lastError: null,
                leaseOwner: null,
                leaseUntil: null,
                createdAt: t0 + day + 5
              }
            ])
          }
          for (const endpoint of [failedOnly, disabled, later]) {
            assert.deepStrictEqual(yield* webhooks.listDeliveries(workspaceId, endpoint.id), [])
          }
          assert.deepStrictEqual(yield* webhooks.listDeliveries(other.workspaceId, elsewhere.id), [])
        }))

      it.effect("reports the events not fanned out yet, the pending deliveries and the disabled endpoints across workspaces", () =>
        Effect.gen(function* () {
          yield* aClearQueue
          const { webhooks, workspaceId, emit } = yield* withWorkspace
          const other = yield* withWorkspace
          const before = yield* webhooks.deliveryBacklog()
          assert.strictEqual(before.eventsWaiting, 0)
          assert.isNull(before.oldestEventWaitingAt)
          const here = anEndpoint(workspaceId, { events: ["post.published"] })
          const there = anEndpoint(other.workspaceId, { events: ["post.published"] })
          const disabled = anEndpoint(other.workspaceId, { active: false, disabledReason: "delivery_failed", disabledAt: t0 })
          for (const endpoint of [here, there, disabled]) yield* webhooks.createEndpoint(endpoint)
          yield* emit(anEvent(workspaceId, { type: "post.published", createdAt: t0 + day }))
          yield* other.emit(anEvent(other.workspaceId, { type: "post.published", createdAt: t0 + day + 1 }))
          const waiting = yield* webhooks.deliveryBacklog()
          assert.strictEqual(waiting.eventsWaiting, 2)
          assert.strictEqual(waiting.oldestEventWaitingAt, t0 + day)
          yield* fanOutAll(t0 + day + 5)
          const after = yield* webhooks.deliveryBacklog()
          assert.deepStrictEqual(after, {
            pending: before.pending + 2,
            disabledEndpoints: before.disabledEndpoints + 1,
            eventsWaiting: 0,
            oldestEventWaitingAt: null
          })
        }))

      it.effect("dispatches each event once, oldest first, at most `limit` at a time", () =>
        Effect.gen(function* () {
          yield* aClearQueue
          const { webhooks, workspaceId, emit } = yield* withWorkspace
          const endpoint = anEndpoint(workspaceId)
          yield* webhooks.createEndpoint(endpoint)
          const events = [1, 2, 3].map((n) => anEvent(workspaceId, { type: "post.published", createdAt: t0 + n }))
          for (const event of events) yield* emit(event)

          assert.strictEqual(yield* webhooks.fanOutEvents(t0 + 10, 2), 2)
          assert.deepStrictEqual(
            eventIds(yield* webhooks.listDeliveries(workspaceId, endpoint.id)),
            [events[0]!.id, events[1]!.id].sort()
          )
          assert.strictEqual(yield* webhooks.fanOutEvents(t0 + 11, 2), 1)
          assert.strictEqual(yield* webhooks.fanOutEvents(t0 + 12, 2), 0)
          assert.deepStrictEqual(
            eventIds(yield* webhooks.listDeliveries(workspaceId, endpoint.id)),
            events.map((event) => event.id).sort()
          )
        }))

      it.effect("never fans one event out twice, even when fan-outs run at the same time", () =>
        Effect.gen(function* () {
          yield* aClearQueue
          const { webhooks, workspaceId, emit } = yield* withWorkspace
          const endpoint = anEndpoint(workspaceId)
          yield* webhooks.createEndpoint(endpoint)
          const events = Array.from({ length: 60 }, (_, n) => anEvent(workspaceId, { type: "post.published", createdAt: t0 + n }))
          yield* emit(...events)

          const dispatched = yield* Effect.all(
            Array.from({ length: 4 }, () => fanOutAll(t0 + 100, 3)),
            { concurrency: "unbounded" }
          )

          assert.strictEqual(dispatched.reduce((sum, n) => sum + n, 0), 60)
          assert.deepStrictEqual(
            eventIds(yield* webhooks.listDeliveries(workspaceId, endpoint.id)),
            events.map((event) => event.id).sort()
          )
        }))
    })

    describe("claims", () => {
      it.effect("leases due deliveries, earliest first, with the endpoint and the event as written", () =>
        Effect.gen(function* () {
          yield* aClearQueue
          const { webhooks, workspaceId, emit } = yield* withWorkspace
          const endpoint = anEndpoint(workspaceId, { events: ["post.published", "post.failed"] })
          yield* webhooks.createEndpoint(endpoint)
          const first = anEvent(workspaceId, { type: "post.published", data: { post_id: "post_1", nested: { a: [1, 2] } } })
          yield* emit(first)
          yield* fanOutAll(t0 + 10)
          const second = anEvent(workspaceId, { type: "post.failed", livemode: true })
          yield* emit(second)
          yield* fanOutAll(t0 + 20)

          assert.deepStrictEqual(yield* webhooks.claimDueDeliveries("worker-a", t0 + 9, t0 + 60_000, 10), [])
          const claimed = mine(workspaceId, yield* webhooks.claimDueDeliveries("worker-a", t0 + 30, t0 + 60_000, 10))

          assert.deepStrictEqual(claimed.map((claim) => claim.event), [first, second])
          assert.deepStrictEqual(claimed[0]!.endpoint, endpoint)
          assert.deepStrictEqual(
            claimed.map((claim) => [claim.delivery.leaseOwner, claim.delivery.leaseUntil]),
            [["worker-a", t0 + 60_000], ["worker-a", t0 + 60_000]]
          )
        }))

      it.effect("gives a leased delivery to no one else until the lease runs out", () =>
        Effect.gen(function* () {
          yield* aClearQueue
          const { webhooks, workspaceId, emit } = yield* withWorkspace
          yield* webhooks.createEndpoint(anEndpoint(workspaceId))
          yield* emit(anEvent(workspaceId, { type: "post.published" }))
          yield* fanOutAll(t0)

          assert.strictEqual(mine(workspaceId, yield* webhooks.claimDueDeliveries("worker-a", t0, t0 + minute, 10)).length, 1)
          assert.deepStrictEqual(yield* webhooks.claimDueDeliveries("worker-b", t0 + minute - 1, t0 + 2 * minute, 10), [])
          const retaken = yield* webhooks.claimDueDeliveries("worker-b", t0 + minute, t0 + 2 * minute, 10)
          assert.deepStrictEqual(
            mine(workspaceId, retaken).map((claim) => claim.delivery.leaseOwner),
            ["worker-b"]
          )
        }))

      it.effect("claims at most `limit`, and concurrent claims never share a delivery", () =>
        Effect.gen(function* () {
          yield* aClearQueue
          const { webhooks, workspaceId, emit } = yield* withWorkspace
          yield* webhooks.createEndpoint(anEndpoint(workspaceId))
          yield* emit(...Array.from({ length: 12 }, () => anEvent(workspaceId, { type: "post.published" })))
          yield* fanOutAll(t0)

          const claims = yield* Effect.all(
            ["a", "b", "c", "d"].map((owner) => webhooks.claimDueDeliveries(owner, t0, t0 + minute, 4)),
            { concurrency: "unbounded" }
          )
          const ids = claims.flat().map((claim) => claim.delivery.eventId)

          for (const claim of claims) assert.isAtMost(claim.length, 4)
          assert.strictEqual(ids.length, 12)
          assert.strictEqual(new Set(ids).size, 12)
        }))

      it.effect("gives back an owner's leases at once when it releases them", () =>
        Effect.gen(function* () {
          yield* aClearQueue
          const { webhooks, workspaceId, emit } = yield* withWorkspace
          yield* webhooks.createEndpoint(anEndpoint(workspaceId))
          yield* emit(anEvent(workspaceId, { type: "post.published" }), anEvent(workspaceId, { type: "post.published" }))
          yield* fanOutAll(t0)
          yield* webhooks.claimDueDeliveries("stopping", t0, t0 + day, 10)

          yield* webhooks.releaseDeliveries("stopping")
          const retaken = mine(workspaceId, yield* webhooks.claimDueDeliveries("restarted", t0 + 1, t0 + day, 10))

          assert.deepStrictEqual(retaken.map((claim) => claim.delivery.leaseOwner), ["restarted", "restarted"])
        }))
    })

    describe("attempts", () => {

      it.effect("keeps a retried delivery waiting until its next attempt is due", () =>
        Effect.gen(function* () {
          yield* aClearQueue
          const { webhooks, workspaceId, emit } = yield* withWorkspace
          const endpoint = anEndpoint(workspaceId)
          yield* webhooks.createEndpoint(endpoint)
          yield* emit(anEvent(workspaceId, { type: "post.published" }))
          yield* fanOutAll(t0)
          const claim = yield* claimOne(workspaceId, "worker", t0)

          const recorded = yield* webhooks.recordAttempt(keyOf(claim), "worker", {
            at: t0 + 100,
            result: "retry",
            statusCode: 500,
            error: "http_500",
            nextAttemptAt: t0 + 100 + minute
          })

          assert.deepStrictEqual(recorded, { recorded: true, endpointDisabled: false })
          const [delivery] = yield* webhooks.listDeliveries(workspaceId, endpoint.id)
          assert.deepStrictEqual(delivery, {
            ...claim.delivery,
            status: "pending",
            attempts: 1,
            firstAttemptAt: t0 + 100,
            lastAttemptAt: t0 + 100,
            nextAttemptAt: t0 + 100 + minute,
            lastStatusCode: 500,
            lastError: "http_500",
            leaseOwner: null,
            leaseUntil: null
          })
          assert.deepStrictEqual(mine(workspaceId, yield* webhooks.claimDueDeliveries("worker", t0 + 99 + minute, t0 + day, 10)), [])
          const again = yield* claimOne(workspaceId, "worker", t0 + 100 + minute)
          assert.strictEqual(again.delivery.attempts, 1)
        }))

      it.effect("records a success on the delivery and as the endpoint's last success", () =>
        Effect.gen(function* () {
          yield* aClearQueue
          const { webhooks, workspaceId, emit } = yield* withWorkspace
          const endpoint = anEndpoint(workspaceId)
          yield* webhooks.createEndpoint(endpoint)
          yield* emit(anEvent(workspaceId, { type: "post.published" }))
          yield* fanOutAll(t0)
          const claim = yield* claimOne(workspaceId, "worker", t0)

          yield* webhooks.recordAttempt(keyOf(claim), "worker", {
            at: t0 + 50,
            result: "delivered",
            statusCode: 204,
            error: null,
            nextAttemptAt: null
          })

          const [delivery] = yield* webhooks.listDeliveries(workspaceId, endpoint.id)
          assert.strictEqual(delivery!.status, "delivered")
          assert.strictEqual(delivery!.attempts, 1)
          assert.strictEqual(delivery!.lastStatusCode, 204)
          assert.isNull(delivery!.nextAttemptAt)
          assert.strictEqual(Option.getOrThrow(yield* webhooks.getEndpoint(workspaceId, endpoint.id)).lastSuccessAt, t0 + 50)
          assert.deepStrictEqual(mine(workspaceId, yield* webhooks.claimDueDeliveries("worker", t0 + day, t0 + 2 * day, 10)), [])
        }))

      it.effect("ignores an attempt recorded by a worker that no longer holds the lease", () =>
        Effect.gen(function* () {
          yield* aClearQueue
          const { webhooks, workspaceId, emit } = yield* withWorkspace
          const endpoint = anEndpoint(workspaceId)
          yield* webhooks.createEndpoint(endpoint)
          yield* emit(anEvent(workspaceId, { type: "post.published" }))
          yield* fanOutAll(t0)
          const stale = yield* claimOne(workspaceId, "slow-worker", t0)
          yield* claimOne(workspaceId, "other-worker", t0 + minute)

          const recorded = yield* webhooks.recordAttempt(keyOf(stale), "slow-worker", {
            at: t0 + minute + 1,
            result: "delivered",
            statusCode: 200,
            error: null,
            nextAttemptAt: null
          })

          assert.deepStrictEqual(recorded, { recorded: false, endpointDisabled: false })
          const [delivery] = yield* webhooks.listDeliveries(workspaceId, endpoint.id)
          assert.strictEqual(delivery!.status, "pending")
          assert.strictEqual(delivery!.leaseOwner, "other-worker")
          assert.isNull(Option.getOrThrow(yield* webhooks.getEndpoint(workspaceId, endpoint.id)).lastSuccessAt)
        }))

      it.effect("disables an endpoint failing since the given instant when a delivery dies, gives up its pending deliveries, and writes the notice", () =>
        Effect.gen(function* () {
          yield* aClearQueue
          const { webhooks, workspaceId, emit } = yield* withWorkspace
          const endpoint = anEndpoint(workspaceId, { events: ["post.published", "webhook_endpoint.disabled"] })
          const watcher = anEndpoint(workspaceId, { events: ["webhook_endpoint.disabled"] })
          yield* webhooks.createEndpoint(endpoint)
          yield* webhooks.createEndpoint(watcher)
          const [dying, waiting] = [anEvent(workspaceId, { type: "post.published" }), anEvent(workspaceId, { type: "post.published" })]
          yield* emit(dying!)
          yield* fanOutAll(t0)
          const first = yield* claimOne(workspaceId, "worker", t0)
          yield* webhooks.recordAttempt(keyOf(first), "worker", failed(t0, { nextAttemptAt: t0 + minute }))
          assert.strictEqual(Option.getOrThrow(yield* webhooks.getEndpoint(workspaceId, endpoint.id)).failingSince, t0)
          yield* emit(waiting!)
          yield* fanOutAll(t0 + 1)

          const at = t0 + 3 * day
          const claim = yield* claimOne(workspaceId, "worker", at)
          const notice = anEvent(workspaceId, { type: "webhook_endpoint.disabled", createdAt: at, data: { endpoint_id: endpoint.id } })
          const recorded = yield* webhooks.recordAttempt(keyOf(claim), "worker", {
            ...failed(at, { result: "dead" }),
            disableIfFailingSince: at - 3 * day,
            disabledNotice: notice
          })

          assert.deepStrictEqual(recorded, { recorded: true, endpointDisabled: true })
          const disabled = Option.getOrThrow(yield* webhooks.getEndpoint(workspaceId, endpoint.id))
          assert.deepStrictEqual(
            [disabled.active, disabled.disabledReason, disabled.disabledAt],
            [false, "delivery_failed", at]
          )
          const deliveries = yield* webhooks.listDeliveries(workspaceId, endpoint.id)
          assert.deepStrictEqual(
            deliveries.map((d) => [d.eventId, d.status]).sort(),
            [[dying!.id, "dead"], [waiting!.id, "dead"]].sort()
          )
          assert.deepStrictEqual(Option.getOrThrow(yield* webhooks.getEvent(workspaceId, notice.id)), notice)
          yield* fanOutAll(at + 1)
          assert.strictEqual((yield* webhooks.listDeliveries(workspaceId, endpoint.id)).length, 2, "the notice is not sent to the endpoint it is about")
          assert.deepStrictEqual((yield* webhooks.listDeliveries(workspaceId, watcher.id)).map((d) => d.eventId), [notice.id])
        }))

      it.effect("keeps an endpoint active when a delivery dies but an attempt succeeded since the given instant", () =>
        Effect.gen(function* () {
          yield* aClearQueue
          const { webhooks, workspaceId, emit } = yield* withWorkspace
          const endpoint = anEndpoint(workspaceId)
          yield* webhooks.createEndpoint(endpoint)
          yield* emit(anEvent(workspaceId, { type: "post.published" }), anEvent(workspaceId, { type: "post.published" }))
          yield* fanOutAll(t0)
          const [succeeding, dying] = mine(workspaceId, yield* webhooks.claimDueDeliveries("worker", t0, t0 + day * 5, 10))
          yield* webhooks.recordAttempt(keyOf(dying!), "worker", failed(t0, { nextAttemptAt: t0 }))
          const [again] = mine(workspaceId, yield* webhooks.claimDueDeliveries("worker", t0 + 1, t0 + day * 5, 10))
          yield* webhooks.recordAttempt(keyOf(succeeding!), "worker", {
            at: t0 + day,
            result: "delivered",
            statusCode: 200,
            error: null,
            nextAttemptAt: null
          })
          assert.isNull(Option.getOrThrow(yield* webhooks.getEndpoint(workspaceId, endpoint.id)).failingSince)

          const at = t0 + 3 * day
          const recorded = yield* webhooks.recordAttempt(keyOf(again!), "worker", {
            ...failed(at, { result: "dead" }),
            disableIfFailingSince: at - 3 * day
          })

          assert.deepStrictEqual(recorded, { recorded: true, endpointDisabled: false })
          const kept = Option.getOrThrow(yield* webhooks.getEndpoint(workspaceId, endpoint.id))
          assert.deepStrictEqual([kept.active, kept.failingSince], [true, at])
          const statuses = (yield* webhooks.listDeliveries(workspaceId, endpoint.id)).map((d) => d.status).sort()
          assert.deepStrictEqual(statuses, ["dead", "delivered"])
        }))
    })

    describe("batched attempts", () => {
      it.effect("records a batch as one-by-one recording in time order would: deliveries, the log, each endpoint's last success and failing streak", () =>
        Effect.gen(function* () {
          yield* aClearQueue
          const { webhooks, workspaceId, emit } = yield* withWorkspace
          const [a, b, c] = [anEndpoint(workspaceId), anEndpoint(workspaceId), anEndpoint(workspaceId)]
          for (const endpoint of [a!, b!, c!]) yield* webhooks.createEndpoint(endpoint)
          yield* emit(anEvent(workspaceId, { type: "post.published" }), anEvent(workspaceId, { type: "post.published" }))
          yield* fanOutAll(t0)
          const claims = mine(workspaceId, yield* webhooks.claimDueDeliveries("worker", t0, t0 + day, 10))
          assert.strictEqual(claims.length, 6)
          const of = (endpointId: string) => claims.filter((claim) => claim.delivery.endpointId === endpointId).map(keyOf)
          const [a1, a2] = of(a!.id)
          const [b1, b2] = of(b!.id)
          const [c1, c2] = of(c!.id)
          const delivered = (at: number): AttemptOutcome => ({
            at,
            result: "delivered",
            statusCode: 200,
            error: null,
            nextAttemptAt: null,
            attempt: { durationMs: 7, responseBody: "ok", error: null }
          })
          const unknown = { workspaceId, endpointId: a!.id, eventId: Id.unchecked("event", anId("evt")) }

          const answers = yield* webhooks.recordAttempts("worker", [
            { key: a2!, outcome: failed(t0 + 20) },
            { key: b1!, outcome: failed(t0 + 30) },
            { key: c2!, outcome: delivered(t0 + 6) },
            { key: unknown, outcome: delivered(t0 + 1) },
            { key: a1!, outcome: delivered(t0 + 10) },
            { key: b2!, outcome: failed(t0 + 15) },
            { key: c1!, outcome: failed(t0 + 5) }
          ])

          const yes = { recorded: true, endpointDisabled: false }
          assert.deepStrictEqual(answers, [yes, yes, yes, { recorded: false, endpointDisabled: false }, yes, yes, yes])
          const endpointState = (id: Id.WebhookId) =>
            Effect.map(webhooks.getEndpoint(workspaceId, id), (found) => {
              const endpoint = Option.getOrThrow(found)
              return [endpoint.lastSuccessAt, endpoint.failingSince, endpoint.active]
            })
          assert.deepStrictEqual(yield* endpointState(a!.id), [t0 + 10, t0 + 20, true], "a failure after the last success starts a streak")
          assert.deepStrictEqual(yield* endpointState(b!.id), [null, t0 + 15, true], "the streak starts at the earliest failure")
          assert.deepStrictEqual(yield* endpointState(c!.id), [t0 + 6, null, true], "a success after the failure ends the streak")
          const deliveries = (yield* Effect.forEach([a!, b!, c!], (endpoint) => webhooks.listDeliveries(workspaceId, endpoint.id))).flat()
          assert.deepStrictEqual(
            deliveries.map((d) => [d.status, d.attempts, d.leaseOwner]).sort(),
            [
              ["delivered", 1, null],
              ["delivered", 1, null],
              ["pending", 1, null],
              ["pending", 1, null],
              ["pending", 1, null],
              ["pending", 1, null]
            ]
          )
          const detail = Option.getOrThrow(
            yield* webhooks.getDelivery(workspaceId, a!.id, deliveryIdOf(a!.id, a1!.eventId))
          )
          assert.deepStrictEqual(detail.attempts, [
            { number: 1, at: t0 + 10, durationMs: 7, statusCode: 200, responseBody: "ok", error: null, redelivery: false }
          ])
          assert.deepStrictEqual(
            (yield* webhooks.getDelivery(workspaceId, b!.id, deliveryIdOf(b!.id, b2!.eventId))).pipe(Option.getOrThrow).attempts,
            [
              {
                number: 1,
                at: t0 + 15,
                durationMs: 12,
                statusCode: 503,
                responseBody: "busy",
                error: { code: "webhook_delivery_failed", details: { kind: "http_status", status: 503 }, platform_code: null, retryable: true },
                redelivery: false
              }
            ]
          )

          const again = yield* webhooks.recordAttempts("worker", [{ key: a1!, outcome: failed(t0 + 40) }])
          assert.deepStrictEqual(again, [{ recorded: false, endpointDisabled: false }], "the lease went with the first record")
          assert.deepStrictEqual(yield* endpointState(a!.id), [t0 + 10, t0 + 20, true])
        }))

      it.effect("records a batch holding a dead outcome, which may disable its endpoint, beside the others", () =>
        Effect.gen(function* () {
          yield* aClearQueue
          const { webhooks, workspaceId, emit } = yield* withWorkspace
          const [failing, healthy] = [anEndpoint(workspaceId), anEndpoint(workspaceId)]
          yield* webhooks.createEndpoint(failing!)
          yield* webhooks.createEndpoint(healthy!)
          yield* emit(anEvent(workspaceId, { type: "post.published" }))
          yield* fanOutAll(t0)
          const first = mine(workspaceId, yield* webhooks.claimDueDeliveries("worker", t0, t0 + minute, 10)).find(
            (claim) => claim.delivery.endpointId === failing!.id
          )
          yield* webhooks.recordAttempt(keyOf(first!), "worker", failed(t0, { nextAttemptAt: t0 + 3 * day }))
          const at = t0 + 3 * day
          const claims = mine(workspaceId, yield* webhooks.claimDueDeliveries("worker", at, at + minute, 10))
          const dying = claims.find((claim) => claim.delivery.endpointId === failing!.id)!
          const fine = claims.find((claim) => claim.delivery.endpointId === healthy!.id)!

          const answers = yield* webhooks.recordAttempts("worker", [
            { key: keyOf(fine), outcome: { at, result: "delivered", statusCode: 204, error: null, nextAttemptAt: null } },
            { key: keyOf(dying), outcome: { ...failed(at, { result: "dead" }), disableIfFailingSince: at - 3 * day } }
          ])

          assert.deepStrictEqual(answers, [
            { recorded: true, endpointDisabled: false },
            { recorded: true, endpointDisabled: true }
          ])
          assert.isFalse(Option.getOrThrow(yield* webhooks.getEndpoint(workspaceId, failing!.id)).active)
          assert.strictEqual(Option.getOrThrow(yield* webhooks.getEndpoint(workspaceId, healthy!.id)).lastSuccessAt, at)
        }))
    })

    describe("endpoint changes", () => {
      it.effect("changes the url and events, and finds no endpoint of another workspace", () =>
        Effect.gen(function* () {
          const { webhooks, workspaceId } = yield* withWorkspace
          const other = yield* withWorkspace
          const endpoint = anEndpoint(workspaceId)
          yield* webhooks.createEndpoint(endpoint)

          const changed = yield* webhooks.updateEndpoint(
            workspaceId,
            endpoint.id,
            { url: "https://hooks.example.com/v2", events: ["post.failed", "account.connected"] },
            t0 + 5
          )

          assert.deepStrictEqual(Option.getOrThrow(changed), {
            ...endpoint,
            url: "https://hooks.example.com/v2",
            events: ["post.failed", "account.connected"]
          })
          assert.deepStrictEqual(Option.getOrThrow(yield* webhooks.getEndpoint(workspaceId, endpoint.id)), Option.getOrThrow(changed))
          assert.isTrue(Option.isNone(yield* webhooks.updateEndpoint(other.workspaceId, endpoint.id, { url: "https://x.example/" }, t0)))
        }))

      it.effect("keeps approval links out of an endpoint once hidden, and claims it with that setting", () =>
        Effect.gen(function* () {
          yield* aClearQueue
          const { webhooks, workspaceId, emit } = yield* withWorkspace
          const hidden = anEndpoint(workspaceId, { approvalLinks: "hidden" })
          const moved = anEndpoint(workspaceId)
          yield* webhooks.createEndpoint(hidden)
          yield* webhooks.createEndpoint(moved)
          assert.strictEqual(Option.getOrThrow(yield* webhooks.getEndpoint(workspaceId, hidden.id)).approvalLinks, "hidden")

          const unchanged = yield* webhooks.updateEndpoint(workspaceId, moved.id, { events: ["post.published"] }, t0 + 1)
          assert.strictEqual(Option.getOrThrow(unchanged).approvalLinks, "shown")
          const changed = yield* webhooks.updateEndpoint(workspaceId, moved.id, { url: "https://elsewhere.example/", hideApprovalLinks: true }, t0 + 2)
          assert.deepStrictEqual(Option.getOrThrow(changed), { ...moved, url: "https://elsewhere.example/", approvalLinks: "hidden" })

          yield* emit(anEvent(workspaceId, { type: "post.published" }))
          yield* fanOutAll(t0 + 10)
          const claimed = mine(workspaceId, yield* webhooks.claimDueDeliveries("worker-h", t0 + 20, t0 + 60_000, 10))
          assert.deepStrictEqual(claimed.map((claim) => claim.endpoint.approvalLinks), ["hidden", "hidden"])
        }))

      it.effect("rotates the secret, keeping the old one as previous until it expires, or dropping it at once", () =>
        Effect.gen(function* () {
          const { webhooks, workspaceId } = yield* withWorkspace
          const endpoint = anEndpoint(workspaceId)
          yield* webhooks.createEndpoint(endpoint)

          const rotated = Option.getOrThrow(
            yield* webhooks.updateEndpoint(workspaceId, endpoint.id, { rotateSecret: { secret: "whsec_two", previousExpiresAt: t0 + day } }, t0)
          )
          assert.deepStrictEqual(
            [rotated.secret, rotated.previousSecret, rotated.previousSecretExpiresAt],
            ["whsec_two", endpoint.secret, t0 + day]
          )
          const again = Option.getOrThrow(
            yield* webhooks.updateEndpoint(workspaceId, endpoint.id, { rotateSecret: { secret: "whsec_three", previousExpiresAt: t0 + 1 } }, t0 + 1)
          )
          assert.deepStrictEqual([again.secret, again.previousSecret, again.previousSecretExpiresAt], ["whsec_three", null, null])
        }))

      it.effect("disables an active endpoint, giving up its pending deliveries, and re-enables it for events from then on", () =>
        Effect.gen(function* () {
          yield* aClearQueue
          const { webhooks, workspaceId, emit } = yield* withWorkspace
          const endpoint = anEndpoint(workspaceId, { failingSince: t0 })
          yield* webhooks.createEndpoint(endpoint)
          const waiting = anEvent(workspaceId, { type: "post.published", createdAt: t0 + 1 })
          yield* emit(waiting)
          yield* fanOutAll(t0 + 2)

          const disabled = Option.getOrThrow(yield* webhooks.updateEndpoint(workspaceId, endpoint.id, { disable: "disabled_by_request" }, t0 + 3))
          assert.deepStrictEqual([disabled.active, disabled.disabledReason, disabled.disabledAt], [false, "disabled_by_request", t0 + 3])
          const [givenUp] = yield* webhooks.listDeliveries(workspaceId, endpoint.id)
          assert.deepStrictEqual([givenUp!.status, givenUp!.nextAttemptAt, givenUp!.lastError], ["dead", null, "endpoint_disabled"])
          const again = Option.getOrThrow(yield* webhooks.updateEndpoint(workspaceId, endpoint.id, { disable: "other" }, t0 + 4))
          assert.deepStrictEqual([again.disabledReason, again.disabledAt], ["disabled_by_request", t0 + 3], "disabling twice changes nothing")
          yield* emit(anEvent(workspaceId, { type: "post.published", createdAt: t0 + 5 }))

          const enabled = Option.getOrThrow(yield* webhooks.updateEndpoint(workspaceId, endpoint.id, { enable: true }, t0 + 10))
          assert.deepStrictEqual(
            [enabled.active, enabled.disabledReason, enabled.disabledAt, enabled.failingSince, enabled.subscribedFrom],
            [true, null, null, null, t0 + 10]
          )
          const later = anEvent(workspaceId, { type: "post.published", createdAt: t0 + 10 })
          yield* emit(anEvent(workspaceId, { type: "post.published", createdAt: t0 + 9 }), later)
          yield* fanOutAll(t0 + 11)
          assert.deepStrictEqual(eventIds(yield* webhooks.listDeliveries(workspaceId, endpoint.id)), [waiting.id, later.id].sort())
          const noop = Option.getOrThrow(yield* webhooks.updateEndpoint(workspaceId, endpoint.id, { enable: true }, t0 + 20))
          assert.strictEqual(noop.subscribedFrom, t0 + 10, "enabling an active endpoint changes nothing")
        }))
    })

    describe("the delivery log", () => {
      /** An endpoint with `count` deliveries fanned out at t0 + 1, t0 + 2, … */
      const withDeliveries = (count: number, type = "post.published") =>
        Effect.gen(function* () {
          yield* aClearQueue
          const context = yield* withWorkspace
          const endpoint = anEndpoint(context.workspaceId, { events: ["post.published", "post.failed"] })
          yield* context.webhooks.createEndpoint(endpoint)
          const events: Array<OutboxEvent> = []
          for (let n = 1; n <= count; n++) {
            const event = anEvent(context.workspaceId, { type, createdAt: t0 + n })
            events.push(event)
            yield* context.emit(event)
            yield* fanOutAll(t0 + n)
          }
          return { ...context, endpoint, events }
        })

      it.effect("logs each attempt with its number, time, duration, answer and error, and shows them newest first", () =>
        Effect.gen(function* () {
          const { webhooks, workspaceId, endpoint, events } = yield* withDeliveries(1)
          const first = yield* claimOne(workspaceId, "worker", t0 + 10)
          yield* webhooks.recordAttempt(keyOf(first), "worker", failed(t0 + 10, { nextAttemptAt: t0 + 20 }))
          const second = yield* claimOne(workspaceId, "worker", t0 + 20)
          yield* webhooks.recordAttempt(keyOf(second), "worker", {
            at: t0 + 21,
            result: "delivered",
            statusCode: 200,
            error: null,
            nextAttemptAt: null,
            attempt: { durationMs: 7, responseBody: "ok", error: null }
          })

          const id = deliveryIdOf(endpoint.id, events[0]!.id)
          const detail = Option.getOrThrow(yield* webhooks.getDelivery(workspaceId, endpoint.id, id))
          assert.strictEqual(detail.delivery.status, "delivered")
          assert.deepStrictEqual(detail.attempts, [
            { number: 2, at: t0 + 21, durationMs: 7, statusCode: 200, responseBody: "ok", error: null, redelivery: false },
            {
              number: 1,
              at: t0 + 10,
              durationMs: 12,
              statusCode: 503,
              responseBody: "busy",
              error: { code: "webhook_delivery_failed", details: { kind: "http_status", status: 503 }, platform_code: null, retryable: true },
              redelivery: false
            }
          ])
          assert.isTrue(Option.isNone(yield* webhooks.getDelivery(workspaceId, Id.unchecked("webhook", anId("wh")), id)))
          assert.isTrue(Option.isNone(yield* webhooks.getDelivery((yield* withWorkspace).workspaceId, endpoint.id, id)))
        }))

      it.effect("keeps no attempt of a worker that lost its lease", () =>
        Effect.gen(function* () {
          const { webhooks, workspaceId, endpoint, events } = yield* withDeliveries(1)
          const stale = yield* claimOne(workspaceId, "slow", t0 + 10)
          yield* claimOne(workspaceId, "fast", t0 + 10 + minute)

          yield* webhooks.recordAttempt(keyOf(stale), "slow", failed(t0 + minute + 11))

          const detail = Option.getOrThrow(yield* webhooks.getDelivery(workspaceId, endpoint.id, deliveryIdOf(endpoint.id, events[0]!.id)))
          assert.deepStrictEqual(detail.attempts, [])
        }))

      it.effect("lists deliveries newest first with their latest attempt, filtered and in keyset pages", () =>
        Effect.gen(function* () {
          const { webhooks, workspaceId, endpoint, events, emit } = yield* withDeliveries(3)
          const failedEvent = anEvent(workspaceId, { type: "post.failed", createdAt: t0 + 4 })
          yield* emit(failedEvent)
          yield* fanOutAll(t0 + 4)
          const claims = mine(workspaceId, yield* webhooks.claimDueDeliveries("worker", t0 + 10, t0 + day, 10))
          const byEvent = (id: string) => claims.find((claim) => claim.delivery.eventId === id)!
          yield* webhooks.recordAttempt(keyOf(byEvent(events[0]!.id)), "worker", failed(t0 + 11, { result: "dead" }))
          yield* webhooks.recordAttempt(keyOf(byEvent(events[1]!.id)), "worker", {
            at: t0 + 12,
            result: "delivered",
            statusCode: 204,
            error: null,
            nextAttemptAt: null
          })
          const log = (filter: Parameters<typeof webhooks.listDeliveryLog>[2], after?: { sortKey: number; id: string }, limit = 10) =>
            webhooks.listDeliveryLog(workspaceId, endpoint.id, filter, after, limit)

          const all = yield* log({})
          assert.deepStrictEqual(all.map((entry) => entry.delivery.eventId), [failedEvent.id, events[2]!.id, events[1]!.id, events[0]!.id])
          assert.deepStrictEqual(all.map((entry) => entry.lastAttempt?.statusCode ?? null), [null, null, 204, 503])
          const page = yield* log({}, undefined, 2)
          const last = page[1]!.delivery
          const rest = yield* log({}, { sortKey: last.createdAt, id: last.id }, 10)
          assert.deepStrictEqual([...page, ...rest].map((entry) => entry.delivery.id), all.map((entry) => entry.delivery.id))

          assert.deepStrictEqual((yield* log({ status: "dead" })).map((e) => e.delivery.eventId), [events[0]!.id])
          assert.deepStrictEqual((yield* log({ status: "delivered" })).map((e) => e.delivery.eventId), [events[1]!.id])
          assert.deepStrictEqual((yield* log({ eventType: "post.failed" })).map((e) => e.delivery.eventId), [failedEvent.id])
          assert.deepStrictEqual((yield* log({ from: t0 + 2, to: t0 + 4 })).map((e) => e.delivery.eventId), [events[2]!.id, events[1]!.id])
          assert.deepStrictEqual(yield* webhooks.listDeliveryLog((yield* withWorkspace).workspaceId, endpoint.id, {}, undefined, 10), [])
        }))

      it.effect("records a redelivery whatever the status: a success delivers and ends the schedule, a failure changes only the log", () =>
        Effect.gen(function* () {
          const { webhooks, workspaceId, endpoint, events } = yield* withDeliveries(2)
          const claims = mine(workspaceId, yield* webhooks.claimDueDeliveries("worker", t0 + 10, t0 + day, 10))
          const dead = claims.find((claim) => claim.delivery.eventId === events[0]!.id)!
          yield* webhooks.recordAttempt(keyOf(dead), "worker", failed(t0 + 11, { result: "dead" }))
          const pending = claims.find((claim) => claim.delivery.eventId === events[1]!.id)!

          const missed = Option.getOrThrow(
            yield* webhooks.recordRedelivery(keyOf(pending), {
              at: t0 + 30,
              delivered: false,
              durationMs: 3,
              statusCode: null,
              responseBody: null,
              error: { code: "webhook_delivery_failed", details: { kind: "timeout", seconds: 10 }, platform_code: null, retryable: true }
            })
          )
          assert.deepStrictEqual(
            [missed.delivery.status, missed.delivery.attempts, missed.delivery.leaseOwner, missed.attempts[0]!.redelivery],
            ["pending", 1, "worker", true]
          )
          const revived = Option.getOrThrow(
            yield* webhooks.recordRedelivery(keyOf(dead), {
              at: t0 + 40,
              delivered: true,
              durationMs: 5,
              statusCode: 200,
              responseBody: "ok",
              error: null
            })
          )

          assert.deepStrictEqual(
            [revived.delivery.status, revived.delivery.attempts, revived.delivery.nextAttemptAt, revived.delivery.lastAttemptAt],
            ["delivered", 2, null, t0 + 40]
          )
          assert.deepStrictEqual(revived.attempts.map((a) => [a.number, a.redelivery, a.statusCode]), [[2, true, 200], [1, false, 503]])
          const after = Option.getOrThrow(yield* webhooks.getEndpoint(workspaceId, endpoint.id))
          assert.deepStrictEqual([after.lastSuccessAt, after.failingSince], [t0 + 40, null])
          const gone = { workspaceId, endpointId: endpoint.id, eventId: Id.unchecked("event", anId("evt")) }
          assert.isTrue(Option.isNone(yield* webhooks.recordRedelivery(gone, { at: t0, delivered: true, durationMs: 1, statusCode: 200, responseBody: "", error: null })))
        }))
    })

    describe("the events list", () => {
      it.effect("lists a workspace's events newest first, by type, post, account and time, in keyset pages", () =>
        Effect.gen(function* () {
          const { webhooks, workspaceId, emit } = yield* withWorkspace
          const events = [
            anEvent(workspaceId, { type: "post.scheduled", createdAt: t0 + 1, data: { post_id: "post_A" } }),
            anEvent(workspaceId, { type: "account.connected", createdAt: t0 + 2, data: { account_id: "acc_B", handle: "b" } }),
            anEvent(workspaceId, { type: "post.published", createdAt: t0 + 3, data: { post_id: "post_A", nested: { n: [1] } } }),
            anEvent(workspaceId, { type: "post.failed", createdAt: t0 + 3, data: { post_id: "post_C" } })
          ]
          yield* emit(...events)
          yield* emit(anEvent((yield* withWorkspace).workspaceId, { createdAt: t0 + 3 }))
          const list = (filter: Parameters<typeof webhooks.listEventLog>[1], after?: { sortKey: number; id: string }, limit = 10) =>
            webhooks.listEventLog(workspaceId, filter, after, limit)
          const newestFirst = [...events].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))

          assert.deepStrictEqual(yield* list({}), newestFirst)
          const page = yield* list({}, undefined, 2)
          const rest = yield* list({}, { sortKey: page[1]!.createdAt, id: page[1]!.id })
          assert.deepStrictEqual([...page, ...rest], newestFirst)
          const ids = (found: ReadonlyArray<OutboxEvent>) => found.map((event) => event.id)
          assert.deepStrictEqual(ids(yield* list({ types: ["post.scheduled", "account.connected"] })), [events[1]!.id, events[0]!.id])
          assert.deepStrictEqual(ids(yield* list({ postId: Id.unchecked("post", "post_A") })), [events[2]!.id, events[0]!.id])
          assert.deepStrictEqual(ids(yield* list({ accountId: Id.unchecked("account", "acc_B") })), [events[1]!.id])
          assert.deepStrictEqual(ids(yield* list({ from: t0 + 2, to: t0 + 3 })), [events[1]!.id])
          assert.deepStrictEqual(Option.getOrThrow(yield* webhooks.getEvent(workspaceId, events[2]!.id)), events[2])
          assert.isTrue(Option.isNone(yield* webhooks.getEvent((yield* withWorkspace).workspaceId, events[2]!.id)))
        }))
    })

    describe("pruning", () => {
      /** A clear queue, and a workspace with an endpoint subscribed to `post.published` 400 days ago. */
      const aWorkspaceFromLongAgo = Effect.gen(function* () {
        yield* aClearQueue
        const { webhooks, workspaceId, emit } = yield* withWorkspace
        const old = t0 - 400 * day
        const endpoint = anEndpoint(workspaceId, { createdAt: old, subscribedFrom: old })
        yield* webhooks.createEndpoint(endpoint)
        return { webhooks, workspaceId, emit, endpoint, old }
      })

      it.effect("gives the prune lease to one owner at a time, until it runs out", () =>
        Effect.gen(function* () {
          const webhooks = yield* WebhookStore
          const start = 9_000_000_000_000
          assert.isTrue(yield* webhooks.claimPruneLease("a", start, start + minute))
          assert.isFalse(yield* webhooks.claimPruneLease("b", start + 1, start + minute + 1))
          assert.isTrue(yield* webhooks.claimPruneLease("b", start + minute, start + 2 * minute))
        }))

      it.effect("deletes finished deliveries and dispatched events older than the cut-off, in bounded batches, and keeps the rest", () =>
        Effect.gen(function* () {
          const { emit, endpoint, old, webhooks, workspaceId } = yield* aWorkspaceFromLongAgo
          const oldEvents = [1, 2, 3].map((n) => anEvent(workspaceId, { type: "post.published", createdAt: old + n }))
          const stillPending = anEvent(workspaceId, { type: "post.published", createdAt: old + 4 })
          const unsubscribed = anEvent(workspaceId, { type: "account.connected", createdAt: old + 5 })
          yield* emit(...oldEvents, stillPending, unsubscribed)
          yield* fanOutAll(old + 10)
          const claims = mine(workspaceId, yield* webhooks.claimDueDeliveries("worker", old + 10, old + day, 10))
          for (const claim of claims.filter((c) => c.delivery.eventId !== stillPending.id)) {
            yield* webhooks.recordAttempt(keyOf(claim), "worker", failed(old + 11, { result: "dead" }))
          }
          const recent = anEvent(workspaceId, { type: "post.published", createdAt: t0 })
          yield* emit(recent)
          yield* fanOutAll(t0)
          const cutOff = old + day

          const batches: Array<number> = []
          for (;;) {
            const deleted = yield* webhooks.pruneLog(cutOff, 2)
            batches.push(deleted)
            if (deleted < 2) break
          }

          assert.isTrue(batches.every((n) => n <= 4), `each call deletes at most 2 deliveries and 2 events: ${batches}`)
          const kept = eventIds(yield* webhooks.listDeliveries(workspaceId, endpoint.id))
          assert.deepStrictEqual(kept, [stillPending.id, recent.id].sort())
          const listed = (yield* webhooks.listEventLog(workspaceId, {}, undefined, 100)).map((event) => event.id)
          assert.deepStrictEqual(listed.sort(), [stillPending.id, recent.id].sort())
          assert.isTrue(Option.isNone(yield* webhooks.getEvent(workspaceId, unsubscribed.id)))
        }))

      it.effect("never prunes an event not fanned out yet, however old: it is fanned out later", () =>
        Effect.gen(function* () {
          const { emit, endpoint, old, webhooks, workspaceId } = yield* aWorkspaceFromLongAgo
          const waiting = anEvent(workspaceId, { type: "post.published", createdAt: old + 1 })
          yield* emit(waiting)
          while ((yield* webhooks.pruneLog(old + day, 100)) > 0) {
            // everything prunable is gone
          }
          assert.isTrue(Option.isSome(yield* webhooks.getEvent(workspaceId, waiting.id)))
          assert.strictEqual(yield* fanOutAll(old + 2 * day), 1)
          assert.deepStrictEqual(eventIds(yield* webhooks.listDeliveries(workspaceId, endpoint.id)), [waiting.id])
        }))
    })
  })
