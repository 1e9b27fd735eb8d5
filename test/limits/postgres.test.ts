/**
 * The limit stores on PostgreSQL, when `DATABASE_URL` is set: the conformance suite, then what
 * only a real server can show: two instances (two connection pools) on one database hitting the
 * same counters and claiming the same key at once.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { IdempotencyStore, RateLimitStore } from "@postwire/core"
import { RateLimiter } from "@postwire/server"
import { layerPostgres, Migrations, SqlIdempotencyStore, SqlRateLimitStore } from "@postwire/store-sql"
import { onPostgres } from "../support/Postgres.ts"
import { anId, t0 } from "../store-conformance/builders.ts"
import { aHit, anIdempotencyClaim, limitStoresConformance } from "./conformance.ts"

const stores = Layer.merge(SqlRateLimitStore.layer, SqlIdempotencyStore.layer)

/** A migrated schema for this run, dropped at the end. */
const migratedSchema = (url: string, schema: string) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* Effect.acquireRelease(sql`CREATE SCHEMA ${sql(schema)}`, () => sql`DROP SCHEMA ${sql(schema)} CASCADE`.pipe(Effect.orDie))
      yield* Migrations.migrate.pipe(Effect.provide(layerPostgres(url, { searchPath: schema, maxConnections: 1 })), Effect.scoped)
    })
  ).pipe(Layer.provide(layerPostgres(url, { maxConnections: 1 })))

/** One instance's stores: its own pool of `connections` on the schema. */
const instance = (url: string, schema: string, connections: number) =>
  Effect.gen(function* () {
    const context = yield* Layer.build(stores.pipe(Layer.provide(layerPostgres(url, { searchPath: schema, maxConnections: connections }))))
    return {
      limits: Context.get(context, RateLimitStore),
      keys: Context.get(context, IdempotencyStore)
    }
  })

onPostgres("Limit stores on PostgreSQL", (url) => {
  const schema = `pw_limits_${Math.random().toString(36).slice(2, 10)}`
  limitStoresConformance("PostgreSQL", () => stores.pipe(Layer.provide(layerPostgres(url, { searchPath: schema })), Layer.provide(migratedSchema(url, schema))))

  const shared = `pw_limits_${Math.random().toString(36).slice(2, 10)}`
  layer(migratedSchema(url, shared), { timeout: 120_000 })("two instances on one PostgreSQL", (it) => {
    describe("at once", () => {
      it.effect("count every hit of both instances exactly once", () =>
        Effect.gen(function* () {
          const [a, b] = [yield* instance(url, shared, 5), yield* instance(url, shared, 5)]
          const key = anId("key")
          const route = anId("posts.create")
          const counts = yield* Effect.all(
            Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? a : b).limits.hit([aHit(key), aHit(route)])),
            { concurrency: "unbounded" }
          )

          const expected = Array.from({ length: 200 }, (_, i) => i + 1)
          assert.deepStrictEqual(counts.map(([k]) => k!).sort((x, y) => x - y), expected)
          assert.deepStrictEqual(counts.map(([, r]) => r!).sort((x, y) => x - y), expected)
          assert.deepStrictEqual(yield* a.limits.hit([aHit(route, t0)]), [201])
        }).pipe(Effect.scoped))

      it.effect("never admit more than the limit together through their rate limiters, each hit once", () =>
        Effect.gen(function* () {
          const [a, b] = [yield* instance(url, shared, 5), yield* instance(url, shared, 5)]
          const limiters = [RateLimiter.make(a.limits), RateLimiter.make(b.limits)]
          const bucket = anId("key")
          const limit = 800
          const numbers = yield* Effect.all(
            Array.from({ length: 1_200 }, (_, i) =>
              Effect.map(limiters[i % 2]!.count([{ bucket, limit }], t0, t0 + 120_000), ([n]) => n!)
            ),
            { concurrency: 32 }
          )

          const admitted = numbers.filter((n) => n <= limit)
          assert.strictEqual(new Set(admitted).size, admitted.length)
          assert.isAtMost(admitted.length, limit)
          assert.isAtLeast(admitted.length, limit - limit / 16)
          // The counter holds every reserved hit: the blocks were taken from the shared row.
          assert.isAtLeast((yield* a.limits.hit([aHit(bucket)]))[0]!, admitted.length + 1)
        }).pipe(Effect.scoped))

      it.effect("let exactly one of two instances' claims of the same key start", () =>
        Effect.gen(function* () {
          const [a, b] = [yield* instance(url, shared, 5), yield* instance(url, shared, 5)]
          for (let round = 0; round < 20; round++) {
            const claim = anIdempotencyClaim()
            const results = yield* Effect.all(
              Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? a : b).keys.begin(claim, 0)),
              { concurrency: "unbounded" }
            )

            assert.deepStrictEqual(
              results.map((r) => r._tag).sort(),
              ["InProgress", "InProgress", "InProgress", "InProgress", "InProgress", "Started"]
            )
          }
        }).pipe(Effect.scoped))
    })
  })
})
