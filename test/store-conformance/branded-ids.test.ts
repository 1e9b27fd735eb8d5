/**
 * Ids are branded per kind: a target id passed where a post id is expected, or arguments given
 * in the wrong order, no longer compile. `tsc -b` checks the `@ts-expect-error` lines below (an
 * expected error that disappears fails the typecheck); the tests run them as well, to show what
 * the call would have done.
 */
import { assert, describe, it } from "@effect/vitest"
import { expectTypeOf } from "vitest"
import { Effect, Option, Schema } from "effect"
import { Ids, MemoryStore, Store } from "@postwire/core"
import { Ids as Id } from "@postwire/domain"
import { aPost, aWorkspace } from "./builders.ts"

describe("branded ids", () => {
  it.effect("Ids.make answers the branded type of the kind it is asked for", () =>
    Effect.gen(function* () {
      const ids = yield* Ids
      const post = yield* ids.make("post")
      const target = yield* ids.make("target")
      expectTypeOf(post).toEqualTypeOf<Id.PostId>()
      expectTypeOf(target).toEqualTypeOf<Id.TargetId>()
      expectTypeOf(target).not.toEqualTypeOf<Id.PostId>()
      assert.match(post, /^post_[0-9A-Z]{26}$/)
      assert.match(target, /^tgt_[0-9A-Z]{26}$/)
    }).pipe(Effect.provide(Ids.layerTest))
  )

  it.effect("a target id where a post id is expected, or swapped arguments, do not compile", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const workspace = aWorkspace()
      const aggregate = aPost(workspace.id)
      yield* store.createWorkspace(workspace)
      yield* store.insertPost(aggregate, [])
      const target = aggregate.targets[0]!

      assert.isTrue(Option.isSome(yield* store.getPost(workspace.id, aggregate.post.id)))
      // @ts-expect-error a TargetId is not a PostId
      assert.isTrue(Option.isNone(yield* store.getPost(workspace.id, target.id)))
      // @ts-expect-error the workspace and post ids are swapped
      assert.isTrue(Option.isNone(yield* store.getPost(aggregate.post.id, workspace.id)))
      // @ts-expect-error a plain string is not an id: brand it with Ids.unchecked(kind, value) or decode it
      assert.isTrue(Option.isNone(yield* store.getPost(workspace.id, "post_unknown")))
      assert.isTrue(Option.isNone(yield* store.getPost(workspace.id, Id.unchecked("post", "post_unknown"))))
    }).pipe(Effect.provide(MemoryStore.layer))
  )

  it("the domain schemas decode a string into the branded type and refuse another kind's id", () => {
    const decode = Schema.decodeUnknownOption(Id.PostId)
    const decoded = decode("post_01JD0000000000000000000000")
    expectTypeOf(decoded).toEqualTypeOf<Option.Option<Id.PostId>>()
    assert.deepStrictEqual(decoded, Option.some(Id.unchecked("post", "post_01JD0000000000000000000000")))
    assert.isTrue(Option.isNone(decode("tgt_01JD0000000000000000000000")))
  })
})
