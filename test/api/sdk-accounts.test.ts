import { Effect, Stream } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Postwire, PostwireApiError, PostwireClient } from "@postwire/client"
import { aKeyWithScopes } from "../support/Builders.ts"
import { aConnectServer, returnedQuery, sandboxJourney } from "../support/Connect.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"

const back = "https://app.example.com/accounts/connected"

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

describe.each(backends())("the SDK's profiles and account connections against the real server on %s", (backend) => {
  let server: TestServer
  let client: Postwire

  beforeAll(async () => {
    server = await aConnectServer((env, options) => startServer(backend, env, options))
    client = new Postwire({ apiKey: server.testKey, baseUrl: server.baseUrl })
  })
  afterAll(async () => {
    await server?.stop()
  })

  it("creates, reads, renames, lists and deletes a profile with Promises", async () => {
    const created = await client.profiles.create({ name: "Warung Sari" })
    expect(created).toMatchObject({ id: expect.stringMatching(/^prof_/), name: "Warung Sari" })
    expect(await client.profiles.get(created.id)).toEqual(created)
    expect(await client.profiles.update(created.id, { name: "Warung Sari Rasa" })).toEqual({ ...created, name: "Warung Sari Rasa" })
    const listed = []
    for await (const profile of client.profiles.list({ limit: 2 })) listed.push(profile.id)
    expect(listed).toContain(created.id)
    expect(await client.profiles.delete(created.id)).toEqual({ id: created.id, deleted: true })
    const gone = await rejectionOf(client.profiles.get(created.id))
    expect(gone.status).toBe(404)
    expect(gone.code).toBe("not_found")
  })

  it("refuses to delete a profile with connected accounts, as a typed 409", async () => {
    const error = await rejectionOf(client.profiles.delete(server.profileId))
    expect(error.status).toBe(409)
    expect(error.code).toBe("invalid_state")
  })

  it("connects, reconnects and disconnects an account with Promises", async () => {
    const link = await client.accounts.connect({ profile_id: server.profileId, platform: "photo", redirect_url: back })
    expect(link).toMatchObject({ platform: "photo", sandbox: true, account_id: null })
    const journey = await sandboxJourney(server, link.url, { handles: ["sdk_brand"] })
    const id = returnedQuery(journey.callback).get("account_id")!
    expect(await client.accounts.get(id)).toMatchObject({ handle: "sdk_brand", status: "connected" })

    const again = await client.accounts.reconnect(id, { redirect_url: back })
    expect(again.account_id).toBe(id)
    const reconnected = await sandboxJourney(server, again.url, { handles: ["sdk_brand"] })
    expect(returnedQuery(reconnected.callback).get("account_id")).toBe(id)

    const disconnected = await client.accounts.disconnect(id)
    expect(disconnected).toMatchObject({ id, status: "disconnected", token_expires_at: null })
  })

  it("reports platform_not_configured and invalid_redirect_url as typed errors", async () => {
    const live = new Postwire({
      apiKey: await aKeyWithScopes(server, ["posts:read", "accounts:write"], "live"),
      baseUrl: server.baseUrl
    })
    const missing = await rejectionOf(live.accounts.connect({ profile_id: server.profileId, platform: "pages" }))
    expect(missing.status).toBe(422)
    expect(missing.code).toBe("platform_not_configured")
    expect(missing.message).toContain("POSTWIRE_META_APP_ID")
    const outside = await rejectionOf(
      client.accounts.connect({ profile_id: server.profileId, platform: "pages", redirect_url: "https://elsewhere.test/x" })
    )
    expect(outside.code).toBe("invalid_redirect_url")
  })

  it("does the same with the Effect API", async () => {
    const program = Effect.gen(function* () {
      const postwire = yield* PostwireClient
      const profile = yield* postwire.profiles.create({ name: "Effect Brand" })
      const renamed = yield* postwire.profiles.update(profile.id, { name: "Effect Brand 2" })
      const all = yield* Stream.runCollect(postwire.profiles.listAll({ limit: 1 }))
      const link = yield* postwire.accounts.connect({ profile_id: profile.id, platform: "textpost" })
      const refused = yield* Effect.flip(postwire.profiles.delete("prof_01JD0000000000000000000000"))
      const deleted = yield* postwire.profiles.delete(profile.id)
      return { renamed, all: Array.from(all), link, refused, deleted }
    }).pipe(Effect.provide(PostwireClient.layer({ apiKey: server.testKey, baseUrl: server.baseUrl })))
    const { all, deleted, link, refused, renamed } = await Effect.runPromise(program)

    expect(renamed.name).toBe("Effect Brand 2")
    expect(all.map((p) => p.id)).toContain(renamed.id)
    expect(link).toMatchObject({ profile_id: renamed.id, platform: "textpost", sandbox: true })
    expect(refused).toBeInstanceOf(PostwireApiError)
    expect((refused as PostwireApiError).status).toBe(404)
    expect(deleted).toEqual({ id: renamed.id, deleted: true })
  })
})
