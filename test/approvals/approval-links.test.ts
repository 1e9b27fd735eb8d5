/**
 * Who sees approval links (issue #37, F2 and F3): a key made with `approval_links: hidden` (for
 * agents and integrations) never holds a link that approves a post, in any answer, event or
 * delivery log entry; keys made without the option see them as before. Black-box over HTTP on
 * both databases, with a loopback receiver that echoes what it received (so the delivery log
 * would show the link if anything did).
 */
import { Postwire } from "@postwire/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { anImage, aPost } from "../support/Builders.ts"
import { eventually } from "../support/Eventually.ts"
import { call } from "../support/Http.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"
import { aReceiver, type Receiver } from "../webhooks/Receiver.ts"

const everyScope = ["posts:read", "posts:write", "webhooks:read", "webhooks:write", "accounts:write", "comments:write"]
const anyLink = /\/approve\/[A-Za-z0-9_-]{20,}/

describe.each(backends())("approval links on %s", (backend) => {
  let server: TestServer
  let receiver: Receiver
  let image: string
  let hidden: { id: string; key: string }
  let readOnly: { id: string; key: string }

  const get = (path: string, key: string) => call(server.baseUrl, "GET", path, { key })

  beforeAll(async () => {
    server = await startServer(backend, { POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS: "1" })
    receiver = await aReceiver()
    image = await anImage(server)
    const keys = `/workspaces/${server.workspaceId}/keys`
    hidden = await server.admin(keys, { kind: "test", scopes: everyScope, approval_links: "hidden" })
    readOnly = await server.admin(keys, { kind: "test", scopes: ["posts:read", "webhooks:read"], approval_links: "hidden" })
  })
  afterAll(async () => {
    await receiver?.close()
    await server?.stop()
  })

  it("lists each key with its approval_links, existing and default keys shown", async () => {
    const reply = await call(server.baseUrl, "GET", `/admin/v1/workspaces/${server.workspaceId}/keys`, { key: server.adminToken })
    const byId = new Map(reply.body.data.map((key: { id: string; approval_links: string }) => [key.id, key.approval_links]))
    expect(byId.get(hidden.id)).toBe("hidden")
    expect(byId.get(readOnly.id)).toBe("hidden")
    expect([...byId.values()].filter((links) => links === "shown")).toHaveLength(reply.body.data.length - 2)
    const bad = await call(server.baseUrl, "POST", `/admin/v1/workspaces/${server.workspaceId}/keys`, {
      key: server.adminToken,
      body: { kind: "test", scopes: ["posts:read"], approval_links: "sometimes" }
    })
    expect(bad.status).toBe(400)
    expect(bad.body.error.field).toBe("approval_links")
  })

  it("never shows a hidden key the link, in posts, lists, replays, events or the delivery log; a shown key still sees it", async () => {
    // The receiver answers with a link, as one echoing what it received would: the log keeps answers.
    const echoed = `${server.baseUrl}/approve/${"e".repeat(43)}`
    const endpoint = await call(server.baseUrl, "POST", "/v1/webhooks", {
      key: server.testKey,
      body: { url: receiver.url, events: ["post.awaiting_approval"] }
    })
    expect(endpoint.status).toBe(201)
    receiver.secret = endpoint.body.secret
    receiver.mode = 200
    receiver.answerBody = JSON.stringify({ received: echoed })
    const caption = `Hidden link ${Math.random()}`
    const created = await call(server.baseUrl, "POST", "/v1/posts", {
      key: hidden.key,
      body: aPost(server, [image], { caption }),
      headers: { "idempotency-key": `hidden-${caption}` }
    })
    expect(created.status).toBe(201)
    expect(created.body.approval).toMatchObject({ status: "pending", url: null })
    const replayed = await call(server.baseUrl, "POST", "/v1/posts", {
      key: hidden.key,
      body: aPost(server, [image], { caption }),
      headers: { "idempotency-key": `hidden-${caption}` }
    })
    expect(replayed.body.id).toBe(created.body.id)
    const postId = created.body.id as string

    // The application that holds a shown key (the first-run key) sees the link, as before.
    const shown = await get(`/v1/posts/${postId}`, server.testKey)
    const link = shown.body.approval.url as string
    expect(link).toMatch(anyLink)
    const shownEvents = await get(`/v1/events?type=post.awaiting_approval&post_id=${postId}`, server.testKey)
    expect(shownEvents.body.data[0].data.approval_url).toBe(link)

    // The application's receiver (the workspace's own system) gets the link in the signed delivery.
    await receiver.waitUntil(() => receiver.events.some((e) => (e.data as { post_id?: string }).post_id === postId), "the delivery")
    const delivered = receiver.events.find((e) => (e.data as { post_id?: string }).post_id === postId)!
    expect((delivered.data as { approval_url: string }).approval_url).toBe(link)

    const deliveries = `/v1/webhooks/${endpoint.body.id}/deliveries`
    await eventually(() => get(deliveries, server.testKey), (reply) => reply.body.data?.[0]?.last_attempt !== null, "the logged attempt")
    const logged = await get(deliveries, server.testKey)
    const deliveryId = logged.body.data[0].id as string
    expect(logged.body.data[0].last_attempt.response_body).toContain(echoed)

    for (const key of [hidden.key, readOnly.key]) {
      const reads = [
        await get(`/v1/posts/${postId}`, key),
        await get(`/v1/posts?status=awaiting_approval&limit=100`, key),
        await get(`/v1/events?type=post.awaiting_approval&post_id=${postId}`, key),
        await get(`/v1/events/${shownEvents.body.data[0].id}`, key),
        await get(deliveries, key),
        await get(`${deliveries}/${deliveryId}`, key)
      ]
      for (const read of reads) {
        expect(read.status).toBe(200)
        expect(JSON.stringify(read.body)).not.toMatch(anyLink)
      }
      expect(reads[0]!.body.approval).toMatchObject({ status: "pending", url: null })
      expect(reads[2]!.body.data[0].data).toMatchObject({ post_id: postId, approval_url: null })
      expect(reads[4]!.body.data[0].last_attempt.response_body).toContain("[approval link hidden]")
    }
    const replayedHidden = JSON.stringify(replayed.body)
    expect(replayedHidden).not.toMatch(anyLink)
  })

  it("leaves the link out of deliveries to an endpoint a hidden key registered or changed", async () => {
    const mine = await aReceiver()
    const theirs = await aReceiver()
    try {
      const register = async (key: string, url: string) => {
        const reply = await call(server.baseUrl, "POST", "/v1/webhooks", { key, body: { url, events: ["post.awaiting_approval"] } })
        expect(reply.status).toBe(201)
        return reply.body as { id: string; secret: string }
      }
      const agentsOwn = await register(hidden.key, mine.url)
      mine.secret = agentsOwn.secret
      // The application's endpoint, which the agent's key then points at a receiver of its own.
      const applications = await register(server.testKey, receiver.url)
      const moved = await call(server.baseUrl, "PATCH", `/v1/webhooks/${applications.id}`, { key: hidden.key, body: { url: theirs.url } })
      expect(moved.status).toBe(200)
      theirs.secret = applications.secret
      const created = await call(server.baseUrl, "POST", "/v1/posts", { key: server.testKey, body: aPost(server, [image], { caption: "Delivered" }) })
      const postId = created.body.id as string
      expect(created.body.approval.url).toMatch(anyLink)
      const about = (r: Receiver) => r.events.find((e) => (e.data as { post_id?: string }).post_id === postId)
      await mine.waitUntil(() => about(mine) !== undefined, "the delivery to the agent's endpoint")
      await theirs.waitUntil(() => about(theirs) !== undefined, "the delivery to the moved endpoint")
      for (const r of [mine, theirs]) {
        expect(about(r)!.data).toMatchObject({ post_id: postId, approval_url: null })
        expect(r.raw.map((d) => d.body).join("\n")).not.toMatch(anyLink)
      }
    } finally {
      await mine.close()
      await theirs.close()
    }
  })

  it("hides the link from the SDK an agent uses with a hidden key", async () => {
    const agent = new Postwire({ apiKey: hidden.key, baseUrl: server.baseUrl })
    const created = await agent.posts.create(aPost(server, [image], { caption: "Made by an agent through the SDK" }))
    expect(created.approval?.url).toBeNull()
    expect((await agent.posts.get(created.id)).approval?.url).toBeNull()
    expect(JSON.stringify(await agent.posts.list({ status: "awaiting_approval" }))).not.toMatch(anyLink)
  })

  it("hides the link from any key that asks with Postwire-Approval-Links: hidden", async () => {
    const created = await call(server.baseUrl, "POST", "/v1/posts", {
      key: server.testKey,
      body: aPost(server, [image], { caption: "Asked to hide" }),
      headers: { "postwire-approval-links": "hidden" }
    })
    expect(created.status).toBe(201)
    expect(created.body.approval.url).toBeNull()
    expect((await get(`/v1/posts/${created.body.id}`, server.testKey)).body.approval.url).toMatch(anyLink)
  })
})
