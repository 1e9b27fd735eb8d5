import { assert, describe, it } from "@effect/vitest"
import { Credentials, facebook } from "@postwire/platforms"
import { Effect } from "effect"
import { anAccount } from "../builders.ts"
import * as FacebookPagesFake from "./FacebookPagesFake.ts"
import { graphError } from "../meta/GraphFake.ts"
import { aCommentRouter, aPublishedTarget, failureOf, poller, texts } from "../comments/harness.ts"

const base = Date.now() - 3_600_000
const at = (second: number) => base + second * 1000

/** A Page post with a poller on it. */
const setUp = (options: { readonly pageSize?: number; readonly maxPagesPerPoll?: number } = {}) =>
  Effect.gen(function* () {
    const fake = yield* FacebookPagesFake.make()
    const postId = `${FacebookPagesFake.pageId}_1220000000009999`
    fake.posts.push({ id: postId, kind: "feed", params: { message: "Sourdough Saturday" }, createdAt: at(0) })
    const account = anAccount("pages", {
      externalId: FacebookPagesFake.pageId,
      handle: "Maya Bakes",
      credentials: Credentials.encode(facebook, { page_access_token: fake.pageAccessToken, user_access_token: "EAAU.user" })
    })
    const router = yield* aCommentRouter({
      pages: { baseUrl: fake.url },
      comments: { pageSize: options.pageSize ?? 50, maxPagesPerPoll: options.maxPagesPerPoll ?? 20 }
    })
    const p = poller(router, fake, account, aPublishedTarget(account, postId, "post_id"))
    return { fake, postId, account, router, p }
  })

