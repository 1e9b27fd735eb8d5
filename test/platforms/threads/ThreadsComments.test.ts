import { assert, describe, it } from "@effect/vitest"
import { Credentials, threads } from "@postwire/platforms"
import { Effect } from "effect"
import type { TargetRecord } from "@postwire/core"
import { anAccount, aTarget } from "../builders.ts"
import { expiredToken, graphError } from "../meta/GraphFake.ts"
import * as ThreadsFake from "./ThreadsFake.ts"
import { aCommentRouter, failureOf, poller, texts } from "../comments/harness.ts"

const base = Date.now() - 3_600_000
const at = (second: number) => base + second * 1000

/** A Threads post with a poller on it; the target names the post as the store will (`platformPostId`). */
const setUp = (options: { readonly pageSize?: number; readonly credentials?: (fake: ThreadsFake.ThreadsFake) => string } = {}) =>
  Effect.gen(function* () {
    const fake = yield* ThreadsFake.make()
    fake.publishElsewhere(1, () => "New loaf drop")
    const root = fake.media[0]!
    const account = anAccount("textpost", {
      externalId: ThreadsFake.threadsUserId,
      handle: "@maya.bakes",
      credentials: options.credentials?.(fake) ?? Credentials.encode(threads, { access_token: fake.accessToken })
    })
    const router = yield* aCommentRouter({
      textpost: { baseUrl: fake.url, refreshUrl: `${fake.origin}/refresh_access_token` },
      comments: { pageSize: options.pageSize ?? 50 }
    })
    const target = { ...aTarget(account, { status: "published" }), platformPostId: root.id } as TargetRecord
    const p = poller(router, fake, account, target)
    return { fake, root, account, router, p }
  })

