/**
 * Mastodon's documented defaults (packages/platforms/src/fediverse/Rules.ts names each page)
 * through `POST /v1/posts/validate` and create over the real HTTP API, the target options
 * (`targets[].fediverse`), and a sandbox account publishing to the simulated platform.
 */
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type * as FediverseCredentials from "../../../packages/platforms/src/fediverse/FediverseCredentials.ts"
import { aJpeg, anMp4, aPng } from "../../support/Media.ts"
import { accountOf, aPost } from "../../support/Builders.ts"
import { eventually } from "../../support/Eventually.ts"
import { call, errorOf } from "../../support/Http.ts"
import { backends, startServer, type TestServer } from "../../support/TestServer.ts"
import * as MastodonFake from "./MastodonFake.ts"

describe.each(backends())("Mastodon's rules at validate and create on %s", (backend) => {
  let server: TestServer
  const media: Record<string, string> = {}

  const upload = async (bytes: Uint8Array) => {
    const reply = await call(server.baseUrl, "POST", "/v1/media", { key: server.testKey, body: { data: Buffer.from(bytes).toString("base64") } })
    if (reply.status !== 201) throw new Error(`upload failed: ${reply.status} ${JSON.stringify(reply.body)}`)
    return reply.body.id as string
  }
  const body = (caption: string, ids: ReadonlyArray<string>, options?: unknown, accountId?: string) =>
    aPost(server, ids, {
      caption,
      approval: { mode: "none" },
      targets: [{ account_id: accountId ?? accountOf(server, "fediverse"), ...(options === undefined ? {} : { fediverse: options }) }]
    })
  const validate = (caption: string, ids: ReadonlyArray<string>, options?: unknown) =>
    call(server.baseUrl, "POST", "/v1/posts/validate", { key: server.testKey, body: body(caption, ids, options) })
  const create = (caption: string, ids: ReadonlyArray<string>, options?: unknown) =>
    call(server.baseUrl, "POST", "/v1/posts", { key: server.testKey, body: body(caption, ids, options) })
  const issuesOf = (reply: { status: number; body: { issues: Array<{ code: string; field?: string; message: string; message_id: string }> } }) => {
    if (reply.status !== 200) throw new Error(`validate answered ${reply.status}: ${JSON.stringify(reply.body)}`)
    return reply.body.issues
  }

  let fake: MastodonFake.MastodonFake
  let liveKey: string
  const scope = Effect.runSync(Scope.make())

  beforeAll(async () => {
    fake = await Effect.runPromise(Scope.provide(scope)(MastodonFake.make()))
    server = await startServer(backend, {
      POSTWIRE_PLATFORM_POLL_INTERVAL_MS: "1",
      POSTWIRE_PLATFORM_RETRY_DELAY_MS: "5",
      POSTWIRE_PUBLISH_POLL_MS: "50",
      // The fake runs on loopback: every call to a Mastodon server is checked (PinnedWire.ts).
      POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS: "1"
    })
    liveKey = (await server.admin<{ key: string }>(`/workspaces/${server.workspaceId}/keys`, { kind: "live", scopes: ["posts:read", "posts:write"] })).key
    for (let i = 0; i < 5; i++) media[`image${i}`] = await upload(aPng({ width: 1080 + i, height: 1080 }))
    media.jpeg = await upload(aJpeg({ width: 1080, height: 1350 }))
    media.mp4 = await upload(anMp4({ durationSeconds: 30, width: 1080, height: 1920 }))
    media.huge = await upload(aPng({ width: 6000, height: 6000 }))
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  it("takes 500 characters counted in graphemes, a URL as 23, and refuses 501", async () => {
    const one = [media.jpeg!]
    expect(issuesOf(await validate("x".repeat(500), one))).toEqual([])
    expect(issuesOf(await validate("👍🏽".repeat(500), one))).toEqual([])
    expect(issuesOf(await validate(`${"y".repeat(476)} https://example.com/${"z".repeat(300)}`, one))).toEqual([])
    const over = issuesOf(await validate("x".repeat(501), one))
    expect(over).toHaveLength(1)
    expect(over[0]).toMatchObject({ code: "caption_too_long", field: "caption" })
    expect(over[0]!.message).toContain("500")
    const created = await create("x".repeat(501), one)
    expect(created.status).toBe(422)
    expect(errorOf(created)).toMatchObject({ code: "caption_too_long" })
  })

  it("takes up to 4 images, refuses 5, and a video with an image", async () => {
    expect(issuesOf(await validate("four", [media.image0!, media.image1!, media.image2!, media.jpeg!]))).toEqual([])
    const five = issuesOf(await validate("five", [media.image0!, media.image1!, media.image2!, media.image3!, media.image4!]))
    expect(five[0]).toMatchObject({ code: "media_invalid", field: "media" })
    expect(five[0]!.message).toContain("at most 4")
    expect(five[0]!.message_id).toContain("paling banyak 4")
    const mixed = issuesOf(await validate("mixed", [media.jpeg!, media.mp4!]))
    expect(mixed[0]).toMatchObject({ code: "media_invalid" })
    expect(mixed[0]!.message).toContain("one video alone")
    expect(issuesOf(await validate("video", [media.mp4!]))).toEqual([])
  })

  it("refuses an image over the default pixel limit, naming the item", async () => {
    const reply = issuesOf(await validate("huge", [media.jpeg!, media.huge!]))
    expect(reply[0]).toMatchObject({ code: "media_invalid", field: "media[1]" })
    expect(reply[0]!.message).toContain("33177600")
  })

  it("takes one description (alt text) per media item up to Mastodon's 1,500 characters, and refuses more", async () => {
    const two = [media.jpeg!, media.image0!]
    expect(issuesOf(await validate("described", two, { alt: ["a".repeat(1500), "🍞".repeat(1500)] }))).toEqual([])
    const long = issuesOf(await validate("described", two, { alt: ["fine", "a".repeat(1501)] }))
    expect(long).toMatchObject([{ code: "media_invalid", field: "targets[0].fediverse.alt[1]" }])
    expect(long[0]!.message).toContain("at most 1500 characters; this one has 1501")
    expect(long[0]!.message_id).toContain("paling panjang 1500 karakter")
    const extra = await create("described", two, { alt: ["one", "two", "three"] })
    expect(extra.status, JSON.stringify(extra.body)).toBe(422)
    expect(errorOf(extra)).toMatchObject({ code: "media_invalid", field: "targets[0].fediverse.alt[2]" })
    expect(errorOf(extra).message).toContain("gives 3 descriptions where the post has 2 media items")
    const notText = await create("described", two, { alt: [42] })
    expect(notText.status, JSON.stringify(notText.body)).toBe(400)
    expect(errorOf(notText)).toMatchObject({ code: "invalid_request", field: "targets[0].fediverse.alt[0]" })
  })

  it("takes visibility, a content warning, sensitive and language, and refuses what is not one", async () => {
    const one = [media.jpeg!]
    const options = { visibility: "unlisted", spoiler_text: "food", sensitive: true, language: "id" }
    expect(issuesOf(await validate("with options", one, options))).toEqual([])
    expect(issuesOf(await validate("bad", one, { visibility: "everyone" }))).toMatchObject([
      { code: "invalid_request", field: "targets[0].fediverse.visibility" }
    ])
    const wrong = await create("bad", one, { visibility: "everyone" })
    expect(wrong.status, JSON.stringify(wrong.body)).toBe(400)
    expect(errorOf(wrong)).toMatchObject({ code: "invalid_request", field: "targets[0].fediverse.visibility" })
    const unknown = await create("bad", one, { poll: true })
    expect(unknown.status, JSON.stringify(unknown.body)).toBe(400)
    // The content warning counts towards the 500.
    const cw = await create("x".repeat(490), one, { spoiler_text: "y".repeat(11) })
    expect(cw.status).toBe(422)
    expect(errorOf(cw)).toMatchObject({ code: "caption_too_long", field: "targets[0].fediverse.spoiler_text" })
  })

  it("publishes an account's post with images to its Mastodon server, once, with its options", async () => {
    const accountId = (
      await server.admin<{ id: string }>(`/workspaces/${server.workspaceId}/accounts`, {
        profile_id: server.profileId,
        platform: "fediverse",
        sandbox: false,
        handle: "maya@127.0.0.1",
        credentials: {
          server: fake.origin,
          access_token: fake.ownerToken,
          client_id: "preset",
          client_secret: "preset-secret",
          account_id: fake.owner.id
        } satisfies FediverseCredentials.FediverseCredentials,
        external_id: `${fake.owner.id}@127.0.0.1`
      })
    ).id
    const created = await call(server.baseUrl, "POST", "/v1/posts", {
      key: liveKey,
      body: body("Two loaves, two pictures", [media.jpeg!, media.image0!], { visibility: "unlisted", spoiler_text: "bread" }, accountId)
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const post = await eventually(
      () => call(server.baseUrl, "GET", `/v1/posts/${created.body.id}`, { key: liveKey }),
      (reply) => reply.body.status === "published" || reply.body.status === "failed",
      "the Mastodon post published"
    )
    expect(post.body.status, JSON.stringify(post.body)).toBe("published")
    const statuses = fake.statusesOf(fake.owner.id).filter((s) => s.text === "Two loaves, two pictures")
    expect(statuses).toHaveLength(1)
    expect(statuses[0]!.mediaIds).toHaveLength(2)
    expect(statuses[0]!.visibility).toBe("unlisted")
    expect(statuses[0]!.spoilerText).toBe("bread")
    expect(post.body.targets[0].permalink).toBe(`${fake.origin}/@maya/${statuses[0]!.id}`)
  })

  it("publishes a sandbox account's post with its options shown on the target", async () => {
    const created = await create("From a sandbox Mastodon account", [media.jpeg!], { visibility: "private", language: "en" })
    expect(created.status).toBe(201)
    const post = await eventually(
      () => call(server.baseUrl, "GET", `/v1/posts/${created.body.id}`, { key: server.testKey }),
      (reply) => reply.body.status === "published" || reply.body.status === "failed",
      "the sandbox post published"
    )
    const target = post.body.targets[0]
    expect(post.body.status, JSON.stringify(post.body)).toBe("published")
    expect(target.options.fediverse).toEqual({ visibility: "private", language: "en" })
    expect(target.permalink).toEqual(expect.any(String))
  })
})
