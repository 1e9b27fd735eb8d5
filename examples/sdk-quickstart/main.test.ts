import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { FakePostwire, FIXTURE_API_KEY } from "../../packages/client/test/fixtures/FakePostwire.ts"
import { anAccount } from "../../packages/client/test/fixtures/builders.ts"
import { run } from "./main.ts"

// Against the SDK's stand-in server; the same run() is also exercised against the real server.
let fake: FakePostwire
beforeEach(async () => {
  fake = await FakePostwire.start()
})
afterEach(() => fake.close())

describe("sdk-quickstart", () => {
  it("uploads an image, creates a post for an image account and lists it among the posts awaiting approval", async () => {
    const result = await run({ apiKey: FIXTURE_API_KEY, baseUrl: fake.url })

    expect(result.account.platform).toBe("pages")
    expect(result.created.status).toBe("awaiting_approval")
    expect(result.awaitingApproval.map((post) => post.id)).toContain(result.created.id)
    expect(fake.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      "GET /v1/accounts",
      "POST /v1/media",
      "POST /v1/posts/validate",
      "POST /v1/posts",
      "GET /v1/posts"
    ])
    expect(fake.requestsTo("POST", "/v1/posts")[0]?.body).toMatchObject({
      media: [expect.stringMatching(/^med_/)],
      targets: [{ account_id: result.account.id }]
    })
  })

  it("asks for a photo feed post when the only image account is a photo one", async () => {
    fake.accounts = [anAccount({ platform: "photo" })]

    await run({ apiKey: FIXTURE_API_KEY, baseUrl: fake.url })

    expect(fake.requestsTo("POST", "/v1/posts")[0]?.body).toMatchObject({ targets: [{ photo: { type: "feed" } }] })
  })

  it("explains what is missing when no account takes an image", async () => {
    fake.accounts = [anAccount({ platform: "shortvideo" })]

    await expect(run({ apiKey: FIXTURE_API_KEY, baseUrl: fake.url })).rejects.toThrow(/No connected pages, textpost or photo account/)
  })
})
