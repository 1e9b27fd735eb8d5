/**
 * A group added to the contract reaches the SDK with nothing written for it: the analytics
 * endpoints, added after the SDK was derived from the contract, answer through both clients.
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Postwire, PostwireClient } from "@postwire/client"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"

describe.each(backends())("the analytics group through the derived SDK against the real server on %s", (backend) => {
  let server: TestServer

  beforeAll(async () => {
    server = await startServer(backend)
  })
  afterAll(async () => {
    await server?.stop()
  })

  it("answers the overview and the chart with Promises, as the contract says", async () => {
    const postwire = new Postwire({ apiKey: server.testKey, baseUrl: server.baseUrl })

    const overview = await postwire.analytics.overview({ limit: 5 })
    const chart = await postwire.analytics.chart({ metric: "views" })

    expect(overview.cursor).toMatchObject({ has_more: false })
    expect(overview.totals).toBeTypeOf("object")
    expect(chart.trimStart()).toMatch(/^(<\?xml[^>]*>\s*)?<svg/)
  })

  it("answers the same overview through the Effect client", async () => {
    const overview = await Effect.runPromise(
      PostwireClient.use((postwire) => postwire.analytics.overview()).pipe(
        Effect.provide(PostwireClient.layer({ apiKey: server.testKey, baseUrl: server.baseUrl }))
      )
    )

    expect(overview.cursor).toMatchObject({ has_more: false })
  })

  it("rejects a post id that does not exist with the API's 404, naming the code", async () => {
    const postwire = new Postwire({ apiKey: server.testKey, baseUrl: server.baseUrl })

    await expect(postwire.analytics.postMetrics("post_01JD0000000000000000000000")).rejects.toMatchObject({ status: 404 })
  })
})
