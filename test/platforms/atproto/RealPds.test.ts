/**
 * Postwire's Bluesky adapter against the reference PDS (`@atproto/pds`) on loopback: connect with
 * an app password, publish text with facets and a link card, images, and a reply, read each back
 * through the PDS's own API (`com.atproto.repo.getRecord`, `listRecords`), and recover from a
 * lost `createRecord` answer without posting twice. One PDS for the whole file.
 *
 * What the local PDS cannot do (it runs no App View): list a thread's replies
 * (`app.bsky.feed.getPostThread`); that part is tested against the fake PDS.
 */
import { assert, describe, it } from "@effect/vitest"
import type { AccountRecord, PublishInput, PublishMedia, TargetRecord } from "@postwire/core"
import type { CommentRouter, PlatformRouter } from "@postwire/platforms"
import { Effect, Result } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import { afterAll, beforeAll, expect } from "vitest"
import * as AtprotoConnect from "../../../packages/platforms/src/atproto/AtprotoConnect.ts"
import type * as Xrpc from "../../../packages/platforms/src/atproto/Xrpc.ts"
import * as Wire from "../../../packages/platforms/src/internal/Wire.ts"
import { aKeyWithScopes } from "../../support/Builders.ts"
import { aConnectLink, aConnectServer, step } from "../../support/Connect.ts"
import { eventually } from "../../support/Eventually.ts"
import { call } from "../../support/Http.ts"
import { aJpeg, aPng } from "../../support/Media.ts"
import { backends, startServer, type TestServer } from "../../support/TestServer.ts"
import { aRouter, drive } from "../adapterConformance.ts"
import { anAccount, anImage, aPost, aPublishInput, aTarget } from "../builders.ts"
import { aCommentRouter } from "../comments/harness.ts"
import * as RealPds from "./RealPds.ts"

let pds: RealPds.RealPds
let proxy: RealPds.LossyProxy
let maya: Awaited<ReturnType<RealPds.RealPds["account"]>>
let account: AccountRecord

const settings = { atproto: { webHost: "https://bsky.app" } }

beforeAll(async () => {
  pds = await RealPds.start()
  proxy = await RealPds.lossyProxy(pds.url)
  maya = await pds.account("maya")
  // Connect as a person would: handle and app password, through Postwire's connector.
  const identities = await Effect.runPromise(
    Effect.gen(function* () {
      const client = yield* HttpClient.HttpClient
      const connect = AtprotoConnect.make({ ...AtprotoConnect.defaults, serviceUrl: proxy.url }, Wire.make(client, { timeoutMs: 10_000, retry: { attempts: 1, baseDelayMs: 1 } }))
      return yield* connect.login({ identifier: maya.handle, password: maya.appPassword })
    }).pipe(Effect.provide(FetchHttpClient.layer))
  )
  account = anAccount("atproto", { handle: maya.handle, externalId: identities[0]!.platformAccountId, credentials: identities[0]!.credentials })
})

afterAll(async () => {
  await proxy?.stop()
  await pds?.stop()
})

const postOf = (caption: string, media: ReadonlyArray<PublishMedia> = [], alt?: ReadonlyArray<string>): PublishInput =>
  aPublishInput({
    account,
    post: aPost({ caption }),
    target: aTarget(account, alt === undefined ? {} : { options: { atproto: { alt } } as never }),
    media
  })

const read = (uri: string) => {
  const [, , repo, collection, rkey] = uri.split("/")
  return pds.xrpc("com.atproto.repo.getRecord", { params: { repo: repo!, collection: collection!, rkey: rkey! } })
}

const file = (bytes: Uint8Array, mime: string, width: number, height: number): PublishMedia => {
  const media = anImage({ mime, width, height, sizeBytes: bytes.length })
  return { ...media, read: Effect.succeed(bytes) }
}

