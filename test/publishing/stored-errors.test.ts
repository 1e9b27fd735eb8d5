/**
 * A target's failure is stored as data and rendered when it is read: a server restarted under
 * another public URL shows the stored failure with its docs address under the new URL, in the
 * language each reader asks for; the `post.failed` event stays the snapshot it was made as.
 */
import { renderMessage } from "@postwire/domain"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { anImage, aPost } from "../support/Builders.ts"
import { eventually } from "../support/Eventually.ts"
import { call } from "../support/Http.ts"
import { aDatabase, backends, startServer, type TestDatabase, type TestServer } from "../support/TestServer.ts"

const settled = (post: any) => post.status !== "queued" && post.status !== "publishing" && post.status !== "scheduled"

describe.each(backends())("stored target errors on %s", (backend) => {
  let database: TestDatabase
  let running: TestServer | undefined

  const start = async (publicUrl: string) => {
    running = await startServer(
      backend,
      { POSTWIRE_PUBLIC_URL: publicUrl, POSTWIRE_PUBLISH_POLL_MS: "50", POSTWIRE_RATE_LIMIT_PER_KEY: "100000" },
      { database }
    )
    return running
  }
  const stop = async () => {
    await running?.stop()
    running = undefined
  }

  beforeAll(async () => {
    database = await aDatabase(backend)
  })
  afterAll(async () => {
    await stop()
    await database?.drop()
  })

  it("renders a stored failure under the public URL and in the language of the read, not of the failure", async () => {
    const first = await start("https://first.postwire.example")
    const refused = await first.admin<{ id: string }>(`/workspaces/${first.workspaceId}/accounts`, {
      profile_id: first.profileId,
      platform: "photo",
      sandbox: true,
      simulate: { error: "token_expired" }
    })
    const created = await call(first.baseUrl, "POST", "/v1/posts", {
      key: first.testKey,
      body: aPost(first, [await anImage(first)], { approval: { mode: "none" }, targets: [{ account_id: refused.id }] })
    })
    expect(created.status).toBe(201)
    const postId: string = created.body.id
    const failed = (
      await eventually(
        () => call(first.baseUrl, "GET", `/v1/posts/${postId}`, { key: first.testKey }),
        (reply) => reply.status === 200 && settled(reply.body),
        `post ${postId} to settle`
      )
    ).body
    expect(failed.status).toBe("failed")
    const targetId: string = failed.targets[0].id
    expect(failed.targets[0].error).toMatchObject({
      code: "token_expired",
      message: renderMessage("token_expired", "en"),
      message_id: renderMessage("token_expired", "id"),
      target_id: targetId,
      retryable: false,
      docs: "https://first.postwire.example/docs/errors#token_expired"
    })
    await stop()

    // The same database, the server now answering under another address.
    const second = await start("https://second.postwire.example")
    const read = await call(second.baseUrl, "GET", `/v1/posts/${postId}`, {
      key: second.testKey,
      headers: { "accept-language": "id" }
    })
    expect(read.status).toBe(200)
    expect(read.body.targets[0].error).toEqual({
      ...failed.targets[0].error,
      message: renderMessage("token_expired", "id"),
      docs: "https://second.postwire.example/docs/errors#token_expired"
    })
    const listed = await call(second.baseUrl, "GET", "/v1/posts?limit=100", { key: second.testKey })
    const inList = listed.body.data.find((post: { id: string }) => post.id === postId)
    expect(inList.targets[0].error.docs).toBe("https://second.postwire.example/docs/errors#token_expired")
    expect(inList.targets[0].error.message).toBe(renderMessage("token_expired", "en"))

    // The event is a snapshot: it keeps the body its deliveries carried (docs/decisions.md).
    const events = await call(second.baseUrl, "GET", `/v1/events?type=post.failed&post_id=${postId}`, { key: second.testKey })
    expect(events.status).toBe(200)
    expect(events.body.data).toHaveLength(1)
    expect(events.body.data[0].data.error).toMatchObject({
      code: "token_expired",
      target_id: targetId,
      docs: "https://first.postwire.example/docs/errors#token_expired"
    })
  })
})
