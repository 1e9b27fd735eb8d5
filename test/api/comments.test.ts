/**
 * Comments through the real server: a sandbox account whose simulated platform makes comments
 * under what it publishes, a movable clock through the polling schedule, the API to read, answer
 * and moderate, a webhook receiver counting `comment.created`, and Meta's comment webhook
 * delivered signed as Meta signs it.
 */
import { createHmac } from "node:crypto"
import { SimulatedPlatform } from "@postwire/platforms"
import { Effect, Stream } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Postwire, PostwireApiError, PostwireClient } from "@postwire/client"
import { accountOf, aKeyWithScopes, anImage, aPost } from "../support/Builders.ts"
import * as CommentPolls from "../support/CommentPolls.ts"
import { eventually } from "../support/Eventually.ts"
import { call, errorOf, type Reply } from "../support/Http.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"
import { aMovableClock, type MovableClock } from "../support/MovableClock.ts"
import { aReceiver, type Receiver } from "../webhooks/Receiver.ts"

const minute = 60_000
const hour = 60 * minute
const day = 24 * hour
const appSecret = "meta-app-secret-for-tests"
const verifyToken = "verify-me-please"

/** Meta's signature of a raw body: `sha256=<hex HMAC-SHA256>` under the app secret. */
const metaSignature = (body: string, secret = appSecret) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`

describe.each(backends())("comments on %s", (backend) => {
  let server: TestServer
  let clock: MovableClock
  let receiver: Receiver
  let image: string
  const send = (method: string, path: string, body?: unknown, key = server.testKey, headers?: Record<string, string>): Promise<Reply> =>
    call(server.baseUrl, method, path, { key, body, ...(headers === undefined ? {} : { headers }) })

  /** A sandbox Instagram account whose followers comment `count` times, once every `every` seconds. */
  const aCommentedAccount = async (count: number, every = 60) =>
    server.admin<{ id: string }>(`/workspaces/${server.workspaceId}/accounts`, {
      profile_id: server.profileId,
      platform: "photo",
      sandbox: true,
      handle: "kopi.senja",
      external_id: `1784140${Math.floor(Math.random() * 1e9)}`,
      simulate: { comments: { count, every_seconds: every } }
    })

  /** Publishes a post to the account now and returns the post and its target once published. */
  const aPublishedPost = async (accountId: string) => {
    const created = await send("POST", "/v1/posts", aPost(server, [image], { approval: { mode: "none" }, targets: [{ account_id: accountId }] }))
    expect(created.status).toBe(201)
    const post = await eventually(
      () => send("GET", `/v1/posts/${created.body.id}`),
      (reply) => reply.body.status === "published",
      "the post to publish"
    )
    return { postId: post.body.id as string, targetId: post.body.targets[0].id as string }
  }

  const commentsOf = (postId: string, query = "") => send("GET", `/v1/comments?post_id=${postId}&limit=100${query}`)

  /** Moves the server's clock forward and waits until the post shows `count` comments. */
  const advanceUntil = async (postId: string, ms: number, count: number) => {
    clock.advance(ms)
    return eventually(() => commentsOf(postId), (reply) => reply.body.data?.length === count, `${count} comments`)
  }

  const createdEventsOf = (postId: string) =>
    receiver.events.filter((e) => e.type === "comment.created" && (e.data as { post_id?: string }).post_id === postId)

  beforeAll(async () => {
    clock = aMovableClock()
    receiver = await aReceiver()
    receiver.now = clock.nowSeconds
    server = await startServer(
      backend,
      {
        POSTWIRE_PUBLISH_POLL_MS: "100",
        POSTWIRE_COMMENT_POLL_MS: "100",
        POSTWIRE_RATE_LIMIT_PER_KEY: "100000",
        POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS: "1",
        POSTWIRE_META_WEBHOOK_VERIFY_TOKEN: verifyToken,
        POSTWIRE_META_APP_SECRET: appSecret
      },
      { clock: clock.clock }
    )
    const endpoint = await send("POST", "/v1/webhooks", { url: receiver.url, events: ["comment.created"] })
    expect(endpoint.status).toBe(201)
    receiver.secret = endpoint.body.secret
    image = await anImage(server)
  })
  afterAll(async () => {
    await server?.stop()
    await receiver?.close()
  })

  it("lists each comment of a published post once, through the polling schedule to its end, with one comment.created each", async () => {
    const account = await aCommentedAccount(3)
    const { postId, targetId } = await aPublishedPost(account.id)
    for (let i = 1; i <= 3; i++) await advanceUntil(postId, minute, i)
    await receiver.waitUntil(() => createdEventsOf(postId).length >= 3, "three comment.created")
    // Days pass: the schedule slows down and stops after 30 days; each poll runs to its end, and
    // nothing is listed twice.
    for (const step of [hour, day, 7 * day, 30 * day]) {
      clock.advance(step)
      await CommentPolls.caughtUp(server, targetId, clock.now())
    }
    expect((await CommentPolls.pollStateOf(server, targetId)).nextPollAt).toBeNull()
    const listed = await commentsOf(postId)
    expect(listed.status).toBe(200)
    expect(listed.body.data).toHaveLength(3)
    const [newest] = listed.body.data
    expect(newest).toMatchObject({
      post_id: postId,
      target_id: targetId,
      account_id: account.id,
      platform: "photo",
      parent_id: null,
      hidden: false,
      from_owner: false
    })
    expect(newest.id).toMatch(/^cmt_/)
    expect(newest.author.handle).toEqual(expect.any(String))
    expect(Date.parse(listed.body.data[0].created_at)).toBeGreaterThan(Date.parse(listed.body.data[2].created_at))
    const events = createdEventsOf(postId)
    expect(events.map((e) => (e.data as { id: string }).id).sort()).toEqual(listed.body.data.map((c: { id: string }) => c.id).sort())
    const announced = events[0]!.data as { id: string }
    expect(announced).toEqual(listed.body.data.find((c: { id: string }) => c.id === announced.id))
    const one = await send("GET", `/v1/comments/${newest.id}`)
    expect(one.body).toEqual(newest)
  })

  it("gives a first start's sandbox accounts comments under what they publish, three a minute apart", async () => {
    // The seeded accounts (`sandbox-photo`, …) are what a newcomer tries first: their posts get comments too.
    const seeded = accountOf(server, "photo")
    const account = await send("GET", `/v1/accounts/${seeded}`)
    expect(account.body).toMatchObject({ handle: "sandbox-photo", sandbox: true })
    const { postId } = await aPublishedPost(seeded)
    for (let i = 1; i <= 3; i++) await advanceUntil(postId, minute, i)
    const listed = await commentsOf(postId)
    expect(listed.body.data.map((c: { account_id: string }) => c.account_id)).toEqual([seeded, seeded, seeded])
  })

  it("answers, hides, shows again and deletes a comment through the API", async () => {
    const account = await aCommentedAccount(1)
    const { postId } = await aPublishedPost(account.id)
    const listed = await advanceUntil(postId, minute, 1)
    const comment = listed.body.data[0]

    const headers = { "idempotency-key": `reply-${comment.id}` }
    const reply = await send("POST", `/v1/comments/${comment.id}/replies`, { text: "Terima kasih! 🙏" }, server.testKey, headers)
    expect(reply.status).toBe(201)
    expect(reply.body).toMatchObject({ parent_id: comment.id, text: "Terima kasih! 🙏", from_owner: true, post_id: postId })
    const again = await send("POST", `/v1/comments/${comment.id}/replies`, { text: "Terima kasih! 🙏" }, server.testKey, headers)
    expect(again.status).toBe(201)
    expect(again.body.id).toBe(reply.body.id)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    await receiver.waitUntil(
      () => createdEventsOf(postId).some((e) => (e.data as { id: string }).id === reply.body.id),
      "the answer's comment.created"
    )
    expect((await commentsOf(postId)).body.data).toHaveLength(2)

    const hidden = await send("POST", `/v1/comments/${comment.id}/hide`)
    expect(hidden.status).toBe(200)
    expect(hidden.body).toMatchObject({ id: comment.id, hidden: true })
    expect((await commentsOf(postId, "&hidden=true")).body.data.map((c: { id: string }) => c.id)).toEqual([comment.id])
    const shown = await send("POST", `/v1/comments/${comment.id}/unhide`)
    expect(shown.body.hidden).toBe(false)
    expect((await commentsOf(postId, "&hidden=true")).body.data).toEqual([])

    const deleted = await send("DELETE", `/v1/comments/${comment.id}`)
    expect(deleted.status).toBe(200)
    expect(deleted.body).toEqual({ id: comment.id, deleted: true })
    const gone = await send("GET", `/v1/comments/${comment.id}`)
    expect(gone.status).toBe(404)
    expect(errorOf(gone).code).toBe("not_found")
    expect((await commentsOf(postId)).body.data.map((c: { id: string }) => c.id)).toEqual([reply.body.id])
  })

  it("reads, answers, hides, shows again and deletes through the SDK, Promise and Effect alike", async () => {
    const account = await aCommentedAccount(3)
    const { postId } = await aPublishedPost(account.id)
    await advanceUntil(postId, 3 * minute, 3)
    const postwire = new Postwire({ apiKey: server.testKey, baseUrl: server.baseUrl })
    const seen: Array<string> = []
    for await (const comment of postwire.comments.list({ post_id: postId, limit: 1 })) seen.push(comment.id)
    expect(seen).toHaveLength(3)
    const first = await postwire.comments.get(seen[0]!)
    const answer = await postwire.comments.reply(first.id, { text: "Sampai jumpa!" })
    expect(answer).toMatchObject({ parent_id: first.id, from_owner: true, text: "Sampai jumpa!" })
    expect((await postwire.comments.hide(first.id)).hidden).toBe(true)
    expect((await postwire.comments.unhide(first.id)).hidden).toBe(false)
    expect(await postwire.comments.delete(answer.id)).toEqual({ id: answer.id, deleted: true })
    const missing = await postwire.comments.get(answer.id).catch((error: unknown) => error)
    expect(missing).toBeInstanceOf(PostwireApiError)
    expect((missing as PostwireApiError).code).toBe("not_found")

    const listed = await Effect.runPromise(
      PostwireClient.use((client) => Stream.runCollect(client.comments.listAll({ post_id: postId, limit: 2 }))).pipe(
        Effect.provide(PostwireClient.layer({ apiKey: server.testKey, baseUrl: server.baseUrl }))
      )
    )
    expect([...listed].map((c) => c.id).sort()).toEqual([...seen].sort())
  })

  it("lets a posts:read key read comments, and needs comments:write to act on them", async () => {
    const account = await aCommentedAccount(1)
    const { postId } = await aPublishedPost(account.id)
    const [comment] = (await advanceUntil(postId, minute, 1)).body.data
    const reader = await aKeyWithScopes(server, ["posts:read"])
    expect((await send("GET", `/v1/comments?post_id=${postId}`, undefined, reader)).status).toBe(200)
    for (const [method, path, body] of [
      ["POST", `/v1/comments/${comment.id}/replies`, { text: "hi" }],
      ["POST", `/v1/comments/${comment.id}/hide`, undefined],
      ["DELETE", `/v1/comments/${comment.id}`, undefined]
    ] as const) {
      const refused = await send(method, path, body, reader)
      expect(refused.status).toBe(403)
      expect(errorOf(refused)).toMatchObject({ code: "insufficient_scope" })
      expect(errorOf(refused).message).toContain("comments:write")
    }
    const writerOnly = await aKeyWithScopes(server, ["comments:write"])
    expect((await send("GET", "/v1/comments", undefined, writerOnly)).status).toBe(403)
    expect((await send("POST", `/v1/comments/${comment.id}/hide`, undefined, writerOnly)).status).toBe(200)
  })

  it("filters and pages the list with a cursor bound to its filters", async () => {
    const account = await aCommentedAccount(5)
    const { postId, targetId } = await aPublishedPost(account.id)
    await advanceUntil(postId, 5 * minute, 5)
    const seen: Array<string> = []
    let cursor: string | null = null
    do {
      const page: Reply = await send("GET", `/v1/comments?account_id=${account.id}&limit=2${cursor === null ? "" : `&cursor=${cursor}`}`)
      expect(page.status).toBe(200)
      expect(page.body.data.length).toBeLessThanOrEqual(2)
      seen.push(...page.body.data.map((c: { id: string }) => c.id))
      cursor = page.body.cursor.next
    } while (cursor !== null)
    expect(seen).toHaveLength(5)
    expect(new Set(seen).size).toBe(5)
    expect((await send("GET", `/v1/comments?target_id=${targetId}&platform=photo`)).body.data).toHaveLength(5)
    expect((await send("GET", `/v1/comments?post_id=${postId}&platform=pages`)).body.data).toHaveLength(0)
    const first = await send("GET", `/v1/comments?account_id=${account.id}&limit=2`)
    const otherFilters = await send("GET", `/v1/comments?post_id=${postId}&limit=2&cursor=${first.body.cursor.next}`)
    expect(otherFilters.status).toBe(400)
    expect(errorOf(otherFilters)).toMatchObject({ code: "invalid_cursor", field: "cursor" })
    const backwards = await send("GET", "/v1/comments?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z")
    expect(backwards.status).toBe(400)
    expect(errorOf(backwards)).toMatchObject({ code: "invalid_range", field: "to" })
    const unknown = await send("GET", "/v1/comments/cmt_01J0000000000000000000000")
    expect(unknown.status).toBe(404)
  })

  it("shows each account's comment capabilities", async () => {
    const sandbox = await send("GET", `/v1/accounts/${server.accounts[0]!.id}`)
    expect(sandbox.body.comments).toEqual({ read: true, reply: true, hide: true, delete: true, push: false })
    const liveKey = await aKeyWithScopes(server, ["posts:read"], "live")
    for (const [platform, comments] of [
      ["shortvideo", { read: false, reply: false, hide: false, delete: false, push: false }],
      ["photo", { read: true, reply: true, hide: true, delete: true, push: true }]
    ] as const) {
      const live = await server.admin<{ id: string }>(`/workspaces/${server.workspaceId}/accounts`, {
        profile_id: server.profileId,
        platform,
        sandbox: false
      })
      const read = await send("GET", `/v1/accounts/${live.id}`, undefined, liveKey)
      expect(read.status).toBe(200)
      expect(read.body.comments).toEqual(comments)
      // No comment access on TikTok: its comments list is an empty page, not an error.
      if (platform === "shortvideo") {
        const page = await send("GET", `/v1/comments?account_id=${live.id}`, undefined, liveKey)
        expect(page.body).toEqual({ data: [], cursor: { next: null, has_more: false } })
      }
    }
  })

  describe("Meta's webhook", () => {
    it("answers the subscription check with the configured verify token only", async () => {
      const ok = await call(server.baseUrl, "GET", `/platform-hooks/meta?hub.mode=subscribe&hub.verify_token=${verifyToken}&hub.challenge=1158201444`)
      expect(ok.status).toBe(200)
      expect(String(ok.body)).toBe("1158201444")
      const wrong = await call(server.baseUrl, "GET", "/platform-hooks/meta?hub.mode=subscribe&hub.verify_token=guess&hub.challenge=1")
      expect(wrong.status).toBe(401)
      expect(errorOf(wrong).code).toBe("platform_hook_unverified")
    })

    it("refuses a forged delivery with 401 in the shared shape, and stores nothing", async () => {
      const body = JSON.stringify({ object: "instagram", entry: [] })
      for (const signature of [metaSignature(body, "not-the-secret"), "sha256=00", undefined]) {
        const refused = await call(server.baseUrl, "POST", "/platform-hooks/meta", {
          body,
          headers: { "content-type": "application/json", ...(signature === undefined ? {} : { "x-hub-signature-256": signature }) }
        })
        expect(refused.status).toBe(401)
        expect(errorOf(refused)).toMatchObject({ code: "platform_hook_unverified", retryable: false })
      }
    })

    it("stores a pushed comment once, also when a poll sees it too, with one comment.created", async () => {
      const account = await server.admin<{ id: string; external_id?: string }>(`/workspaces/${server.workspaceId}/accounts`, {
        profile_id: server.profileId,
        platform: "photo",
        sandbox: true,
        handle: "teh.pagi",
        external_id: "17841405822304914",
        simulate: { comments: { count: 1, every_seconds: 60 } }
      })
      const { postId, targetId } = await aPublishedPost(account.id)
      const polled = (await advanceUntil(postId, minute, 1)).body.data[0]
      // The simulated platform's id of the published item, as Meta would name the media.
      const media = SimulatedPlatform.simulatedPost({
        account: { id: account.id, handle: "teh.pagi", platform: "photo", externalId: "17841405822304914" },
        target: { id: targetId, options: {} },
        media: [{ record: { kind: "image", mime: "image/png" } }]
      } as never).id
      const deliver = async (commentId: string, text: string) => {
        const body = JSON.stringify({
          object: "instagram",
          entry: [
            {
              id: "17841405822304914",
              time: Math.floor(clock.now() / 1000),
              changes: [
                { field: "comments", value: { id: commentId, from: { id: "9001", username: "dewi.runs" }, text, media: { id: media, media_product_type: "FEED" } } }
              ]
            }
          ]
        })
        return call(server.baseUrl, "POST", "/platform-hooks/meta", {
          body,
          headers: { "content-type": "application/json", "x-hub-signature-256": metaSignature(body) }
        })
      }
      // The comment the poll already stored: nothing new.
      const seenBefore = await deliver(polled.platform_comment_id, polled.text)
      expect(seenBefore.status).toBe(200)
      expect(seenBefore.body).toEqual({ received: true, stored: 0 })
      // A new one, delivered twice (Meta retries): stored once.
      const fresh = await deliver("18024568761234567", "Mau pesan dua!")
      expect(fresh.body).toEqual({ received: true, stored: 1 })
      expect((await deliver("18024568761234567", "Mau pesan dua!")).body).toEqual({ received: true, stored: 0 })
      const listed = await commentsOf(postId)
      expect(listed.body.data.map((c: { platform_comment_id: string }) => c.platform_comment_id).sort()).toEqual(
        ["18024568761234567", polled.platform_comment_id].sort()
      )
      expect(listed.body.data.find((c: { text: string }) => c.text === "Mau pesan dua!").author).toEqual({ handle: "dewi.runs" })
      await receiver.waitUntil(() => createdEventsOf(postId).length >= 2, "two comment.created")
      expect(createdEventsOf(postId)).toHaveLength(2)
    })
  })
})