describe("Facebook Page comments", () => {
  it.live("a first poll reads the whole stream: comments and replies, the Page's own marked", () =>
    Effect.gen(function* () {
      const { fake, p, postId } = yield* setUp()
      const question = fake.comment({ on: postId, text: "Open on Sunday?", username: "Lena Kraus", at: at(1), likeCount: 2 })
      fake.comment({ on: postId, parentId: question.id, text: "Yes, 8 to 12", username: FacebookPagesFake.pageName, authorId: FacebookPagesFake.pageId, byOwner: true, at: at(2) })
      fake.comment({ on: postId, text: "Love it", username: "Tom Baker", at: at(3) })
      const poll = yield* p.poll
      assert.deepStrictEqual(texts(poll), ["Love it", "Open on Sunday?", "Yes, 8 to 12"])
      const top = poll.comments.find((c) => c.platformCommentId === question.id)!
      assert.strictEqual(top.parentPlatformCommentId, null)
      assert.strictEqual(top.authorHandle, "Lena Kraus")
      assert.strictEqual(top.likeCount, 2)
      assert.isFalse(top.fromOwner)
      assert.match(top.permalink ?? "", /^https:\/\/www\.facebook\.com\/104000000000001\/posts\/1220000000009999\/\?comment_id=/)
      const answer = poll.comments.find((c) => c.text === "Yes, 8 to 12")!
      assert.strictEqual(answer.parentPlatformCommentId, question.id)
      assert.isTrue(answer.fromOwner)
      assert.strictEqual(poll.calls, 1)
      const sent = fake.requests.at(-1)!
      assert.strictEqual(sent.params.filter, "stream")
      assert.strictEqual(sent.params.summary, "true")
    }).pipe(Effect.scoped)
  )

  it.live("later polls ask for what comes after the last comment read: one call, only what is new", () =>
    Effect.gen(function* () {
      const { fake, p, postId } = yield* setUp()
      const first = fake.comment({ on: postId, text: "one", at: at(1) })
      fake.comment({ on: postId, text: "two", at: at(2) })
      assert.strictEqual((yield* p.poll).comments.length, 2)

      const quiet = yield* p.poll
      assert.deepStrictEqual(quiet.comments, [])
      assert.strictEqual(quiet.requests, 1)
      assert.isDefined(fake.requests.at(-1)!.params.after)

      fake.comment({ on: postId, parentId: first.id, text: "reply to one", at: at(5) })
      fake.comment({ on: postId, text: "three", at: at(6) })
      const busy = yield* p.poll
      assert.deepStrictEqual(texts(busy), ["reply to one", "three"])
      assert.strictEqual(busy.calls, 1)
      assert.strictEqual(busy.requests, 1)
    }).pipe(Effect.scoped)
  )

  it.live("pages with Meta's cursors, and a poll that hits its page budget is continued by the next", () =>
    Effect.gen(function* () {
      const { fake, p, postId } = yield* setUp({ pageSize: 10, maxPagesPerPoll: 2 })
      for (let i = 0; i < 35; i++) fake.comment({ on: postId, text: `comment ${i}`, at: at(i) })
      const first = yield* p.poll
      assert.strictEqual(first.comments.length, 20)
      assert.strictEqual(first.calls, 2)
      const second = yield* p.poll
      assert.strictEqual(second.comments.length, 15)
      const all = new Set([...first.comments, ...second.comments].map((c) => c.text))
      assert.strictEqual(all.size, 35)
      assert.deepStrictEqual((yield* p.poll).comments, [])
    }).pipe(Effect.scoped)
  )

  it.live("a cursor Meta no longer accepts starts the read over without returning anything twice", () =>
    Effect.gen(function* () {
      const { fake, p, postId } = yield* setUp()
      fake.comment({ on: postId, text: "one", at: at(1) })
      yield* p.poll
      fake.comment({ on: postId, text: "two", at: at(2) })
      fake.faults.inject("comments", graphError(400, 100, undefined, { message: "Invalid cursor" }))
      const poll = yield* p.poll
      assert.deepStrictEqual(texts(poll), ["two"])
      assert.strictEqual(poll.calls, 2)
    }).pipe(Effect.scoped)
  )

  it.live("answers, hides, unhides and deletes as the Page", () =>
    Effect.gen(function* () {
      const { fake, p, postId, router } = yield* setUp()
      const question = fake.comment({ on: postId, text: "Gluten free?", username: "Lena Kraus", at: at(1) })
      yield* p.poll
      const { comment } = yield* router.reply({ ...p.action(question.id), text: "Not yet, soon!" })
      const stored = fake.comments.find(comment.platformCommentId)!
      assert.strictEqual(stored.parentId, question.id)
      assert.strictEqual(stored.authorId, FacebookPagesFake.pageId)
      assert.strictEqual(fake.requests.at(-1)!.path, `/v23.0/${question.id}/comments`)
      assert.strictEqual(fake.requests.at(-1)!.params.access_token, fake.pageAccessToken)
      assert.isTrue(comment.fromOwner)
      const next = yield* p.poll
      assert.deepStrictEqual(next.comments.map((c) => [c.platformCommentId, c.fromOwner, c.parentPlatformCommentId]), [
        [comment.platformCommentId, true, question.id]
      ])

      yield* router.setHidden({ ...p.action(question.id), hidden: true })
      assert.isTrue(fake.comments.find(question.id)!.hidden)
      assert.strictEqual(fake.requests.at(-1)!.params.is_hidden, "true")
      yield* router.setHidden({ ...p.action(question.id), hidden: false })
      assert.isFalse(fake.comments.find(question.id)!.hidden)
      yield* router.remove(p.action(question.id))
      assert.isUndefined(fake.comments.find(question.id))
      assert.isUndefined(fake.comments.find(comment.platformCommentId))
    }).pipe(Effect.scoped)
  )

  it.live("missing pages_read_engagement or pages_manage_engagement is permission_missing", () =>
    Effect.gen(function* () {
      const { fake, p, postId, router } = yield* setUp()
      const c = fake.comment({ on: postId, text: "hi", at: at(1) })
      fake.commentManage = false
      const replied = yield* failureOf(router.reply({ ...p.action(c.id), text: "hello" }))
      assert.strictEqual(replied.code, "permission_missing")
      assert.strictEqual(replied.platformCode, "200")
      assert.isTrue(replied.needsReconnect)
      const hidden = yield* failureOf(router.setHidden({ ...p.action(c.id), hidden: true }))
      assert.strictEqual(hidden.code, "permission_missing")
      assert.isFalse(c.hidden)
      fake.commentRead = false
      const polled = yield* failureOf(p.poll)
      assert.strictEqual(polled.code, "permission_missing")
      assert.strictEqual(polled.platformCode, "10")
    }).pipe(Effect.scoped)
  )

  it.live("a 5xx is retried inside the poll; one that lasts is platform_unavailable and retryable", () =>
    Effect.gen(function* () {
      const { fake, p, postId } = yield* setUp()
      fake.comment({ on: postId, text: "hi", at: at(1) })
      fake.faults.inject("comments", { status: 503, raw: "<html>Service Unavailable</html>" }, 1)
      assert.deepStrictEqual(texts(yield* p.poll), ["hi"])
      fake.faults.inject("comments", { status: 503, raw: "<html>Service Unavailable</html>" }, 3)
      const failed = yield* failureOf(p.poll)
      assert.strictEqual(failed.code, "platform_unavailable")
      assert.strictEqual(failed.platformCode, "http_503")
      assert.isTrue(failed.retryable)
    }).pipe(Effect.scoped)
  )

  it.live("an invalidated Page token is derived again from the user token, and the new one handed back", () =>
    Effect.gen(function* () {
      const { fake, p, postId } = yield* setUp()
      fake.comment({ on: postId, text: "hi", at: at(1) })
      fake.pageAccessToken = "EAAP.rotated-elsewhere"
      const poll = yield* p.poll
      assert.deepStrictEqual(texts(poll), ["hi"])
      const stored = JSON.parse(poll.credentials!.credentials) as Credentials.Stored<typeof facebook>
      assert.strictEqual(stored.page_access_token, fake.pageAccessToken)
      assert.strictEqual(fake.count("page_token"), 1)
    }).pipe(Effect.scoped)
  )
})
