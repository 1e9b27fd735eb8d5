/**
 * LinkedIn through the real server on both databases: a company page's post with images and a
 * member's text post from `POST /v1/posts`, published exactly once to the fake LinkedIn (also when
 * the answer to the post is lost), and the seeded sandbox LinkedIn account publishing on the
 * simulated platform; the page post's comments read into `GET /v1/comments`, answered and deleted
 * at LinkedIn as the page.
 */
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { accountOf } from "../../support/Builders.ts"
import { eventually } from "../../support/Eventually.ts"
import { call } from "../../support/Http.ts"
import { aPng } from "../../support/Media.ts"
import { aMovableClock, type MovableClock } from "../../support/MovableClock.ts"
import { aDatabase, backends, startServer, type TestDatabase, type TestServer } from "../../support/TestServer.ts"
import * as LinkedInFake from "./LinkedInFake.ts"

describe.each(backends())("LinkedIn publishing through the server on %s", (backend) => {
  let scope: Scope.Closeable
  let fake: LinkedInFake.LinkedInFake
  let database: TestDatabase
  let server: TestServer
  let liveKey: string
  let page: string
  let member: string
  const images: Array<string> = []
  let made = 0
  let clock: MovableClock

  beforeAll(async () => {
    scope = Effect.runSync(Scope.make())
    fake = await Effect.runPromise(LinkedInFake.make().pipe(Scope.provide(scope)))
    database = await aDatabase(backend)
    clock = aMovableClock()
    server = await startServer(
      backend,
      {
        POSTWIRE_LINKEDIN_API_URL: fake.url,
        POSTWIRE_LINKEDIN_REFRESH_URL: "none",
        POSTWIRE_PLATFORM_POLL_INTERVAL_MS: "1",
        POSTWIRE_PLATFORM_RETRY_DELAY_MS: "5",
        POSTWIRE_PUBLISH_POLL_MS: "20",
        POSTWIRE_COMMENT_POLL_MS: "50",
        POSTWIRE_RATE_LIMIT_PER_KEY: "100000"
      },
      { database, clock: clock.clock }
    )
    liveKey = (await server.admin<{ key: string }>(`/workspaces/${server.workspaceId}/keys`, { kind: "live", scopes: ["posts:read", "posts:write", "comments:write"] })).key
    const account = (externalId: string, handle: string) =>
      server.admin<{ id: string }>(`/workspaces/${server.workspaceId}/accounts`, {
        profile_id: server.profileId,
        platform: "professional",
        sandbox: false,
        handle,
        credentials: { access_token: fake.accessToken, member: LinkedInFake.member, scopes: fake.scopes },
        external_id: externalId
      })
    page = (await account(LinkedInFake.organization, "roti-bakery")).id
    member = (await account(LinkedInFake.member, "Dewi Lestari")).id
    for (const width of [1200, 1080]) {
      const reply = await call(server.baseUrl, "POST", "/v1/media", { key: liveKey, body: { data: Buffer.from(aPng({ width, height: 627 })).toString("base64") } })
      expect(reply.status, JSON.stringify(reply.body)).toBe(201)
      images.push(reply.body.id as string)
    }
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
    await database?.drop()
    if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  const publish = async (key: string, accountId: string, media: ReadonlyArray<string>, extra: Record<string, unknown> = {}) => {
    const caption = `Fresh sourdough (batch ${++made}) #bakery`
    const created = await call(server.baseUrl, "POST", "/v1/posts", {
      key,
      body: { profile_id: server.profileId, caption, media, targets: [{ account_id: accountId, ...extra }], approval: { mode: "none" } }
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const target = await eventually(
      async () => (await call(server.baseUrl, "GET", `/v1/posts/${created.body.id}`, { key })).body.targets?.[0],
      (t) => t !== undefined && t.status !== "queued" && t.status !== "publishing",
      `post ${created.body.id} to finish publishing`,
      { intervalMs: 20 }
    )
    return { caption, target, postId: created.body.id as string }
  }

  it("publishes a company page's post with two images once, as a MultiImage post", async () => {
    const { caption, target } = await publish(liveKey, page, images)
    const posts = fake.posts.filter((p) => p.body.commentary === caption.replace("(", "\\(").replace(")", "\\)"))
    expect(posts).toHaveLength(1)
    expect(posts[0]!.body).toMatchObject({ author: LinkedInFake.organization, visibility: "PUBLIC" })
    expect((posts[0]!.body.content as { multiImage: { images: Array<unknown> } }).multiImage.images).toHaveLength(2)
    expect(target).toMatchObject({ status: "published", error: null, attempts: 1, permalink: `https://www.linkedin.com/feed/update/${posts[0]!.id}` })
  })

  it("publishes once when the answer to the post is lost, finding it among the page's posts", async () => {
    const before = fake.count("post")
    fake.faults.injectAfter("post", { lose: true })
    const { target } = await publish(liveKey, page, images.slice(0, 1))
    expect(fake.count("post")).toBe(before + 1)
    expect(target).toMatchObject({ status: "published", error: null, attempts: 1 })
    expect(target.permalink).toBe(`https://www.linkedin.com/feed/update/${fake.posts.at(-1)!.id}`)
  })

  it("shares an article to a member's connections with the target's options", async () => {
    const link = { url: "https://example.com/sourdough", title: "How we bake" }
    const { target } = await publish(liveKey, member, images.slice(0, 1), { professional: { visibility: "CONNECTIONS", link } })
    expect(target).toMatchObject({ status: "published", options: { professional: { visibility: "CONNECTIONS", link } } })
    expect(fake.posts.at(-1)!.body).toMatchObject({ author: LinkedInFake.member, visibility: "CONNECTIONS", content: { article: { source: link.url, title: link.title } } })
  })

  it("publishes to the seeded sandbox LinkedIn account without calling LinkedIn", async () => {
    const before = fake.requests.length
    const { target } = await publish(server.testKey, accountOf(server, "professional"), images.slice(0, 1))
    expect(target).toMatchObject({ status: "published", error: null })
    expect(target.permalink).toMatch(/^https?:\/\//)
    expect(fake.requests.length).toBe(before)
  })

  it("reads a page post's comments into the API, answers one at LinkedIn as the page, and deletes the answer", async () => {
    const { postId, target } = await publish(liveKey, page, images.slice(0, 1))
    const urn = target.platform_post_id ?? fake.posts.at(-1)!.id
    const asked = fake.comment(urn, "urn:li:person:tom", "Open on Sunday?")
    const listed = await eventually(
      () => call(server.baseUrl, "GET", `/v1/comments?post_id=${postId}&limit=100`, { key: liveKey }),
      (reply) => reply.body.data?.length === 1,
      "the LinkedIn comment listed",
      { step: () => clock.advance(60_000), intervalMs: 100 }
    )
    const comment = listed.body.data[0]
    expect(comment).toMatchObject({ text: "Open on Sunday?", platform_comment_id: `urn:li:comment:(${urn},${asked.id})` })
    const answered = await call(server.baseUrl, "POST", `/v1/comments/${comment.id}/replies`, {
      key: liveKey,
      body: { text: "Yes, 8 to 12" },
      headers: { "idempotency-key": `linkedin-${backend}` }
    })
    expect(answered.status, JSON.stringify(answered.body)).toBe(201)
    expect(answered.body).toMatchObject({ parent_id: comment.id, from_owner: true, text: "Yes, 8 to 12" })
    const atLinkedIn = fake.comments.find((c) => c.actor === LinkedInFake.organization)!
    expect(atLinkedIn).toMatchObject({ text: "Yes, 8 to 12", parentComment: comment.platform_comment_id })
    const hidden = await call(server.baseUrl, "POST", `/v1/comments/${comment.id}/hide`, { key: liveKey })
    expect(hidden.status).toBe(422)
    const deleted = await call(server.baseUrl, "DELETE", `/v1/comments/${answered.body.id}`, { key: liveKey })
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200)
    expect(fake.comments.find((c) => c.actor === LinkedInFake.organization)).toBeUndefined()
  })
})
