/**
 * TikTok keeps a post's public id back until moderation ends: the target is published at once
 * without a permalink, and the permalink backfill fills it in later, as `GET /v1/posts/{id}`
 * (`Posts.getPost`) shows it. Time is the TestClock's: minutes and days pass in milliseconds.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { TestClock } from "effect/testing"
import {
  accountContext,
  CredentialsCipher,
  Media,
  PermalinkBackfill,
  type PermalinkLookup,
  PlatformClient,
  PlatformFailure,
  Posts,
  Publisher,
  Store,
} from "@postwire/core"
import { aLiveAccount, memoryEngine, memoryEngineSecret as secret } from "../support/MemoryEngine.ts"
import type { Platform } from "@postwire/domain"
import { anMp4 } from "../support/Media.ts"
import { aRouter } from "../platforms/adapterConformance.ts"
import * as TikTokFake from "../platforms/tiktok/TikTokFake.ts"
import { Ids as Id } from "@postwire/domain"

const minute = 60_000

const publisher = Publisher.defaults("w1")
const backfill = PermalinkBackfill.defaults("w1")

/** A workspace with one live account on `platform` and a 12-second video. */
const aWorkspace = (platform: Platform, credentials: string) =>
  Effect.gen(function* () {
    const { workspace: ws, profile, account, caller } = yield* aLiveAccount({
      platform,
      credentials,
      externalId: "open-id-1"
    })
    const video = yield* Media.uploadMedia(caller, { data: Buffer.from(anMp4({ durationSeconds: 12 })).toString("base64") })
    const post = Posts.createPost(
      caller,
      {
        profile_id: profile.id,
        caption: "Sourdough, start to finish",
        media: [video.id],
        targets: [
          platform === "shortvideo"
            ? {
                account_id: account.id,
                shortvideo: { mode: "direct", consent: { privacy_level: "PUBLIC_TO_EVERYONE", music_usage_confirmed: true } }
              }
            : { account_id: account.id }
        ],
        approval: { mode: "none" }
      } as never
    )
    const read = (id: string) => Posts.getPost(caller, Id.unchecked("post", id))
    const events = Effect.map(
      Store.use((store) => store.listEvents(ws.id)),
      (list) => list.filter((e) => e.type.startsWith("post.")).map((e) => ({ type: e.type, permalink: e.data.permalink }))
    )
    const storedCredentials = Effect.map(Store.use((store) => store.getAccount(ws.id, account.id)), (found) =>
      Option.getOrThrow(found).credentials
    )
    return { post, read, events, storedCredentials, accountId: account.id, workspaceId: ws.id }
  })

describe("TikTok permalink filled in after moderation", () => {
  it.effect("publishes while moderation holds the post id, shows permalink null, then shows the permalink once TikTok has it", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      fake.postIdHeld = true
      const platform = yield* aRouter({
        shortvideo: { baseUrl: fake.url, clientKey: fake.clientKey, clientSecret: fake.clientSecret }
      })
      yield* Effect.gen(function* () {
        const credentials = JSON.stringify({ access_token: fake.accessToken, refresh_token: fake.refreshToken })
        const { events, post, read } = yield* aWorkspace("shortvideo", credentials)
        const created = yield* post

        // init, then one status fetch while processing, then PUBLISH_COMPLETE without the id.
        yield* Publisher.publishDueTargets(publisher)
        yield* TestClock.adjust("10 seconds")
        yield* Publisher.publishDueTargets(publisher)
        yield* TestClock.adjust("10 seconds")
        yield* Publisher.publishDueTargets(publisher)
        const published = yield* read(created.post.id)
        assert.strictEqual(published.post.status, "published")
        assert.deepInclude(published.targets[0], { status: "published", permalink: null })
        assert.deepStrictEqual(yield* events, [
          { type: "post.publishing", permalink: undefined },
          { type: "post.published", permalink: null }
        ])
        assert.strictEqual(fake.count("status"), 2)

        // First ask a minute after publishing: still in moderation.
        yield* TestClock.adjust("59 seconds")
        assert.deepStrictEqual(yield* PermalinkBackfill.fillDuePermalinks(backfill), [])
        yield* TestClock.adjust("1 second")
        assert.deepStrictEqual(yield* PermalinkBackfill.fillDuePermalinks(backfill), ["deferred"])
        assert.strictEqual(fake.count("status"), 3)
        assert.strictEqual((yield* read(created.post.id)).targets[0]!.permalink, null)

        // Moderation ends; the next ask comes 2 minutes after the first.
        fake.postIdHeld = false
        yield* TestClock.adjust("119 seconds")
        assert.deepStrictEqual(yield* PermalinkBackfill.fillDuePermalinks(backfill), [])
        yield* TestClock.adjust("1 second")
        assert.deepStrictEqual(yield* PermalinkBackfill.fillDuePermalinks(backfill), ["filled"])

        const filled = yield* read(created.post.id)
        const postId = fake.publishes[0]!.postId
        assert.deepInclude(filled.targets[0], {
          status: "published",
          permalink: `https://www.tiktok.com/@maya.bakes/video/${postId}`,
          publishedAt: published.targets[0]!.publishedAt
        })
        assert.strictEqual(filled.post.status, "published")
        // No event for the permalink: the spec's event list has none for it.
        assert.strictEqual((yield* events).length, 2)
        // Filled for good: nothing is asked again.
        yield* TestClock.adjust("3 days")
        assert.deepStrictEqual(yield* PermalinkBackfill.fillDuePermalinks(backfill), [])
        assert.strictEqual(fake.count("status"), 4)
      }).pipe(Effect.provide(memoryEngine(platform)))
    }))
})

