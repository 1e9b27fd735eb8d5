/**
 * A target fails only for a reason of its own: when the database refuses the write that
 * checkpoints a publish (a real PostgreSQL error, raised once by a trigger), nothing was sent
 * to the platform, so the target goes back to the queue with a backoff, counted in
 * `postwire_publish_requeues_total`, and then publishes once, never reported failed. And when
 * the database stops answering in the middle of a step (a TCP proxy swallows every byte for a
 * few seconds), the step's calls fail within their limit and the target still publishes once.
 */
import { Effect, Exit, Layer, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { sqlStores } from "@postwire/server"
import { layerPostgres } from "@postwire/store-sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { anImage } from "../support/Builders.ts"
import { eventually } from "../support/Eventually.ts"
import { call } from "../support/Http.ts"
import { onPostgres } from "../support/Postgres.ts"
import { aDatabase, startServer, type TestDatabase, type TestServer } from "../support/TestServer.ts"
import type { ContainerFake } from "../platforms/meta/ContainerFake.ts"
import * as ThreadsFake from "../platforms/threads/ThreadsFake.ts"
import * as FaultProxy from "../support/FaultProxy.ts"


onPostgres("publishing through a database error", (url) => {
  describe("publishing through a database error", () => {
    let scope: Scope.Closeable
    let fake: ContainerFake
    let database: TestDatabase
    let server: TestServer
    let liveKey: string
    let accountId: string
    let image: string

    /** Runs statements in the server's schema. */
    const onSchema = (statements: ReadonlyArray<string>) =>
      Effect.runPromise(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          for (const statement of statements) yield* sql.unsafe(statement)
        }).pipe(Effect.provide(layerPostgres(url, { maxConnections: 1, searchPath: database.schema })))
      )

    beforeAll(async () => {
      scope = Effect.runSync(Scope.make())
      fake = await Effect.runPromise(ThreadsFake.make().pipe(Scope.provide(scope)))
      database = await aDatabase("postgres")
      server = await startServer(
        "postgres",
        {
          POSTWIRE_THREADS_BASE_URL: fake.url,
          POSTWIRE_THREADS_REFRESH_URL: "none",
          POSTWIRE_PLATFORM_POLL_INTERVAL_MS: "1",
          POSTWIRE_PUBLISH_POLL_MS: "20",
          POSTWIRE_RATE_LIMIT_PER_KEY: "100000"
        },
        { database }
      )
      liveKey = (
        await server.admin<{ key: string }>(`/workspaces/${server.workspaceId}/keys`, { kind: "live", scopes: ["posts:read", "posts:write"] })
      ).key
      accountId = (
        await server.admin(`/workspaces/${server.workspaceId}/accounts`, {
          profile_id: server.profileId,
          platform: "textpost",
          sandbox: false,
          handle: "maya.bakes",
          credentials: { access_token: fake.accessToken },
          external_id: ThreadsFake.threadsUserId
        })
      ).id
      image = await anImage(server, liveKey)
    })
    afterAll(async () => {
      await server?.stop()
      await database?.drop()
      if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
    })

    it("gives the target back to the queue when its checkpoint is refused, then publishes it once, never failed", async () => {
      // A sequence counts outside transactions: the first checkpoint is refused, later ones pass.
      await onSchema([
        "CREATE SEQUENCE refused_checkpoints",
        `CREATE FUNCTION refuse_first_checkpoint() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF OLD.unconfirmed_since IS NULL AND NEW.unconfirmed_since IS NOT NULL AND nextval('refused_checkpoints') = 1 THEN
             RAISE EXCEPTION 'terminating connection (injected)' USING ERRCODE = '57P01';
           END IF;
           RETURN NEW;
         END $$`,
        "CREATE TRIGGER refuse_first_checkpoint BEFORE UPDATE ON targets FOR EACH ROW EXECUTE FUNCTION refuse_first_checkpoint()"
      ])
      const caption = "Rye loaf through a database error"
      const created = await call(server.baseUrl, "POST", "/v1/posts", {
        key: liveKey,
        body: { profile_id: server.profileId, caption, media: [image], targets: [{ account_id: accountId }], approval: { mode: "none" } }
      })
      expect(created.status, JSON.stringify(created.body)).toBe(201)
      const seen: Array<string> = []
      const target = await eventually(
        async () => {
          const read = (await call(server.baseUrl, "GET", `/v1/posts/${created.body.id}`, { key: liveKey })).body.targets[0]
          seen.push(read.status)
          return read
        },
        (read) => read.status === "published" || read.status === "failed",
        "the target to end",
        { intervalMs: 20 }
      )
      expect(target).toMatchObject({ status: "published", error: null, attempts: 1 })
      expect(seen).not.toContain("failed")
      expect(fake.media.filter((m) => m.caption === caption)).toHaveLength(1)
      expect(fake.count("publish")).toBe(1)
      expect(fake.duplicatePublishes).toBe(0)
      const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text()
      expect(metrics).toMatch(/postwire_publish_requeues_total\{[^}]*reason="checkpoint_failed"[^}]*\} 1/)
    })
  })

  describe("publishing while the database stops answering", () => {
    let scope: Scope.Closeable
    let fake: ContainerFake
    let proxy: FaultProxy.DatabaseProxy
    let database: TestDatabase
    let server: TestServer
    let liveKey: string
    let accountId: string
    let image: string

    beforeAll(async () => {
      scope = Effect.runSync(Scope.make())
      fake = await Effect.runPromise(ThreadsFake.make().pipe(Scope.provide(scope)))
      proxy = await Effect.runPromise(FaultProxy.scoped(url).pipe(Scope.provide(scope)))
      const real = await aDatabase("postgres")
      database = {
        ...real,
        stores: () => sqlStores.pipe(Layer.provide(layerPostgres(proxy.url, { searchPath: real.schema, statementTimeoutMs: 1_000 })))
      }
      server = await startServer(
        "postgres",
        {
          POSTWIRE_THREADS_BASE_URL: fake.url,
          POSTWIRE_THREADS_REFRESH_URL: "none",
          POSTWIRE_PLATFORM_POLL_INTERVAL_MS: "1",
          POSTWIRE_PUBLISH_POLL_MS: "20",
          POSTWIRE_PUBLISH_LEASE_MS: "3000",
          POSTWIRE_RATE_LIMIT_PER_KEY: "100000"
        },
        { database }
      )
      liveKey = (
        await server.admin<{ key: string }>(`/workspaces/${server.workspaceId}/keys`, { kind: "live", scopes: ["posts:read", "posts:write"] })
      ).key
      accountId = (
        await server.admin(`/workspaces/${server.workspaceId}/accounts`, {
          profile_id: server.profileId,
          platform: "textpost",
          sandbox: false,
          handle: "maya.bakes",
          credentials: { access_token: fake.accessToken },
          external_id: ThreadsFake.threadsUserId
        })
      ).id
      image = await anImage(server, liveKey)
    })
    afterAll(async () => {
      proxy?.forward()
      await server?.stop()
      await database?.drop()
      if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
    })

    it("fails the step's database calls within their limit and publishes the target once after the database answers again", async () => {
      // The moment the container is ready (right before the checkpoint that precedes the publish),
      // the database stops answering for 4 s; bytes sent meanwhile are lost, as in a black hole.
      let armed = true
      fake.latencyMs = () => {
        if (armed && fake.requests.at(-1)?.route === "container_status") {
          armed = false
          proxy.swallow()
          setTimeout(() => proxy.forward(), 4_000).unref()
        }
        return 0
      }
      const caption = "Rye loaf through a black hole"
      const created = await call(server.baseUrl, "POST", "/v1/posts", {
        key: liveKey,
        body: { profile_id: server.profileId, caption, media: [image], targets: [{ account_id: accountId }], approval: { mode: "none" } }
      })
      expect(created.status, JSON.stringify(created.body)).toBe(201)
      const target = (
        await eventually(
          () => call(server.baseUrl, "GET", `/v1/posts/${created.body.id}`, { key: liveKey }),
          (reply) => reply.body.targets?.[0]?.status === "published" || reply.body.targets?.[0]?.status === "failed",
          "the target to end",
          { intervalMs: 20 }
        )
      ).body.targets[0]
      expect(armed).toBe(false)
      expect(target).toMatchObject({ status: "published", error: null, attempts: 1 })
      expect(fake.media.filter((m) => m.caption === caption)).toHaveLength(1)
      expect(fake.count("publish")).toBe(1)
      expect(fake.duplicatePublishes).toBe(0)
    })
  })
})
