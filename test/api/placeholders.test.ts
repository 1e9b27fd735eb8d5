import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call } from "../support/Http.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

describe("ids copied from the README as they are (prof_…, acc_…, med_…)", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer("embedded")
  })
  afterAll(() => server?.stop())

  it("are answered with a message that names the placeholder and where the real id comes from", async () => {
    const response = await call(server.baseUrl, "POST", "/v1/posts", {
      key: server.testKey,
      body: { profile_id: "prof_…", caption: "Hello", media: ["med_…"], targets: [{ account_id: "acc_…" }] }
    })
    expect(response.status).toBe(400)
    const { error } = response.body
    expect(error.code).toBe("invalid_request")
    const byField = Object.fromEntries((error.issues ?? [error]).map((issue: { field: string; message: string }) => [issue.field, issue.message]))
    expect(byField.profile_id).toBe(
      'The request is invalid at profile_id: "prof_…" is a placeholder from the documentation, not an id: use the profile id printed by the server\'s first start, or one from GET /v1/profiles'
    )
    expect(byField["targets[0].account_id"]).toContain("GET /v1/accounts")
    expect(byField["media[0]"]).toContain("POST /v1/media")
    expect(error.message_id).toContain("adalah contoh dari dokumentasi, bukan id")
  })

  it("still answers a malformed id that is no placeholder with the id's expected prefix", async () => {
    const response = await call(server.baseUrl, "POST", "/v1/posts", {
      key: server.testKey,
      body: { profile_id: "profile-1", caption: "Hello", media: [], targets: [] }
    })
    expect(response.status).toBe(400)
    const issues = response.body.error.issues ?? [response.body.error]
    expect(issues.find((issue: { field: string }) => issue.field === "profile_id").message).toContain('must be an id starting with "prof_"')
  })
})
