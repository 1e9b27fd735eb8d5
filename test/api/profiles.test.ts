import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aKeyWithScopes, anImage, anotherWorkspace } from "../support/Builders.ts"
import { call, errorOf } from "../support/Http.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"

const isoMillis = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

describe.each(backends())("profiles API on %s", (backend) => {
  let server: TestServer
  const send = (method: string, path: string, body?: unknown, key = server.testKey) =>
    call(server.baseUrl, method, path, { key, ...(body === undefined ? {} : { body }) })
  const aProfile = async (name = "Kopi Kenangan") => {
    const reply = await send("POST", "/v1/profiles", { name })
    if (reply.status !== 201) throw new Error(`create failed: ${reply.status} ${JSON.stringify(reply.body)}`)
    return reply.body as { id: string; name: string; created_at: string }
  }

  beforeAll(async () => {
    server = await startServer(backend)
  })
  afterAll(async () => {
    await server?.stop()
  })

  describe("POST /v1/profiles", () => {
    it("creates a profile, trimmed, that reads back and is listed", async () => {
      const reply = await send("POST", "/v1/profiles", { name: "  Toko Batik Sari  " })

      expect(reply.status).toBe(201)
      expect(reply.body).toEqual({ id: expect.stringMatching(/^prof_[0-9A-Z]{26}$/), name: "Toko Batik Sari", created_at: expect.stringMatching(isoMillis) })
      expect((await send("GET", `/v1/profiles/${reply.body.id}`)).body).toEqual(reply.body)
      const listed = await send("GET", "/v1/profiles?limit=100")
      expect(listed.body.data).toContainEqual(reply.body)
    })

    it.each([
      ["an empty name", { name: "" }, "name"],
      ["a name of spaces", { name: "   " }, "name"],
      ["a name over 200 characters", { name: "x".repeat(201) }, "name"],
      ["no name", {}, "name"],
      ["an unknown field", { name: "A", colour: "red" }, "colour"]
    ])("refuses %s with 400 naming the field", async (_, body, field) => {
      const reply = await send("POST", "/v1/profiles", body)

      expect(reply.status).toBe(400)
      expect(errorOf(reply)).toMatchObject({ code: "invalid_request", field })
    })

    it("needs the accounts:write scope; reading needs posts:read only", async () => {
      const reader = await aKeyWithScopes(server, ["posts:read", "posts:write"])
      const refused = await send("POST", "/v1/profiles", { name: "Nope" }, reader)
      expect(refused.status).toBe(403)
      expect(errorOf(refused)).toMatchObject({ code: "insufficient_scope" })
      expect(errorOf(refused).message).toContain("accounts:write")

      const profile = await aProfile()
      expect((await send("GET", `/v1/profiles/${profile.id}`, undefined, reader)).status).toBe(200)
      expect((await send("PATCH", `/v1/profiles/${profile.id}`, { name: "B" }, reader)).status).toBe(403)
      expect((await send("DELETE", `/v1/profiles/${profile.id}`, undefined, reader)).status).toBe(403)
    })
  })

  describe("PATCH /v1/profiles/{id}", () => {
    it("renames the profile and keeps its id and creation time", async () => {
      const profile = await aProfile("Old name")
      const reply = await send("PATCH", `/v1/profiles/${profile.id}`, { name: "New name" })

      expect(reply.status).toBe(200)
      expect(reply.body).toEqual({ ...profile, name: "New name" })
      expect((await send("GET", `/v1/profiles/${profile.id}`)).body.name).toBe("New name")
    })

    it("answers 404 for a profile that does not exist, and refuses an empty name", async () => {
      const missing = await send("PATCH", "/v1/profiles/prof_01JD0000000000000000000000", { name: "X" })
      expect(missing.status).toBe(404)
      expect(errorOf(missing)).toMatchObject({ code: "not_found" })
      const profile = await aProfile()
      const empty = await send("PATCH", `/v1/profiles/${profile.id}`, { name: " " })
      expect(empty.status).toBe(400)
      expect(errorOf(empty)).toMatchObject({ code: "invalid_request", field: "name" })
    })
  })

  describe("DELETE /v1/profiles/{id}", () => {
    it("deletes a profile without accounts or posts", async () => {
      const profile = await aProfile()
      const reply = await send("DELETE", `/v1/profiles/${profile.id}`)

      expect(reply.status).toBe(200)
      expect(reply.body).toEqual({ id: profile.id, deleted: true })
      expect((await send("GET", `/v1/profiles/${profile.id}`)).status).toBe(404)
      expect((await send("DELETE", `/v1/profiles/${profile.id}`)).status).toBe(404)
    })

    it("refuses with 409 invalid_state while the profile has a connected account", async () => {
      const reply = await send("DELETE", `/v1/profiles/${server.profileId}`)

      expect(reply.status).toBe(409)
      expect(errorOf(reply)).toMatchObject({ code: "invalid_state", retryable: false })
      expect(errorOf(reply).message).toContain("connected accounts")
    })

    it("refuses with 409 invalid_state while the profile has a post that has not finished", async () => {
      const profile = await aProfile()
      const account = await server.admin(`/workspaces/${server.workspaceId}/accounts`, {
        profile_id: profile.id,
        platform: "photo",
        sandbox: true
      })
      const media = await anImage(server)
      const post = await send("POST", "/v1/posts", {
        profile_id: profile.id,
        caption: "Waiting",
        media: [media],
        targets: [{ account_id: account.id }]
      })
      expect(post.status).toBe(201)
      expect((await send("DELETE", `/v1/accounts/${account.id}`)).status).toBe(200)

      const reply = await send("DELETE", `/v1/profiles/${profile.id}`)
      expect(reply.status).toBe(409)
      expect(errorOf(reply)).toMatchObject({ code: "invalid_state" })
      expect(errorOf(reply).message).toContain("not finished")

      expect((await send("POST", `/v1/posts/${post.body.id}/cancel`)).status).toBe(200)
      expect((await send("DELETE", `/v1/profiles/${profile.id}`)).status).toBe(200)
    })

    it("does not see profiles of another workspace", async () => {
      const other = await anotherWorkspace(server)
      for (const [method, body] of [["GET", undefined], ["PATCH", { name: "x" }], ["DELETE", undefined]] as const) {
        const reply = await send(method, `/v1/profiles/${other.profileId}`, body)
        expect(reply.status).toBe(404)
      }
    })
  })
})
