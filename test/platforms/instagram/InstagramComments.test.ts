import { assert, describe, it } from "@effect/vitest"
import { Credentials, instagram } from "@postwire/platforms"
import { Effect } from "effect"
import { anAccount } from "../builders.ts"
import { bucThrottle, graphError } from "../meta/GraphFake.ts"
import * as InstagramFake from "./InstagramFake.ts"
import { aCommentRouter, aPublishedTarget, failureOf, poller, texts } from "../comments/harness.ts"

/** A media of the account with a poller on it. */
const setUp = (options: { readonly pageSize?: number; readonly credentials?: (fake: InstagramFake.InstagramFake) => string } = {}) =>
  Effect.gen(function* () {
    const fake = yield* InstagramFake.make()
    fake.publishElsewhere(1, () => "Crumb shot")
    const media = fake.media[0]!
    const account = anAccount("photo", {
      externalId: InstagramFake.igUserId,
      handle: "@maya.bakes",
      credentials: options.credentials?.(fake) ?? Credentials.encode(instagram, { access_token: fake.accessToken })
    })
    const router = yield* aCommentRouter({
      photo: { baseUrl: fake.url, refreshUrl: `${fake.origin}/refresh_access_token` },
      comments: { pageSize: options.pageSize ?? 50 }
    })
    const p = poller(router, fake, account, aPublishedTarget(account, media.id))
    return { fake, media, account, router, p }
  })

const base = Date.now() - 3_600_000
const at = (second: number) => base + second * 1000

