/**
 * The PostgreSQL client under a misbehaving network, through a TCP proxy (`test/support/FaultProxy.ts`).
 *
 * What the raw driver does (`@effect/sql-pg` 4.0.5, `PgClient.layer` with the same URL): when
 * the network swallows a transaction's `COMMIT`, the transaction never completes, neither
 * succeeding nor failing, and an `Effect.timeout` around it never returns either, because the
 * driver runs `COMMIT` uninterruptibly and has no time limit on a statement. A reset
 * connection fails the transaction, but as a defect (its `ROLLBACK` fails too), which a
 * caller's `catchTag` does not see. `layerPostgres` bounds every statement by destroying a
 * connection that does not answer, and the stores turn both into a `StoreError`.
 */
import { StoreError } from "@postwire/core"
import { Effect, Exit, Layer, ManagedRuntime } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "../../../test/support/Eventually.ts"
import { operations } from "../src/internal/SqlToolkit.ts"
import { layerPostgres } from "../src/Postgres.ts"
import * as FaultProxy from "../../../test/support/FaultProxy.ts"

const url = process.env.DATABASE_URL

/** Settles `promise`, or says it was still waiting after `ms` (a bounded wait for a call that might never end). */
const within = <A>(promise: Promise<A>, ms: number): Promise<A | "still waiting"> =>
  Promise.race([promise, new Promise<"still waiting">((resolve) => setTimeout(() => resolve("still waiting"), ms).unref())])

if (url === undefined) {
  describe("layerPostgres under a misbehaving network", () => {
    if (process.env.REQUIRE_POSTGRES === "1") {
      it("needs DATABASE_URL, because REQUIRE_POSTGRES=1", () => {
        expect.fail("REQUIRE_POSTGRES=1 but DATABASE_URL is not set")
      })
    } else {
      it.skip("runs when DATABASE_URL is set", () => {})
    }
  })
} else {
  describe("layerPostgres under a misbehaving network", () => {
    let runtime: ManagedRuntime.ManagedRuntime<SqlClient.SqlClient | never, unknown>
    let proxy: FaultProxy.DatabaseProxy
    beforeAll(async () => {
      const proxied = Layer.unwrap(
        Effect.map(FaultProxy.scoped(url), (started) => {
          proxy = started
          // One connection: a call after a failure shows whether the pool kept the broken one.
          return layerPostgres(started.url, { maxConnections: 1, statementTimeoutMs: 1_000 })
        })
      )
      runtime = ManagedRuntime.make(proxied)
      await runtime.runPromise(Effect.void)
    })
    afterAll(async () => {
      await runtime?.dispose()
    })

    const backendPid = Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.map(sql<{ readonly pid: number }>`SELECT pg_backend_pid() AS pid`, (rows) => rows[0]!.pid)
    )

    it("fails a transaction whose COMMIT the network swallows, destroys its connection, and serves the next call on a new one", async () => {
      proxy.forward()
      let transactionPid = 0
      const transaction = Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql.withTransaction(
          Effect.gen(function* () {
            transactionPid = yield* backendPid
            // The COMMIT that follows never reaches the server, and no answer comes back.
            proxy.swallow()
          })
        )
      })
      const exit = await within(runtime.runPromiseExit(transaction), 30_000)
      proxy.forward()
      expect(exit).not.toBe("still waiting")
      expect(Exit.isFailure(exit as Exit.Exit<void, unknown>)).toBe(true)

      const next = await within(runtime.runPromise(backendPid), 30_000)
      expect(next).not.toBe("still waiting")
      expect(next).not.toBe(transactionPid)
      // The old session ends on the server too, so nothing holds its locks.
      const sessionsOf = (pid: number) =>
        runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1 FROM pg_stat_activity WHERE pid = ${pid}`))
      await eventually(() => sessionsOf(transactionPid), (sessions) => sessions.length === 0, "the old session to end on the server")
    })

    it("fails a statement the server does not answer, within its limit", async () => {
      proxy.forward()
      await runtime.runPromise(backendPid)
      proxy.swallow()
      const exit = await within(runtime.runPromiseExit(backendPid), 30_000)
      proxy.forward()
      expect(exit).not.toBe("still waiting")
      expect(Exit.isFailure(exit as Exit.Exit<number, unknown>)).toBe(true)
      expect(Exit.isSuccess(await runtime.runPromiseExit(backendPid))).toBe(true)
    })

    it("turns a transaction whose connection is reset into a StoreError a caller can catch, not a defect", async () => {
      proxy.forward()
      const operation = operations("test")("resetMidTransaction")
      const exit = await runtime.runPromiseExit(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          return yield* operation(
            sql.withTransaction(
              Effect.gen(function* () {
                yield* sql`SELECT 1`
                proxy.resetAll()
                yield* sql`SELECT pg_sleep(0.05)`
              })
            )
          )
        })
      )
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) {
        const failure = exit.cause.reasons.find((reason) => reason._tag === "Fail")
        expect(failure?._tag === "Fail" ? failure.error : undefined).toBeInstanceOf(StoreError)
      }
      expect(Exit.isSuccess(await runtime.runPromiseExit(backendPid))).toBe(true)
    })
  })
}
