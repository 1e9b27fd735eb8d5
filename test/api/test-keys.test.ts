/**
 * Test and live never mix (issue #37 F1), black-box over HTTP: for every route of the API, a test
 * key (`svc_test_…`) on a live resource is refused with 403 `test_key_live_account` (or, on a
 * list, does not see it), and on a sandbox resource works. The routes and what a test key may
 * do on each are the table "Test keys, route by route" in docs/decisions.md; this suite walks
 * that table, and checks that it names every route the server's OpenAPI document has.
 *
 * Live resources are real: a Threads account whose posts publish to the fake Threads server
 * (test/platforms/fakes), where people comment; sandbox ones publish to the simulated platform.
 */
import { readFileSync } from "node:fs"
import { Effect, Exit, Scope } from "effect"
import { allScopes } from "@postwire/domain"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aPng } from "../support/Media.ts"
import * as ThreadsFake from "../platforms/threads/ThreadsFake.ts"
import { anotherWorkspace, anImage, aPost } from "../support/Builders.ts"
import { eventually } from "../support/Eventually.ts"
import { call, errorOf, type Reply } from "../support/Http.ts"
import { aMovableClock, type MovableClock } from "../support/MovableClock.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"
import { aReceiver, type Receiver } from "../webhooks/Receiver.ts"

const minute = 60_000

/** What a test key may do on a route, as the table in docs/decisions.md says it. */
type Rule = "refused on live" | "live hidden" | "sandbox only" | "allowed" | "no key"

/** The rows of the table "Test keys, route by route" in docs/decisions.md: route and rule. */
const documentedRules = (): ReadonlyMap<string, string> => {
  const text = readFileSync(new URL("../../docs/decisions.md", import.meta.url), "utf8")
  const section = text.slice(text.indexOf("### Test keys, route by route"))
  const rows = new Map<string, string>()
  for (const line of section.split("\n").slice(1)) {
    if (line.startsWith("#")) break
    const match = /^\| `([A-Z]+ \S+)` \| ([a-z ]+?) \|/.exec(line)
    if (match) rows.set(match[1]!, match[2]!)
  }
  return rows
}