describe("Bluesky adapter against the reference PDS", () => {
  it("the connect kept the session, not the app password", () => {
    const sealed = JSON.parse(account.credentials!) as Xrpc.AtprotoCredentials
    assert.strictEqual(sealed.did, maya.did)
    assert.strictEqual(sealed.handle, "maya.test")
    assert.notInclude(account.credentials!, maya.appPassword)
  })

  it.live("publishes text with facets and a link card, read back from the repository", () =>
    Effect.gen(function* () {
      const client = yield* aRouter(settings as unknown as PlatformRouter.Options)
      const caption = "Fresh パン 🍞 from @maya.test, menu at https://bakery.example/menu #sourdough"
      const result = yield* drive(client, postOf(caption))
      assert.isDefined(result.published, `${result.failure?.code} ${result.failure?.platformCode}`)
      const uri = result.published!.platformPostId!
      assert.match(uri, new RegExp(`^at://${maya.did}/app\\.bsky\\.feed\\.post/[2-7a-z]{13}$`))
      assert.strictEqual(result.published!.permalink, `https://bsky.app/profile/maya.test/post/${uri.split("/")[4]}`)
      const stored = yield* Effect.promise(() => read(uri))
      assert.strictEqual(stored.status, 200)
      assert.strictEqual(stored.json.value.text, caption)
      const bytes = Buffer.from(caption, "utf8")
      const spans = stored.json.value.facets.map((f: { index: { byteStart: number; byteEnd: number }; features: Array<{ $type: string }> }) => [
        bytes.subarray(f.index.byteStart, f.index.byteEnd).toString("utf8"),
        f.features[0]!.$type
      ])
      assert.deepStrictEqual(spans, [
        ["@maya.test", "app.bsky.richtext.facet#mention"],
        ["https://bakery.example/menu", "app.bsky.richtext.facet#link"],
        ["#sourdough", "app.bsky.richtext.facet#tag"]
      ])
      assert.strictEqual(stored.json.value.facets[0].features[0].did, maya.did)
      assert.strictEqual(stored.json.value.embed.$type, "app.bsky.embed.external")
    })
  )

  it.live("publishes images as blobs with alt text, read back from the repository", () =>
    Effect.gen(function* () {
      const client = yield* aRouter(settings as unknown as PlatformRouter.Options)
      const media = [file(aPng({ width: 40, height: 30 }), "image/png", 40, 30), file(aJpeg({ width: 30, height: 40 }), "image/jpeg", 30, 40)]
      const result = yield* drive(client, postOf("Two loaves", media, ["A round loaf", "A long loaf"]))
      assert.isDefined(result.published, `${result.failure?.code} ${result.failure?.platformCode}`)
      const stored = yield* Effect.promise(() => read(result.published!.platformPostId!))
      const images = stored.json.value.embed.images as Array<{ alt: string; image: { mimeType: string; ref: { $link: string } }; aspectRatio: unknown }>
      assert.deepStrictEqual(images.map((i) => [i.alt, i.image.mimeType, i.aspectRatio]), [
        ["A round loaf", "image/png", { width: 40, height: 30 }],
        ["A long loaf", "image/jpeg", { width: 30, height: 40 }]
      ])
      const blobs = yield* Effect.promise(() => pds.xrpc("com.atproto.sync.listBlobs", { params: { did: maya.did } }))
      for (const image of images) assert.include(blobs.json.cids, image.image.ref.$link)
    })
  )

  it.live("a text over 300 graphemes is refused by Postwire before the PDS sees it", () =>
    Effect.gen(function* () {
      const client = yield* aRouter(settings as unknown as PlatformRouter.Options)
      const before = proxy.count("com.atproto.repo.createRecord")
      const result = yield* drive(client, postOf("é".repeat(301)))
      assert.strictEqual(result.failure?.code, "caption_too_long")
      assert.strictEqual(proxy.count("com.atproto.repo.createRecord"), before)
    })
  )

  it.live("a lost createRecord answer is resolved by reading the saved key back: one post", () =>
    Effect.gen(function* () {
      const client = yield* aRouter({ ...settings, retry: { attempts: 1, baseDelayMs: 1 } } as unknown as PlatformRouter.Options)
      const saved: Array<unknown> = []
      const input: PublishInput = { ...postOf("Lost and found loaf"), checkpoint: (state) => Effect.sync(() => void saved.push(state)) }
      const listed = () => pds.xrpc("com.atproto.repo.listRecords", { params: { repo: maya.did, collection: "app.bsky.feed.post", limit: "100" } })
      const before = (yield* Effect.promise(listed)).json.records.length
      proxy.loseNext("com.atproto.repo.createRecord")
      const first = yield* Effect.result(client.publish(input))
      assert.isTrue(Result.isFailure(first))
      assert.strictEqual(Result.isFailure(first) ? first.failure.code : undefined, "platform_unavailable")
      const again = yield* client.publish({ ...input, state: saved[0] })
      assert.strictEqual(again._tag, "Published")
      const records = (yield* Effect.promise(listed)).json.records as Array<{ uri: string; value: { text: string } }>
      assert.strictEqual(records.length, before + 1)
      assert.lengthOf(records.filter((r) => r.value.text === "Lost and found loaf"), 1)
      assert.strictEqual(again._tag === "Published" ? again.platformPostId : undefined, `at://${maya.did}/app.bsky.feed.post/${(saved[0] as { rkey: string }).rkey}`)
    })
  )

  it.live("answers a reply from another account with a reply that names the root and the parent", () =>
    Effect.gen(function* () {
      const client = yield* aRouter(settings as unknown as PlatformRouter.Options)
      const published = yield* drive(client, postOf("Ask me about rye"))
      const root = published.published!.platformPostId!
      const rootRecord = yield* Effect.promise(() => read(root))
      // Another person on the same PDS replies.
      const alice = yield* Effect.promise(() => pds.account("alice"))
      const theirs = yield* Effect.promise(() =>
        pds.xrpc("com.atproto.repo.createRecord", {
          token: alice.accessJwt,
          body: {
            repo: alice.did,
            collection: "app.bsky.feed.post",
            record: {
              $type: "app.bsky.feed.post",
              text: "How long does it rise?",
              createdAt: new Date().toISOString(),
              reply: { root: { uri: root, cid: rootRecord.json.cid }, parent: { uri: root, cid: rootRecord.json.cid } }
            }
          }
        })
      )
      assert.strictEqual(theirs.status, 200)
      const comments = yield* aCommentRouter(settings as unknown as CommentRouter.Options)
      const target = { ...aTarget(account, { status: "published", platformState: published.published!.state }), platformPostId: root } as TargetRecord
      const answer = yield* comments.reply({ post: aPost(), target, account, platformCommentId: theirs.json.uri, text: "Overnight, in the fridge." })
      const stored = yield* Effect.promise(() => read(answer.comment.platformCommentId))
      assert.strictEqual(stored.json.value.text, "Overnight, in the fridge.")
      assert.deepStrictEqual(stored.json.value.reply, {
        root: { uri: root, cid: rootRecord.json.cid },
        parent: { uri: theirs.json.uri, cid: theirs.json.cid }
      })
      // Our own reply can be deleted; the PDS no longer has it.
      yield* comments.remove({ post: aPost(), target, account, platformCommentId: answer.comment.platformCommentId })
      assert.strictEqual((yield* Effect.promise(() => read(answer.comment.platformCommentId))).json.error, "RecordNotFound")
    })
  )

  it.live("refreshes the session with refreshSession and disconnect deletes it", () =>
    Effect.gen(function* () {
      const client = yield* HttpClient.HttpClient
      const connect = AtprotoConnect.make({ ...AtprotoConnect.defaults, serviceUrl: pds.url }, Wire.make(client, { timeoutMs: 10_000, retry: { attempts: 1, baseDelayMs: 1 } }))
      const [identity] = yield* connect.login({ identifier: maya.did, password: maya.appPassword })
      const refreshed = yield* connect.refresh(identity!.credentials)
      assert.strictEqual(refreshed._tag, "Refreshed")
      const next = refreshed._tag === "Refreshed" ? refreshed.credentials : ""
      assert.strictEqual((yield* connect.revoke(next))._tag, "Revoked")
      const stale = yield* Effect.result(connect.refresh(next))
      assert.strictEqual(Result.isFailure(stale) ? stale.failure.code : undefined, "token_expired")
    }).pipe(Effect.provide(FetchHttpClient.layer))
  )
})

