/**
 * Two server instances on one PostgreSQL poll the same published targets: the leases and the
 * unique comment key make each comment listed once, with one `comment.created` each.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { anImage, aPost } from "../support/Builders.ts"
import * as CommentPolls from "../support/CommentPolls.ts"
import { eventually } from "../support/Eventually.ts"
import { call } from "../support/Http.ts"
import { aDatabase, backends, startServer, type TestDatabase, type TestServer } from "../support/TestServer.ts"
import { aMovableClock, type MovableClock } from "../support/MovableClock.ts"
import { aReceiver, type Receiver } from "../webhooks/Receiver.ts"

describe.runIf(backends().includes("postgres"))("comments polled by two instances on PostgreSQL", () => {
  let database: TestDatabase
  let first: TestServer
  let second: TestServer
  let clock: MovableClock
  let receiver: Receiver

  beforeAll(async () => {
    clock = aMovableClock()
    receiver = await aReceiver()
    receiver.now = clock.nowSeconds
    database = await aDatabase("postgres")
    const env = {
      POSTWIRE_PUBLISH_POLL_MS: "100",
      // Both instances look for due polls all the time, so they meet on the same targets.
      POSTWIRE_COMMENT_POLL_MS: "20",
      POSTWIRE_RATE_LIMIT_PER_KEY: "100000",
      POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS: "1"
    }
    first = await startServer("postgres", env, { clock: clock.clock, database })
    second = await startServer("postgres", env, { clock: clock.clock, database })
  })
  afterAll(async () => {
    await first?.stop()
    await second?.stop()
    await receiver?.close()
    await database?.drop()
  })

  it("lists every comment once and announces each once", async () => {
    const endpoint = await call(first.baseUrl, "POST", "/v1/webhooks", {
      key: first.testKey,
      body: { url: receiver.url, events: ["comment.created"] }
    })
    receiver.secret = endpoint.body.secret
    const image = await anImage(first)
    const posts: Array<string> = []
    for (let n = 0; n < 3; n++) {
      const account = await first.admin<{ id: string }>(`/workspaces/${first.workspaceId}/accounts`, {
        profile_id: first.profileId,
        platform: "photo",
        sandbox: true,
        simulate: { comments: { count: 12, every_seconds: 5 } }
      })
      const created = await call(first.baseUrl, "POST", "/v1/posts", {
        key: first.testKey,
        body: aPost(first, [image], { approval: { mode: "none" }, targets: [{ account_id: account.id }] })
      })
      posts.push(created.body.id)
    }
    for (const id of posts) {
      await eventually(
        () => call(second.baseUrl, "GET", `/v1/posts/${id}`, { key: second.testKey }),
        (reply) => reply.body.status === "published",
        "published"
      )
    }
    // Twelve minutes, one at a time, both instances polling: each minute's polls run to their end
    // before the clock moves on.
    const targets = await Promise.all(
      posts.map(async (id) => (await call(first.baseUrl, "GET", `/v1/posts/${id}`, { key: first.testKey })).body.targets[0].id as string)
    )
    for (let step = 0; step < 12; step++) {
      clock.advance(60_000)
      const at = clock.now()
      await Promise.all(targets.map((target) => CommentPolls.caughtUp(first, target, at)))
    }
    const listAll = () => Promise.all(posts.map((id) => call(first.baseUrl, "GET", `/v1/comments?post_id=${id}&limit=100`, { key: first.testKey })))
    const lists = await eventually(listAll, (replies) => replies.every((reply) => reply.body.data?.length >= 12), "twelve comments on each post")
    for (const [i, listed] of lists.entries()) {
      expect(listed.body.data).toHaveLength(12)
      expect(new Set(listed.body.data.map((c: { platform_comment_id: string }) => c.platform_comment_id)).size).toBe(12)
      // Announced once each, in the outbox the comments were stored with.
      const events = await call(first.baseUrl, "GET", `/v1/events?type=comment.created&post_id=${posts[i]}&limit=100`, { key: first.testKey })
      expect(events.status, JSON.stringify(events.body)).toBe(200)
      expect(new Set(events.body.data.map((e: { data: { id: string } }) => e.data.id))).toEqual(new Set(listed.body.data.map((c: { id: string }) => c.id)))
      expect(events.body.data).toHaveLength(12)
    }
    await receiver.waitUntil(() => receiver.events.length >= 36, "36 comment.created")
    const announced = receiver.events.map((e) => (e.data as { id: string }).id)
    expect(announced).toHaveLength(36)
    expect(new Set(announced).size).toBe(36)
  })
})
