/**
 * A target whose platform may have published it (the adapter saved a checkpoint right before the
 * publish) is never reported failed unless the platform says it did not publish it: an outage, a
 * token that cannot be renewed, an account disconnected meanwhile, all keep it `publishing`,
 * asked again after a wait that doubles up to a bound, and counted by
 * `PublishingStore.unconfirmedTargets`. Time is the TestClock's.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import {
  Media,
  PlatformClient,
  PlatformFailure,
  type PublishInput,
  type PublishStep,
  Posts,
  Publisher,
  PublishingStore,
  Store,
} from "@postwire/core"
import { aLiveAccount, memoryEngine } from "../support/MemoryEngine.ts"
import { aPng } from "../support/Media.ts"

const publisher = Publisher.defaults("w1")

/** A platform whose steps do what the test scripted, one per call. */
const aScriptedPlatform = () => {
  const calls: Array<PublishInput> = []
  const steps: Array<(input: PublishInput) => Effect.Effect<PublishStep, PlatformFailure>> = []
  const service = PlatformClient.of({
    publish: (input) => {
      calls.push(input)
      const next = steps.shift()
      return next === undefined ? Effect.die(new Error("no step scripted")) : next(input)
    },
    creatorInfo: () => Effect.die(new Error("not used"))
  })
  return { calls, steps, service }
}

const unavailable = new PlatformFailure({ code: "platform_unavailable", platformCode: "network_error", retryable: true })

/** Saves the checkpoint a container adapter saves before publishing, then fails as given. */
const publishThenLose = (failure: PlatformFailure) => (input: PublishInput) =>
  Effect.gen(function* () {
    yield* input.checkpoint!({ container_id: "c1", publish_sent_at: 1 })
    return yield* Effect.fail(failure)
  })

/** A live Threads account and a post to it, published by `Publisher.publishDueTargets`. */
const aPostToPublish = Effect.gen(function* () {
  const { workspace: ws, profile, account, caller } = yield* aLiveAccount({
    platform: "textpost",
    credentials: JSON.stringify({ access_token: "t" }),
    externalId: "25000000000000001"
  })
  const image = yield* Media.uploadMedia(caller, { data: Buffer.from(aPng({ width: 4, height: 4 })).toString("base64") })
  const created = yield* Posts.createPost(
    caller,
    {
      profile_id: profile.id,
      caption: "Sourdough, start to finish",
      media: [image.id],
      targets: [{ account_id: account.id }],
      approval: { mode: "none" }
    } as never
  )
  const read = Effect.map(Posts.getPost(caller, created.post.id), (post) => post.targets[0]!)
  const events = Effect.map(Store.use((store) => store.listEvents(ws.id)), (list) => list.map((e) => e.type))
  const unconfirmed = Effect.flatMap(Effect.clockWith((clock) => clock.currentTimeMillis), (at) =>
    PublishingStore.use((queue) => queue.unconfirmedTargets(at))
  )
  return { accountId: account.id, events, read, unconfirmed, workspaceId: ws.id }
})

