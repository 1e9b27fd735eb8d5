import { assert, describe, it } from "@effect/vitest"
import type { TargetRecord } from "@postwire/core"
import { Credentials, linkedin } from "@postwire/platforms"
import { Effect } from "effect"
import { aRouter, drive } from "../adapterConformance.ts"
import { anAccount, aPublishInput, aTarget } from "../builders.ts"
import { aCommentRouter, failureOf, poller, texts } from "../comments/harness.ts"
import * as LinkedInFake from "./LinkedInFake.ts"

const settings = (fake: LinkedInFake.LinkedInFake) => ({
  apiUrl: fake.url,
  tokenUrl: `${fake.url}/oauth/v2/accessToken`,
  clientId: fake.clientId,
  clientSecret: fake.clientSecret,
  pollIntervalMs: 1
})

/** A post published through the adapter by `author`, and a poller of its comments. */
const setUp = (options: { readonly author?: string; readonly scopes?: ReadonlyArray<string>; readonly pageSize?: number } = {}) =>
  Effect.gen(function* () {
    const fake = yield* LinkedInFake.make()
    const author = options.author ?? LinkedInFake.organization
    const account = anAccount("professional", {
      externalId: author,
      credentials: Credentials.encode(linkedin, {
        access_token: fake.accessToken,
        member: LinkedInFake.member,
        ...(options.scopes === undefined ? {} : { scopes: [...options.scopes] })
      })
    })
    const published = yield* drive(yield* aRouter({ professional: settings(fake) }), aPublishInput({ account, media: [] }))
    const urn = published.published!.platformPostId!
    const router = yield* aCommentRouter({ professional: settings(fake), comments: { pageSize: options.pageSize ?? 50 } })
    const target = { ...aTarget(account, { status: "published", platformState: published.published!.state }), platformPostId: urn } as TargetRecord
    return { fake, urn, author, router, p: poller(router, fake, account, target) }
  })

