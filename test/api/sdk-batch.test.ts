import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CreatePostInput, Postwire, PostwireApiError, PostwireClient } from "@postwire/client"
import { aPost, anImage } from "../support/Builders.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"

describe.each(backends())("posts.createBatch in the SDK against the real server on %s", (backend) => {
  let server: TestServer
  let client: Postwire
  let image: string
  let limitedAccount: string
  const onDay = (date: string, hour: string): CreatePostInput =>
    aPost(server, [image], {
      targets: [{ account_id: limitedAccount }],
      approval: { mode: "none" },
      scheduled_at: `${date}T${hour}:00:00+07:00`
    }) as CreatePostInput

  beforeAll(async () => {
    server = await startServer(backend)
    client = new Postwire({ apiKey: server.testKey, baseUrl: server.baseUrl })
    image = await anImage(server)
    const account = await server.admin(`/workspaces/${server.workspaceId}/accounts`, {
      profile_id: server.profileId,
      platform: "photo",
      sandbox: true,
      daily_quota: 1
    })
    limitedAccount = account.id
  })
  afterAll(() => server?.stop())

  it("resolves with every item's result, a full day refused, and replays the batch for the same key", async () => {
    const body = { items: [onDay("2031-03-01", "09"), onDay("2031-03-01", "18"), onDay("2031-03-02", "09")] }
    const result = await client.posts.createBatch(body, { idempotencyKey: `sdk-batch-${backend}` })
    expect(result.data.map((item) => item.status)).toEqual([201, 429, 201])
    expect(result.data[0]?.post?.status).toBe("scheduled")
    expect(result.data[1]?.error).toMatchObject({ code: "quota_exceeded_for_day", field: "items[1].scheduled_at" })
    expect(result).toMatchObject({ created: 2, refused: 1 })
    const again = await client.posts.createBatch(body, { idempotencyKey: `sdk-batch-${backend}` })
    expect(again).toEqual(result)
    expect((await client.posts.get(result.data[2]!.post!.id)).id).toBe(result.data[2]!.post!.id)
  })

  it("rejects a batch of 32 with a PostwireApiError naming items", async () => {
    const items = Array.from({ length: 32 }, (_, i) => onDay(`2031-04-${String(1 + (i % 28)).padStart(2, "0")}`, "09"))
    const error = await client.posts.createBatch({ items }).then(() => undefined, (e: unknown) => e)
    expect(error).toBeInstanceOf(PostwireApiError)
    expect(error).toMatchObject({ status: 400, code: "invalid_request", field: "items" })
  })

  it("creates a batch with the Effect client", async () => {
    const result = await Effect.runPromise(
      PostwireClient.use((postwire) => postwire.posts.createBatch({ items: [onDay("2031-05-01", "09")] })).pipe(
        Effect.provide(PostwireClient.layer({ apiKey: server.testKey, baseUrl: server.baseUrl }))
      )
    )
    expect(result.data).toHaveLength(1)
    expect(result.data[0]).toMatchObject({ index: 0, status: 201 })
  })
})
