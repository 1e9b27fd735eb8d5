import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { run } from "../../examples/sdk-quickstart/main.ts"
import { call } from "../support/Http.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

describe("examples/sdk-quickstart against the real server", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer("embedded")
  })
  afterAll(() => server?.stop())

  it("creates a post awaiting approval and finds it by listing with for await", async () => {
    const result = await run({ apiKey: server.testKey, baseUrl: server.baseUrl })
    expect(result.account.sandbox).toBe(true)
    expect(result.created.status).toBe("awaiting_approval")
    expect(result.created.approval?.url).toContain("/approve/")
    expect(result.awaitingApproval.map((p) => p.id)).toContain(result.created.id)
    const stored = await call(server.baseUrl, "GET", `/v1/posts/${result.created.id}`, { key: server.testKey })
    expect(stored.status).toBe(200)
    expect(stored.body.targets[0].account_id).toBe(result.account.id)
  })
})
