/**
 * Exactly once for TikTok when the answer to the init is lost, through the publisher on the
 * in-memory engine to the fake TikTok server: the publish id is gone with the answer, so the
 * target is looked for among the creator's videos (`video/list`). While it cannot be found it
 * stays `publishing`, counted as unconfirmed, never `failed`; the init is never sent twice.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  Media,
  Posts,
  Publisher,
  PublishingStore,
  Store,
} from "@postwire/core"
import { aLiveAccount, memoryEngine } from "../support/MemoryEngine.ts"
import { Clock, Effect } from "effect"
import { anMp4 } from "../support/Media.ts"
import { aRouter } from "../platforms/adapterConformance.ts"
import * as TikTokFake from "../platforms/tiktok/TikTokFake.ts"

/** Waits of a millisecond or two, so that the publisher's rounds follow each other at once. */
const publisher = { ...Publisher.defaults("w1"), unconfirmedFirstWaitMs: 1, unconfirmedMaxWaitMs: 2 }

/** A workspace with a live TikTok account and a direct post to it, public, with consent. */
const aDirectTikTokPost = (fake: TikTokFake.TikTokFake) =>
  Effect.gen(function* () {
    const { workspace: ws, profile, account, caller } = yield* aLiveAccount({
      platform: "shortvideo",
      credentials: JSON.stringify({ access_token: fake.accessToken, refresh_token: fake.refreshToken }),
      externalId: "open-id-1"
    })
    const video = yield* Media.uploadMedia(caller, { data: Buffer.from(anMp4({ durationSeconds: 12 })).toString("base64") })
    const created = yield* Posts.createPost(
      caller,
      {
        profile_id: profile.id,
        caption: "Sourdough, start to finish",
        media: [video.id],
        targets: [
          {
            account_id: account.id,
            shortvideo: { mode: "direct", consent: { privacy_level: "PUBLIC_TO_EVERYONE", music_usage_confirmed: true } }
          }
        ],
        approval: { mode: "none" }
      } as never
    )
    const read = Posts.getPost(caller, created.post.id)
    const events = Effect.map(Store.use((store) => store.listEvents(ws.id)), (list) =>
      list.filter((e) => e.type.startsWith("post.")).map((e) => e.type)
    )
    return { read, events }
  })

describe("TikTok: a lost init answer through the publisher", () => {
  it.live("waits publishing through an outage of the video list, never failed, then publishes once with its permalink", () =>
    Effect.gen(function* () {
      const fake = yield* TikTokFake.make()
      const platform = yield* aRouter({
        shortvideo: { baseUrl: fake.url, clientKey: fake.clientKey, clientSecret: fake.clientSecret, pollIntervalMs: 1 }
      })
      yield* Effect.gen(function* () {
        const { events, read } = yield* aDirectTikTokPost(fake)
        fake.loseInitAnswers()
        // Four looks fail whole (three attempts each): far more than one step retries.
        fake.faults.inject("video_list", TikTokFake.tiktokError(500, "internal_error"), 12, { armedBy: "init" })
        const seen: Array<string> = []
        let waiting = 0
        for (let round = 0; round < 400; round++) {
          yield* Publisher.publishDueTargets(publisher)
          const target = (yield* read).targets[0]!
          seen.push(target.status)
          if (target.status === "published" || target.status === "failed") break
          const now = yield* Clock.currentTimeMillis
          waiting = Math.max(waiting, (yield* PublishingStore.use((store) => store.unconfirmedTargets(now))).count)
          yield* Effect.sleep("3 millis")
        }
        const target = (yield* read).targets[0]!
        const postId = fake.publishes[0]!.postId
        assert.deepInclude(target, {
          status: "published",
          error: null,
          attempts: 1,
          permalink: `https://www.tiktok.com/@maya.bakes/video/${postId}`
        })
        assert.strictEqual(fake.count("init"), 1)
        assert.lengthOf(fake.publishes, 1)
        assert.notInclude(seen, "failed")
        assert.isAtLeast(seen.filter((s) => s === "publishing").length, 4)
        assert.strictEqual(waiting, 1, "the wait shows as one unconfirmed target")
        assert.deepStrictEqual(yield* events, ["post.publishing", "post.published"])
      }).pipe(Effect.provide(memoryEngine(platform)))
    }))
})