describe.each(backends())("test keys on %s", (backend) => {
  let scope: Scope.Closeable
  let threads: ThreadsFake.ThreadsFake
  let clock: MovableClock
  let liveReceiver: Receiver
  let sandboxReceiver: Receiver
  let server: TestServer
  /** A live key of the same workspace, with every scope. */
  let liveKey: string
  /** A workspace that has only sandbox accounts, with its test key: where a test key keeps webhooks. */
  let sandboxWorkspace: { key: string; profileId: string; accountId: string }

  /** Every resource the walk names, live and sandbox. */
  const w = {
    liveAccount: "",
    sandboxAccount: "",
    liveMedia: "",
    sandboxMedia: "",
    livePublished: "",
    sandboxPublished: "",
    liveScheduled: "",
    sandboxScheduled: "",
    liveEvent: "",
    sandboxEvent: "",
    liveComment: "",
    sandboxComment: "",
    liveEndpoint: "",
    sandboxEndpoint: "",
    liveDelivery: "",
    sandboxDelivery: "",
    sandboxUpload: ""
  }

  const send = (method: string, path: string, body?: unknown, key = server.testKey): Promise<Reply> =>
    call(server.baseUrl, method, path, { key, body })
  const asLive = (method: string, path: string, body?: unknown) => send(method, path, body, liveKey)
  const inSandboxWorkspace = (method: string, path: string, body?: unknown) => send(method, path, body, sandboxWorkspace.key)

  /** A one-part upload of a small PNG, completed; returns its media id. */
  const anUploadedImage = async (key: string) => {
    const bytes = aPng({ width: 6, height: 6 })
    const started = await send("POST", "/v1/media/uploads", { filename: "six.png", size: bytes.length, content_type: "image/png" }, key)
    expect(started.status, JSON.stringify(started.body)).toBe(201)
    expect((await putPart(started.body.id, bytes, key)).status).toBe(200)
    expect((await send("POST", `/v1/media/uploads/${started.body.id}/complete`, undefined, key)).status).toBe(200)
    return started.body.id as string
  }
  const putPart = async (id: string, bytes: Uint8Array, key: string): Promise<Reply> => {
    const response = await fetch(`${server.baseUrl}/v1/media/uploads/${id}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${key}`, "content-range": `bytes 0-${bytes.length - 1}/${bytes.length}` },
      body: new Uint8Array(bytes)
    })
    return { status: response.status, headers: response.headers, body: await response.json() }
  }

  const published = (id: string, key: string) =>
    eventually(() => send("GET", `/v1/posts/${id}`, undefined, key), (r) => r.body.status === "published", `${id} published`)

  /** The first comment of a post, moving the clock through the comment polls until there is one. */
  const firstComment = async (postId: string) =>
    (
      await eventually(
        () => asLive("GET", `/v1/comments?post_id=${postId}`),
        (r) => r.body.data?.length > 0,
        `a comment on ${postId}`,
        { step: () => clock.advance(minute), intervalMs: 100 }
      )
    ).body.data[0].id as string

  const firstDelivery = async (endpointId: string, key: string) =>
    (
      await eventually(
        () => send("GET", `/v1/webhooks/${endpointId}/deliveries`, undefined, key),
        (r) => r.body.data?.length > 0,
        `a delivery to ${endpointId}`
      )
    ).body.data[0].id as string

  const eventOf = async (postId: string, key: string) => {
    const events = await send("GET", `/v1/events?post_id=${postId}&type=post.scheduled`, undefined, key)
    expect(events.body.data, JSON.stringify(events.body)).toHaveLength(1)
    return events.body.data[0].id as string
  }

  beforeAll(async () => {
    scope = Effect.runSync(Scope.make())
    threads = await Effect.runPromise(ThreadsFake.make().pipe(Scope.provide(scope)))
    threads.pollsBeforeFinished = -1
    clock = aMovableClock()
    liveReceiver = await aReceiver()
    sandboxReceiver = await aReceiver()
    liveReceiver.now = clock.nowSeconds
    sandboxReceiver.now = clock.nowSeconds
    server = await startServer(
      backend,
      {
        POSTWIRE_THREADS_BASE_URL: threads.url,
        POSTWIRE_THREADS_REFRESH_URL: "none",
        POSTWIRE_PLATFORM_POLL_INTERVAL_MS: "1",
        POSTWIRE_PLATFORM_RETRY_DELAY_MS: "5",
        POSTWIRE_PLATFORM_TIMEOUT_MS: "5000",
        POSTWIRE_PUBLISH_POLL_MS: "50",
        POSTWIRE_COMMENT_POLL_MS: "50",
        POSTWIRE_RATE_LIMIT_PER_KEY: "100000",
        POSTWIRE_RATE_LIMIT_POSTS_CREATE: "100000",
        POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS: "1"
      },
      { clock: clock.clock }
    )
    liveKey = (await server.admin<{ key: string }>(`/workspaces/${server.workspaceId}/keys`, { kind: "live", scopes: allScopes })).key
    sandboxWorkspace = await anotherWorkspace(server, [...allScopes])

    // Webhook endpoints first, so the events below are delivered to them.
    const liveEndpoint = await asLive("POST", "/v1/webhooks", { url: liveReceiver.url, events: ["post.published"] })
    expect(liveEndpoint.status).toBe(201)
    liveReceiver.secret = liveEndpoint.body.secret
    w.liveEndpoint = liveEndpoint.body.id
    const sandboxEndpoint = await inSandboxWorkspace("POST", "/v1/webhooks", { url: sandboxReceiver.url, events: ["post.awaiting_approval"] })
    expect(sandboxEndpoint.status).toBe(201)
    sandboxReceiver.secret = sandboxEndpoint.body.secret
    w.sandboxEndpoint = sandboxEndpoint.body.id

    // A live Threads account and a sandbox photo account whose simulated followers comment.
    w.liveAccount = (
      await server.admin<{ id: string }>(`/workspaces/${server.workspaceId}/accounts`, {
        profile_id: server.profileId,
        platform: "textpost",
        sandbox: false,
        handle: ThreadsFake.username,
        credentials: { access_token: threads.accessToken },
        external_id: ThreadsFake.threadsUserId
      })
    ).id
    w.sandboxAccount = (
      await server.admin<{ id: string }>(`/workspaces/${server.workspaceId}/accounts`, {
        profile_id: server.profileId,
        platform: "photo",
        sandbox: true,
        handle: "kopi.senja",
        external_id: `1784140${Math.floor(Math.random() * 1e9)}`,
        simulate: { comments: { count: 1, every_seconds: 60 } }
      })
    ).id

    w.liveMedia = await anUploadedImage(liveKey)
    w.sandboxMedia = await anUploadedImage(server.testKey)
    const now = { approval: { mode: "none" } }
    const later = { approval: { mode: "none" }, scheduled_at: new Date(clock.now() + 7 * 24 * 60 * minute).toISOString() }
    const onLive = { targets: [{ account_id: w.liveAccount }] }
    const onSandbox = { targets: [{ account_id: w.sandboxAccount }] }

    const livePublished = await asLive("POST", "/v1/posts", aPost(server, [w.liveMedia], { ...now, ...onLive, caption: "Fresh loaves" }))
    expect(livePublished.status, JSON.stringify(livePublished.body)).toBe(201)
    w.livePublished = livePublished.body.id
    const sandboxPublished = await send("POST", "/v1/posts", aPost(server, [w.sandboxMedia], { ...now, ...onSandbox }))
    expect(sandboxPublished.status, JSON.stringify(sandboxPublished.body)).toBe(201)
    w.sandboxPublished = sandboxPublished.body.id
    await published(w.livePublished, liveKey)
    await published(w.sandboxPublished, server.testKey)

    const liveScheduled = await asLive("POST", "/v1/posts", aPost(server, [w.liveMedia], { ...later, ...onLive, caption: "Saturday sale" }))
    expect(liveScheduled.status, JSON.stringify(liveScheduled.body)).toBe(201)
    w.liveScheduled = liveScheduled.body.id
    const sandboxScheduled = await send("POST", "/v1/posts", aPost(server, [w.sandboxMedia], { ...later, ...onSandbox }))
    expect(sandboxScheduled.status).toBe(201)
    w.sandboxScheduled = sandboxScheduled.body.id
    w.liveEvent = await eventOf(w.liveScheduled, liveKey)
    w.sandboxEvent = await eventOf(w.sandboxScheduled, server.testKey)

    threads.reply({ on: threads.media[0]!.id, text: "Still warm?", username: "fan_1" })
    w.liveComment = await firstComment(w.livePublished)
    w.sandboxComment = await firstComment(w.sandboxPublished)

    // A post of the sandbox workspace waits for approval: its event reaches that workspace's endpoint.
    const awaitingApproval = await inSandboxWorkspace("POST", "/v1/posts", {
      ...aPost(server, [await anImage(server, sandboxWorkspace.key)]),
      profile_id: sandboxWorkspace.profileId,
      targets: [{ account_id: sandboxWorkspace.accountId }]
    })
    expect(awaitingApproval.status).toBe(201)
    w.liveDelivery = await firstDelivery(w.liveEndpoint, liveKey)
    w.sandboxDelivery = await firstDelivery(w.sandboxEndpoint, sandboxWorkspace.key)
  }, 120_000)

  afterAll(async () => {
    await server?.stop()
    await liveReceiver?.close()
    await sandboxReceiver?.close()
    if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  /** 403 `test_key_live_account` in the shared shape, naming `field`. */
  const refused = (reply: Reply, field = "id") => {
    expect(reply.status, JSON.stringify(reply.body)).toBe(403)
    expect(errorOf(reply)).toMatchObject({ code: "test_key_live_account", field, retryable: false })
  }
  /** The answer to a test key on a sandbox resource: the route's success. */
  const works = (reply: Reply, status = 200) => expect(reply.status, JSON.stringify(reply.body)).toBe(status)
  /** A list a test key reads: the sandbox item is there, the live one is not (a live key sees it). */
  const hidesLive = async (path: string, live: string, sandbox: string, sandboxKey = server.testKey) => {
    const separator = path.includes("?") ? "&" : "?"
    const byTestKey = await send("GET", `${path}${separator}limit=100`)
    works(byTestKey)
    expect(byTestKey.body.data.map((i: { id: string }) => i.id)).not.toContain(live)
    const byLiveKey = await asLive("GET", `${path}${separator}limit=100`)
    expect(byLiveKey.body.data.map((i: { id: string }) => i.id)).toContain(live)
    const inSandbox = await send("GET", `${path}${separator}limit=100`, undefined, sandboxKey)
    expect(inSandbox.body.data.map((i: { id: string }) => i.id)).toContain(sandbox)
  }
  /** A test key refused on a live resource that the live key reads: it exists and is the key's to read. */
  const refusedThenRead = async (path: string) => {
    refused(await send("GET", path))
    works(await asLive("GET", path))
  }

  interface Row {
    readonly route: string
    readonly rule: Rule
    /** A test key on the live resource. */
    readonly live: () => Promise<void>
    /** A test key on the sandbox resource. */
    readonly sandbox: () => Promise<void>
  }

  const later = () => new Date(clock.now() + 3 * 24 * 60 * minute).toISOString()
  const freshUpload = async () => {
    const bytes = aPng({ width: 3, height: 3 })
    const started = await send("POST", "/v1/media/uploads", { filename: "three.png", size: bytes.length, content_type: "image/png" })
    works(started, 201)
    return { id: started.body.id as string, bytes }
  }

  // Rows run in this order: changes and deletions come after the reads of the same resource.
  const rows: ReadonlyArray<Row> = [
    // Posts
    {
      route: "POST /v1/posts",
      rule: "refused on live",
      live: async () => refused(await send("POST", "/v1/posts", aPost(server, [w.sandboxMedia], { targets: [{ account_id: w.liveAccount }] })), "targets[0].account_id"),
      sandbox: async () => works(await send("POST", "/v1/posts", aPost(server, [w.sandboxMedia], { targets: [{ account_id: w.sandboxAccount }] })), 201)
    },
    {
      route: "POST /v1/posts/batch",
      rule: "refused on live",
      live: async () => {
        const reply = await send("POST", "/v1/posts/batch", { items: [aPost(server, [w.sandboxMedia], { targets: [{ account_id: w.liveAccount }] })] })
        works(reply)
        expect(reply.body.data[0]).toMatchObject({ status: 403, error: { code: "test_key_live_account", field: "items[0].targets[0].account_id" } })
      },
      sandbox: async () => {
        const reply = await send("POST", "/v1/posts/batch", { items: [aPost(server, [w.sandboxMedia], { targets: [{ account_id: w.sandboxAccount }] })] })
        works(reply)
        expect(reply.body.data[0]).toMatchObject({ status: 201 })
      }
    },
    {
      route: "POST /v1/posts/validate",
      rule: "refused on live",
      live: async () => {
        const reply = await send("POST", "/v1/posts/validate", aPost(server, [w.sandboxMedia], { targets: [{ account_id: w.liveAccount }] }))
        works(reply)
        expect(reply.body.issues).toEqual([expect.objectContaining({ code: "test_key_live_account", field: "targets[0].account_id" })])
      },
      sandbox: async () => {
        const reply = await send("POST", "/v1/posts/validate", aPost(server, [w.sandboxMedia], { targets: [{ account_id: w.sandboxAccount }] }))
        works(reply)
        expect(reply.body.issues).toEqual([])
      }
    },
    {
      route: "GET /v1/posts",
      rule: "live hidden",
      live: () => hidesLive("/v1/posts", w.liveScheduled, w.sandboxScheduled),
      sandbox: () => hidesLive("/v1/posts", w.livePublished, w.sandboxPublished)
    },
    {
      route: "GET /v1/posts/{id}",
      rule: "refused on live",
      live: () => refusedThenRead(`/v1/posts/${w.liveScheduled}`),
      sandbox: async () => works(await send("GET", `/v1/posts/${w.sandboxScheduled}`))
    },
    {
      route: "PATCH /v1/posts/{id}",
      rule: "refused on live",
      live: async () => refused(await send("PATCH", `/v1/posts/${w.liveScheduled}`, { caption: "Changed by a test key" })),
      sandbox: async () => works(await send("PATCH", `/v1/posts/${w.sandboxScheduled}`, { caption: "Changed in the sandbox", scheduled_at: later() }))
    },
    {
      route: "POST /v1/posts/{id}/retry",
      rule: "refused on live",
      live: async () => refused(await send("POST", `/v1/posts/${w.livePublished}/retry`)),
      // The key may retry it; the post has nothing to retry.
      sandbox: async () => {
        const reply = await send("POST", `/v1/posts/${w.sandboxPublished}/retry`)
        expect(reply.status).toBe(409)
        expect(errorOf(reply).code).toBe("invalid_state")
      }
    },
    {
      route: "POST /v1/posts/{id}/cancel",
      rule: "refused on live",
      live: async () => refused(await send("POST", `/v1/posts/${w.liveScheduled}/cancel`)),
      sandbox: async () => works(await send("POST", `/v1/posts/${w.sandboxScheduled}/cancel`))
    },
    // Accounts and connect
    {
      route: "GET /v1/accounts",
      rule: "live hidden",
      live: () => hidesLive("/v1/accounts", w.liveAccount, w.sandboxAccount),
      sandbox: () => hidesLive("/v1/accounts", w.liveAccount, w.sandboxAccount)
    },
    {
      route: "GET /v1/accounts/{id}",
      rule: "refused on live",
      live: () => refusedThenRead(`/v1/accounts/${w.liveAccount}`),
      sandbox: async () => works(await send("GET", `/v1/accounts/${w.sandboxAccount}`))
    },
    {
      route: "POST /v1/accounts/connect",
      rule: "sandbox only",
      // Asked for a live account, a test key's link still connects a sandbox one.
      live: async () => {
        const reply = await send("POST", "/v1/accounts/connect", { profile_id: server.profileId, platform: "textpost", sandbox: false })
        works(reply, 201)
        expect(reply.body.sandbox).toBe(true)
      },
      sandbox: async () => {
        const reply = await send("POST", "/v1/accounts/connect", { profile_id: server.profileId, platform: "photo", sandbox: true })
        works(reply, 201)
        expect(reply.body.sandbox).toBe(true)
      }
    },
    {
      route: "POST /v1/accounts/{id}/reconnect",
      rule: "refused on live",
      live: async () => refused(await send("POST", `/v1/accounts/${w.liveAccount}/reconnect`, {})),
      sandbox: async () => works(await send("POST", `/v1/accounts/${w.sandboxAccount}/reconnect`, {}), 201)
    },
    // Profiles: a profile is a name that groups accounts; it holds no live data itself.
    {
      route: "GET /v1/profiles",
      rule: "allowed",
      live: async () => works(await send("GET", "/v1/profiles")),
      sandbox: async () => works(await send("GET", "/v1/profiles"))
    },
    {
      route: "POST /v1/profiles",
      rule: "allowed",
      live: async () => works(await send("POST", "/v1/profiles", { name: "Made by a test key" }), 201),
      sandbox: async () => works(await inSandboxWorkspace("POST", "/v1/profiles", { name: "Second" }), 201)
    },
    {
      route: "GET /v1/profiles/{id}",
      rule: "allowed",
      // The profile holds the live account; its name is not live data.
      live: async () => works(await send("GET", `/v1/profiles/${server.profileId}`)),
      sandbox: async () => works(await inSandboxWorkspace("GET", `/v1/profiles/${sandboxWorkspace.profileId}`))
    },
    {
      route: "PATCH /v1/profiles/{id}",
      rule: "allowed",
      live: async () => works(await send("PATCH", `/v1/profiles/${server.profileId}`, { name: "Renamed" })),
      sandbox: async () => works(await inSandboxWorkspace("PATCH", `/v1/profiles/${sandboxWorkspace.profileId}`, { name: "Renamed" }))
    },
    {
      route: "DELETE /v1/profiles/{id}",
      rule: "allowed",
      // A profile that still has accounts is never deleted, live or not.
      live: async () => {
        const reply = await send("DELETE", `/v1/profiles/${server.profileId}`)
        expect(reply.status).toBe(409)
        expect(errorOf(reply).code).toBe("invalid_state")
      },
      sandbox: async () => {
        const empty = await send("POST", "/v1/profiles", { name: "Empty" })
        works(await send("DELETE", `/v1/profiles/${empty.body.id}`))
      }
    },
    // Media
    {
      route: "POST /v1/media",
      rule: "allowed",
      live: async () => works(await send("POST", "/v1/media", { data: Buffer.from(aPng({ width: 2, height: 2 })).toString("base64") }), 201),
      sandbox: async () => works(await send("POST", "/v1/media", { data: Buffer.from(aPng({ width: 2, height: 2 })).toString("base64") }), 201)
    },
    {
      route: "GET /v1/media",
      rule: "live hidden",
      live: () => hidesLive("/v1/media", w.liveMedia, w.sandboxMedia),
      sandbox: () => hidesLive("/v1/media", w.liveMedia, w.sandboxMedia)
    },
    {
      route: "GET /v1/media/{id}",
      rule: "refused on live",
      live: () => refusedThenRead(`/v1/media/${w.liveMedia}`),
      sandbox: async () => works(await send("GET", `/v1/media/${w.sandboxMedia}`))
    },
    {
      route: "POST /v1/media/uploads",
      rule: "allowed",
      live: async () => void (await freshUpload()),
      sandbox: async () => {
        w.sandboxUpload = (await freshUpload()).id
      }
    },
    {
      route: "GET /v1/media/uploads/{id}",
      rule: "refused on live",
      live: () => refusedThenRead(`/v1/media/uploads/${w.liveMedia}`),
      sandbox: async () => works(await send("GET", `/v1/media/uploads/${w.sandboxMedia}`))
    },
    {
      route: "PUT /v1/media/uploads/{id}",
      rule: "refused on live",
      live: async () => refused(await putPart(w.liveMedia, aPng({ width: 6, height: 6 }), server.testKey)),
      sandbox: async () => works(await putPart(w.sandboxUpload, aPng({ width: 3, height: 3 }), server.testKey))
    },
    {
      route: "POST /v1/media/uploads/{id}/complete",
      rule: "refused on live",
      live: async () => refused(await send("POST", `/v1/media/uploads/${w.liveMedia}/complete`)),
      sandbox: async () => works(await send("POST", `/v1/media/uploads/${w.sandboxUpload}/complete`))
    },
    {
      route: "DELETE /v1/media/{id}",
      rule: "refused on live",
      live: async () => {
        refused(await send("DELETE", `/v1/media/${w.liveMedia}`))
        works(await asLive("GET", `/v1/media/${w.liveMedia}`))
      },
      sandbox: async () => works(await send("DELETE", `/v1/media/${w.sandboxUpload}`))
    },
    // Events
    {
      route: "GET /v1/events",
      rule: "live hidden",
      live: () => hidesLive("/v1/events", w.liveEvent, w.sandboxEvent),
      sandbox: () => hidesLive("/v1/events", w.liveEvent, w.sandboxEvent)
    },
    {
      route: "GET /v1/events/{id}",
      rule: "refused on live",
      live: () => refusedThenRead(`/v1/events/${w.liveEvent}`),
      sandbox: async () => works(await send("GET", `/v1/events/${w.sandboxEvent}`))
    },
    // Comments
    {
      route: "GET /v1/comments",
      rule: "live hidden",
      live: () => hidesLive("/v1/comments", w.liveComment, w.sandboxComment),
      sandbox: () => hidesLive("/v1/comments", w.liveComment, w.sandboxComment)
    },
    {
      route: "GET /v1/comments/{id}",
      rule: "refused on live",
      live: () => refusedThenRead(`/v1/comments/${w.liveComment}`),
      sandbox: async () => works(await send("GET", `/v1/comments/${w.sandboxComment}`))
    },
    {
      route: "POST /v1/comments/{id}/replies",
      rule: "refused on live",
      live: async () => refused(await send("POST", `/v1/comments/${w.liveComment}/replies`, { text: "From a test key" })),
      sandbox: async () => works(await send("POST", `/v1/comments/${w.sandboxComment}/replies`, { text: "Terima kasih!" }), 201)
    },
    {
      route: "POST /v1/comments/{id}/hide",
      rule: "refused on live",
      live: async () => refused(await send("POST", `/v1/comments/${w.liveComment}/hide`)),
      sandbox: async () => works(await send("POST", `/v1/comments/${w.sandboxComment}/hide`))
    },
    {
      route: "POST /v1/comments/{id}/unhide",
      rule: "refused on live",
      live: async () => refused(await send("POST", `/v1/comments/${w.liveComment}/unhide`)),
      sandbox: async () => works(await send("POST", `/v1/comments/${w.sandboxComment}/unhide`))
    },
    {
      route: "DELETE /v1/comments/{id}",
      rule: "refused on live",
      live: async () => refused(await send("DELETE", `/v1/comments/${w.liveComment}`)),
      sandbox: async () => works(await send("DELETE", `/v1/comments/${w.sandboxComment}`))
    },
    // Webhooks: an endpoint receives every event of its workspace, so in a workspace with a live
    // account every endpoint is live; the sandbox side is a workspace with sandbox accounts only.
    {
      route: "POST /v1/webhooks",
      rule: "refused on live",
      live: async () => refused(await send("POST", "/v1/webhooks", { url: liveReceiver.url, events: ["post.published"] }), "events"),
      sandbox: async () => works(await inSandboxWorkspace("POST", "/v1/webhooks", { url: sandboxReceiver.url, events: ["post.failed"] }), 201)
    },
    {
      route: "GET /v1/webhooks",
      rule: "live hidden",
      live: () => hidesLive("/v1/webhooks", w.liveEndpoint, w.sandboxEndpoint, sandboxWorkspace.key),
      sandbox: () => hidesLive("/v1/webhooks", w.liveEndpoint, w.sandboxEndpoint, sandboxWorkspace.key)
    },
    {
      route: "GET /v1/webhooks/{id}",
      rule: "refused on live",
      live: () => refusedThenRead(`/v1/webhooks/${w.liveEndpoint}`),
      sandbox: async () => works(await inSandboxWorkspace("GET", `/v1/webhooks/${w.sandboxEndpoint}`))
    },
    {
      route: "GET /v1/webhooks/{id}/deliveries",
      rule: "refused on live",
      live: () => refusedThenRead(`/v1/webhooks/${w.liveEndpoint}/deliveries`),
      sandbox: async () => works(await inSandboxWorkspace("GET", `/v1/webhooks/${w.sandboxEndpoint}/deliveries`))
    },
    {
      route: "GET /v1/webhooks/{id}/deliveries/{delivery_id}",
      rule: "refused on live",
      live: () => refusedThenRead(`/v1/webhooks/${w.liveEndpoint}/deliveries/${w.liveDelivery}`),
      sandbox: async () => works(await inSandboxWorkspace("GET", `/v1/webhooks/${w.sandboxEndpoint}/deliveries/${w.sandboxDelivery}`))
    },
    {
      route: "POST /v1/webhooks/{id}/deliveries/{delivery_id}/redeliver",
      rule: "refused on live",
      live: async () => {
        const before = liveReceiver.deliveries()
        refused(await send("POST", `/v1/webhooks/${w.liveEndpoint}/deliveries/${w.liveDelivery}/redeliver`))
        expect(liveReceiver.deliveries()).toBe(before)
      },
      sandbox: async () => works(await inSandboxWorkspace("POST", `/v1/webhooks/${w.sandboxEndpoint}/deliveries/${w.sandboxDelivery}/redeliver`))
    },
    {
      route: "POST /v1/webhooks/{id}/test",
      rule: "refused on live",
      live: async () => {
        const before = liveReceiver.deliveries()
        refused(await send("POST", `/v1/webhooks/${w.liveEndpoint}/test`))
        expect(liveReceiver.deliveries()).toBe(before)
      },
      sandbox: async () => works(await inSandboxWorkspace("POST", `/v1/webhooks/${w.sandboxEndpoint}/test`))
    },
    {
      route: "PATCH /v1/webhooks/{id}",
      rule: "refused on live",
      live: async () => refused(await send("PATCH", `/v1/webhooks/${w.liveEndpoint}`, { url: "https://attacker.example.com/hook" })),
      sandbox: async () => works(await inSandboxWorkspace("PATCH", `/v1/webhooks/${w.sandboxEndpoint}`, { events: ["post.awaiting_approval", "post.failed"] }))
    },
    {
      route: "POST /v1/webhooks/{id}/rotate-secret",
      rule: "refused on live",
      live: async () => refused(await send("POST", `/v1/webhooks/${w.liveEndpoint}/rotate-secret`, {})),
      sandbox: async () => works(await inSandboxWorkspace("POST", `/v1/webhooks/${w.sandboxEndpoint}/rotate-secret`, {}))
    },
    {
      route: "DELETE /v1/webhooks/{id}",
      rule: "refused on live",
      live: async () => {
        refused(await send("DELETE", `/v1/webhooks/${w.liveEndpoint}`))
        works(await asLive("GET", `/v1/webhooks/${w.liveEndpoint}`))
      },
      sandbox: async () => works(await inSandboxWorkspace("DELETE", `/v1/webhooks/${w.sandboxEndpoint}`))
    },
    // Disconnecting comes last: the live account stays connected, the sandbox one is gone after.
    {
      route: "DELETE /v1/accounts/{id}",
      rule: "refused on live",
      live: async () => {
        refused(await send("DELETE", `/v1/accounts/${w.liveAccount}`))
        expect((await asLive("GET", `/v1/accounts/${w.liveAccount}`)).body.status).toBe("connected")
      },
      sandbox: async () => {
        const reply = await send("DELETE", `/v1/accounts/${w.sandboxAccount}`)
        works(reply)
        expect(reply.body.status).toBe("disconnected")
      }
    },
    {
      route: "GET /v1/posts/{id}/metrics",
      rule: "refused on live",
      live: () => refusedThenRead(`/v1/posts/${w.livePublished}/metrics`),
      sandbox: async () => works(await send("GET", `/v1/posts/${w.sandboxPublished}/metrics?series=true`))
    },
    {
      route: "GET /v1/accounts/{id}/metrics",
      rule: "refused on live",
      live: () => refusedThenRead(`/v1/accounts/${w.liveAccount}/metrics`),
      sandbox: async () => works(await send("GET", `/v1/accounts/${w.sandboxAccount}/metrics`))
    },
    {
      route: "GET /v1/analytics",
      rule: "live hidden",
      // Sums of sandbox accounts only: naming a live account is refused, the live key reads it.
      live: async () => {
        refused(await send("GET", `/v1/analytics?account_id=${w.liveAccount}`), "account_id")
        works(await asLive("GET", `/v1/analytics?account_id=${w.liveAccount}`))
      },
      sandbox: async () => works(await send("GET", `/v1/analytics?account_id=${w.sandboxAccount}`))
    },
    {
      route: "GET /v1/analytics/chart.svg",
      rule: "live hidden",
      live: async () => {
        refused(await send("GET", `/v1/analytics/chart.svg?account_id=${w.liveAccount}`), "account_id")
        works(await asLive("GET", `/v1/analytics/chart.svg?account_id=${w.liveAccount}`))
      },
      sandbox: async () => works(await send("GET", "/v1/analytics/chart.svg"))
    },
    // Routes without an API key: a key sent along changes nothing.
    {
      route: "POST /v1/approvals/{token}/decision",
      rule: "no key",
      live: async () => {
        const withKey = await send("POST", "/v1/approvals/not-a-token/decision", { decision: "approve" })
        const without = await call(server.baseUrl, "POST", "/v1/approvals/not-a-token/decision", { body: { decision: "approve" } })
        expect(withKey.status).toBe(without.status)
        expect(errorOf(withKey).code).toBe(errorOf(without).code)
      },
      sandbox: async () => undefined
    },
    {
      route: "GET /health",
      rule: "no key",
      live: async () => works(await send("GET", "/health")),
      sandbox: async () => works(await call(server.baseUrl, "GET", "/health"))
    }
  ]

  it("walks every route of the API, and the table in docs/decisions.md names each with the rule walked here", async () => {
    const openapi = (await call(server.baseUrl, "GET", "/v1/openapi.json")).body as { paths: Record<string, Record<string, unknown>> }
    const served = Object.entries(openapi.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`))
    expect(new Set(rows.map((r) => r.route))).toEqual(new Set(served))
    expect(rows).toHaveLength(served.length)
    expect(documentedRules()).toEqual(new Map(rows.map((r) => [r.route, r.rule])))
  })

  it("leaves a live post as it was when a test key tries to edit, cancel or retry it", async () => {
    const before = await asLive("GET", `/v1/posts/${w.liveScheduled}`)
    refused(await send("PATCH", `/v1/posts/${w.liveScheduled}`, { caption: "Edited by a test key" }))
    refused(await send("POST", `/v1/posts/${w.liveScheduled}/cancel`))
    refused(await send("POST", `/v1/posts/${w.liveScheduled}/retry`))
    const after = await asLive("GET", `/v1/posts/${w.liveScheduled}`)
    expect(after.body).toMatchObject({ caption: "Saturday sale", status: "scheduled" })
    expect(after.body.updated_at).toBe(before.body.updated_at)
  })

  for (const row of rows) {
    it(`${row.route}: ${row.rule}`, async () => {
      await row.live()
      await row.sandbox()
    })
  }
})
