/**
 * Publishing through the real server: posts to sandbox accounts go through the publisher to
 * the simulated platform, and come back `published` with a permalink, or `failed` with the
 * shared error shape, exactly as a user reads them from the API.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { accountOf, aPost, aVideo, anImage } from "../support/Builders.ts"
import { eventually } from "../support/Eventually.ts"
import { call, type Reply } from "../support/Http.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"

/** Asks for the post until `done` says so (the publisher works in the background). */
const waitForPost = async (server: TestServer, id: string, done: (post: any) => boolean): Promise<any> =>
  (
    await eventually(
      () => call(server.baseUrl, "GET", `/v1/posts/${id}`, { key: server.testKey }),
      (reply) => reply.status === 200 && done(reply.body),
      `post ${id} to settle`
    )
  ).body

const settled = (post: any) => post.status !== "queued" && post.status !== "publishing" && post.status !== "scheduled"

describe.each(backends())("publishing on %s", (backend) => {
  let server: TestServer
  let image: string
  let video: string
  const post = (path: string, body?: unknown): Promise<Reply> => call(server.baseUrl, "POST", path, { key: server.testKey, body })
  const get = (path: string): Promise<Reply> => call(server.baseUrl, "GET", path, { key: server.testKey })
  const aSandboxAccount = (platform: string, simulate: Record<string, unknown>) =>
    server.admin(`/workspaces/${server.workspaceId}/accounts`, { profile_id: server.profileId, platform, sandbox: true, simulate })

  beforeAll(async () => {
    // Asking for a post every 50 ms would soon meet the per-key rate limit.
    server = await startServer(backend, { POSTWIRE_PUBLISH_POLL_MS: "50", POSTWIRE_RATE_LIMIT_PER_KEY: "100000" })
    image = await anImage(server)
    video = await aVideo(server, 12)
  })
  afterAll(() => server?.stop())
  /** A permalink of the server's public address, asked of the server itself. */
  const onServer = (permalink: string) => permalink.replace(server.publicUrl, server.baseUrl)

  it("publishes one video to all four platforms, each target with its own permalink", async () => {
    const created = await post(
      "/v1/posts",
      aPost(server, [video], {
        caption: "Behind the scenes at the bakery",
        approval: { mode: "none" },
        targets: [
          {
            account_id: accountOf(server, "shortvideo"),
            shortvideo: { mode: "direct", consent: { privacy_level: "PUBLIC_TO_EVERYONE", music_usage_confirmed: true } }
          },
          { account_id: accountOf(server, "photo") },
          { account_id: accountOf(server, "pages") },
          { account_id: accountOf(server, "textpost") }
        ]
      })
    )
    expect(created.status).toBe(201)
    expect(created.body.status).toBe("queued")

    const done = await waitForPost(server, created.body.id, settled)
    expect(done.status).toBe("published")
    const byPlatform = Object.fromEntries(done.targets.map((t: any) => [t.platform, t]))
    // A sandbox target's permalink is its page on this server, never an address on the real platform.
    for (const target of done.targets) {
      expect(target).toMatchObject({ status: "published", error: null, attempts: 1 })
      expect(target.published_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      expect(target.permalink).toBe(`${server.publicUrl}/sandbox/${server.workspaceId}/${done.id}/${target.id}`)
    }
    // The page says nothing left the server, on which platform and account, with the caption.
    const page = await fetch(onServer(byPlatform.photo.permalink))
    expect(page.status).toBe(200)
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8")
    expect(page.headers.get("x-robots-tag")).toBe("noindex")
    const text = await page.text()
    expect(text).toContain("Sandbox post on Instagram")
    expect(text).toContain("nothing was sent to Instagram")
    expect(text).toContain("sandbox-photo")
    expect(text).toContain("Behind the scenes at the bakery")
    const indonesian = await (await fetch(`${onServer(byPlatform.textpost.permalink)}?lang=id`)).text()
    expect(indonesian).toContain("tidak ada yang dikirim ke Threads")
    // Ids that do not belong together, or a target of no sandbox account, show no page.
    const other = done.targets.find((t: any) => t.platform === "pages")
    expect((await fetch(onServer(byPlatform.photo.permalink).replace(byPlatform.photo.id, otherId(other.id)))).status).toBe(404)
    expect((await fetch(`${server.baseUrl}/sandbox/${server.workspaceId}/post_01JD0000000000000000000000/${other.id}`)).status).toBe(404)
    const account = await get(`/v1/accounts/${accountOf(server, "textpost")}`)
    expect(account.body.quota.used).toBeGreaterThanOrEqual(1)
  })

  it("publishes a scheduled post once its time has come, not before", async () => {
    const at = new Date(Date.now() + 1_500).toISOString()
    const created = await post("/v1/posts", aPost(server, [image], { approval: { mode: "none" }, scheduled_at: at }))
    expect(created.body.status).toBe("scheduled")
    const done = await waitForPost(server, created.body.id, settled)
    expect(done.status).toBe("published")
    expect(Date.parse(done.targets[0].published_at)).toBeGreaterThanOrEqual(Date.parse(at))
  })

  it("fails one target alone when its platform stays unavailable, and publishes it after a retry", async () => {
    const flaky = await aSandboxAccount("textpost", { error: "platform_unavailable", times: 1 })
    const created = await post(
      "/v1/posts",
      aPost(server, [image], {
        approval: { mode: "none" },
        targets: [{ account_id: accountOf(server, "photo") }, { account_id: flaky.id }]
      })
    )
    const partial = await waitForPost(server, created.body.id, settled)
    expect(partial.status).toBe("partially_published")
    const failed = partial.targets.find((t: any) => t.account_id === flaky.id)
    expect(failed.status).toBe("failed")
    expect(failed.permalink).toBeNull()
    expect(failed.error).toMatchObject({
      code: "platform_unavailable",
      target_id: failed.id,
      retryable: true,
      platform_code: "simulated_platform_unavailable"
    })
    expect(failed.error.message).toMatch(/unavailable/)
    expect(failed.error.docs).toMatch(/\/docs\/errors#platform_unavailable$/)
    // Partially published is finished too: cancel is refused, retry is the way on.
    expect((await post(`/v1/posts/${created.body.id}/cancel`)).status).toBe(409)

    const retried = await post(`/v1/posts/${created.body.id}/retry`)
    expect(retried.status).toBe(200)
    expect(retried.body.data.map((t: any) => [t.id, t.status])).toEqual([[failed.id, "queued"]])
    const done = await waitForPost(server, created.body.id, settled)
    expect(done.status).toBe("published")
    const again = done.targets.find((t: any) => t.id === failed.id)
    expect(again).toMatchObject({ status: "published", error: null, attempts: 2 })
    expect(again.permalink).toBe(`${server.publicUrl}/sandbox/${server.workspaceId}/${created.body.id}/${failed.id}`)
    // The target that had published was left alone.
    expect(done.targets.find((t: any) => t.id !== failed.id).attempts).toBe(1)
  })

  it("marks the account needs_reconnect when its token is refused, and fails the target token_expired", async () => {
    const revoked = await aSandboxAccount("photo", { error: "token_expired" })
    const created = await post("/v1/posts", aPost(server, [image], { approval: { mode: "none" }, targets: [{ account_id: revoked.id }] }))
    const done = await waitForPost(server, created.body.id, settled)
    expect(done.status).toBe("failed")
    expect(done.targets[0].error).toMatchObject({ code: "token_expired", retryable: false })
    const account = await get(`/v1/accounts/${revoked.id}`)
    expect(account.body.status).toBe("needs_reconnect")
    const retry = await post(`/v1/posts/${created.body.id}/retry`)
    expect(retry.status).toBe(409)
    // A failed post is finished: there is nothing left to cancel, and its target keeps its error.
    const cancel = await post(`/v1/posts/${created.body.id}/cancel`)
    expect(cancel.status).toBe(409)
    expect(cancel.body.error.code).toBe("invalid_state")
    const after = await get(`/v1/posts/${created.body.id}`)
    expect(after.body.targets[0]).toMatchObject({ status: "failed", error: { code: "token_expired" } })
  })

  it("refuses PATCH and cancel once the post has published", async () => {
    const created = await post("/v1/posts", aPost(server, [image], { approval: { mode: "none" } }))
    await waitForPost(server, created.body.id, settled)
    const patch = await call(server.baseUrl, "PATCH", `/v1/posts/${created.body.id}`, { key: server.testKey, body: { caption: "Edited" } })
    expect(patch.status).toBe(409)
    const cancel = await post(`/v1/posts/${created.body.id}/cancel`)
    expect(cancel.status).toBe(409)
  })
})

/** A well-formed target id that is not `id`: its last character changed, never to itself. */
const otherId = (id: string): string => id.slice(0, -1) + (id.endsWith("0") ? "1" : "0")