describe("a target that may have been published", () => {
  it.effect("stays publishing through an outage, a failed token and a disconnected account, then publishes once", () => {
    const platform = aScriptedPlatform()
    return Effect.gen(function* () {
      const { accountId, events, read, unconfirmed, workspaceId } = yield* aPostToPublish

      platform.steps.push(publishThenLose(unavailable))
      assert.deepStrictEqual(yield* Publisher.publishDueTargets(publisher), ["unconfirmed"])
      assert.deepInclude(yield* read, { status: "publishing", error: null })
      assert.deepStrictEqual(yield* unconfirmed, { count: 1, oldestSince: 0 })

      // Asked again after the first wait (30 s), not before.
      yield* TestClock.adjust("29 seconds")
      assert.deepStrictEqual(yield* Publisher.publishDueTargets(publisher), [])
      yield* TestClock.adjust("1 second")
      platform.steps.push(() =>
        Effect.fail(new PlatformFailure({ code: "token_expired", platformCode: "190", retryable: false, needsReconnect: true }))
      )
      assert.deepStrictEqual(yield* Publisher.publishDueTargets(publisher), ["unconfirmed"])
      assert.deepInclude(yield* read, { status: "publishing", error: null })
      assert.deepStrictEqual(platform.calls.at(-1)!.state, { container_id: "c1", publish_sent_at: 1 })

      // The account needs a reconnect now: the target waits (30 s after 30 s waited), the platform is not asked.
      yield* TestClock.adjust("30 seconds")
      assert.deepStrictEqual(yield* Publisher.publishDueTargets(publisher), ["unconfirmed"])
      assert.lengthOf(platform.calls, 2)
      assert.deepInclude(yield* read, { status: "publishing" })
      assert.strictEqual((yield* unconfirmed).count, 1)

      // The waits double, up to 10 minutes: 60 s waited → 60 s.
      yield* Store.use((store) => store.updateAccountStatus(workspaceId, accountId, "connected", []))
      yield* TestClock.adjust("59 seconds")
      assert.deepStrictEqual(yield* Publisher.publishDueTargets(publisher), [])
      yield* TestClock.adjust("1 second")
      platform.steps.push((input) =>
        Effect.succeed({ _tag: "Published", platformPostId: "m1", permalink: "https://www.threads.net/@maya.bakes/post/C1", state: input.state })
      )
      assert.deepStrictEqual(yield* Publisher.publishDueTargets(publisher), ["published"])
      assert.deepInclude(yield* read, {
        status: "published",
        permalink: "https://www.threads.net/@maya.bakes/post/C1",
        error: null,
        attempts: 1
      })
      assert.deepStrictEqual(yield* unconfirmed, { count: 0, oldestSince: null })
      const types = yield* events
      assert.notInclude(types, "post.failed")
      assert.strictEqual(types.filter((t) => t === "post.published").length, 1)
      assert.include(types, "account.needs_reconnect")
    }).pipe(Effect.provide(memoryEngine(platform.service)))
  })

  it.effect("asks no earlier than the time a platform's rate limit named (a Meta Business Use Case throttle)", () => {
    const platform = aScriptedPlatform()
    return Effect.gen(function* () {
      const { read } = yield* aPostToPublish
      platform.steps.push(publishThenLose(unavailable))
      assert.deepStrictEqual(yield* Publisher.publishDueTargets(publisher), ["unconfirmed"])
      yield* TestClock.adjust("30 seconds")
      // Asking what became of the publish is throttled for 20 minutes.
      const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
      platform.steps.push(() =>
        Effect.fail(
          new PlatformFailure({ code: "platform_unavailable", platformCode: "80002", retryable: true, retryAt: now + 20 * 60_000 })
        )
      )
      assert.deepStrictEqual(yield* Publisher.publishDueTargets(publisher), ["unconfirmed"])
      // Not after its own wait (30 s), after the 20 minutes.
      yield* TestClock.adjust(20 * 60_000 - 1)
      assert.deepStrictEqual(yield* Publisher.publishDueTargets(publisher), [])
      yield* TestClock.adjust(1)
      platform.steps.push((input) =>
        Effect.succeed({ _tag: "Published", platformPostId: "m1", permalink: "https://www.threads.net/@maya.bakes/post/C1", state: input.state })
      )
      assert.deepStrictEqual(yield* Publisher.publishDueTargets(publisher), ["published"])
      assert.deepInclude(yield* read, { status: "published", error: null })
      assert.lengthOf(platform.calls, 3)
    }).pipe(Effect.provide(memoryEngine(platform.service)))
  })

  it.effect("waits at most 10 minutes between asks, however long the outage", () => {
    const platform = aScriptedPlatform()
    return Effect.gen(function* () {
      const { read } = yield* aPostToPublish
      platform.steps.push(publishThenLose(unavailable))
      yield* Publisher.publishDueTargets(publisher)
      const asks: Array<number> = []
      for (let i = 0; i < 12; i++) {
        platform.steps.push(() => Effect.fail(unavailable))
        for (;;) {
          yield* TestClock.adjust("1 second")
          if ((yield* Publisher.publishDueTargets(publisher)).length > 0) break
        }
        asks.push(yield* Effect.clockWith((clock) => clock.currentTimeMillis))
      }
      const waits = asks.map((at, i) => (at - (i === 0 ? 0 : asks[i - 1]!)) / 1000)
      assert.deepStrictEqual(waits, [30, 30, 60, 120, 240, 480, 600, 600, 600, 600, 600, 600])
      assert.deepInclude(yield* read, { status: "publishing", error: null })
    }).pipe(Effect.provide(memoryEngine(platform.service)))
  })

  it.effect("fails when the platform says it did not publish it, retryable, keeping the state for the retry", () => {
    const platform = aScriptedPlatform()
    return Effect.gen(function* () {
      const { events, read, unconfirmed } = yield* aPostToPublish
      platform.steps.push(
        publishThenLose(
          new PlatformFailure({
            code: "platform_unavailable",
            platformCode: "2",
            retryable: true,
            notPublished: true,
            state: { container_id: "c1" }
          })
        )
      )
      assert.deepStrictEqual(yield* Publisher.publishDueTargets(publisher), ["failed"])
      assert.deepInclude(yield* read, { status: "failed", attempts: 1 })
      assert.include(yield* events, "post.failed")
      assert.deepStrictEqual(yield* unconfirmed, { count: 0, oldestSince: null })
    }).pipe(Effect.provide(memoryEngine(platform.service)))
  })
})
