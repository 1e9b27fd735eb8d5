/**
 * The 30-day log prune job, run by its own loop under `TestClock`: nothing younger than 30
 * days goes, everything finished and older does, in bounded batches, and only the instance
 * holding the lease prunes. On the memory store and the embedded database.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import { LogPruner, MemoryStore, MemoryWebhookStore, Store, type WebhookStore, WebhookStore as WebhookStoreTag } from "@postwire/core"
import { PgliteClient, SqlStore, SqlWebhookStore } from "@postwire/store-sql"
import { anAccount, anEndpoint, anEvent, aProfile, aWorkspace } from "../webhook-store/builders.ts"
import { anEmbeddedTemplate } from "../support/TestServer.ts"

/** Each embedded database here starts as a copy of a new one (no `initdb` of its own). */
const template = await anEmbeddedTemplate()

const hour = 3_600_000
const day = 24 * hour

const backends: ReadonlyArray<readonly [string, () => Layer.Layer<Store | WebhookStore, unknown>]> = [
  ["in memory", () => MemoryWebhookStore.layer.pipe(Layer.provideMerge(MemoryStore.layer))],
  ["embedded PGlite", () => SqlWebhookStore.layer.pipe(Layer.provideMerge(SqlStore.layer), Layer.provide(PgliteClient.layer({ template })))]
]

/** A workspace whose account emits events, and an endpoint subscribed to them, registered now. */
const aWorkspaceWithEndpoint = Effect.gen(function* () {
  const store = yield* Store
  const webhooks = yield* WebhookStoreTag
  const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
  const workspace = aWorkspace()
  const profile = aProfile(workspace.id)
  const account = anAccount(workspace.id, profile.id)
  yield* store.createWorkspace(workspace)
  yield* store.createProfile(profile)
  yield* store.createAccount(account)
  const endpoint = anEndpoint(workspace.id, { createdAt: now, subscribedFrom: now })
  yield* webhooks.createEndpoint(endpoint)
  /** Emits an event now, fans it out, and gives its delivery up after one failed attempt. */
  const aFailedDelivery = Effect.gen(function* () {
    const at = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
    const event = anEvent(workspace.id, { type: "post.published", createdAt: at })
    yield* store.updateAccountStatus(workspace.id, account.id, "connected", [event])
    yield* webhooks.fanOutEvents(at, 100)
    const [claim] = (yield* webhooks.claimDueDeliveries("worker", at, at + hour, 100)).filter(
      (each) => each.delivery.eventId === event.id
    )
    yield* webhooks.recordAttempt(claim!.delivery, "worker", {
      at,
      result: "dead",
      statusCode: 500,
      error: "http_500",
      nextAttemptAt: null
    })
    return event
  })
  return { webhooks, workspaceId: workspace.id, endpoint, aFailedDelivery }
})

for (const [name, makeLayer] of backends) {
  describe(`LogPruner on ${name}`, () => {
    it.effect("keeps 30 days of events and deliveries, then prunes them at the next interval, in batches, under one lease", () =>
      Effect.gen(function* () {
        const { webhooks, workspaceId, endpoint, aFailedDelivery } = yield* aWorkspaceWithEndpoint
        const old = [yield* aFailedDelivery, yield* aFailedDelivery, yield* aFailedDelivery]
        const pruner = yield* Effect.forkChild(LogPruner.run({ owner: "instance-a", batchSize: 2, intervalMs: 6 * hour }))
        const events = () => Effect.map(webhooks.listEventLog(workspaceId, {}, undefined, 100), (list) => list.map((e) => e.id))
        const deliveries = () => Effect.map(webhooks.listDeliveries(workspaceId, endpoint.id), (list) => list.map((d) => d.eventId))

        yield* TestClock.adjust(29 * day)
        const recent = yield* aFailedDelivery
        yield* TestClock.adjust(day - 6 * hour)
        assert.strictEqual((yield* deliveries()).length, 4, "nothing is pruned before it is 30 days old")
        assert.strictEqual(
          yield* LogPruner.pruneOnce({ owner: "instance-b", batchSize: 2, intervalMs: 6 * hour }),
          0,
          "another instance does not prune while the lease is held"
        )

        yield* TestClock.adjust(12 * hour)

        assert.deepStrictEqual(yield* deliveries(), [recent.id])
        assert.deepStrictEqual(yield* events(), [recent.id])
        for (const event of old) assert.isTrue(Option.isNone(yield* webhooks.getEvent(workspaceId, event.id)))
        yield* Fiber.interrupt(pruner)
      }).pipe(Effect.provide(makeLayer())))
  })
}
