/**
 * A Mastodon post's replies as comments over the real HTTP API, against the fake server: a post
 * published with an image, a reply someone makes on the server read by the poller, answered and
 * the answer deleted through `/v1/comments`, hiding refused (Mastodon has none).
 */
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aJpeg } from "../../support/Media.ts"
import type * as FediverseCredentials from "../../../packages/platforms/src/fediverse/FediverseCredentials.ts"
import { eventually } from "../../support/Eventually.ts"
import { call, errorOf, type Reply } from "../../support/Http.ts"
import { aMovableClock, type MovableClock } from "../../support/MovableClock.ts"
import { backends, startServer, type TestServer } from "../../support/TestServer.ts"
import * as MastodonFake from "./MastodonFake.ts"

const minute = 60_000

describe.each(backends())("Mastodon replies as comments over HTTP on %s", (backend) => {
  let server: TestServer
  let fake: MastodonFake.MastodonFake
  let clock: MovableClock
  let key: string
  let postId: string
  const scope = Effect.runSync(Scope.make())
  const send = (method: string, path: string, body?: unknown): Promise<Reply> => call(server.baseUrl, method, path, { key, body })

  beforeAll(async () => {
    fake = await Effect.runPromise(Scope.provide(scope)(MastodonFake.make()))
    clock = aMovableClock()
    server = await startServer(
      backend,
      {
        POSTWIRE_PLATFORM_POLL_INTERVAL_MS: "1",
        POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS: "1",
        POSTWIRE_PLATFORM_RETRY_DELAY_MS: "5",
        POSTWIRE_PUBLISH_POLL_MS: "50",
        POSTWIRE_COMMENT_POLL_MS: "50",
        POSTWIRE_RATE_LIMIT_PER_KEY: "100000"
      },
      { clock: clock.clock }
    )
    key = (await server.admin<{ key: string }>(`/workspaces/${server.workspaceId}/keys`, { kind: "live", scopes: ["posts:read", "posts:write", "comments:write"] })).key
    const accountId = (
      await server.admin<{ id: string }>(`/workspaces/${server.workspaceId}/accounts`, {
        profile_id: server.profileId,
        platform: "fediverse",
        sandbox: false,
        handle: "maya@127.0.0.1",
        credentials: {
          server: fake.origin,
          access_token: fake.ownerToken,
          client_id: "preset",
          client_secret: "preset-secret",
          account_id: fake.owner.id
        } satisfies FediverseCredentials.FediverseCredentials,
        external_id: `${fake.owner.id}@127.0.0.1`
      })
    ).id
    const image = await send("POST", "/v1/media", { data: Buffer.from(aJpeg({ width: 1080, height: 1350 })).toString("base64") })
    expect(image.status).toBe(201)
    const created = await send("POST", "/v1/posts", {
      profile_id: server.profileId,
      caption: "Rye is back",
      media: [image.body.id],
      targets: [{ account_id: accountId }],
      approval: { mode: "none" }
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    postId = created.body.id
    await eventually(() => send("GET", `/v1/posts/${postId}`), (r) => r.body.status === "published", "the post published")
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  const commentsOf = () => send("GET", `/v1/comments?post_id=${postId}&limit=100`)
  const pollUntil = (count: number) =>
    eventually(() => commentsOf(), (reply) => reply.body.data?.length === count, `${count} comments`, {
      step: () => clock.advance(minute),
      intervalMs: 150
    })

  it("reads a reply, answers it on the server, and deletes the answer", async () => {
    const root = fake.statusesOf(fake.owner.id).find((s) => s.text === "Rye is back")!
    const question = fake.addStatus(fake.stranger, "Is it sourdough rye?", root.id)
    const listed = await pollUntil(1)
    const comment = listed.body.data[0]
    expect(comment).toMatchObject({ text: "Is it sourdough rye?", platform_comment_id: question.id })

    const answer = await send("POST", `/v1/comments/${comment.id}/replies`, { text: "Yes, 100%" })
    expect(answer.status, JSON.stringify(answer.body)).toBe(201)
    const made = fake.statuses.find((s) => s.text === "Yes, 100%")!
    expect(made.inReplyToId).toBe(question.id)
    expect(made.accountId).toBe(fake.owner.id)

    const hide = await send("POST", `/v1/comments/${comment.id}/hide`)
    expect(hide.status).toBe(422)
    expect(errorOf(hide).code).toBe("comment_action_unsupported")

    const deleted = await send("DELETE", `/v1/comments/${answer.body.id}`)
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200)
    expect(fake.statuses.some((s) => s.id === made.id)).toBe(false)
  })
})
