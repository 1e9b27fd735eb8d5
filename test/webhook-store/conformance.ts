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
          assert.isTrue(Option.isNone(yield* webhooks.getEndpoint(workspaceId, anId("wh"))))
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
  })
