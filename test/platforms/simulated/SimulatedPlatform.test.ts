import { assert, describe, it } from "@effect/vitest"
import type { PublishInput } from "@postwire/core"
import type { Platform } from "@postwire/domain"
import { SimulatedPlatform } from "@postwire/platforms"
import { Effect } from "effect"
import { aConsent, anImage, aPost, aPublishInput, aSandboxAccount, aTarget, aVideo } from "../builders.ts"

const simulated = SimulatedPlatform.make()

const aSandboxPublish = (
  platform: Platform,
  overrides: {
    readonly simulate?: PublishInput["account"]["simulate"]
    readonly attempts?: number
    readonly options?: PublishInput["target"]["options"]
    readonly consent?: Parameters<typeof aConsent>[0] | null
    readonly media?: PublishInput["media"]
  } = {}
) => {
  const account = aSandboxAccount(platform, { simulate: overrides.simulate ?? null, externalId: "104000000000001" })
  return aPublishInput({
    account,
    post: aPost(),
    target: aTarget(account, {
      attempts: overrides.attempts ?? 0,
      options: overrides.options ?? {},
      consent: overrides.consent === undefined || overrides.consent === null ? null : aConsent(overrides.consent)
    }),
    media: overrides.media ?? (platform === "shortvideo" ? [aVideo()] : [anImage()])
  })
}

const aDirectShortVideo = (overrides: Parameters<typeof aSandboxPublish>[1] = {}) =>
  aSandboxPublish("shortvideo", { options: { shortvideo: { mode: "direct" } }, consent: {}, ...overrides })

describe("SimulatedPlatform", () => {
  it.effect("publishes at once with a plausible permalink of each platform", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<readonly [PublishInput, RegExp]> = [
        [aDirectShortVideo(), /^https:\/\/www\.tiktok\.com\/@maya\.bakes\/video\/\d{19}$/],
        [aSandboxPublish("photo", { options: { photo: { type: "reel" } }, media: [aVideo()] }), /^https:\/\/www\.instagram\.com\/reel\/[\w-]{11}\/$/],
        [aSandboxPublish("photo", { options: { photo: { type: "feed" } } }), /^https:\/\/www\.instagram\.com\/p\/[\w-]{11}\/$/],
        [aSandboxPublish("pages"), /^https:\/\/www\.facebook\.com\/104000000000001\/posts\/\d{19}\/$/],
        [aSandboxPublish("textpost", { media: [] }), /^https:\/\/www\.threads\.net\/@maya\.bakes\/post\/[\w-]{11}$/]
      ]
      for (const [input, permalink] of cases) {
        const step = yield* simulated.publish(input)
        assert.strictEqual(step._tag, "Published")
        if (step._tag === "Published") assert.match(step.permalink ?? "", permalink)
      }
    })
  )

  it.effect("publishes a target to the same place every time", () =>
    Effect.gen(function* () {
      const input = aSandboxPublish("textpost", { media: [] })
      const first = yield* simulated.publish(input)
      const again = yield* simulated.publish(input)
      assert.deepStrictEqual(first, again)
    })
  )

  it.effect("gives an inbox short video a permalink: the simulated creator finishes it at once", () =>
    Effect.gen(function* () {
      const step = yield* simulated.publish(aSandboxPublish("shortvideo", { options: { shortvideo: { mode: "inbox" } } }))
      assert.strictEqual(step._tag, "Published")
      if (step._tag === "Published") assert.match(step.permalink ?? "", /^https:\/\/www\.tiktok\.com\/@[\w.-]+\/video\/\d{19}$/)
    })
  )

  it.effect("fails the first `times` attempts with the simulated code, then publishes", () =>
    Effect.gen(function* () {
      const simulate = { error: "platform_unavailable", times: 2 }
      for (const attempts of [0, 1]) {
        const failure = yield* Effect.flip(simulated.publish(aSandboxPublish("photo", { simulate, attempts })))
        assert.strictEqual(failure.code, "platform_unavailable")
        assert.strictEqual(failure.retryable, true)
        assert.strictEqual(failure.platformCode, "simulated_platform_unavailable")
      }
      const third = yield* simulated.publish(aSandboxPublish("photo", { simulate, attempts: 2 }))
      assert.strictEqual(third._tag, "Published")
    })
  )

  it.effect("fails every attempt when `times` is absent", () =>
    Effect.gen(function* () {
      const failure = yield* Effect.flip(simulated.publish(aSandboxPublish("pages", { simulate: { error: "token_expired" }, attempts: 40 })))
      assert.strictEqual(failure.code, "token_expired")
      assert.strictEqual(failure.retryable, false)
      assert.strictEqual(failure.needsReconnect, true)
    })
  )

  it.effect("treats an unknown simulated code as the platform being unavailable", () =>
    Effect.gen(function* () {
      const failure = yield* Effect.flip(simulated.publish(aSandboxPublish("photo", { simulate: { error: "teapot" } })))
      assert.strictEqual(failure.code, "platform_unavailable")
      assert.strictEqual(failure.platformCode, "simulated_teapot")
    })
  )

  it.effect("refuses a video longer than the simulated creator may post", () =>
    Effect.gen(function* () {
      const failure = yield* Effect.flip(
        simulated.publish(aDirectShortVideo({ simulate: { max_video_duration_sec: 60 }, media: [aVideo({ durationSeconds: 61 })] }))
      )
      assert.strictEqual(failure.code, "media_too_long")
      assert.deepStrictEqual(failure.details, { duration: 61, limit: 60 })
    })
  )

  it.effect("refuses a privacy level the simulated creator does not offer", () =>
    Effect.gen(function* () {
      const failure = yield* Effect.flip(
        simulated.publish(aDirectShortVideo({ simulate: { privacy_level_options: ["SELF_ONLY"] }, consent: { privacy_level: "PUBLIC_TO_EVERYONE" } }))
      )
      assert.strictEqual(failure.code, "privacy_level_mismatch")
    })
  )

  it.effect("refuses a direct short video without consent", () =>
    Effect.gen(function* () {
      const failure = yield* Effect.flip(simulated.publish(aDirectShortVideo({ consent: null })))
      assert.strictEqual(failure.code, "consent_required")
    })
  )

  it.effect("refuses media the real platform would refuse", () =>
    Effect.gen(function* () {
      const failure = yield* Effect.flip(simulated.publish(aSandboxPublish("photo", { options: { photo: { type: "reel" } }, media: [anImage()] })))
      assert.strictEqual(failure.code, "media_invalid")
      assert.strictEqual(failure.details?.platform, "photo")
    })
  )

  it.effect("describes the simulated creator for the consent form", () =>
    Effect.gen(function* () {
      const account = aSandboxAccount("shortvideo", { simulate: { max_video_duration_sec: 180, privacy_level_options: ["SELF_ONLY"] } })
      const info = yield* simulated.creatorInfo(account)
      assert.deepStrictEqual(info.privacyLevelOptions, ["SELF_ONLY"])
      assert.strictEqual(info.maxVideoPostDurationSec, 180)
      assert.strictEqual(info.username, "maya.bakes")
      const defaults = yield* simulated.creatorInfo(aSandboxAccount("shortvideo"))
      assert.lengthOf(defaults.privacyLevelOptions, 4)
      assert.strictEqual(defaults.maxVideoPostDurationSec, 600)
    })
  )
})
