/**
 * Comments of real platform accounts through the real server: Instagram, a Facebook Page and
 * Threads accounts publish to the fake platforms (test/platforms/fakes), people comment there,
 * the polling job brings the comments to `GET /v1/comments` and to a webhook receiver as one
 * `comment.created` each, answers and moderation go back to the fakes as the account, and Meta's
 * webhook (signed as Meta signs) stores a comment at once without the later poll storing it again.
 */
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { FakeComment } from "../platforms/meta/CommentFake.ts"
import * as FacebookPagesFake from "../platforms/facebook/FacebookPagesFake.ts"
import * as InstagramFake from "../platforms/instagram/InstagramFake.ts"
import * as MetaWebhookFake from "../platforms/meta/MetaWebhookFake.ts"
import * as ThreadsFake from "../platforms/threads/ThreadsFake.ts"
import { anImage, aPublicAddress } from "../support/Builders.ts"
import * as CommentPolls from "../support/CommentPolls.ts"
import { eventually } from "../support/Eventually.ts"
import { call, errorOf, type Reply } from "../support/Http.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"
import { aMovableClock, type MovableClock } from "../support/MovableClock.ts"
import { aReceiver, type Receiver } from "../webhooks/Receiver.ts"

const minute = 60_000
const hour = 60 * minute
const appSecret = "meta-app-secret-e2e"
const budget = 4

/** Comment requests a fake received (publishing and token calls left out). */
const commentRoutes = new Set(["comments_count", "comments", "replies", "reply", "hide", "delete_comment", "conversation", "reply_info", "manage_reply", "delete_reply"])