describe("Instagram comments", () => {
  it.live("a first poll returns every comment and reply in Instagram's terms", () =>
    Effect.gen(function* () {
      const { fake, media, p } = yield* setUp()
      const first = fake.comment({ on: media.id, text: "That crumb!", username: "lena.k", at: at(1), likeCount: 4 })
      fake.comment({ on: media.id, text: "Recipe please", username: "tom_b", at: at(2) })
      fake.comment({ on: media.id, parentId: first.id, text: "Thank you Lena", username: "maya.bakes", authorId: InstagramFake.igUserId, at: at(3), byOwner: true })
      fake.comments.find(first.id)!.hidden = true
      const poll = yield* p.poll
      assert.deepStrictEqual(texts(poll), ["Recipe please", "Thank you Lena", "That crumb!"])
      const top = poll.comments.find((c) => c.text === "That crumb!")!
      assert.strictEqual(top.platformCommentId, first.id)
      assert.strictEqual(top.parentPlatformCommentId, null)
      assert.strictEqual(top.authorHandle, "lena.k")
      assert.strictEqual(top.likeCount, 4)
      assert.isTrue(top.hidden)
      assert.isFalse(top.fromOwner)
      assert.strictEqual(top.createdAt, Math.floor(at(1) / 1000) * 1000)
      const answer = poll.comments.find((c) => c.text === "Thank you Lena")!
      assert.strictEqual(answer.parentPlatformCommentId, first.id)
      assert.isTrue(answer.fromOwner)
      // The count, then one page with the replies expanded.
      assert.strictEqual(poll.calls, 2)
      assert.strictEqual(poll.requests, 2)
    }).pipe(Effect.scoped)
  )

  it.live("later polls cost one call when nothing changed, two when something did, and return only what is new", () =>
    Effect.gen(function* () {
      const { fake, media, p } = yield* setUp()
      const old = fake.comment({ on: media.id, text: "First!", at: at(1) })
      fake.comment({ on: media.id, text: "Second", at: at(2) })
      assert.strictEqual((yield* p.poll).comments.length, 2)

      const quiet = yield* p.poll
      assert.deepStrictEqual(quiet.comments, [])
      assert.strictEqual(quiet.calls, 1)
      assert.strictEqual(quiet.requests, 1)
      assert.strictEqual(fake.requests.at(-1)!.params.fields, "comments_count")

      fake.comment({ on: media.id, text: "Third", at: at(10) })
      fake.comment({ on: media.id, parentId: old.id, text: "A reply to the first", at: at(10) })
      fake.comment({ on: media.id, text: "Fourth", at: at(11) })
      const busy = yield* p.poll
      assert.deepStrictEqual(texts(busy), ["A reply to the first", "Fourth", "Third"])
      assert.strictEqual(busy.calls, 2)
      assert.strictEqual(busy.requests, 2)

      const again = yield* p.poll
      assert.deepStrictEqual(again.comments, [])
      assert.strictEqual(again.requests, 1)
    }).pipe(Effect.scoped)
  )

  it.live("pages through a long thread, and finds a burst and a reply under an old comment on later pages", () =>
    Effect.gen(function* () {
      const { fake, media, p } = yield* setUp({ pageSize: 10 })
      const all = Array.from({ length: 35 }, (_, i) => fake.comment({ on: media.id, text: `comment ${i}`, at: at(i) }))
      // More replies under one comment than Instagram expands inline (25).
      for (let i = 0; i < 30; i++) fake.comment({ on: media.id, parentId: all[20]!.id, text: `reply ${i}`, at: at(40 + i) })
      const first = yield* p.poll
      assert.strictEqual(first.comments.length, 65)
      assert.strictEqual(new Set(first.comments.map((c) => c.platformCommentId)).size, 65)
      // The count, 4 pages of 10, and the cut reply list of comment 20 (its 25 expanded, 5 more).
      assert.strictEqual(first.calls, 1 + 4 + 1)
      assert.strictEqual(first.requests, first.calls)

      // Newest first: a burst of 12 fills page 1 and spills onto page 2; the reply under the
      // oldest comment is on the last page.
      for (let i = 0; i < 12; i++) fake.comment({ on: media.id, text: `burst ${i}`, at: at(100 + i) })
      fake.comment({ on: media.id, parentId: all[0]!.id, text: "late reply under the oldest", at: at(120) })
      const later = yield* p.poll
      assert.strictEqual(later.comments.length, 13)
      assert.include(texts(later), "late reply under the oldest")
      assert.strictEqual(later.requests, later.calls)
      assert.isAtMost(later.calls, 1 + 5)
    }).pipe(Effect.scoped)
  )

  it.live("works whatever order Instagram lists comments in", () =>
    Effect.gen(function* () {
      const { fake, media, p } = yield* setUp({ pageSize: 10 })
      fake.commentOrder = "oldest_first"
      for (let i = 0; i < 15; i++) fake.comment({ on: media.id, text: `comment ${i}`, at: at(i) })
      assert.strictEqual((yield* p.poll).comments.length, 15)
      fake.comment({ on: media.id, text: "new at the end", at: at(50) })
      const later = yield* p.poll
      assert.deepStrictEqual(texts(later), ["new at the end"])
      assert.strictEqual(later.calls, 3)
    }).pipe(Effect.scoped)
  )

  it.live("answers, hides, unhides and deletes as the account", () =>
    Effect.gen(function* () {
      const { account, fake, media, p, router } = yield* setUp()
      const question = fake.comment({ on: media.id, text: "Which flour?", username: "tom_b", at: at(1) })
      yield* p.poll

      const { comment } = yield* router.reply({ ...p.action(question.id), text: "Type 65, always" })
      const stored = fake.comments.find(comment.platformCommentId)!
      assert.strictEqual(stored.text, "Type 65, always")
      assert.strictEqual(stored.parentId, question.id)
      assert.strictEqual(stored.authorId, InstagramFake.igUserId)
      const sent = fake.requests.find((r) => r.route === "reply")!
      assert.strictEqual(sent.path, `/v23.0/${question.id}/replies`)
      assert.strictEqual(sent.params.access_token, fake.accessToken)
      assert.strictEqual(comment.parentPlatformCommentId, question.id)
      assert.isTrue(comment.fromOwner)
      assert.strictEqual(comment.authorHandle, "maya.bakes")
      assert.strictEqual(comment.authorPlatformId, account.externalId)

      // The answer comes back from the next poll as the account's own.
      const next = yield* p.poll
      assert.deepStrictEqual(next.comments.map((c) => [c.platformCommentId, c.fromOwner]), [[comment.platformCommentId, true]])

      yield* router.setHidden({ ...p.action(question.id), hidden: true })
      assert.isTrue(fake.comments.find(question.id)!.hidden)
      assert.strictEqual(fake.requests.at(-1)!.params.hide, "true")
      yield* router.setHidden({ ...p.action(question.id), hidden: false })
      assert.isFalse(fake.comments.find(question.id)!.hidden)

      yield* router.remove(p.action(question.id))
      assert.strictEqual(fake.requests.at(-1)!.method, "DELETE")
      assert.isUndefined(fake.comments.find(question.id))
    }).pipe(Effect.scoped)
  )

  it.live("a post without comments costs one call a poll after the first", () =>
    Effect.gen(function* () {
      const { p } = yield* setUp()
      assert.strictEqual((yield* p.poll).requests, 2)
      assert.strictEqual((yield* p.poll).requests, 1)
      assert.strictEqual((yield* p.poll).requests, 1)
    }).pipe(Effect.scoped)
  )

  it.live("a comment Instagram lists late, behind a newer one already returned, still comes", () =>
    Effect.gen(function* () {
      const { fake, media, p } = yield* setUp()
      fake.comment({ on: media.id, text: "newer", at: at(100) })
      yield* p.poll
      fake.comment({ on: media.id, text: "written earlier, listed late", at: at(40) })
      assert.deepStrictEqual(texts(yield* p.poll), ["written earlier, listed late"])
      assert.deepStrictEqual((yield* p.poll).comments, [])
    }).pipe(Effect.scoped)
  )

  it.live("a deletion costs the page read and returns nothing", () =>
    Effect.gen(function* () {
      const { fake, media, p } = yield* setUp()
      const gone = fake.comment({ on: media.id, text: "spam", at: at(1) })
      fake.comment({ on: media.id, text: "kind words", at: at(2) })
      yield* p.poll
      fake.comments.remove(gone.id)
      const poll = yield* p.poll
      assert.deepStrictEqual(poll.comments, [])
      assert.strictEqual(poll.requests, 2)
      assert.strictEqual((yield* p.poll).requests, 1)
    }).pipe(Effect.scoped)
  )

  it.live("an answer whose reply from Instagram is lost is not sent again", () =>
    Effect.gen(function* () {
      const { fake, media, p, router } = yield* setUp()
      const question = fake.comment({ on: media.id, text: "Shipping?", at: at(1) })
      fake.faults.injectAfter("reply", { lose: true })
      const failed = yield* failureOf(router.reply({ ...p.action(question.id), text: "Not yet" }))
      assert.strictEqual(failed.code, "platform_unavailable")
      assert.strictEqual(failed.platformCode, "network_error")
      assert.strictEqual(fake.count("reply"), 1)
      assert.strictEqual(fake.comments.comments.filter((c) => c.text === "Not yet").length, 1)
    }).pipe(Effect.scoped)
  )

  it.live("a token without the comment permission is permission_missing, asking for a reconnect", () =>
    Effect.gen(function* () {
      const { fake, media, p, router } = yield* setUp()
      const c = fake.comment({ on: media.id, text: "hi", at: at(1) })
      fake.commentScope = false
      const polled = yield* failureOf(p.poll)
      assert.strictEqual(polled.code, "permission_missing")
      assert.strictEqual(polled.platformCode, "10")
      assert.isTrue(polled.needsReconnect)
      const replied = yield* failureOf(router.reply({ ...p.action(c.id), text: "hello" }))
      assert.strictEqual(replied.code, "permission_missing")
      assert.strictEqual(fake.comments.comments.length, 1)
    }).pipe(Effect.scoped)
  )

  // https://developers.facebook.com/docs/graph-api/overview/rate-limiting#buc-rate-limits
  it.live("a Business Use Case throttle (80002) is not retried inside the poll: it says when to come back", () =>
    Effect.gen(function* () {
      const { fake, media, p } = yield* setUp()
      fake.comment({ on: media.id, text: "hi", at: at(1) })
      fake.faults.inject("comments", bucThrottle(80002, { minutes: 30 }))
      const before = Date.now()
      const failed = yield* failureOf(p.poll)
      assert.strictEqual(failed.code, "platform_unavailable")
      assert.strictEqual(failed.platformCode, "80002")
      assert.isTrue(failed.retryable)
      assert.isAtLeast(failed.retryAt!, before + 30 * 60_000)
      assert.isAtMost(failed.retryAt!, Date.now() + 30 * 60_000)
      assert.strictEqual(fake.count("comments"), 1)
      // Once access is back, the same poll returns the comment.
      assert.deepStrictEqual(texts(yield* p.poll), ["hi"])
    }).pipe(Effect.scoped)
  )

  it.live("a platform error is retried inside the poll; one that lasts is platform_unavailable and retryable", () =>
    Effect.gen(function* () {
      const { fake, media, p } = yield* setUp()
      fake.comment({ on: media.id, text: "hi", at: at(1) })
      const unavailable = graphError(500, 2, undefined, { message: "Service temporarily unavailable", is_transient: true })
      fake.faults.inject("comments", unavailable, 1)
      assert.deepStrictEqual(texts(yield* p.poll), ["hi"])
      fake.comment({ on: media.id, text: "again", at: at(2) })
      fake.faults.inject("comments", unavailable, 3)
      const failed = yield* failureOf(p.poll)
      assert.strictEqual(failed.code, "platform_unavailable")
      assert.isTrue(failed.retryable)
      fake.faults.inject("comments_count", graphError(400, 4, undefined, { message: "Application request limit reached" }), 3)
      const throttled = yield* failureOf(p.poll)
      assert.strictEqual(throttled.code, "platform_unavailable")
      assert.strictEqual(throttled.platformCode, "4")
      // Nothing was lost: the comment comes with the next poll that gets through.
      assert.deepStrictEqual(texts(yield* p.poll), ["again"])
    }).pipe(Effect.scoped)
  )

  it.live("renews a token about to expire and hands back the new credentials", () =>
    Effect.gen(function* () {
      const { fake, media, p } = yield* setUp({
        credentials: (fake) => Credentials.encode(instagram, { access_token: fake.accessToken, expires_at: Date.now() + 86_400_000 })
      })
      fake.comment({ on: media.id, text: "hi", at: at(1) })
      const poll = yield* p.poll
      assert.deepStrictEqual(texts(poll), ["hi"])
      assert.isDefined(poll.credentials)
      const stored = JSON.parse(poll.credentials!.credentials) as Credentials.Stored<typeof instagram>
      assert.strictEqual(stored.access_token, fake.accessToken)
      assert.strictEqual(fake.count("refresh"), 1)
    }).pipe(Effect.scoped)
  )
})
