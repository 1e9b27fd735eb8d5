import { createHmac } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Fiber, Layer, Random } from "effect"
import { TestClock } from "effect/testing"
import {
  CredentialsCipher,
  DeliverySchedule,
  Dispatcher,
  defaultSettings,
  EngineConfig,
  Ids,
  MemoryStore,
  MemoryWebhookStore,
  Store,
  UrlSafety,
  Webhooks,
  WebhookTransport,
  Workspaces
} from "../src/index.ts"
import { NodeWebhookTransport } from "@postwire/server"
import { aReceiver, type Received } from "./fixtures/receiver.ts"
import type { Ids as Id } from "@postwire/domain"
import { Registry } from "@postwire/platforms"

const minute = 60_000
const hour = 60 * minute
const day = 24 * hour

const Engine = (
  resolver: Layer.Layer<UrlSafety.Resolver> = UrlSafety.Resolver.layerStatic({}),
  transport: Layer.Layer<WebhookTransport> = NodeWebhookTransport.layer
) =>
  Layer.mergeAll(
    Ids.layerTest,
    CredentialsCipher.layer.pipe(
      Layer.provideMerge(EngineConfig.layer(defaultSettings("https://postwire.test", "test-secret-of-at-least-thirty-two-bytes", Registry.catalog())))
    ),
    Webhooks.WebhookSettings.layer({ allowLoopback: true }),
    transport,
    resolver,
    MemoryWebhookStore.layer
  ).pipe(Layer.provideMerge(MemoryStore.layer))

const dispatcher = { owner: "test-instance" }

/** A `Random` that always draws 0: retries come exactly at their base intervals. */
const withoutJitter: Random.Random = { nextIntUnsafe: () => 0, nextDoubleUnsafe: () => 0 }

/** A workspace with a profile and an endpoint at `url` for `account.connected`. */
const anEndpointAt = (url: string) =>
  Effect.gen(function* () {
    const workspace = yield* Workspaces.createWorkspace({ name: "acme" })
    const key = yield* Workspaces.createKey(workspace.id, { kind: "test", scopes: ["webhooks:write"] })
    const profile = yield* Workspaces.createProfile(workspace.id, { name: "Acme" })
    const caller = { workspaceId: workspace.id, keyId: key.id, kind: "test" as const }
    const endpoint = yield* Webhooks.createEndpoint(caller, { url, events: ["account.connected"] })
    /** Connects an account, which emits `account.connected`. */
    const connectAccount = (handle = "acme") =>
      Workspaces.createAccount(workspace.id, { profileId: profile.id, platform: "photo", sandbox: true, handle })
    return { caller, endpoint, connectAccount }
  })

/** Moves time on in `step`s, running one dispatcher pass after each, as a running server would. */
const runFor = (duration: number, step = 5 * minute) =>
  Effect.gen(function* () {
    for (let passed = 0; passed < duration; passed += step) {
      yield* TestClock.adjust(step)
      yield* Dispatcher.dispatchOnce(dispatcher)
    }
  })

const signedAt = (request: Received): number => Number(/t=(\d+)/.exec(String(request.headers["service-signature"]))![1])

const hasValidSignature = (request: Received, secret: string): boolean => {
  const header = String(request.headers["service-signature"])
  const t = signedAt(request)
  const expected = createHmac("sha256", secret).update(`${t}.${request.body}`).digest("hex")
  return header === `t=${t},v1=${expected}`
}

const endpointState = (caller: { workspaceId: Id.WorkspaceId; keyId: Id.KeyId; kind: "test" }) =>
  Effect.map(Webhooks.listEndpoints(caller, {}), (list) => list.data[0]!)