describe("LinkedIn comments", () => {
  it.live("reads a page post's comments, then only the new ones, reading no thread without new answers", () =>
    Effect.gen(function* () {
      const { fake, urn, p } = yield* setUp({ pageSize: 2 })
      fake.comment(urn, "urn:li:person:lena", "Congratulations!")
      fake.comment(urn, "urn:li:person:tom", "Where can I apply?")
      fake.comment(urn, "urn:li:person:ana", "Great news")
      const first = yield* p.poll
      assert.deepStrictEqual(texts(first), ["Congratulations!", "Great news", "Where can I apply?"])
      const comment = first.comments.find((c) => c.text === "Where can I apply?")!
      assert.strictEqual(comment.authorPlatformId, "urn:li:person:tom")
      assert.match(comment.platformCommentId, /^urn:li:comment:\(urn:li:share:\d+,\d+\)$/)
      assert.isFalse(comment.fromOwner)
      const quiet = yield* p.poll
      assert.deepStrictEqual(quiet.comments, [])
      // The list only (3 comments, 2 a page): no comment has answers to read.
      assert.strictEqual(quiet.requests, 2)
      fake.comment(urn, "urn:li:person:lena", "One more")
      assert.deepStrictEqual(texts(yield* p.poll), ["One more"])
    })
  )

  it.live("answers a comment as the page, under it, and deletes the answer", () =>
    Effect.gen(function* () {
      const { fake, urn, author, router, p } = yield* setUp()
      const asked = fake.comment(urn, "urn:li:person:tom", "Where can I apply?")
      const [comment] = (yield* p.poll).comments
      const { comment: answer } = yield* router.reply({ ...p.action(comment!.platformCommentId), text: "On our careers page (link in bio)" })
      const stored = fake.comments.find((c) => c.actor === author)!
      assert.strictEqual(stored.text, "On our careers page (link in bio)")
      assert.strictEqual(stored.parentComment, `urn:li:comment:(${urn},${asked.id})`)
      assert.isTrue(answer.fromOwner)
      yield* router.remove(p.action(answer.platformCommentId))
      assert.isUndefined(fake.comments.find((c) => c.actor === author))
      // Deleting it again is done already, not an error.
      yield* router.remove(p.action(answer.platformCommentId))
    })
  )

  it.live("reads answers to comments with their parent, only the new ones, and answers an answer under it", () =>
    Effect.gen(function* () {
      const { fake, urn, author, router, p } = yield* setUp()
      const asked = fake.comment(urn, "urn:li:person:tom", "Where can I apply?")
      fake.comment(urn, "urn:li:person:ana", "Great news")
      const askedUrn = LinkedInFake.commentUrnOf(asked)
      const followUp = fake.comment(urn, "urn:li:person:lena", "Same question, for Jakarta?", askedUrn)
      const first = yield* p.poll
      assert.deepStrictEqual(texts(first), ["Great news", "Same question, for Jakarta?", "Where can I apply?"])
      const nested = first.comments.find((c) => c.text === "Same question, for Jakarta?")!
      assert.strictEqual(nested.platformCommentId, LinkedInFake.commentUrnOf(followUp))
      assert.strictEqual(nested.parentPlatformCommentId, askedUrn)
      assert.strictEqual(nested.authorPlatformId, "urn:li:person:lena")
      assert.isNull(first.comments.find((c) => c.text === "Where can I apply?")!.parentPlatformCommentId)
      const threadRead = fake.requests.filter((r) => r.route === "comments" && r.path.includes(encodeURIComponent(askedUrn)))
      assert.strictEqual(threadRead.length, 1)

      // Nothing new: the list alone is read, no thread.
      const quiet = yield* p.poll
      assert.deepStrictEqual(quiet.comments, [])
      assert.strictEqual(quiet.requests, 1)

      // A new answer in the thread: only it is returned, read from where the thread was left.
      fake.comment(urn, "urn:li:person:tom", "Thanks!", askedUrn)
      const next = yield* p.poll
      assert.deepStrictEqual(texts(next), ["Thanks!"])
      assert.strictEqual(next.comments[0]!.parentPlatformCommentId, askedUrn)
      assert.strictEqual(next.requests, 2)
      const last = fake.requests.filter((r) => r.route === "comments").at(-1)!
      assert.strictEqual(last.query.get("start"), "1")

      // Answering the answer: a comment on it, under the same post, that the next poll reads.
      const { comment: answer } = yield* router.reply({ ...p.action(nested.platformCommentId), text: "Yes, Jakarta too" })
      const stored = fake.comments.find((c) => c.actor === author)!
      assert.strictEqual(stored.object, urn)
      assert.strictEqual(stored.parentComment, nested.platformCommentId)
      assert.strictEqual(answer.parentPlatformCommentId, nested.platformCommentId)
      const create = fake.requests.find((r) => r.route === "comment-create")!
      assert.include(create.path, encodeURIComponent(nested.platformCommentId))
      yield* router.remove(p.action(answer.platformCommentId))
      assert.isUndefined(fake.comments.find((c) => c.actor === author))
    })
  )

  it.live("cannot hide a comment: LinkedIn has no hiding", () =>
    Effect.gen(function* () {
      const { fake, urn, router, p } = yield* setUp()
      fake.comment(urn, "urn:li:person:tom", "Spam")
      const [comment] = (yield* p.poll).comments
      const refused = yield* failureOf(router.setHidden({ ...p.action(comment!.platformCommentId), hidden: true }))
      assert.strictEqual(refused.code, "invalid_state")
      assert.deepStrictEqual(router.capabilities("professional", false), { read: true, reply: true, hide: false, delete: true, push: false })
    })
  )

  it.live("reads nothing, with no call, for a member whose app may not read their comments", () =>
    Effect.gen(function* () {
      const { fake, urn, p } = yield* setUp({ author: LinkedInFake.member, scopes: ["openid", "profile", "w_member_social"] })
      fake.comment(urn, "urn:li:person:lena", "Nice")
      const poll = yield* p.poll
      assert.deepStrictEqual(poll.comments, [])
      assert.strictEqual(poll.requests, 0)
    })
  )

  it.live("a refused read keeps the account connected (no reconnect grants the permission)", () =>
    Effect.gen(function* () {
      const { fake, urn, p } = yield* setUp({ author: LinkedInFake.member })
      fake.comment(urn, "urn:li:person:lena", "Nice")
      const refused = yield* failureOf(p.poll)
      assert.strictEqual(refused.code, "permission_missing")
      assert.strictEqual(refused.platformCode, "ACCESS_DENIED:100")
      assert.notStrictEqual(refused.needsReconnect, true)
    })
  )
})
