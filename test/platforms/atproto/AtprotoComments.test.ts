/**
 * Bluesky replies as comments against the fake PDS (which plays the App View for
 * `app.bsky.feed.getPostThread`): read through the thread, answer with reply references, hide
 * through the post's threadgate, delete the account's own replies only.
 */
import { assert, describe, it } from "@effect/vitest"
import type { CommentRouter } from "@postwire/platforms"
import { Effect } from "effect"
import * as Xrpc from "../../../packages/platforms/src/atproto/Xrpc.ts"
import { anAccount, aTarget } from "../builders.ts"
import { aCommentRouter, failureOf, poller, texts } from "../comments/harness.ts"
import type { TargetRecord } from "@postwire/core"
import * as PdsFake from "./PdsFake.ts"

const alice = "did:plc:alice7example7aaaaaaaaaa"

const setUp = Effect.gen(function* () {
  const fake = yield* PdsFake.make()
  const pair = fake.session()
  const account = anAccount("atproto", {
    handle: fake.handle,
    externalId: fake.did,
    credentials: Xrpc.encode({ did: fake.did, handle: fake.handle, service: fake.url, access_jwt: pair.access, refresh_jwt: pair.refresh })
  })
  const root = `at://${fake.did}/app.bsky.feed.post/3lbakery2aaaa`
  fake.records.set(root, { uri: root, cid: "bafyreiroot", value: { $type: "app.bsky.feed.post", text: "New loaf drop", createdAt: new Date().toISOString() }, indexedAt: new Date().toISOString() })
  const router = yield* aCommentRouter({ atproto: { webHost: "https://bsky.app" } } as unknown as CommentRouter.Options)
  const target = { ...aTarget(account, { status: "published", platformState: { rkey: "3lbakery2aaaa", record: {} } }) } as TargetRecord
  return { fake, root, account, router, p: poller(router, fake, account, target) }
})

describe("Bluesky replies", () => {
  it.live("a poll reads every reply of the thread once, with parents, authors and permalinks", () =>
    Effect.gen(function* () {
      const { fake, root, p } = yield* setUp
      const top = fake.addReply({ did: alice, text: "Saving this", parent: root, root })
      fake.addReply({ did: fake.did, text: "Enjoy!", parent: top.uri, root })
      const first = yield* p.poll
      assert.deepStrictEqual(texts(first), ["Enjoy!", "Saving this"])
      const saving = first.comments.find((c) => c.text === "Saving this")!
      assert.strictEqual(saving.parentPlatformCommentId, null)
      assert.strictEqual(saving.authorHandle, "alice.example.com")
      assert.strictEqual(saving.authorPlatformId, alice)
      assert.isFalse(saving.fromOwner)
      assert.strictEqual(saving.permalink, `https://bsky.app/profile/alice.example.com/post/${top.uri.split("/")[4]}`)
      const enjoy = first.comments.find((c) => c.text === "Enjoy!")!
      assert.strictEqual(enjoy.parentPlatformCommentId, top.uri)
      assert.isTrue(enjoy.fromOwner)
      assert.strictEqual(first.requests, 1)
      const again = yield* p.poll
      assert.lengthOf(again.comments, 0)
      fake.addReply({ did: alice, text: "Still warm?", parent: root, root })
      assert.deepStrictEqual(texts(yield* p.poll), ["Still warm?"])
    }).pipe(Effect.scoped)
  )

  it.live("a reply names the root post and the parent by URI and CID", () =>
    Effect.gen(function* () {
      const { fake, root, p, router } = yield* setUp
      const top = fake.addReply({ did: alice, text: "Saving this", parent: root, root })
      const answer = yield* router.reply({ ...p.action(top.uri), text: "Thank you!" })
      const stored = fake.records.get(answer.comment.platformCommentId)!
      assert.deepStrictEqual(stored.value.reply, { root: { uri: root, cid: "bafyreiroot" }, parent: { uri: top.uri, cid: top.cid } })
      assert.strictEqual(stored.value.text, "Thank you!")
      assert.isTrue(answer.comment.fromOwner)
      assert.strictEqual(answer.comment.parentPlatformCommentId, top.uri)
    }).pipe(Effect.scoped)
  )

  it.live("hiding writes the reply into the post's threadgate, unhiding takes it out, other rules kept", () =>
    Effect.gen(function* () {
      const { fake, root, p, router } = yield* setUp
      const top = fake.addReply({ did: alice, text: "Spam spam", parent: root, root })
      const gateUri = `at://${fake.did}/app.bsky.feed.threadgate/3lbakery2aaaa`
      fake.records.set(gateUri, { uri: gateUri, cid: "bafyreigate", value: { $type: "app.bsky.feed.threadgate", post: root, allow: [{ $type: "app.bsky.feed.threadgate#followingRule" }], createdAt: new Date().toISOString() }, indexedAt: "" })
      yield* router.setHidden({ ...p.action(top.uri), hidden: true })
      const gate = fake.records.get(gateUri)!.value
      assert.deepStrictEqual(gate.hiddenReplies, [top.uri])
      assert.deepStrictEqual(gate.allow, [{ $type: "app.bsky.feed.threadgate#followingRule" }])
      assert.isTrue((yield* p.poll).comments.find((c) => c.platformCommentId === top.uri)!.hidden)
      yield* router.setHidden({ ...p.action(top.uri), hidden: false })
      assert.deepStrictEqual(fake.records.get(gateUri)!.value.hiddenReplies, [])
    }).pipe(Effect.scoped)
  )

  it.live("hiding on a post without a threadgate creates one that lets everyone reply", () =>
    Effect.gen(function* () {
      const { fake, root, p, router } = yield* setUp
      const top = fake.addReply({ did: alice, text: "Spam", parent: root, root })
      yield* router.setHidden({ ...p.action(top.uri), hidden: true })
      const gate = fake.records.get(`at://${fake.did}/app.bsky.feed.threadgate/3lbakery2aaaa`)!.value
      assert.deepStrictEqual(gate.hiddenReplies, [top.uri])
      assert.strictEqual(gate.post, root)
      assert.isUndefined(gate.allow)
    }).pipe(Effect.scoped)
  )

  it.live("deletes the account's own reply; another account's reply cannot be deleted", () =>
    Effect.gen(function* () {
      const { fake, root, p, router } = yield* setUp
      const theirs = fake.addReply({ did: alice, text: "Hello", parent: root, root })
      const mine = yield* router.reply({ ...p.action(theirs.uri), text: "Hi!" })
      yield* router.remove(p.action(mine.comment.platformCommentId))
      assert.isFalse(fake.records.has(mine.comment.platformCommentId))
      const refused = yield* failureOf(router.remove(p.action(theirs.uri)))
      assert.strictEqual(refused.code, "invalid_state")
      assert.strictEqual(refused.platformCode, "not_own_reply")
      assert.isTrue(fake.records.has(theirs.uri))
    }).pipe(Effect.scoped)
  )
})