describe("Dispatcher", () => {
  it.effect("retries a failing delivery 8 times, the last 24 hours after the first attempt, then gives it up without disabling the endpoint", () =>
    Effect.gen(function* () {
      const receiver = yield* aReceiver(() => 503)
      const { caller, endpoint, connectAccount } = yield* anEndpointAt(`${receiver.origin}/hooks`)
      yield* connectAccount()

      yield* Dispatcher.dispatchOnce(dispatcher)
      assert.strictEqual(receiver.received.length, 1)
      for (const [index, interval] of DeliverySchedule.retryIntervalsMs.entries()) {
        yield* TestClock.adjust(interval - 1)
        yield* Dispatcher.dispatchOnce(dispatcher)
        assert.strictEqual(receiver.received.length, index + 1, `retry ${index + 1} came before ${interval} ms`)
        assert.isTrue((yield* endpointState(caller)).active)
        yield* TestClock.adjust(1)
        yield* Dispatcher.dispatchOnce(dispatcher)
        assert.strictEqual(receiver.received.length, index + 2, `retry ${index + 1} did not come after ${interval} ms`)
      }

      assert.isTrue((yield* endpointState(caller)).active, "one bad event never disables an endpoint")

      const attempts = receiver.received
      assert.deepStrictEqual(
        attempts.map((attempt) => signedAt(attempt) - signedAt(attempts[0]!)),
        [0, 60, 360, 1260, 3060, 6660, 17460, 39060, 86400]
      )
      assert.strictEqual(new Set(attempts.map((a) => a.headers["service-event-id"])).size, 1)
      assert.strictEqual(new Set(attempts.map((a) => a.body)).size, 1)
      assert.strictEqual(JSON.parse(attempts[0]!.body).id, attempts[0]!.headers["service-event-id"])
      for (const attempt of attempts) assert.isTrue(hasValidSignature(attempt, endpoint.secret))

      yield* runFor(2 * day, hour)
      assert.strictEqual(receiver.received.length, 9, "a given-up delivery is not attempted again")
    }).pipe(Effect.provideService(Random.Random, withoutJitter), Effect.provide(Engine())))

  it.effect("spreads retries by up to 10% jitter, so the last comes 24 to 26.4 hours after the first", () =>
    Effect.gen(function* () {
      const receiver = yield* aReceiver(() => 500)
      const { connectAccount } = yield* anEndpointAt(`${receiver.origin}/hooks`)
      yield* connectAccount()

      yield* Dispatcher.dispatchOnce(dispatcher)
      yield* runFor(27 * hour, minute)

      const attempts = receiver.received.map(signedAt)
      assert.strictEqual(attempts.length, 9)
      const intervals = DeliverySchedule.retryIntervalsMs
      const waits = intervals.map((_, index) => (attempts[index + 1]! - attempts[index]!) * 1000)
      for (const [index, interval] of intervals.entries()) {
        assert.isAtLeast(waits[index]!, interval)
        assert.isAtMost(waits[index]!, interval * (1 + DeliverySchedule.jitterRatio) + minute)
      }
      assert.isTrue(waits.some((waited, index) => waited > intervals[index]! + minute), "no retry was jittered")
    }).pipe(Random.withSeed("jitter"), Effect.provide(Engine())))

  it.effect("stops retrying once the endpoint answers 2xx, and keeps it active", () =>
    Effect.gen(function* () {
      const receiver = yield* aReceiver((_, index) => (index < 2 ? 500 : 200))
      const { caller, connectAccount } = yield* anEndpointAt(`${receiver.origin}/hooks`)
      yield* connectAccount()

      yield* runFor(2 * day)

      assert.strictEqual(receiver.received.length, 3)
      assert.strictEqual(new Set(receiver.received.map((r) => r.headers["service-event-id"])).size, 1)
      assert.isTrue((yield* endpointState(caller)).active)
    }).pipe(Effect.provide(Engine())))

  it.effect("disables an endpoint only when a delivery used up its retries and every attempt had failed for 3 days", () =>
    Effect.gen(function* () {
      const handleOf = (request: Received) => JSON.parse(request.body).data.handle as string
      const receiver = yield* aReceiver((request) => (handleOf(request) === "good" ? 200 : 500))
      const { caller, endpoint, connectAccount } = yield* anEndpointAt(`${receiver.origin}/hooks`)
      const attemptsFor = (handle: string) => receiver.received.filter((r) => handleOf(r) === handle).length

      yield* connectAccount("bad-1")
      yield* Dispatcher.dispatchOnce(dispatcher)
      yield* runFor(12 * hour)
      yield* connectAccount("good")
      yield* runFor(15 * hour)
      assert.strictEqual(attemptsFor("bad-1"), 9)
      assert.strictEqual(attemptsFor("good"), 1)
      const failingFrom = yield* Clock.currentTimeMillis

      for (const handle of ["bad-2", "bad-3"]) {
        yield* connectAccount(handle)
        yield* runFor(27 * hour)
        assert.strictEqual(attemptsFor(handle), 9)
        assert.isTrue((yield* endpointState(caller)).active, `failing for less than 3 days after ${handle}`)
      }
      yield* connectAccount("bad-4")
      yield* runFor(27 * hour)

      assert.strictEqual(attemptsFor("bad-4"), 9)
      const disabled = yield* endpointState(caller)
      assert.strictEqual(disabled.active, false)
      assert.strictEqual(disabled.disabled_reason, "delivery_failed")
      const notices = (yield* Store.use((store) => store.listEvents(caller.workspaceId))).filter(
        (event) => event.type === "webhook_endpoint.disabled"
      )
      assert.strictEqual(notices.length, 1)
      assert.strictEqual(notices[0]!.data.endpoint_id, endpoint.id)
      assert.strictEqual(notices[0]!.data.disabled_at, disabled.disabled_at)
      assert.isAtMost(Date.parse(String(notices[0]!.data.failing_since)), failingFrom)
      assert.isFalse(receiver.received.some((r) => JSON.parse(r.body).type === "webhook_endpoint.disabled"))
    }).pipe(Effect.provide(Engine())))

  it.effect("counts an endpoint that does not answer within 10 seconds as failed, and tries again", () =>
    Effect.gen(function* () {
      const receiver = yield* aReceiver((_, index) => (index === 0 ? "hang" : 204))
      const { connectAccount } = yield* anEndpointAt(`${receiver.origin}/hooks`)
      yield* connectAccount()

      const pass = yield* Effect.forkChild(Dispatcher.dispatchOnce(dispatcher))
      yield* Effect.promise(() => receiver.waitFor(1))
      yield* TestClock.adjust(DeliverySchedule.attemptTimeoutMs)
      const report = yield* Fiber.join(pass)
      assert.deepStrictEqual([report.attempted, report.delivered], [1, 0])

      yield* runFor(2 * minute, minute)
      assert.strictEqual(receiver.received.length, 2)
      assert.strictEqual(receiver.received[1]!.headers["service-event-id"], receiver.received[0]!.headers["service-event-id"])
    }).pipe(Effect.provide(Engine())))

  it.effect("connects only to the addresses it checked, and re-checks them before every delivery", () => {
    const answers: Record<string, ReadonlyArray<string>> = { "hooks.example": ["127.0.0.1"] }
    const resolver = Layer.succeed(UrlSafety.Resolver)({
      resolve: (host) => Effect.sync(() => answers[host] ?? [])
    })
    let sends = 0
    const countingTransport = Layer.effect(WebhookTransport)(
      Effect.gen(function* () {
        const live = yield* WebhookTransport
        return {
          send: (request) =>
            Effect.suspend(() => {
              sends++
              return live.send(request)
            })
        }
      })
    ).pipe(Layer.provide(NodeWebhookTransport.layer))
    return Effect.gen(function* () {
      const receiver = yield* aReceiver(() => 204)
      const { connectAccount } = yield* anEndpointAt(`http://hooks.example:${receiver.port}/hooks`)

      // hooks.example exists in no DNS: the delivery reaches the receiver through the checked address.
      yield* connectAccount("first")
      yield* Dispatcher.dispatchOnce(dispatcher)
      assert.strictEqual(receiver.received.length, 1)
      assert.strictEqual(receiver.received[0]!.headers.host, `hooks.example:${receiver.port}`)

      answers["hooks.example"] = ["10.0.0.7"]
      yield* connectAccount("second")
      yield* Dispatcher.dispatchOnce(dispatcher)
      assert.strictEqual(sends, 1, "nothing may be sent to a private address")

      answers["hooks.example"] = ["127.0.0.1"]
      yield* runFor(2 * minute, minute)
      assert.strictEqual(receiver.received.length, 2)
      assert.strictEqual(JSON.parse(receiver.received[1]!.body).data.handle, "second")
    }).pipe(Effect.provide(Engine(resolver, countingTransport)))
  })

  it.effect("delivers events written while it runs, and finds them within its poll interval", () =>
    Effect.gen(function* () {
      const receiver = yield* aReceiver(() => 204)
      const { connectAccount } = yield* anEndpointAt(`${receiver.origin}/hooks`)
      const running = yield* Effect.forkChild(Dispatcher.run({ ...dispatcher, pollInterval: "1 second" }))
      yield* Effect.yieldNow

      yield* connectAccount()
      yield* TestClock.adjust("1 second")
      yield* Effect.promise(() => receiver.waitFor(1))

      assert.strictEqual(JSON.parse(receiver.received[0]!.body).type, "account.connected")
      yield* Fiber.interrupt(running)
    }).pipe(Effect.provide(Engine())))
})
