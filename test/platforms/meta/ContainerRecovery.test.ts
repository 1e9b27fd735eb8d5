/**
 * What the container adapters (Threads, Instagram) ask after a lost publish answer, against
 * fakes that answer like Meta: the container's GET names no media, the account's media edge pages
 * with cursors and honours `since`. The post id is found, never guessed; a target that may have
 * been published is never failed while the platform cannot say.
 */
import { assert, describe, it } from "@effect/vitest"
import type { PublishInput } from "@postwire/core"
import { Credentials, instagram, threads } from "@postwire/platforms"
import { Effect } from "effect"
import { aRouter, drive } from "../adapterConformance.ts"
import { anAccount, anImage, aPost, aPublishInput, aTarget } from "../builders.ts"
import type { ContainerFake } from "./ContainerFake.ts"
import { graphError } from "./GraphFake.ts"
import * as InstagramFake from "../instagram/InstagramFake.ts"
import * as ThreadsFake from "../threads/ThreadsFake.ts"

const unavailable = graphError(500, 2, undefined, { message: "Service temporarily unavailable", is_transient: true })

const platforms = [
  {
    name: "Threads",
    platform: "textpost",
    make: ThreadsFake.make,
    userId: ThreadsFake.threadsUserId,
    options: (fake: ContainerFake) => ({ textpost: { baseUrl: fake.url, refreshUrl: null } })
  },
  {
    name: "Instagram",
    platform: "photo",
    make: InstagramFake.make,
    userId: InstagramFake.igUserId,
    options: (fake: ContainerFake) => ({ photo: { baseUrl: fake.url, refreshUrl: null } })
  }
] as const

