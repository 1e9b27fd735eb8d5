/**
 * The concurrent-writes cases on PostgreSQL (a fresh schema, dropped at the end), and two
 * instances, each with its own pool, writing targets of the same posts at once: their batches
 * lock posts and accounts in one order, so they never wait on each other in a circle.
 */
import { assert, describe, it } from "@effect/vitest"
import { PublishingStore, Store, type TargetRecord, TargetStatus } from "@postwire/core"
import { layerPostgres, SqlPublishingStore, SqlStore } from "@postwire/store-sql"
import { Context, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { freshSchema, onPostgres } from "../support/Postgres.ts"
import { aBurst, aLife, anEra, concurrentWritesSpec } from "./concurrent-writes.ts"

onPostgres("PublishingStore concurrent writes: PostgreSQL", (url) => {
  concurrentWritesSpec("PostgreSQL", () =>
    Layer.merge(SqlStore.layer, SqlPublishingStore.layer).pipe(Layer.provide(freshSchema(url, "pw_cw", { maxConnections: 8 }))))

  describe("PublishingStore concurrent writes: two instances on one PostgreSQL", () => {
    it.live("write targets of the same posts and accounts at once, and every write lands", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const schema = `pw_cw2_${Math.random().toString(36).slice(2, 10)}`
          const admin = Context.get(yield* Layer.build(layerPostgres(url, { maxConnections: 1 })), SqlClient.SqlClient)
          yield* Effect.acquireRelease(admin`CREATE SCHEMA ${admin(schema)}`, () =>
            admin`DROP SCHEMA ${admin(schema)} CASCADE`.pipe(Effect.orDie))
          const instance = () =>
            Layer.build(
              Layer.merge(SqlStore.layer, SqlPublishingStore.layer).pipe(
                Layer.provide(layerPostgres(url, { searchPath: schema, maxConnections: 4 }))
              )
            )
          const first = yield* instance()
          const second = yield* instance()

          for (let round = 0; round < 3; round++) {
            const era = anEra()
            // Forty posts of two targets: the first instance holds every first target, the second every second one.
            const burst = yield* aBurst(era, Array.from({ length: 40 }, () => 2), 4).pipe(Effect.provideContext(first))
            const claim = (owner: string, at: number) =>
              Effect.gen(function* () {
                const queue = yield* PublishingStore
                const claimed = yield* queue.claimDueTargets({ owner, at, leaseUntil: at + 600_000, limit: 40, perAccount: 1_000 })
                yield* queue.startSteps({
                  owner,
                  at,
                  targets: claimed,
                  quotaWindow: { from: at - 24 * 60 * 60_000 + 1, to: at + 1 },
                  firstStartEvents: () => []
                })
                return claimed.map((target) => target.id as string)
              })
            const firsts = yield* claim("w-first", era).pipe(Effect.provideContext(first))
            const seconds = yield* claim("w-second", era + 1).pipe(Effect.provideContext(second))
            assert.sameMembers(firsts, burst.posts.map((post) => post.targets[0]!.id as string))
            assert.sameMembers(seconds, burst.posts.map((post) => post.targets[1]!.id as string))

            // One instance goes through the posts from the first, the other from the last.
            const mine = (j: number, owner: string) => {
              const order = burst.posts.map((_, i) => i)
              if (j === 1) order.reverse()
              return Effect.all(
                order.map((i) => aLife(burst, i, j, owner, era)),
                { concurrency: "unbounded" }
              )
            }
            const [ofFirst, ofSecond] = yield* Effect.all(
              [
                mine(0, "w-first").pipe(Effect.provideContext(first)),
                mine(1, "w-second").pipe(Effect.provideContext(second))
              ],
              { concurrency: "unbounded" }
            )
            assert.isTrue([...ofFirst, ...ofSecond].flat().every((held) => held))

            const store = Context.get(first, Store)
            let outcomes = 0
            for (const aggregate of burst.posts) {
              const { post, targets } = Option.getOrThrow(yield* store.getPost(burst.workspaceId, aggregate.post.id))
              // Two starts and three writes of each target.
              assert.strictEqual(post.version, 1 + 2 + 6)
              assert.isTrue(targets.every((target) => target.status === "published" || target.status === "failed"))
              assert.strictEqual(post.status, TargetStatus.derivePostStatus(targets.map((t: TargetRecord) => t.status)))
              assert.isTrue(targets.every((target) => target.attempts === 1 && target.leaseOwner === null))
              outcomes += targets.length
            }
            const events = yield* store.listEvents(burst.workspaceId)
            assert.strictEqual(events.filter((event) => event.type.startsWith("post.")).length, outcomes)
            const account = Option.getOrThrow(yield* store.getAccount(burst.workspaceId, burst.accounts[0]!.id))
            assert.deepStrictEqual([account.status, account.credentials], ["needs_reconnect", "pwc1.rotated"])
          }
        })
      ))
  })
})
