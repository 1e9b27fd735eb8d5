import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { absolute, aConnectLink, aConnectServer, hiddenFields, postForm, returnedQuery, step } from "../support/Connect.ts"
import { aMovableClock } from "../support/MovableClock.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"

const back = "https://app.example.com/accounts/connected"
const minute = 60_000

describe.each(backends())("connect links expire after 30 minutes on %s", (backend) => {
  let server: TestServer
  const time = aMovableClock()

  beforeAll(async () => {
    server = await aConnectServer((env, options) => startServer(backend, env, { ...options, clock: time.clock }))
  })
  afterAll(async () => {
    await server?.stop()
  })

  it("shows an expired link as such, with 410, and does not start the platform's page", async () => {
    const link = await aConnectLink(server, { platform: "photo", redirect_url: back })
    expect((await step(link.body.url)).status).toBe(200)
    time.advance(30 * minute + 1_000)

    const page = await step(link.body.url)
    expect(page.status).toBe(410)
    expect(page.body).toContain("This link has expired")
    expect(page.body).toContain("Ask for a new link")
    const start = await step(`${link.body.url}/start`)
    expect(start.status).toBe(410)
    expect(start.location).toBeNull()
  })

  it("returns the person with error=connect_link_expired when the platform answers after the link expired", async () => {
    const link = await aConnectLink(server, { platform: "shortvideo", redirect_url: back })
    const started = await step(`${link.body.url}/start`)
    const consent = await step(absolute(server, started.location!))
    const consented = await postForm(absolute(server, "/connect/sandbox/authorize"), [
      ...hiddenFields(consent.body),
      ["handle", "too_late"],
      ["decision", "allow"]
    ])
    time.advance(31 * minute)

    const callback = await step(absolute(server, consented.location!))
    const query = returnedQuery(callback)
    expect(query.get("status")).toBe("error")
    expect(query.get("error")).toBe("connect_link_expired")
    const accounts = await fetch(`${server.baseUrl}/v1/accounts?platform=shortvideo&limit=100`, {
      headers: { authorization: `Bearer ${server.testKey}` }
    }).then((r) => r.json() as Promise<{ data: Array<{ handle: string }> }>)
    expect(accounts.data.map((a) => a.handle)).not.toContain("too_late")
  })
})
