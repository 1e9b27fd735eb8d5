/**
 * `Idempotency-Key` when PostgreSQL's answers are lost: the tests' TCP proxy
 * (test/support/FaultProxy.ts) sits between the server and PostgreSQL and cuts the connection of a
 * create at a chosen point, as a connection reset does. The post and the key's stored response commit together, so a key is completed with
 * its post or not used at all, whichever answer goes missing.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { sqlStores } from "@postwire/server"
import { layerPostgres } from "@postwire/store-sql"
import { Layer } from "effect"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { onPostgres } from "../support/Postgres.ts"
import { aPost, anImage } from "../support/Builders.ts"
import { eventually } from "../support/Eventually.ts"
import * as FaultProxy from "../support/FaultProxy.ts"
import { call, errorOf } from "../support/Http.ts"
import { aDatabase, startServer, type TestDatabase, type TestServer } from "../support/TestServer.ts"
import { aReceiver } from "../webhooks/Receiver.ts"

/**
 * Where the proxy cuts the connection that carried `marker` (a caption):
 * - `commit-answer`: the answer to its next COMMIT is dropped (PostgreSQL committed; the server
 *   never hears so);
 * - `completion`: the statement that stores the key's response (on any connection) is never
 *   delivered;
 * - `commit`: once that statement has been answered on the connection, what the server sends
 *   next (its COMMIT) is never delivered;
 * - `marker`: the statement carrying `marker` itself is never delivered;
 * - `hold`: nothing is cut, but the statement that stores the key's response (and what follows
 *   it on that connection) reaches PostgreSQL only after `holdMs`.
 */
type Cut = "commit-answer" | "completion" | "commit" | "marker" | "hold"

const holdMs = 1500

/** The proxy between the server and PostgreSQL, and the one cut a test arms on it. */
interface Proxy {
  readonly port: number
  /** Cuts once, at `cut`, after a client sends `marker`. */
  readonly arm: (marker: string, cut: Cut) => void
  /** Whether the armed cut happened. */
  readonly cutDone: () => boolean
  readonly close: () => Promise<void>
}

const aProxy = async (target: { readonly host: string; readonly port: number }): Promise<Proxy> => {
  const proxy = await FaultProxy.start(target)
  let armed:
    | { marker: string; cut: Cut; seen: object | undefined; completing: object | undefined; completed: boolean; done: boolean }
    | undefined
  /** Where the armed cut falls: the chunk that ends its connection, or the statement it holds. */
  const rule = (chunk: FaultProxy.Chunk): FaultProxy.Verdict => {
    if (armed === undefined || armed.done) return "forward"
    const { bytes, connection } = chunk
    const cutHere = (): FaultProxy.Verdict => {
      armed!.done = true
      return "cut"
    }
    if (chunk.direction === "to-client") {
      // The CommandComplete of a COMMIT: PostgreSQL has committed; its answer is lost.
      if (armed.cut === "commit-answer" && armed.seen === connection && bytes.includes("COMMIT\0")) return cutHere()
      if (armed.completing === connection && bytes.includes("UPDATE 1\0")) armed.completed = true
      return "forward"
    }
    if (armed.cut === "hold" && armed.seen !== undefined && bytes.includes("SET state = 'completed'")) {
      armed.done = true
      return { holdMs }
    }
    if (armed.seen === undefined && bytes.includes(armed.marker)) {
      if (armed.cut === "marker") return cutHere()
      armed.seen = connection
    } else if (armed.seen !== undefined && bytes.includes("SET state = 'completed'")) {
      if (armed.cut === "completion") return cutHere()
      armed.completing = connection
    } else if (armed.cut === "commit" && armed.completed && armed.completing === connection) return cutHere()
    return "forward"
  }
  proxy.inspect(rule)
  return {
    port: proxy.port,
    arm: (marker, cut) => {
      armed = { marker, cut, seen: undefined, completing: undefined, completed: false, done: false }
    },
    cutDone: () => armed?.done === true,
    close: proxy.close
  }
}