describe.each(platforms)("$name: after a lost publish answer", ({ make, options, platform, userId }) => {
  const anInput = (fake: ContainerFake, caption: string, photoType?: "story"): PublishInput => {
    const account = anAccount(platform, {
      externalId: userId,
      credentials: Credentials.encode(platform === "photo" ? instagram : threads, { access_token: fake.accessToken })
    })
    return aPublishInput({
      account,
      post: aPost({ caption }),
      target: aTarget(account, photoType === undefined ? {} : { options: { photo: { type: photoType } } }),
      media: [anImage()]
    })
  }

  it.live("pages through the account's media with the platform's cursors, from the container's creation, for its own", () =>
    Effect.gen(function* () {
      const fake = yield* make()
      const client = yield* aRouter(options(fake))
      // The same caption posted yesterday must not be taken for it.
      fake.publishElsewhere(1, () => "Seeded rye", Date.now() - 24 * 60 * 60_000)
      fake.faults.injectAfter("publish", { lose: true })
      fake.afterPublish = () => {
        fake.afterPublish = undefined
        fake.publishElsewhere(230)
      }
      const result = yield* drive(client, anInput(fake, "Seeded rye"))
      const mine = fake.media.find((m) => m.containerId !== null)!
      assert.strictEqual(result.published?.platformPostId, mine.id)
      assert.strictEqual(result.published?.permalink, mine.permalink)
      const lists = fake.requests.filter((r) => r.route === "list")
      assert.isAtLeast(lists.length, 3)
      assert.isTrue(lists.every((r) => r.params.since !== undefined))
      assert.isTrue(lists.slice(1).every((r) => r.params.after !== undefined))
      assert.strictEqual(fake.count("publish"), 1)
    }))

  it.live("never takes the container id for the post id: published, and the backfill finds the media once listed", () =>
    Effect.gen(function* () {
      const fake = yield* make()
      const client = yield* aRouter(options(fake))
      fake.faults.injectAfter("publish", { lose: true })
      // The platform lists the new media late: hidden from the first look-up.
      let hidden: ContainerFake["media"][number] | undefined
      fake.afterPublish = (media) => {
        fake.afterPublish = undefined
        hidden = media
        fake.media.splice(fake.media.indexOf(media), 1)
      }
      const input = anInput(fake, "Cardamom buns")
      const result = yield* drive(client, input)
      assert.isDefined(result.published)
      assert.isNull(result.published!.platformPostId)
      assert.isNull(result.published!.permalink)
      assert.isTrue(result.published!.permalinkPending)
      const containerId = fake.containers[0]!.id
      assert.notStrictEqual(result.published!.platformPostId, containerId)

      const permalink = client.permalink!
      const notYet = yield* permalink({ target: input.target, post: input.post, account: input.account, state: result.published!.state })
      assert.strictEqual(notYet._tag, "NotYet")
      fake.media.unshift(hidden!)
      const found = yield* permalink({ target: input.target, post: input.post, account: input.account, state: result.published!.state })
      assert.deepInclude(found, { _tag: "Found", platformPostId: hidden!.id, permalink: hidden!.permalink })
      assert.strictEqual((found as { state: { media_id: string } }).state.media_id, hidden!.id)
    }))

  it.live("saves the state through the checkpoint right before publishing, and not before creating a container", () =>
    Effect.gen(function* () {
      const fake = yield* make()
      const client = yield* aRouter(options(fake))
      const checkpoints: Array<{ readonly state: unknown; readonly publishes: number; readonly containers: number }> = []
      const input: PublishInput = {
        ...anInput(fake, "Olive fougasse"),
        checkpoint: (state) =>
          Effect.sync(() => {
            checkpoints.push({ state, publishes: fake.count("publish"), containers: fake.containers.length })
          })
      }
      const result = yield* drive(client, input)
      assert.isDefined(result.published)
      assert.lengthOf(checkpoints, 1)
      assert.strictEqual(checkpoints[0]!.publishes, 0)
      assert.strictEqual(checkpoints[0]!.containers, 1)
      assert.deepInclude(checkpoints[0]!.state as object, { container_id: fake.containers[0]!.id })
      assert.isNumber((checkpoints[0]!.state as { publish_sent_at: number }).publish_sent_at)
    }))

  it.live("keeps asking, never failing, while the status cannot be read after a lost answer, waiting longer each time", () =>
    Effect.gen(function* () {
      const fake = yield* make()
      const client = yield* aRouter(options(fake))
      fake.faults.injectAfter("publish", { lose: true })
      fake.faults.inject("container_status", unavailable, 8, { armedBy: "publish" })
      const result = yield* drive(client, anInput(fake, "Pain de mie"))
      assert.isUndefined(result.failure)
      assert.strictEqual(result.published?.platformPostId, fake.media[0]!.id)
      const waits = result.steps.filter((s) => s._tag === "InProgress" && (s.state as { unanswered?: number }).unanswered !== undefined)
      assert.isAtLeast(waits.length, 2)
      const delays = waits.map((s) => (s._tag === "InProgress" ? s.pollAfterMs : 0))
      assert.isTrue(delays.every((d, i) => i === 0 || d > delays[i - 1]!))
      assert.strictEqual(fake.count("publish"), 1)
    }))

  it.live("fails, saying the platform did not publish it, when publishing was refused and the container is still FINISHED", () =>
    Effect.gen(function* () {
      const fake = yield* make()
      const client = yield* aRouter(options(fake))
      fake.faults.inject("publish", unavailable, 3)
      const result = yield* drive(client, anInput(fake, "Fig and walnut"))
      assert.strictEqual(result.failure?.code, "platform_unavailable")
      assert.isTrue(result.failure?.notPublished)
      // The container is kept: a retry publishes it, it does not make another.
      assert.deepInclude(result.failure?.state as object, { container_id: fake.containers[0]!.id })
      assert.lengthOf(fake.media, 0)
      assert.notProperty(result.failure?.state as object, "publish_sent_at")
    }))

  it.live("keeps the container of a publish refused for the daily limit: the retry publishes it, no second one", () =>
    Effect.gen(function* () {
      const fake = yield* make()
      const client = yield* aRouter(options(fake))
      fake.faults.inject("publish", graphError(400, 9, 2207042, { message: "Maximum posts reached" }))
      const input = anInput(fake, "Pretzel knots")
      const refused = yield* drive(client, input)
      assert.strictEqual(refused.failure?.code, "quota_exceeded")
      assert.isTrue(refused.failure?.notPublished)
      const retried = yield* drive(client, { ...input, state: refused.failure?.state })
      assert.strictEqual(retried.published?.platformPostId, fake.media[0]!.id)
      assert.lengthOf(fake.containers, 1)
      assert.strictEqual(fake.media[0]!.containerId, fake.containers[0]!.id)
    }))

  it.live("fails a publish refused for the daily limit at once, not published, even when the container cannot be read afterwards", () =>
    Effect.gen(function* () {
      const fake = yield* make()
      const client = yield* aRouter(options(fake))
      fake.faults.inject("publish", graphError(400, 9, 2207042, { message: "Maximum posts reached" }))
      fake.faults.inject("container_status", unavailable, 1_000, { armedBy: "publish" })
      const result = yield* drive(client, anInput(fake, "Pretzel knots, again"))
      assert.deepInclude({ ...result.failure }, { code: "quota_exceeded", notPublished: true })
      assert.deepInclude(result.failure?.state as object, { container_id: fake.containers[0]!.id })
      assert.strictEqual(fake.count("publish"), 1)
      assert.lengthOf(fake.media, 0)
    }))

  it.live("fails a publish Meta throttles (code 4) at once, not published, even when the container cannot be read afterwards", () =>
    Effect.gen(function* () {
      const fake = yield* make()
      const client = yield* aRouter(options(fake))
      fake.faults.inject("publish", graphError(400, 4, undefined, { message: "Application request limit reached" }))
      fake.faults.inject("container_status", unavailable, 1_000, { armedBy: "publish" })
      const result = yield* drive(client, anInput(fake, "Rye crackers"))
      assert.deepInclude({ ...result.failure }, { code: "platform_unavailable", platformCode: "4", retryable: true, notPublished: true })
      assert.deepInclude(result.failure?.state as object, { container_id: fake.containers[0]!.id })
      assert.notProperty(result.failure?.state as object, "publish_sent_at")
      assert.lengthOf(fake.media, 0)
    }))

  it.live("gives up after its window when a lost publish answer stays unknown: not among the account's media, publish_unconfirmed", () =>
    Effect.gen(function* () {
      const fake = yield* make()
      const client = yield* aRouter({ [platform]: { baseUrl: fake.url, refreshUrl: null, unconfirmedWindowMs: 0 } })
      // The connection closes before Meta acts, and the container cannot be read afterwards.
      fake.faults.inject("publish", { lose: true })
      fake.faults.inject("container_status", unavailable, 1_000, { armedBy: "publish" })
      const result = yield* drive(client, anInput(fake, "Sesame bagels"))
      assert.deepInclude({ ...result.failure }, { code: "publish_unconfirmed", gaveUp: true, retryable: false })
      assert.isAbove(fake.count("list"), 0, "the account's media were looked through first")
      assert.lengthOf(fake.media, 0)
    }))

  it.live("publishes after its window when a lost publish answer's media is among the account's media", () =>
    Effect.gen(function* () {
      const fake = yield* make()
      const client = yield* aRouter({ [platform]: { baseUrl: fake.url, refreshUrl: null, unconfirmedWindowMs: 0 } })
      fake.faults.injectAfter("publish", { lose: true })
      fake.faults.inject("container_status", unavailable, 1_000, { armedBy: "publish" })
      const result = yield* drive(client, anInput(fake, "Challah"))
      assert.isUndefined(result.failure)
      assert.strictEqual(result.published?.platformPostId, fake.media[0]!.id)
      assert.strictEqual(fake.count("publish"), 1)
    }))

  if (platform === "photo") {
    it.live("finds a story on the stories edge, where Instagram lists stories (without a caption)", () =>
      Effect.gen(function* () {
        const fake = yield* make()
        const client = yield* aRouter(options(fake))
        fake.faults.injectAfter("publish", { lose: true })
        const result = yield* drive(client, anInput(fake, "Story of a loaf", "story"))
        assert.strictEqual(result.published?.platformPostId, fake.media[0]!.id)
        assert.strictEqual(fake.count("stories"), 1)
        assert.strictEqual(fake.count("list"), 0)
      }))
  }
})
