/**
 * LinkedIn through the real server on both databases: a company page's post with images and a
 * member's text post from `POST /v1/posts`, published exactly once to the fake LinkedIn (also when
 * the answer to the post is lost), and the seeded sandbox LinkedIn account publishing on the
 * simulated platform.
 */
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { accountOf } from "../../support/Builders.ts"
import { eventually } from "../../support/Eventually.ts"
import { call } from "../../support/Http.ts"
import { aPng } from "../../support/Media.ts"
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

  beforeAll(async () => {
    scope = Effect.runSync(Scope.make())
    fake = await Effect.runPromise(LinkedInFake.make().pipe(Scope.provide(scope)))
    database = await aDatabase(backend)
    server = await startServer(
      backend,
      {
        POSTWIRE_LINKEDIN_API_URL: fake.url,
        POSTWIRE_LINKEDIN_REFRESH_URL: "none",
        POSTWIRE_PLATFORM_POLL_INTERVAL_MS: "1",
        POSTWIRE_PLATFORM_RETRY_DELAY_MS: "5",
        POSTWIRE_PUBLISH_POLL_MS: "20",
        POSTWIRE_RATE_LIMIT_PER_KEY: "100000"
      },
      { database }
    )
    liveKey = (await server.admin<{ key: string }>(`/workspaces/${server.workspaceId}/keys`, { kind: "live", scopes: ["posts:read", "posts:write"] })).key
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
    return { caption, target }
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
})