describe.each(backends())("comments of real platform accounts on %s", (backend) => {
  let scope: Scope.Closeable
  let ig: InstagramFake.InstagramFake
  let fb: FacebookPagesFake.FacebookPagesFake
  let th: ThreadsFake.ThreadsFake
  let server: TestServer
  let clock: MovableClock
  let receiver: Receiver
  let key: string
  const accounts: Record<"photo" | "pages" | "textpost" | "shortvideo", string> = { photo: "", pages: "", textpost: "", shortvideo: "" }
  /** Each platform's published post: its id in Postwire and on the platform. */
  const posts: Record<"photo" | "pages" | "textpost", { id: string; platformPostId: string }> = {
    photo: { id: "", platformPostId: "" },
    pages: { id: "", platformPostId: "" },
    textpost: { id: "", platformPostId: "" }
  }

  const send = (method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply> =>
    call(server.baseUrl, method, path, { key, body, ...(headers === undefined ? {} : { headers }) })
  const commentsOf = (postId: string) => send("GET", `/v1/comments?post_id=${postId}&limit=100`)
  // Webhooks are delivered at least once (a delivery the moved clock times out is sent again):
  // the receiver counts each event once by its id, as a real receiver would.
  const createdEventsOf = (postId: string) => [
    ...new Map(
      receiver.events
        .filter((e) => e.type === "comment.created" && (e.data as { post_id?: string }).post_id === postId)
        .map((e) => [e.id, e])
    ).values()
  ]

  /** Moves the server's clock to the start of the next clock hour (a fresh call budget) and past it. */
  const nextHour = () => {
    const now = clock.now()
    clock.advance(hour - (now % hour) + minute)
  }

  /** Moves the clock until the post lists `count` comments. */
  const pollUntil = (postId: string, count: number) =>
    eventually(() => commentsOf(postId), (reply) => reply.body.data?.length === count, `${count} comments`, {
      step: () => clock.advance(minute),
      intervalMs: 150
    })

  /** The `comment.created` events the server made for a post (its outbox, not the receiver's copy). */
  const announcedOf = async (postId: string) => {
    const listed = await send("GET", `/v1/events?type=comment.created&post_id=${postId}&limit=100`)
    expect(listed.status, JSON.stringify(listed.body)).toBe(200)
    return listed.body.data as Array<{ data: { platform_comment_id: string } }>
  }

  /** Requests a platform's fake received. */
  const requestsAt = (platform: "photo" | "pages" | "textpost") =>
    (platform === "photo" ? ig : platform === "pages" ? fb : th).requests.length

  /** The target of `platform`'s post. */
  const targetOf = async (platform: "photo" | "pages" | "textpost") =>
    (await send("GET", `/v1/posts/${posts[platform].id}`)).body.targets[0].id as string

  /**
   * Waits until the comment poller has caught up with the clock on `platform`'s post: no poll of
   * it is held and none is due now (the one due ran to its end, or was put off for the budget).
   * The positive signal that lets a test then assert what did not happen.
   */
  const caughtUp = async (platform: "photo" | "pages" | "textpost") => {
    const at = clock.now()
    return CommentPolls.caughtUp(server, await targetOf(platform), at)
  }

  const aLiveAccount = async (platform: string, handle: string, externalId: string, credentials: Record<string, string>) =>
    (
      await server.admin<{ id: string }>(`/workspaces/${server.workspaceId}/accounts`, {
        profile_id: server.profileId,
        platform,
        sandbox: false,
        handle,
        credentials,
        external_id: externalId
      })
    ).id

  const publish = async (accountId: string, caption: string, image: string) => {
    const created = await send("POST", "/v1/posts", {
      profile_id: server.profileId,
      caption,
      media: [image],
      targets: [{ account_id: accountId }],
      approval: { mode: "none" }
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    await eventually(() => send("GET", `/v1/posts/${created.body.id}`), (r) => r.body.status === "published", `${caption} published`)
    return created.body.id as string
  }

  beforeAll(async () => {
    scope = Effect.runSync(Scope.make())
    ig = await Effect.runPromise(InstagramFake.make().pipe(Scope.provide(scope)))
    fb = await Effect.runPromise(FacebookPagesFake.make().pipe(Scope.provide(scope)))
    th = await Effect.runPromise(ThreadsFake.make().pipe(Scope.provide(scope)))
    // Containers ready at once: Threads answers are published without waiting.
    ig.pollsBeforeFinished = -1
    th.pollsBeforeFinished = -1
    clock = aMovableClock()
    receiver = await aReceiver()
    receiver.now = clock.nowSeconds
    // Instagram downloads the image from the signed address: it must be this server's own.
    const address = await aPublicAddress()
    server = await startServer(
      backend,
      {
        ...address.env,
        POSTWIRE_INSTAGRAM_BASE_URL: ig.url,
        POSTWIRE_INSTAGRAM_REFRESH_URL: "none",
        POSTWIRE_THREADS_BASE_URL: th.url,
        POSTWIRE_THREADS_REFRESH_URL: "none",
        POSTWIRE_FACEBOOK_BASE_URL: fb.url,
        POSTWIRE_PLATFORM_POLL_INTERVAL_MS: "1",
        POSTWIRE_PLATFORM_RETRY_DELAY_MS: "5",
        POSTWIRE_PLATFORM_TIMEOUT_MS: "5000",
        POSTWIRE_PUBLISH_POLL_MS: "50",
        POSTWIRE_COMMENT_POLL_MS: "50",
        POSTWIRE_COMMENT_HOURLY_CALL_BUDGET: String(budget),
        POSTWIRE_RATE_LIMIT_PER_KEY: "100000",
        POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS: "1",
        POSTWIRE_META_WEBHOOK_VERIFY_TOKEN: "verify-e2e",
        POSTWIRE_META_APP_SECRET: appSecret
      },
      { clock: clock.clock, port: address.port }
    )
    key = (
      await server.admin<{ key: string }>(`/workspaces/${server.workspaceId}/keys`, {
        kind: "live",
        scopes: ["posts:read", "posts:write", "webhooks:read", "webhooks:write", "comments:write"]
      })
    ).key
    const endpoint = await send("POST", "/v1/webhooks", { url: receiver.url, events: ["comment.created"] })
    expect(endpoint.status).toBe(201)
    receiver.secret = endpoint.body.secret
    accounts.photo = await aLiveAccount("photo", "maya.bakes", InstagramFake.igUserId, { access_token: ig.accessToken })
    accounts.textpost = await aLiveAccount("textpost", "maya.bakes", ThreadsFake.threadsUserId, { access_token: th.accessToken })
    accounts.pages = await aLiveAccount("pages", "Maya Bakes", FacebookPagesFake.pageId, { page_access_token: fb.pageAccessToken })
    accounts.shortvideo = await aLiveAccount("shortvideo", "maya.bakes", "open-id-e2e", { access_token: "act.1", refresh_token: "rft.1" })
    const image = await anImage(server, key)
    posts.photo.id = await publish(accounts.photo, "Crumb shot", image)
    posts.photo.platformPostId = ig.media[0]!.id
    posts.pages.id = await publish(accounts.pages, "Saturday bake sale", image)
    posts.pages.platformPostId = fb.posts[0]!.id
    posts.textpost.id = await publish(accounts.textpost, "New loaf drop", image)
    posts.textpost.platformPostId = th.media[0]!.id
  })
  afterAll(async () => {
    await server?.stop()
    await receiver?.close()
    if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  /** Someone comments at the fake of `platform` (under `parentId` when given). */
  const commentAt = (platform: "photo" | "pages" | "textpost", text: string, parentId?: string): FakeComment => {
    const on = posts[platform].platformPostId
    const input = { on, text, username: `fan_${Math.random().toString(36).slice(2, 8)}`, ...(parentId === undefined ? {} : { parentId }) }
    return platform === "photo" ? ig.comment(input) : platform === "pages" ? fb.comment(input) : th.reply(input)
  }

  it("brings comments made at each platform to the API, once each, with one comment.created each", async () => {
    for (const platform of ["photo", "pages", "textpost"] as const) {
      nextHour()
      const first = commentAt(platform, `${platform}: looks delicious`)
      commentAt(platform, `${platform}: where is the shop?`)
      commentAt(platform, `${platform}: an answer among people`, first.id)
      const listed = await pollUntil(posts[platform].id, 3)
      const byText = new Map(listed.body.data.map((c: any) => [c.text, c]))
      expect(byText.get(`${platform}: looks delicious`)).toMatchObject({
        platform,
        account_id: accounts[platform],
        post_id: posts[platform].id,
        platform_comment_id: first.id,
        parent_id: null,
        hidden: false,
        from_owner: false
      })
      const parent = byText.get(`${platform}: looks delicious`) as { id: string }
      expect(byText.get(`${platform}: an answer among people`)).toMatchObject({ parent_id: parent.id })
      await receiver.waitUntil(() => createdEventsOf(posts[platform].id).length >= 3, `three comment.created for ${platform}`)
      // More polls, each run to its end at the platform: nothing is listed or announced twice.
      const requestsBefore = requestsAt(platform)
      for (let i = 0; i < 3; i++) {
        nextHour()
        await caughtUp(platform)
      }
      expect(requestsAt(platform) - requestsBefore).toBeGreaterThanOrEqual(3)
      expect((await commentsOf(posts[platform].id)).body.data).toHaveLength(3)
      expect(await announcedOf(posts[platform].id)).toHaveLength(3)
      expect(createdEventsOf(posts[platform].id)).toHaveLength(3)
    }
  })

  it("answers, hides, shows again and deletes at the platform as the account", async () => {
    for (const platform of ["photo", "pages", "textpost"] as const) {
      nextHour()
      const before = (await commentsOf(posts[platform].id)).body.data.length as number
      const question = commentAt(platform, `${platform}: open on Sunday?`)
      const listed = await pollUntil(posts[platform].id, before + 1)
      const comment = listed.body.data.find((c: any) => c.platform_comment_id === question.id)
      const answered = await send("POST", `/v1/comments/${comment.id}/replies`, { text: `${platform}: yes, 8 to 12` }, { "idempotency-key": `e2e-${platform}` })
      expect(answered.status, JSON.stringify(answered.body)).toBe(201)
      expect(answered.body).toMatchObject({ parent_id: comment.id, from_owner: true, text: `${platform}: yes, 8 to 12` })
      const store = platform === "photo" ? ig.comments : platform === "pages" ? fb.comments : th.replies
      const atPlatform = store.find(answered.body.platform_comment_id)!
      expect(atPlatform.text).toBe(`${platform}: yes, 8 to 12`)
      expect(atPlatform.byOwner).toBe(true)
      expect(atPlatform.parentId).toBe(question.id)

      const hidden = await send("POST", `/v1/comments/${comment.id}/hide`)
      expect(hidden.status, JSON.stringify(hidden.body)).toBe(200)
      expect(store.find(question.id)!.hidden).toBe(true)
      const shown = await send("POST", `/v1/comments/${comment.id}/unhide`)
      expect(shown.status).toBe(200)
      expect(store.find(question.id)!.hidden).toBe(false)
      // Threads deletes only the account's own replies: the answer.
      const toDelete = platform === "textpost" ? answered.body.id : comment.id
      const deleted = await send("DELETE", `/v1/comments/${toDelete}`)
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(200)
      expect(store.find(platform === "textpost" ? answered.body.platform_comment_id : question.id)).toBeUndefined()
    }
    const tokens = [
      ...ig.requests.filter((r) => commentRoutes.has(r.route)).map((r) => r.params.access_token === ig.accessToken),
      ...fb.requests.filter((r) => r.route.startsWith("comment")).map((r) => r.params.access_token === fb.pageAccessToken),
      ...th.requests.filter((r) => commentRoutes.has(r.route)).map((r) => r.params.access_token === th.accessToken)
    ]
    expect(tokens.length).toBeGreaterThan(0)
    expect(tokens.every((ok) => ok)).toBe(true)
  })

  it("stores a comment Meta pushes at once, and the poll that sees it later neither stores nor announces it again", async () => {
    const deliveries = {
      photo: (c: FakeComment) => MetaWebhookFake.instagramComment(InstagramFake.igUserId, c),
      pages: (c: FakeComment) => MetaWebhookFake.pageComment(FacebookPagesFake.pageId, c),
      textpost: (c: FakeComment) => MetaWebhookFake.threadsReply(ThreadsFake.threadsUserId, ThreadsFake.username, c)
    }
    for (const platform of ["photo", "pages", "textpost"] as const) {
      nextHour()
      // The poll the new hour made due runs to its end; with the clock still, no other is due, so
      // only the push can bring the next comment in (a poll in between would store it first).
      await caughtUp(platform)
      const postId = posts[platform].id
      const before = (await commentsOf(postId)).body.data.length as number
      const pushed = commentAt(platform, `${platform}: pushed by Meta`)
      const delivery = MetaWebhookFake.sign(deliveries[platform](pushed), appSecret)
      const stored = await call(server.baseUrl, "POST", "/platform-hooks/meta", {
        body: delivery.text,
        headers: { "content-type": "application/json", "x-hub-signature-256": delivery.header }
      })
      expect(stored.status, JSON.stringify(stored.body)).toBe(200)
      expect(stored.body).toEqual({ received: true, stored: 1 })
      const listed = await commentsOf(postId)
      expect(listed.body.data).toHaveLength(before + 1)
      expect(listed.body.data.some((c: any) => c.platform_comment_id === pushed.id)).toBe(true)
      // The next poll reads the same comment at the platform, and runs to its end.
      const polled = requestsAt(platform)
      nextHour()
      await caughtUp(platform)
      expect(requestsAt(platform)).toBeGreaterThan(polled)
      expect((await commentsOf(postId)).body.data).toHaveLength(before + 1)
      const announced = (await announcedOf(postId)).filter((e) => e.data.platform_comment_id === pushed.id)
      expect(announced).toHaveLength(1)
      // Counted for this comment only: the events of the comments before it may still be on
      // their way on a slow machine.
      const eventsOfPushed = () =>
        createdEventsOf(postId).filter((e) => (e.data as { platform_comment_id?: string }).platform_comment_id === pushed.id)
      await receiver.waitUntil(() => eventsOfPushed().length >= 1, `the pushed ${platform} comment.created`)
      expect(eventsOfPushed()).toHaveLength(1)
    }
  })

  it("refuses a delivery whose signature Meta did not make", async () => {
    const pushed = commentAt("photo", "forged")
    const forged = MetaWebhookFake.sign(MetaWebhookFake.instagramComment(InstagramFake.igUserId, pushed), "not-the-app-secret")
    const refused = await call(server.baseUrl, "POST", "/platform-hooks/meta", {
      body: forged.text,
      headers: { "content-type": "application/json", "x-hub-signature-256": forged.header }
    })
    expect(refused.status).toBe(401)
    expect(errorOf(refused).code).toBe("platform_hook_unverified")
    const listed = await commentsOf(posts.photo.id)
    expect(listed.body.data.some((c: any) => c.platform_comment_id === pushed.id)).toBe(false)
    ig.comments.remove(pushed.id)
  })

  it("lists no comments for a TikTok account, and says it cannot read them", async () => {
    const account = await send("GET", `/v1/accounts/${accounts.shortvideo}`)
    expect(account.body.comments).toEqual({ read: false, reply: false, hide: false, delete: false, push: false })
    const listed = await send("GET", `/v1/comments?account_id=${accounts.shortvideo}`)
    expect(listed.status).toBe(200)
    expect(listed.body.data).toEqual([])
    for (const platform of ["photo", "pages", "textpost"] as const) {
      expect((await send("GET", `/v1/accounts/${accounts[platform]}`)).body.comments).toEqual({
        read: true,
        reply: true,
        hide: true,
        delete: true,
        push: true
      })
    }
  })

  it("keeps each account's comment polls within its hourly budget, counted at the platform", async () => {
    const countBefore = ig.requests.filter((r) => commentRoutes.has(r.route)).length
    // Something new before every poll: each poll costs two calls at Instagram. The clock moves
    // on by the post's schedule (5 minutes) once the poll it made due has run to its end.
    commentAt("photo", "burst 0")
    nextHour()
    const start = clock.now()
    const windowEnd = start - (start % hour) + hour
    await caughtUp("photo")
    for (let i = 1; i < 8 && clock.now() + 5 * minute < windowEnd; i++) {
      commentAt("photo", `burst ${i}`)
      clock.advance(5 * minute)
      await caughtUp("photo")
    }
    const spent = ig.requests.filter((r) => commentRoutes.has(r.route)).length - countBefore
    expect(spent).toBeGreaterThan(0)
    // A poll takes one call from the budget before it runs and adds its extra ones after.
    expect(spent).toBeLessThanOrEqual(budget + 1)
    // The poller did ask once the budget was spent: that poll was put off to the next hour.
    expect((await CommentPolls.pollStateOf(server, await targetOf("photo"))).nextPollAt).toBe(windowEnd)
    // The next hour, polling goes on and brings the rest.
    nextHour()
    await eventually(
      async () => {
        clock.advance(minute)
        return commentsOf(posts.photo.id)
      },
      (reply) => (reply.body.data as Array<any>).filter((c) => String(c.text).startsWith("burst ")).length === 8,
      "the burst listed"
    )
  })
})
