import { assert, describe, it } from "@effect/vitest"
import type { PlatformComment } from "@postwire/core"
import { type CommentRouter, Credentials, instagram, tiktok, TikTokComments } from "@postwire/platforms"
import { Effect } from "effect"
import { anAccount, aPost, aSandboxAccount, aTarget } from "../builders.ts"
import * as InstagramFake from "../instagram/InstagramFake.ts"
import * as TikTokFake from "../tiktok/TikTokFake.ts"
import { aCommentRouter, aPublishedTarget, failureOf } from "./harness.ts"

/** A sandbox implementation that answers from memory and notes what it was asked. */
const aSandbox = () => {
  const asked: Array<string> = []
  const comment: PlatformComment = {
    platformCommentId: "sim_1",
    parentPlatformCommentId: null,
    authorHandle: "sandbox.fan",
    authorDisplayName: null,
    authorPlatformId: null,
    text: "Simulated praise",
    createdAt: 1_795_000_000_000,
    hidden: false,
    likeCount: 0,
    fromOwner: false,
    permalink: null
  }
  const note = <A>(what: string, answer: A) =>
    Effect.sync(() => {
      asked.push(what)
      return answer
    })
  const sandbox: CommentRouter.SandboxComments = {
    poll: (input) => note(`poll:${input.account.platform}`, { comments: [comment], cursor: { n: 1 }, calls: 0 }),
    reply: (input) => note(`reply:${input.text}`, { comment: { ...comment, platformCommentId: "sim_2", text: input.text, fromOwner: true } }),
    setHidden: (input) => note(`hide:${input.hidden}`, {}),
    remove: () => note("remove", {})
  }
  return { asked, sandbox }
}

describe("CommentRouter", () => {
  it.live("sends sandbox accounts to the sandbox implementation, whatever their platform", () =>
    Effect.gen(function* () {
      const { asked, sandbox } = aSandbox()
      const router = yield* aCommentRouter({}, sandbox)
      for (const platform of ["photo", "pages", "textpost", "shortvideo"] as const) {
        const account = aSandboxAccount(platform)
        const poll = yield* router.poll({ post: aPost(), target: aTarget(account), account, cursor: null })
        assert.deepStrictEqual(poll.comments.map((c) => c.text), ["Simulated praise"])
      }
      const account = aSandboxAccount("photo")
      const action = { post: aPost(), target: aTarget(account), account, platformCommentId: "sim_1" }
      const { comment } = yield* router.reply({ ...action, text: "Thanks!" })
      assert.strictEqual(comment.text, "Thanks!")
      yield* router.setHidden({ ...action, hidden: true })
      yield* router.remove(action)
      assert.deepStrictEqual(asked, ["poll:photo", "poll:pages", "poll:textpost", "poll:shortvideo", "reply:Thanks!", "hide:true", "remove"])
    })
  )

  it.live("sends real accounts to their platform, at the configured host", () =>
    Effect.gen(function* () {
      const fake = yield* InstagramFake.make()
      fake.publishElsewhere(1)
      const media = fake.media[0]!
      fake.comment({ on: media.id, text: "Real comment" })
      const { asked, sandbox } = aSandbox()
      const router = yield* aCommentRouter({ photo: { baseUrl: fake.url, refreshUrl: null } }, sandbox)
      const account = anAccount("photo", {
        externalId: InstagramFake.igUserId,
        credentials: Credentials.encode(instagram, { access_token: fake.accessToken })
      })
      const poll = yield* router.poll({ post: aPost(), target: aPublishedTarget(account, media.id), account, cursor: null })
      assert.deepStrictEqual(poll.comments.map((c) => c.text), ["Real comment"])
      assert.strictEqual(poll.calls, fake.requests.length)
      assert.deepStrictEqual(asked, [])
    }).pipe(Effect.scoped)
  )

  it.live("says what each platform allows: TikTok nothing, the Meta platforms everything, sandbox all but push", () =>
    Effect.gen(function* () {
      const router = yield* aCommentRouter({}, aSandbox().sandbox)
      const all = { read: true, reply: true, hide: true, delete: true, push: true }
      assert.deepStrictEqual(router.capabilities("shortvideo", false), { read: false, reply: false, hide: false, delete: false, push: false })
      for (const platform of ["photo", "pages", "textpost"] as const) assert.deepStrictEqual(router.capabilities(platform, false), all)
      for (const platform of ["photo", "pages", "textpost", "shortvideo"] as const) {
        assert.deepStrictEqual(router.capabilities(platform, true), { ...all, push: false })
      }
      const custom = yield* aCommentRouter({}, { ...aSandbox().sandbox, capabilities: () => ({ ...all, push: false, delete: false }) })
      assert.isFalse(custom.capabilities("photo", true).delete)
    })
  )

  it.live("a TikTok target's poll is empty without any call to TikTok, and its actions are refused", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      const router = yield* aCommentRouter({ shortvideo: { baseUrl: fake.url, clientKey: fake.clientKey, clientSecret: fake.clientSecret } })
      const account = anAccount("shortvideo", {
        externalId: "open-id-1",
        credentials: Credentials.encode(tiktok, { access_token: fake.accessToken, refresh_token: fake.refreshToken })
      })
      const target = aPublishedTarget(account, "v_pub_url~v2.7301")
      const poll = yield* router.poll({ post: aPost(), target, account, cursor: null })
      assert.deepStrictEqual(poll.comments, [])
      assert.strictEqual(poll.calls, 0)
      const action = { post: aPost(), target, account, platformCommentId: "7301" }
      for (const refused of [
        yield* failureOf(router.reply({ ...action, text: "hi" })),
        yield* failureOf(router.setHidden({ ...action, hidden: true })),
        yield* failureOf(router.remove(action))
      ]) {
        assert.strictEqual(refused.code, "invalid_state")
        assert.strictEqual(refused.platformCode, TikTokComments.refusalCode)
        assert.isFalse(refused.retryable)
      }
      assert.strictEqual(fake.requests.length, 0)
    }).pipe(Effect.scoped)
  )
})
