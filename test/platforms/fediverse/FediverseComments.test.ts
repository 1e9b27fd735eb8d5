/**
 * Mastodon replies as comments against the fake server: the context's descendants (every depth)
 * read once each, an answer posted with `in_reply_to_id`, the account's own answer deleted,
 * someone else's refused, hiding refused.
 */
import { assert, describe, it } from "@effect/vitest"
import type { AccountRecord, TargetRecord } from "@postwire/core"
import { Effect, Result } from "effect"
import * as FediverseComments from "../../../packages/platforms/src/fediverse/FediverseComments.ts"
import { aPost, aTarget } from "../builders.ts"
import * as MastodonFake from "./MastodonFake.ts"
import { anOwnerAccount, makeWire } from "./support.ts"

const setUp = Effect.gen(function* () {
  const fake = yield* MastodonFake.make()
  const adapter = FediverseComments.make(yield* makeWire)
  const account = anOwnerAccount(fake)
  const root = fake.addStatus(fake.owner, "Fresh loaves at 9", null)
  const target: TargetRecord = { ...aTarget(account), status: "published", platformState: { phase: "published", post_id: root.id, url: null } }
  return { fake, adapter, account, root, target }
})

const action = (account: AccountRecord, target: TargetRecord, platformCommentId: string) => ({ post: aPost(), target, account, platformCommentId })

describe("Mastodon comments", () => {
  it.live("reads replies at every depth once, and the account's answers as its own", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { fake, adapter, account, root, target } = yield* setUp
        const question = fake.addStatus(fake.stranger, "Sourdough <b>or</b> rye?", root.id)
        const first = yield* adapter.poll({ post: aPost(), target, account, cursor: null })
        assert.strictEqual(first.calls, 1)
        assert.deepStrictEqual(
          first.comments.map((c) => [c.platformCommentId, c.parentPlatformCommentId, c.authorHandle, c.text, c.fromOwner]),
          [[question.id, null, "rio@other.example", "Sourdough <b>or</b> rye?", false]]
        )
        const { comment } = yield* adapter.reply({ ...action(account, target, question.id), text: "Both!" })
        assert.strictEqual(comment.parentPlatformCommentId, question.id)
        assert.isTrue(comment.fromOwner)
        const sent = fake.statuses.find((s) => s.id === comment.platformCommentId)!
        assert.strictEqual(sent.inReplyToId, question.id)
        assert.strictEqual(sent.text, "Both!")
        const thanks = fake.addStatus(fake.stranger, "Thanks", comment.platformCommentId)
        const second = yield* adapter.poll({ post: aPost(), target, account, cursor: first.cursor })
        assert.deepStrictEqual(
          second.comments.map((c) => [c.platformCommentId, c.parentPlatformCommentId, c.fromOwner]),
          [
            [comment.platformCommentId, question.id, true],
            [thanks.id, comment.platformCommentId, false]
          ]
        )
        const third = yield* adapter.poll({ post: aPost(), target, account, cursor: second.cursor })
        assert.strictEqual(third.comments.length, 0)
      })
    )
  )

  it.live("deletes the account's own reply; someone else's and hiding are refused", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { fake, adapter, account, root, target } = yield* setUp
        const question = fake.addStatus(fake.stranger, "Open on Sunday?", root.id)
        const { comment } = yield* adapter.reply({ ...action(account, target, question.id), text: "No, Monday" })
        yield* adapter.remove(action(account, target, comment.platformCommentId))
        assert.isFalse(fake.statuses.some((s) => s.id === comment.platformCommentId))
        // Gone already: nothing to do.
        yield* adapter.remove(action(account, target, comment.platformCommentId))
        const theirs = yield* Effect.result(adapter.remove(action(account, target, question.id)))
        assert.isTrue(Result.isFailure(theirs))
        if (Result.isFailure(theirs)) {
          assert.strictEqual(theirs.failure.code, "invalid_state")
          assert.strictEqual(theirs.failure.platformCode, "delete_own_only")
        }
        assert.isTrue(fake.statuses.some((s) => s.id === question.id))
        const hide = yield* Effect.result(adapter.setHidden({ ...action(account, target, question.id), hidden: true }))
        assert.isTrue(Result.isFailure(hide))
      })
    )
  )
})