/** A platform that publishes everything with its permalink pending, and answers asks as told. */
const aModeratedPlatform = () => {
  const asks: Array<number> = []
  const answers: Array<Effect.Effect<PermalinkLookup & { credentials?: { accountId: string; credentials: string } }, PlatformFailure>> = []
  const service = PlatformClient.of({
    publish: () =>
      Effect.succeed({
        _tag: "Published",
        platformPostId: "v_pub_1",
        permalink: null,
        permalinkPending: true,
        state: { publish_id: "v_pub_1" }
      }),
    creatorInfo: () => Effect.die(new Error("not used")),
    permalink: () =>
      Effect.gen(function* () {
        asks.push(yield* Effect.clockWith((clock) => clock.currentTimeMillis))
        return yield* answers.shift() ?? Effect.succeed({ _tag: "NotYet" } as const)
      })
  })
  return { asks, answers, service }
}

describe("PermalinkBackfill", () => {
  it.effect("asks after 1, 3, 7, 15, 31 and 63 minutes, then hourly, and gives up 48 hours after publishing", () => {
    const platform = aModeratedPlatform()
    return Effect.gen(function* () {
      const { post, read } = yield* aWorkspace("textpost", JSON.stringify({ access_token: "t" }))
      const created = yield* post
      yield* Publisher.start({ ...publisher, idlePollMs: minute })
      yield* PermalinkBackfill.start({ ...backfill, idlePollMs: minute })
      yield* TestClock.adjust("50 hours")

      const expected = [1, 3, 7, 15, 31, 63]
      while (expected.at(-1)! + 60 <= 48 * 60) expected.push(expected.at(-1)! + 60)
      assert.deepStrictEqual(
        platform.asks.map((at) => at / minute),
        expected
      )
      assert.deepInclude((yield* read(created.post.id)).targets[0], { status: "published", permalink: null })
      yield* TestClock.adjust("5 days")
      assert.strictEqual(platform.asks.length, expected.length)
    }).pipe(Effect.provide(memoryEngine(platform.service)))
  })

  it.effect("counts a failed ask and asks again on schedule, keeping the tokens the platform rotated", () => {
    const platform = aModeratedPlatform()
    return Effect.gen(function* () {
      const { accountId, post, read, storedCredentials, workspaceId } = yield* aWorkspace("textpost", JSON.stringify({ access_token: "t" }))
      platform.answers.push(
        Effect.fail(
          new PlatformFailure({
            code: "platform_unavailable",
            platformCode: "internal_error",
            retryable: true,
            credentials: { accountId, credentials: '{"access_token":"rotated"}' }
          })
        ),
        Effect.succeed({
          _tag: "Found",
          permalink: "https://www.tiktok.com/@maya.bakes/video/7301234567890123401",
          platformPostId: "7301234567890123401",
          state: { publish_id: "v_pub_1", post_id: "7301234567890123401" }
        })
      )
      const created = yield* post
      yield* Publisher.publishDueTargets(publisher)
      const before = yield* storedCredentials
      yield* TestClock.adjust("1 minute")
      assert.deepStrictEqual(yield* PermalinkBackfill.fillDuePermalinks(backfill), ["deferred"])
      const rotated = yield* storedCredentials
      assert.notStrictEqual(rotated, before)
      const opened = CredentialsCipher.make(secret).open(rotated!, accountContext(workspaceId, accountId))
      assert.strictEqual(Option.getOrThrow(opened), '{"access_token":"rotated"}')
      yield* TestClock.adjust("2 minutes")
      assert.deepStrictEqual(yield* PermalinkBackfill.fillDuePermalinks(backfill), ["filled"])
      assert.strictEqual(
        (yield* read(created.post.id)).targets[0]!.permalink,
        "https://www.tiktok.com/@maya.bakes/video/7301234567890123401"
      )
    }).pipe(Effect.provide(memoryEngine(platform.service)))
  })

  it.effect("stops asking when the platform says there will be no permalink", () => {
    const platform = aModeratedPlatform()
    return Effect.gen(function* () {
      const { post, read } = yield* aWorkspace("textpost", JSON.stringify({ access_token: "t" }))
      platform.answers.push(Effect.succeed({ _tag: "Never" }))
      const created = yield* post
      yield* Publisher.publishDueTargets(publisher)
      yield* TestClock.adjust("1 minute")
      assert.deepStrictEqual(yield* PermalinkBackfill.fillDuePermalinks(backfill), ["abandoned"])
      yield* TestClock.adjust("1 day")
      assert.deepStrictEqual(yield* PermalinkBackfill.fillDuePermalinks(backfill), [])
      assert.strictEqual(platform.asks.length, 1)
      assert.deepInclude((yield* read(created.post.id)).targets[0], { status: "published", permalink: null })
    }).pipe(Effect.provide(memoryEngine(platform.service)))
  })
})
