import { Effect, Stream } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Postwire, PostwireApiError, PostwireClient } from "@postwire/client"
import { accountOf, aPost, anImage } from "../support/Builders.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"
import { builtinPlatforms } from "@postwire/domain"

describe.each(backends())("the SDK against the real server on %s", (backend) => {
  let server: TestServer
  let client: Postwire
  let image: string

  beforeAll(async () => {
    server = await startServer(backend)
    client = new Postwire({ apiKey: server.testKey, baseUrl: server.baseUrl })
    image = await anImage(server)
  })
  afterAll(() => server?.stop())

  it("creates, reads, updates, cancels and lists posts with the Promise API", async () => {
    const created = await client.posts.create(aPost(server, [image]) as never)
    expect(created.status).toBe("awaiting_approval")
    const fetched = await client.posts.get(created.id)
    expect(fetched.id).toBe(created.id)
    const updated = await client.posts.update(created.id, { caption: "Edited through the SDK" })
    expect(updated.caption).toBe("Edited through the SDK")
    const cancelled = await client.posts.cancel(created.id)
    expect(cancelled.status).toBe("cancelled")
    const validated = await client.posts.validate(aPost(server, [image]) as never)
    expect(validated.issues).toEqual([])
  })

  it("walks every page with for await", async () => {
    for (let i = 0; i < 5; i++) await client.posts.create(aPost(server, [image], { caption: `page ${i}` }) as never)
    const all = await client.posts.list({ limit: 100 })
    const seen: Array<string> = []
    for await (const post of client.posts.list({ limit: 2 })) seen.push(post.id)
    expect(seen).toEqual(all.data.map((p) => p.id))
    expect(new Set(seen).size).toBe(seen.length)
  })

  it("rejects with a PostwireApiError carrying the shared error fields", async () => {
    const error = await client.posts
      .create(aPost(server, [image], { targets: [{ account_id: accountOf(server, "shortvideo"), shortvideo: { mode: "direct" } }], approval: { mode: "none" } }) as never)
      .then(() => undefined, (e: unknown) => e)
    expect(error).toBeInstanceOf(PostwireApiError)
    const apiError = error as PostwireApiError
    expect(apiError.status).toBe(422)
    expect(apiError.code).toBe("consent_required")
    expect(apiError.field).toBe("targets[0].shortvideo.consent")
    expect(apiError.retryable).toBe(false)
    expect(apiError.docs).toMatch(/\/docs\/errors#consent_required$/)
    expect(apiError.messageId.length).toBeGreaterThan(0)
  })

  it("answers 404 not_found naming profile_id for an unknown profile", async () => {
    const error = (await client.posts
      .create(aPost(server, [image], { profile_id: "prof_00000000000000000000000000" }) as never)
      .then(() => undefined, (e: unknown) => e)) as PostwireApiError
    expect(error.status).toBe(404)
    expect(error.code).toBe("not_found")
    expect(error.field).toBe("profile_id")
  })

  it("speaks Indonesian when asked", async () => {
    const indonesian = new Postwire({ apiKey: server.testKey, baseUrl: server.baseUrl, locale: "id" })
    const error = (await indonesian.posts.get("post_00000000000000000000000000").then(() => undefined, (e: unknown) => e)) as PostwireApiError
    expect(error.code).toBe("not_found")
    expect(error.message).toBe(error.messageId)
  })

  it("streams every account with the Effect client", async () => {
    const accounts = await Effect.runPromise(
      Effect.gen(function* () {
        const api = yield* PostwireClient
        return yield* Stream.runCollect(api.accounts.listAll({ limit: 1 }))
      }).pipe(Effect.provide(PostwireClient.layer({ apiKey: server.testKey, baseUrl: server.baseUrl })))
    )
    expect(Array.from(accounts).map((a) => a.platform).sort()).toEqual([...builtinPlatforms].sort())
  })
})
