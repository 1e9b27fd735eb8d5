/**
 * A target whose platform asks to be asked again shortly (a container checked right after its
 * creation) keeps its worker slot for its next step, even while other due targets wait for a
 * slot: its next step costs no claim and no start, and it is published sooner. While others
 * wait, it keeps the slot only within `holdPollMs` of its claim, so a target polled again and
 * again cannot keep them waiting. Driven through `Publisher.start` with one slot, on the memory
 * stores; time is the TestClock's.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import {
  PlatformClient,
  type PublishStep,
  Posts,
  Publisher,
} from "@postwire/core"
import { aLiveAccount, memoryEngine } from "../support/MemoryEngine.ts"
import { Ids as Id } from "@postwire/domain"

/**
 * A Threads-like platform: each post (by caption) is answered "in progress, ask again after
 * `waitMs`" as many times as `steps` says, then published. Records every call, in order.
 */
const aScriptedPlatform = (steps: Readonly<Record<string, { readonly inProgress: number; readonly waitMs: number }>>) => {
  const calls: Array<string> = []
  const service = PlatformClient.of({
    publish: (input) =>
      Effect.sync((): PublishStep => {
        const caption = input.post.caption
        calls.push(caption)
        const asked = calls.filter((c) => c === caption).length
        const script = steps[caption]!
        return asked <= script.inProgress
          ? { _tag: "InProgress", state: { container_id: `c_${caption}`, asked }, pollAfterMs: script.waitMs }
          : { _tag: "Published", platformPostId: `m_${caption}`, permalink: `https://www.threads.net/@maya/post/${caption}`, state: { asked } }
      }),
    creatorInfo: () => Effect.die(new Error("not used"))
  })
  return { calls, service }
}

/** One workspace with one Threads account, and a post due now for each caption, created in order. */
const postsDueNow = (captions: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const { profile, account, caller } = yield* aLiveAccount({
      platform: "textpost",
      credentials: JSON.stringify({ access_token: "t" }),
      externalId: "17841400000000001"
    })
    const ids: Array<string> = []
    for (const caption of captions) {
      const created = yield* Posts.createPost(caller, {
        profile_id: profile.id,
        caption,
        media: [],
        targets: [{ account_id: account.id }],
        approval: { mode: "none" }
      } as never)
      ids.push(created.post.id)
      // Due one after another: the queue's order is theirs.
      yield* TestClock.adjust("1 millis")
    }
    const statuses = Effect.forEach(ids, (id) =>
      Effect.map(Posts.getPost(caller, Id.unchecked("post", id)), (read) => read.targets[0]!.status)
    )
    return { statuses }
  })

/** Lets the worker run for `ms` of test time, a little at a time. */
const runFor = (ms: number) =>
  Effect.gen(function* () {
    for (let t = 0; t < ms; t += 50) yield* TestClock.adjust("50 millis")
  })

const oneSlot = { ...Publisher.defaults("w1"), concurrency: 1, holdPollMs: 1_000 }

describe("Publisher: a target asked to come back shortly keeps its slot", () => {
  it.effect("publishes each post before the next one starts, while the others wait for the one slot", () => {
    const platform = aScriptedPlatform({
      A: { inProgress: 1, waitMs: 0 },
      B: { inProgress: 1, waitMs: 0 },
      C: { inProgress: 1, waitMs: 0 }
    })
    return Effect.gen(function* () {
      const { statuses } = yield* postsDueNow(["A", "B", "C"])
      yield* Publisher.start(oneSlot)
      yield* runFor(2_000)
      // Container, then publish, for each post in turn: no post's first step jumps ahead of
      // another post's second (which a target given back to the queue would let happen).
      assert.deepStrictEqual(platform.calls, ["A", "A", "B", "B", "C", "C"])
      assert.deepStrictEqual(yield* statuses, ["published", "published", "published"])
    }).pipe(Effect.scoped, Effect.provide(memoryEngine(platform.service)))
  })

  it.effect("gives the slot up to the waiting targets once it has held it for holdPollMs, then finishes", () => {
    // A asks to be asked again every 200 ms, 12 times; B and C publish at once.
    const platform = aScriptedPlatform({
      A: { inProgress: 12, waitMs: 200 },
      B: { inProgress: 0, waitMs: 0 },
      C: { inProgress: 0, waitMs: 0 }
    })
    return Effect.gen(function* () {
      const { statuses } = yield* postsDueNow(["A", "B", "C"])
      yield* Publisher.start(oneSlot)
      yield* runFor(10_000)
      const beforeOthers = platform.calls.indexOf("B")
      // Held for its short waits (more than one call in a row), but for at most a second's worth
      // of them (calls at 0, 200, ..., 1000 ms after its claim, and the one that gives the slot up).
      assert.isAbove(beforeOthers, 1)
      assert.isAtMost(beforeOthers, 7)
      assert.deepStrictEqual(platform.calls.slice(0, beforeOthers), Array(beforeOthers).fill("A"))
      assert.deepStrictEqual(platform.calls.slice(beforeOthers, beforeOthers + 2), ["B", "C"])
      // Then A, alone in the queue, takes every step it has left.
      assert.deepStrictEqual(platform.calls.slice(beforeOthers + 2), Array(13 - beforeOthers).fill("A"))
      assert.deepStrictEqual(yield* statuses, ["published", "published", "published"])
    }).pipe(Effect.scoped, Effect.provide(memoryEngine(platform.service)))
  })
})
