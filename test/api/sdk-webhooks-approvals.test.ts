import { Effect, Stream } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CreatePostResult, Postwire, PostwireApiError, PostwireClient } from "@postwire/client"
import { accountOf, anImage, anotherWorkspace, aPost, aVideo } from "../support/Builders.ts"
import { newestFirst } from "../support/Listing.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"
import { aReceiver, type Receiver } from "../webhooks/Receiver.ts"

/** The token of a post's approval link, `{public_base_url}/approve/{token}`. */
const tokenOf = (post: CreatePostResult): string => {
  const url = post.approval?.url
  if (url === undefined || url === null) throw new Error("the post has no approval link")
  return new URL(url).pathname.split("/").pop() ?? ""
}

/** The error a promise rejects with; fails the test if it resolves. */
const rejectionOf = (promise: Promise<unknown>): Promise<PostwireApiError> =>
  promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`)
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(PostwireApiError)
      return error as PostwireApiError
    }
  )

describe.each(backends())("the SDK's webhooks and approvals against the real server on %s", (backend) => {
  let server: TestServer
  let receiver: Receiver
  let client: Postwire
  let image: string
  let video: string

  beforeAll(async () => {
    server = await startServer(backend, { POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS: "1" })
    receiver = await aReceiver()
    client = new Postwire({ apiKey: server.testKey, baseUrl: server.baseUrl })
    image = await anImage(server)
    video = await aVideo(server, 12)
  })
  afterAll(async () => {
    await receiver?.close()
    await server?.stop()
  })

  describe("webhooks", () => {
    it("creates an endpoint and shows its secret in the creation answer only", async () => {
      const created = await client.webhooks.create({ url: receiver.url, events: ["post.published", "post.failed"] })

      expect(created).toMatchObject({ url: receiver.url, events: ["post.published", "post.failed"], active: true })
      expect(created.id).toMatch(/^wh_/)
      expect(created.secret).toMatch(/^whsec_/)
      const listed = []
      for await (const endpoint of client.webhooks.list()) listed.push(endpoint)
      const found = listed.find((endpoint) => endpoint.id === created.id)
      expect(found).toMatchObject({ url: receiver.url, active: true })
      expect(found).not.toHaveProperty("secret")
      expect(JSON.stringify(listed)).not.toContain(created.secret)
    })

    it("walks every endpoint, newest first, across pages with for await and with listAll", async () => {
      const other = await anotherWorkspace(server)
      const own = new Postwire({ apiKey: other.key, baseUrl: server.baseUrl })
      const created: Array<{ id: string; created_at: string }> = []
      for (let i = 0; i < 3; i++) created.push(await own.webhooks.create({ url: `${receiver.url}?n=${i}`, events: ["comment.created"] }))
      const newest = newestFirst(created)

      const first = await own.webhooks.list({ limit: 2 })
      expect(first.data.map((endpoint) => endpoint.id)).toEqual(newest.slice(0, 2))
      expect(first.hasMore).toBe(true)
      const second = await first.nextPage()
      expect(second?.data.map((endpoint) => endpoint.id)).toEqual(newest.slice(2))
      expect(second?.hasMore).toBe(false)

      const walked: Array<string> = []
      for await (const endpoint of own.webhooks.list({ limit: 2 })) walked.push(endpoint.id)
      expect(walked).toEqual(newest)

      const streamed = await Effect.runPromise(
        Effect.gen(function* () {
          const api = yield* PostwireClient
          return yield* Stream.runCollect(api.webhooks.listAll({ limit: 1 }))
        }).pipe(Effect.provide(PostwireClient.layer({ apiKey: other.key, baseUrl: server.baseUrl })))
      )
      expect(Array.from(streamed).map((endpoint) => endpoint.id)).toEqual(newest)
    })

    it("deletes an endpoint: gone from the list, and a second delete is a typed not_found", async () => {
      const created = await client.webhooks.create({ url: receiver.url, events: ["comment.created"] })

      const deleted = await client.webhooks.delete(created.id)
      const listed = (await client.webhooks.list({ limit: 100 })).data.map((endpoint) => endpoint.id)
      const again = await rejectionOf(client.webhooks.delete(created.id))

      expect(deleted).toEqual({ id: created.id, deleted: true })
      expect(listed).not.toContain(created.id)
      expect(again).toMatchObject({ status: 404, code: "not_found" })
    })

    it("sends a test event of the first subscribed type, signed with the endpoint's secret", async () => {
      const created = await client.webhooks.create({ url: receiver.url, events: ["post.published", "post.failed"] })
      receiver.secret = created.secret
      receiver.mode = 204

      const result = await client.webhooks.test(created.id)

      expect(result).toMatchObject({ type: "post.published", delivered: true, status_code: 204 })
      expect(result.error).toBeUndefined()
      const event = receiver.events.find((received) => received.id === result.event_id)
      expect(event).toMatchObject({ type: "post.published", test: true })
      expect(receiver.rejected).toEqual([])
    })

    it("refuses an address that is not public https with a typed invalid_url naming the field", async () => {
      const error = await rejectionOf(client.webhooks.create({ url: "https://10.1.2.3/postwire", events: ["post.published"] }))

      expect(error).toMatchObject({ status: 400, code: "invalid_url", field: "url", retryable: false })
      expect(error.docs).toMatch(/\/docs\/errors#invalid_url$/)
    })
  })

  describe("approvals", () => {
    const aPhotoPost = () => client.posts.create(aPost(server, [image]) as never)

    it("approves a post by its link's token alone, with no valid API key", async () => {
      const created = await aPhotoPost()
      const reviewer = new Postwire({ apiKey: "svc_test_not-a-key", baseUrl: server.baseUrl })

      const result = await reviewer.approvals.decide(tokenOf(created), { decision: "approve" })

      expect(result.decision).toBe("approve")
      expect(result.redirect_url).toBeNull()
      expect(result.post).toMatchObject({ id: created.id, status: "queued", approval: { status: "approved" } })
      expect((await client.posts.get(created.id)).approval?.status).toBe("approved")
    })

    it("rejects with a reason: the post and its targets become rejected", async () => {
      const created = await aPhotoPost()

      const result = await client.approvals.decide(tokenOf(created), { decision: "reject", reason: "Wrong product photo" })

      expect(result.decision).toBe("reject")
      expect(result.post.status).toBe("rejected")
      const stored = await client.posts.get(created.id)
      expect(stored.approval?.status).toBe("rejected")
      expect(stored.targets.map((target) => target.status)).toEqual(["rejected"])
    })

    it("answers a second decision with a typed 409 already_decided, in Indonesian for locale id", async () => {
      const created = await aPhotoPost()
      await client.approvals.decide(tokenOf(created), { decision: "approve" })
      const indonesian = new Postwire({ apiKey: server.testKey, baseUrl: server.baseUrl, locale: "id" })

      const inEnglish = await rejectionOf(client.approvals.decide(tokenOf(created), { decision: "reject" }))
      const inIndonesian = await rejectionOf(indonesian.approvals.decide(tokenOf(created), { decision: "reject" }))

      expect(inEnglish).toMatchObject({ status: 409, code: "already_decided", retryable: false })
      expect(inEnglish.error.code).toBe("already_decided")
      expect(inEnglish.message).not.toBe(inEnglish.messageId)
      expect(inIndonesian.code).toBe("already_decided")
      expect(inIndonesian.message).toBe(inIndonesian.messageId)
      expect((await client.posts.get(created.id)).approval?.status).toBe("approved")
    })

    it("fails a second decision in the Effect API's typed error channel", async () => {
      const created = await aPhotoPost()
      await client.approvals.decide(tokenOf(created), { decision: "reject" })

      const code = await Effect.runPromise(
        Effect.gen(function* () {
          const api = yield* PostwireClient
          return yield* api.approvals.decide(tokenOf(created), { decision: "approve" }).pipe(
            Effect.as("decided"),
            Effect.catchTag("PostwireApiError", (error) => Effect.succeed(error.code))
          )
        }).pipe(Effect.provide(PostwireClient.layer({ apiKey: server.testKey, baseUrl: server.baseUrl })))
      )

      expect(code).toBe("already_decided")
    })

    it("refuses to approve a TikTok direct target without consent, naming the target, then approves with it", async () => {
      const created = await client.posts.create(
        aPost(server, [video], { targets: [{ account_id: accountOf(server, "shortvideo"), shortvideo: { mode: "direct" } }] }) as never
      )
      const target = created.targets[0]!.id

      const error = await rejectionOf(client.approvals.decide(tokenOf(created), { decision: "approve" }))
      expect(error).toMatchObject({ status: 409, code: "consent_required", targetId: target, field: `consent.${target}` })
      expect((await client.posts.get(created.id)).status).toBe("awaiting_approval")

      const approved = await client.approvals.decide(tokenOf(created), {
        decision: "approve",
        consent: { [target]: { privacy_level: "FOLLOWER_OF_CREATOR", music_usage_confirmed: true } }
      })
      expect(approved.post.targets.map((each) => each.status)).toEqual(["queued"])
    })

    it("refuses a redirect_url outside the workspace's domains with a typed invalid_redirect_url, and echoes an allowed one", async () => {
      const created = await aPhotoPost()

      const error = await rejectionOf(
        client.approvals.decide(tokenOf(created), { decision: "approve", redirect_url: "https://example.org/thanks" })
      )
      expect(error).toMatchObject({ status: 400, code: "invalid_redirect_url", field: "redirect_url" })
      expect((await client.posts.get(created.id)).approval?.status).toBe("pending")

      const result = await client.approvals.decide(tokenOf(created), {
        decision: "approve",
        redirect_url: "https://app.example.com/thanks"
      })
      expect(result.redirect_url).toBe("https://app.example.com/thanks")
    })
  })
})