describe("Threads replies", () => {
  it.live("a first poll reads the whole conversation, every depth, oldest first", () =>
    Effect.gen(function* () {
      const { fake, p, root } = yield* setUp()
      const top = fake.reply({ on: root.id, text: "Saving this", username: "lena.k", at: at(1) })
      const deeper = fake.reply({ on: root.id, parentId: top.id, text: "Me too", username: "tom_b", at: at(2) })
      fake.reply({ on: root.id, parentId: deeper.id, text: "Enjoy!", username: "maya.bakes", byOwner: true, at: at(3) })
      fake.replies.find(top.id)!.hidden = true
      const poll = yield* p.poll
      assert.deepStrictEqual(texts(poll), ["Enjoy!", "Me too", "Saving this"])
      const first = poll.comments.find((c) => c.platformCommentId === top.id)!
      assert.strictEqual(first.parentPlatformCommentId, null)
      assert.isTrue(first.hidden)
      assert.strictEqual(first.authorHandle, "lena.k")
      assert.strictEqual(first.likeCount, null)
      assert.match(first.permalink ?? "", /^https:\/\/www\.threads\.net\/@lena\.k\/post\//)
      assert.strictEqual(poll.comments.find((c) => c.text === "Me too")!.parentPlatformCommentId, top.id)
      assert.isTrue(poll.comments.find((c) => c.text === "Enjoy!")!.fromOwner)
      assert.strictEqual(poll.calls, 1)
      const sent = fake.requests.at(-1)!
      assert.strictEqual(sent.path, `/v1.0/${root.id}/conversation`)
      assert.strictEqual(sent.params.reverse, "false")
    }).pipe(Effect.scoped)
  )

  it.live("later polls cost one call and return only what is new; pages follow Meta's cursors", () =>
    Effect.gen(function* () {
      const { fake, p, root } = yield* setUp({ pageSize: 10 })
      for (let i = 0; i < 23; i++) fake.reply({ on: root.id, text: `reply ${i}`, at: at(i) })
      const first = yield* p.poll
      assert.strictEqual(first.comments.length, 23)
      assert.strictEqual(first.calls, 3)
      const quiet = yield* p.poll
      assert.deepStrictEqual(quiet.comments, [])
      assert.strictEqual(quiet.requests, 1)
      fake.reply({ on: root.id, text: "late", at: at(40) })
      fake.reply({ on: root.id, parentId: fake.replies.comments[0]!.id, text: "late, deeper", at: at(41) })
      const busy = yield* p.poll
      assert.deepStrictEqual(texts(busy), ["late", "late, deeper"])
      assert.strictEqual(busy.requests, 1)
    }).pipe(Effect.scoped)
  )

  it.live("answers with a reply container published as the account, which the next poll shows as its own", () =>
    Effect.gen(function* () {
      const { fake, p, root, router } = yield* setUp()
      const question = fake.reply({ on: root.id, text: "Price?", username: "tom_b", at: at(1) })
      yield* p.poll
      const { comment } = yield* router.reply({ ...p.action(question.id), text: "Eight euros" })
      const created = fake.requests.find((r) => r.route === "create")!
      assert.strictEqual(created.path, "/v1.0/me/threads")
      assert.deepStrictEqual([created.params.media_type, created.params.text, created.params.reply_to_id], ["TEXT", "Eight euros", question.id])
      // Not ready at once: its status is read until FINISHED, then it is published, once.
      assert.isAtLeast(fake.count("container_status"), 1)
      assert.strictEqual(fake.count("publish"), 1)
      const published = fake.requests.filter((r) => r.route === "publish").at(-1)!
      assert.strictEqual(published.path, `/v1.0/${ThreadsFake.threadsUserId}/threads_publish`)
      assert.strictEqual(published.params.access_token, fake.accessToken)
      const stored = fake.replies.find(comment.platformCommentId)!
      assert.strictEqual(stored.parentId, question.id)
      assert.isTrue(stored.byOwner)
      assert.strictEqual(comment.parentPlatformCommentId, question.id)
      assert.isTrue(comment.fromOwner)
      // Not listed as a post of the account.
      assert.strictEqual(fake.media.length, 1)
      const next = yield* p.poll
      assert.deepStrictEqual(next.comments.map((c) => [c.platformCommentId, c.fromOwner]), [[comment.platformCommentId, true]])
    }).pipe(Effect.scoped)
  )

  // Threads documents waiting (about 30 s) and the container's status, no "not ready" error:
  // https://developers.facebook.com/documentation/threads/retrieve-and-manage-replies/create-replies
  it.live("publishes a reply only once its container is FINISHED, reading the status as Threads documents", () =>
    Effect.gen(function* () {
      const { fake, p, root, router } = yield* setUp()
      fake.pollsBeforeFinished = 3
      const question = fake.reply({ on: root.id, text: "Gluten free?", username: "tom_b", at: at(1) })
      const { comment } = yield* router.reply({ ...p.action(question.id), text: "Not this one" })
      assert.strictEqual(fake.count("publish"), 1)
      const routes = fake.requests.map((r) => r.route).filter((r) => r === "container_status" || r === "publish")
      assert.deepStrictEqual(routes, ["container_status", "container_status", "container_status", "container_status", "publish"])
      assert.strictEqual(fake.replies.find(comment.platformCommentId)!.text, "Not this one")
    }).pipe(Effect.scoped)
  )

  it.live("a container that stays IN_PROGRESS gives up after the checks, retryable, without publishing", () =>
    Effect.gen(function* () {
      const { fake, p, root, router } = yield* setUp()
      fake.pollsBeforeFinished = 1_000
      const question = fake.reply({ on: root.id, text: "Open Sunday?", username: "tom_b", at: at(1) })
      const failed = yield* failureOf(router.reply({ ...p.action(question.id), text: "Yes" }))
      assert.strictEqual(failed.code, "platform_unavailable")
      assert.strictEqual(failed.platformCode, "reply_container_not_ready")
      assert.isTrue(failed.retryable)
      assert.strictEqual(fake.count("publish"), 0)
      assert.strictEqual(fake.count("container_status"), 15)
    }).pipe(Effect.scoped)
  )

  it.live("hides and unhides a reply to the post, refuses a deeper one before any write, and deletes", () =>
    Effect.gen(function* () {
      const { fake, p, root, router } = yield* setUp()
      const top = fake.reply({ on: root.id, text: "spam", at: at(1) })
      const deeper = fake.reply({ on: root.id, parentId: top.id, text: "more spam", at: at(2) })
      yield* router.setHidden({ ...p.action(top.id), hidden: true })
      assert.isTrue(fake.replies.find(top.id)!.hidden)
      assert.strictEqual(fake.requests.at(-1)!.path, `/v1.0/${top.id}/manage_reply`)
      assert.strictEqual(fake.requests.at(-1)!.params.hide, "true")
      yield* router.setHidden({ ...p.action(top.id), hidden: false })
      assert.isFalse(fake.replies.find(top.id)!.hidden)

      const refused = yield* failureOf(router.setHidden({ ...p.action(deeper.id), hidden: true }))
      assert.strictEqual(refused.code, "invalid_state")
      assert.strictEqual(refused.platformCode, "hide_top_level_only")
      assert.isFalse(refused.retryable)
      assert.strictEqual(fake.count("manage_reply"), 2)

      yield* router.remove(p.action(deeper.id))
      assert.strictEqual(fake.requests.at(-1)!.method, "DELETE")
      assert.isUndefined(fake.replies.find(deeper.id))
    }).pipe(Effect.scoped)
  )

  it.live("a token without the reply permissions is permission_missing", () =>
    Effect.gen(function* () {
      const { fake, p, root, router } = yield* setUp()
      const r = fake.reply({ on: root.id, text: "hi", at: at(1) })
      fake.commentScope = false
      const polled = yield* failureOf(p.poll)
      assert.strictEqual(polled.code, "permission_missing")
      assert.isTrue(polled.needsReconnect)
      const replied = yield* failureOf(router.reply({ ...p.action(r.id), text: "hello" }))
      assert.strictEqual(replied.code, "permission_missing")
      assert.strictEqual(fake.replies.comments.length, 1)
    }).pipe(Effect.scoped)
  )

  it.live("a 5xx is retried inside the poll; one that lasts is platform_unavailable and retryable", () =>
    Effect.gen(function* () {
      const { fake, p, root } = yield* setUp()
      fake.reply({ on: root.id, text: "hi", at: at(1) })
      const unavailable = graphError(503, 2, undefined, { message: "Service temporarily unavailable", is_transient: true })
      fake.faults.inject("conversation", unavailable, 1)
      assert.deepStrictEqual(texts(yield* p.poll), ["hi"])
      fake.faults.inject("conversation", unavailable, 3)
      const failed = yield* failureOf(p.poll)
      assert.strictEqual(failed.code, "platform_unavailable")
      assert.isTrue(failed.retryable)
    }).pipe(Effect.scoped)
  )

  it.live("a token about to expire is renewed first, and the new credentials handed back", () =>
    Effect.gen(function* () {
      const { fake, p, root } = yield* setUp({
        credentials: (fake) => Credentials.encode(threads, { access_token: fake.accessToken, expires_at: Date.now() + 86_400_000 })
      })
      fake.reply({ on: root.id, text: "hi", at: at(1) })
      const poll = yield* p.poll
      assert.deepStrictEqual(texts(poll), ["hi"])
      const stored = JSON.parse(poll.credentials!.credentials) as Credentials.Stored<typeof threads>
      assert.strictEqual(stored.access_token, fake.accessToken)
      assert.strictEqual(fake.count("refresh"), 1)
    }).pipe(Effect.scoped)
  )

  it.live("a token the platform calls expired is refreshed once and the call repeated", () =>
    Effect.gen(function* () {
      const { fake, p, root } = yield* setUp()
      fake.reply({ on: root.id, text: "hi", at: at(1) })
      fake.faults.inject("conversation", expiredToken)
      const poll = yield* p.poll
      assert.deepStrictEqual(texts(poll), ["hi"])
      assert.strictEqual(fake.count("refresh"), 1)
      assert.strictEqual(fake.count("conversation"), 2)
      assert.strictEqual((JSON.parse(poll.credentials!.credentials) as Credentials.Stored<typeof threads>).access_token, fake.accessToken)
      fake.faults.inject("conversation", expiredToken, 2)
      fake.reply({ on: root.id, text: "again", at: at(2) })
      const failed = yield* failureOf(p.poll)
      assert.strictEqual(failed.code, "token_expired")
      assert.isTrue(failed.needsReconnect)
    }).pipe(Effect.scoped)
  )
})