describe.each(backends())("Bluesky end to end through Postwire's API and the reference PDS on %s", (backend) => {
  let server: TestServer
  let liveKey: string
  let bob: Awaited<ReturnType<RealPds.RealPds["account"]>>

  beforeAll(async () => {
    bob = await pds.account(`bob${backend === "embedded" ? "e" : "p"}`)
    server = await aConnectServer((env, options) =>
      startServer(backend, { ...env, POSTWIRE_ATPROTO_SERVICE_URL: pds.url, POSTWIRE_PUBLISH_POLL_MS: "100", POSTWIRE_RATE_LIMIT_PER_KEY: "100000" }, options)
    )
    liveKey = await aKeyWithScopes(server, ["posts:read", "posts:write", "accounts:write"], "live")
  })
  afterAll(() => server?.stop())

  const send = (method: string, path: string, body?: unknown) => call(server.baseUrl, method, path, { key: liveKey, ...(body === undefined ? {} : { body }) })

  it("connects on the hosted page with an app password and publishes POST /v1/posts to the PDS exactly once", async () => {
    const link = await aConnectLink(server, { platform: "atproto", redirect_url: "https://app.example.com/connected" }, liveKey)
    expect(link.status).toBe(201)
    const page = await step(link.body.url)
    expect(page.body).toContain('<label for="field-password">App password <span class="hint">(optional)')
    const connected = await fetch(`${link.body.url}/start`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ fields: { identifier: bob.handle, password: bob.appPassword } })
    })
    const answer = (await connected.json()) as { status: string; account_ids: Array<string> }
    expect(connected.status, JSON.stringify(answer)).toBe(200)
    const accountId = answer.account_ids[0]!
    const account = await send("GET", `/v1/accounts/${accountId}`)
    expect(account.body).toMatchObject({ platform: "atproto", handle: bob.handle, status: "connected", sandbox: false })

    const upload = await send("POST", "/v1/media", { data: Buffer.from(aPng({ width: 60, height: 40 })).toString("base64") })
    expect(upload.status).toBe(201)
    const created = await send("POST", "/v1/posts", {
      profile_id: server.profileId,
      caption: "Rye from the oven 🍞 #bread",
      media: [upload.body.id],
      approval: { mode: "none" },
      targets: [{ account_id: accountId, atproto: { alt: ["A dark rye loaf"], langs: ["en"] } }]
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const post = await eventually(
      () => send("GET", `/v1/posts/${created.body.id}`),
      (reply) => reply.body.status === "published" || reply.body.status === "failed",
      "the Bluesky post to publish",
      { intervalMs: 200 }
    )
    expect(post.body.status, JSON.stringify(post.body.targets[0])).toBe("published")
    const rkey = (post.body.targets[0].permalink as string).split("/").at(-1)!
    expect(post.body.targets[0].permalink).toBe(`https://bsky.app/profile/${bob.handle}/post/${rkey}`)
    const listed = await pds.xrpc("com.atproto.repo.listRecords", { params: { repo: bob.did, collection: "app.bsky.feed.post" } })
    expect(listed.json.records).toHaveLength(1)
    const [record] = listed.json.records
    expect(record.uri).toBe(`at://${bob.did}/app.bsky.feed.post/${rkey}`)
    expect(record.value.text).toBe("Rye from the oven 🍞 #bread")
    expect(record.value.langs).toEqual(["en"])
    expect(record.value.embed.images[0].alt).toBe("A dark rye loaf")
  })
})
