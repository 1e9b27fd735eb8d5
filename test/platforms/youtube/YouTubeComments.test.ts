import { assert, describe, it } from "@effect/vitest"
import { Credentials, youtube } from "@postwire/platforms"
import { Effect } from "effect"
import { anAccount, aTarget } from "../builders.ts"
import { aCommentRouter, failureOf, poller, texts } from "../comments/harness.ts"
import * as YouTubeFake from "./YouTubeFake.ts"

type Fake = YouTubeFake.YouTubeFake

const videoId = "vid0042"

const setUp = (fake: Fake) =>
  Effect.gen(function* () {
    const comments = yield* aCommentRouter({
      video: {
        apiUrl: `${fake.url}/youtube/v3`,
        uploadUrl: `${fake.url}/upload/youtube/v3`,
        tokenUrl: `${fake.url}/token`,
        clientId: fake.clientId,
        clientSecret: fake.clientSecret
      }
    } as never)
    const { access, refresh } = fake.grant()
    const channel = fake.channels[0]!
    const account = anAccount("video", {
      externalId: channel.id,
      handle: "mayabakes",
      credentials: Credentials.encode(youtube, { access_token: access, refresh_token: refresh, channel_id: channel.id })
    })
    const target = aTarget(account, { status: "published", platformState: { video_id: videoId } })
    return { comments, account, target, p: poller(comments, fake, account, target) }
  })

let minute = 0
const comment = (fake: Fake, text: string, extra: Partial<YouTubeFake.FakeComment> = {}) => {
  minute += 1
  const c: YouTubeFake.FakeComment = {
    id: `Ugx${text.replace(/\W/g, "")}`,
    videoId,
    parentId: null,
    text,
    authorDisplayName: "@breadfan",
    authorChannelId: "UCfan00000000000000000000",
    publishedAt: new Date(Date.now() - 3_600_000 + minute * 1000).toISOString(),
    moderationStatus: "published",
    ...extra
  }
  fake.comments.push(c)
  return c
}

describe("YouTube comments (video)", () => {
  it.live("polls threads with their replies, newest first, and returns each comment once", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* YouTubeFake.make()
        const { p } = yield* setUp(fake)
        const first = comment(fake, "Looks delicious")
        comment(fake, "What flour?", { id: "UgxReply1", parentId: first.id })
        const polled = yield* p.poll
        assert.deepStrictEqual(texts(polled), ["Looks delicious", "What flour?"])
        const reply = polled.comments.find((c) => c.text === "What flour?")!
        assert.strictEqual(reply.parentPlatformCommentId, first.id)
        assert.strictEqual(reply.authorHandle, "breadfan")
        assert.isFalse(reply.fromOwner)
        assert.strictEqual(polled.calls, 1)
        comment(fake, "Made it today!")
        assert.deepStrictEqual(texts(yield* p.poll), ["Made it today!"])
        assert.deepStrictEqual(texts(yield* p.poll), [])
        assert.strictEqual(fake.count("threads"), 3)
      })
    )
  )

  it.live("answers a comment (comments.insert with parentId) and the video itself (commentThreads.insert)", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* YouTubeFake.make()
        const { comments, p } = yield* setUp(fake)
        const c = comment(fake, "Recipe please")
        const answered = yield* comments.reply({ ...p.action(c.id), text: "In the description!" })
        assert.strictEqual(answered.comment.parentPlatformCommentId, c.id)
        assert.isTrue(answered.comment.fromOwner)
        assert.deepInclude(fake.requests.find((r) => r.route === "reply")!.json as object, {
          snippet: { parentId: c.id, textOriginal: "In the description!" }
        })
        const top = yield* comments.reply({ ...p.action(videoId), text: "Thanks for watching" })
        assert.isNull(top.comment.parentPlatformCommentId)
        assert.strictEqual(fake.count("threadInsert"), 1)
        const missing = yield* failureOf(comments.reply({ ...p.action("UgxNope"), text: "hi" }))
        assert.strictEqual(missing.platformCode, "parentCommentNotFound")
      })
    )
  )

  it.live("hides (heldForReview), unhides (published), deletes its own and rejects another person's", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* YouTubeFake.make()
        const { comments, p } = yield* setUp(fake)
        const spam = comment(fake, "Buy followers")
        yield* comments.setHidden({ ...p.action(spam.id), hidden: true })
        assert.strictEqual(spam.moderationStatus, "heldForReview")
        yield* comments.setHidden({ ...p.action(spam.id), hidden: false })
        assert.strictEqual(spam.moderationStatus, "published")
        const own = comment(fake, "Pinned note", { authorChannelId: fake.channels[0]!.id, authorDisplayName: "@mayabakes" })
        yield* comments.remove(p.action(own.id))
        assert.isFalse(fake.comments.includes(own))
        yield* comments.remove(p.action(spam.id))
        assert.strictEqual(spam.moderationStatus, "rejected")
        const polled = yield* p.poll
        assert.notInclude(texts(polled), "Buy followers")
      })
    )
  )

  it.live("a grant without youtube.force-ssl is refused with permission_missing", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* YouTubeFake.make()
        const { comments, target } = yield* setUp(fake)
        const { access, refresh } = fake.grant([YouTubeFake.uploadScope])
        const account = anAccount("video", {
          externalId: fake.channels[0]!.id,
          credentials: Credentials.encode(youtube, { access_token: access, refresh_token: refresh, channel_id: fake.channels[0]!.id })
        })
        const refused = yield* failureOf(comments.poll({ post: poller(comments, fake, account, target).action("x").post, target, account, cursor: null }))
        assert.deepInclude(refused, { code: "permission_missing", platformCode: "insufficientPermissions" })
      })
    )
  )
})
