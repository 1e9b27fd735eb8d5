/**
 * At least once, across restarts: what is pending when a server stops (a delivery in flight,
 * events written while no worker runs) is delivered by the next server on the same database.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { anImage, aPost } from "../support/Builders.ts"
import { call } from "../support/Http.ts"
import { aDatabase, backends, startServer, type TestDatabase, type TestServer } from "../support/TestServer.ts"
import { aReceiver, type Receiver, subjectOf } from "./Receiver.ts"

const loopbackAllowed = { POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS: "1" }

describe.each(backends())("webhook deliveries across a restart on %s", (backend) => {
  let database: TestDatabase
  let receiver: Receiver
  let running: TestServer | undefined

  const start = async (env: Record<string, string> = {}) => {
    running = await startServer(backend, { ...loopbackAllowed, ...env }, { database })
    return running
  }
  const stop = async () => {
    await running?.stop()
    running = undefined
  }

  beforeAll(async () => {
    database = await aDatabase(backend)
    receiver = await aReceiver()
  })
  afterAll(async () => {
    await stop()
    await receiver?.close()
    await database?.drop()
  })

  it("delivers what was pending when the server stopped once a server runs again", async () => {
    const first = await start()
    const registered = await call(first.baseUrl, "POST", "/v1/webhooks", {
      key: first.testKey,
      body: { url: receiver.url, events: ["account.connected", "post.awaiting_approval"] }
    })
    expect(registered.status).toBe(201)
    receiver.secret = registered.body.secret

    // The receiver takes the delivery and never answers: it is in flight when the server stops.
    receiver.mode = "hold"
    const account = await first.admin(`/workspaces/${first.workspaceId}/accounts`, {
      profile_id: first.profileId,
      platform: "textpost",
      sandbox: true
    })
    await receiver.waitUntil(() => receiver.deliveries() === 1, "the delivery in flight")
    await stop()

    // An instance without background work writes an event that nobody dispatches yet.
    const apiOnly = await start({ POSTWIRE_ROLE: "api" })
    const post = await call(apiOnly.baseUrl, "POST", "/v1/posts", {
      key: apiOnly.testKey,
      body: aPost(apiOnly, [await anImage(apiOnly)])
    })
    expect(post.status).toBe(201)
    await stop()

    receiver.mode = 204
    await start()
    await receiver.waitUntil(() => receiver.events.length === 2, "both events after the restart")

    expect(receiver.events.map((event) => [event.type, subjectOf(event)]).sort()).toEqual(
      [
        ["account.connected", account.id],
        ["post.awaiting_approval", post.body.id]
      ].sort()
    )
    expect(receiver.rejected).toEqual([])
  })
})