onPostgres("Idempotency-Key when PostgreSQL's answers are lost", (url) => {
  describe("Idempotency-Key when PostgreSQL's answers are lost (postgres)", () => {
    let proxy: Proxy
    let database: TestDatabase
    let server: TestServer | undefined
    let image: string

    const create = (body: unknown, key: string) =>
      call(server!.baseUrl, "POST", "/v1/posts", { key: server!.testKey, body, headers: { "idempotency-key": key } })
    const postsWithCaption = async (caption: string) => {
      const listed = await call(server!.baseUrl, "GET", "/v1/posts?limit=100", { key: server!.testKey })
      return (listed.body.data as ReadonlyArray<{ readonly id: string; readonly caption: string }>).filter((p) => p.caption === caption)
    }

    beforeAll(async () => {
      const target = new URL(url)
      proxy = await aProxy({ host: target.hostname, port: Number(target.port || 5432) })
      target.host = `127.0.0.1:${proxy.port}`
      const direct = await aDatabase("postgres")
      // The server reaches its schema through the proxy.
      database = { ...direct, stores: () => sqlStores.pipe(Layer.provide(layerPostgres(target.toString(), { searchPath: direct.schema! }))) }
    })
    afterEach(async () => {
      await server?.stop()
      server = undefined
    })
    afterAll(async () => {
      await proxy?.close()
      await database?.drop()
    })

    /** The approval e-mails the server wrote (no SMTP server is set: they go to its data directory). */
    const mailsTo = (address: string) => {
      const dir = join(server!.dataDir, "mail")
      if (!existsSync(dir)) return []
      return readdirSync(dir).map((f) => readFileSync(join(dir, f), "utf8")).filter((mail) => mail.includes(`To: ${address}`))
    }

    // A server of its own per case: its connections have not yet sent the statements the proxy looks for.
    const aServer = async (env: Readonly<Record<string, string>> = {}) => {
      server = await startServer("postgres", env, { database })
      image = await anImage(server)
    }

    it("answers the committed post when the COMMIT's answer is lost, and the retry replays it: one post", async () => {
      await aServer()
      const caption = `lost commit answer ${Math.random()}`
      proxy.arm(caption, "commit-answer")
      const first = await create(aPost(server!, [image], { caption }), "lost-commit-answer")
      expect(proxy.cutDone()).toBe(true)
      expect(first.status).toBe(201)
      const retried = await create(aPost(server!, [image], { caption }), "lost-commit-answer")
      expect(retried.status).toBe(201)
      expect(retried.headers.get("idempotent-replayed")).toBe("true")
      expect(retried.body.id).toBe(first.body.id)
      expect((await postsWithCaption(caption)).map((p) => p.id)).toEqual([first.body.id])
    })

    it("frees the key when the COMMIT never reached PostgreSQL: no post, and the retry creates exactly one", async () => {
      await aServer()
      const caption = `lost commit ${Math.random()}`
      proxy.arm(caption, "commit")
      const first = await create(aPost(server!, [image], { caption }), "lost-commit")
      expect(proxy.cutDone()).toBe(true)
      expect(first.status).toBeGreaterThanOrEqual(500)
      expect(errorOf(first).retryable).toBe(true)
      expect(await postsWithCaption(caption)).toEqual([])
      const retried = await create(aPost(server!, [image], { caption }), "lost-commit")
      expect(retried.status).toBe(201)
      expect(retried.headers.get("idempotent-replayed")).toBeNull()
      expect((await postsWithCaption(caption)).map((p) => p.id)).toEqual([retried.body.id])
    })

    it("writes no post and sends no approval e-mail when storing the response fails, and frees the key: the retry creates exactly one", async () => {
      await aServer()
      const caption = `lost completion ${Math.random()}`
      const body = () => aPost(server!, [image], { caption, approval: { notify: { email: "approver@example.com" } } })
      proxy.arm(caption, "completion")
      const first = await create(body(), "lost-completion")
      expect(proxy.cutDone()).toBe(true)
      expect(first.status).toBeGreaterThanOrEqual(500)
      expect(errorOf(first).retryable).toBe(true)
      expect(await postsWithCaption(caption)).toEqual([])
      expect(mailsTo("approver@example.com")).toEqual([])
      const retried = await create(body(), "lost-completion")
      expect(retried.status).toBe(201)
      expect(retried.headers.get("idempotent-replayed")).toBeNull()
      const again = await create(body(), "lost-completion")
      expect(again.headers.get("idempotent-replayed")).toBe("true")
      expect(again.body.id).toBe(retried.body.id)
      expect((await postsWithCaption(caption)).map((p) => p.id)).toEqual([retried.body.id])
      const mails = mailsTo("approver@example.com")
      expect(mails).toHaveLength(1)
      expect(mails[0]).toContain(retried.body.approval.url)
    })

    it("frees the key at once when the client goes away mid-create: the retry creates exactly one", async () => {
      await aServer()
      const caption = `client gone ${Math.random()}`
      proxy.arm(caption, "hold")
      const gone = new AbortController()
      const abandoned = fetch(`${server!.baseUrl}/v1/posts`, {
        method: "POST",
        headers: { authorization: `Bearer ${server!.testKey}`, "content-type": "application/json", "idempotency-key": "client-gone" },
        body: JSON.stringify(aPost(server!, [image], { caption })),
        signal: gone.signal
      }).catch(() => undefined)
      await eventually(() => proxy.cutDone(), "the held statement", { intervalMs: 20 })
      gone.abort()
      await abandoned
      // Once the held statement has gone through and the transaction rolled back, the key is free:
      // well within the claim's 60-second lock.
      const retried = await eventually(
        () => create(aPost(server!, [image], { caption }), "client-gone"),
        (reply) => reply.status !== 409,
        "the key to be free",
        { intervalMs: 250 }
      )
      expect(retried.status).toBe(201)
      expect(retried.headers.get("idempotent-replayed")).toBeNull()
      expect((await postsWithCaption(caption)).map((p) => p.id)).toEqual([retried.body.id])
    })

    it("keeps the key of a redelivery whose outcome is unknown: the receiver is not sent it again", async () => {
      await aServer({ POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS: "1" })
      const sink = await aReceiver()
      try {
        const registered = await call(server!.baseUrl, "POST", "/v1/webhooks", {
          key: server!.testKey,
          body: { url: sink.url, events: ["account.connected"] }
        })
        sink.secret = registered.body.secret
        await server!.admin(`/workspaces/${server!.workspaceId}/accounts`, { profile_id: server!.profileId, platform: "pages", sandbox: true })
        await sink.waitUntil(() => sink.events.length === 1, "the delivery")
        const deliveries = `/v1/webhooks/${registered.body.id}/deliveries`
        const delivery: { readonly id: string; readonly status: string } = await eventually(
          async () => (await call(server!.baseUrl, "GET", deliveries, { key: server!.testKey })).body.data?.[0],
          (first) => first?.status === "delivered",
          "the delivery recorded delivered"
        )

        // The receiver's answer is recorded after the redelivery was sent: that write is lost.
        const marker = `answer ${Math.random()}`
        sink.mode = 200
        sink.answerBody = marker
        proxy.arm(marker, "marker")
        const redeliver = () =>
          call(server!.baseUrl, "POST", `${deliveries}/${delivery!.id}/redeliver`, {
            key: server!.testKey,
            headers: { "idempotency-key": "redeliver-unknown" }
          })
        const first = await redeliver()
        expect(proxy.cutDone()).toBe(true)
        expect(first.status).toBeGreaterThanOrEqual(500)
        expect(sink.raw).toHaveLength(2)
        const retried = await redeliver()
        expect(retried.status).toBe(409)
        expect(errorOf(retried).code).toBe("idempotency_in_progress")
        expect(sink.raw).toHaveLength(2)
      } finally {
        await sink.close()
      }
    })
  })
})
