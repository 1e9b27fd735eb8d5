/**
 * The group commit on a real database (PGlite): each write inserts its items into a table in
 * one statement and answers each with the row it made.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Scope } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import * as GroupCommit from "../src/internal/GroupCommit.ts"
import * as PgliteClient from "../src/PgliteClient.ts"

interface Item {
  readonly key: string
  readonly value: number
}

let tables = 0

/**
 * A table of items and a group commit writing into it; the first write waits for `gate` when
 * one is given, so that calls pile up behind it. `batches` records each write's items.
 */
const aWriter = (options: { readonly maxBatch?: number; readonly gate?: Deferred.Deferred<void>; readonly keyed?: boolean } = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const table = `items_${++tables}`
    yield* sql`CREATE TABLE ${sql(table)} (seq serial PRIMARY KEY, key text NOT NULL, value int NOT NULL UNIQUE)`
    const batches: Array<ReadonlyArray<Item>> = []
    const write = (items: ReadonlyArray<Item>): Effect.Effect<ReadonlyArray<string>, SqlError.SqlError> =>
      Effect.gen(function* () {
        batches.push(items)
        if (batches.length === 1 && options.gate !== undefined) yield* Deferred.await(options.gate)
        if (items.some((item) => item.value < 0)) return yield* Effect.die(new Error("a negative value"))
        const rows = yield* sql<{ readonly value: number; readonly seq: number }>`INSERT INTO ${sql(table)} (key, value)
          SELECT key, value FROM jsonb_to_recordset(${JSON.stringify(items)}::jsonb) AS i(key text, value int)
          RETURNING value, seq`
        const seqOf = new Map(rows.map((row) => [row.value, row.seq]))
        return items.map((item) => `${item.key}#${seqOf.get(item.value)}`)
      })
    const commits = yield* GroupCommit.make({
      maxBatch: options.maxBatch ?? 256,
      write,
      ...(options.keyed === true ? { key: (item: Item) => item.key } : {})
    })
    const stored = sql<{ readonly key: string; readonly value: number }>`SELECT key, value FROM ${sql(table)} ORDER BY seq`
    return { commits, batches, stored, sizes: () => batches.map((batch) => batch.length) }
  })

/** Forks a call per item, in order, each started before the next. */
const callAll = (commits: GroupCommit.GroupCommit<Item, string, SqlError.SqlError>, items: ReadonlyArray<Item>) =>
  Effect.forEach(items, (item) => Effect.forkChild(commits.write(item), { startImmediately: true }))

const items = (from: number, n: number, key = (i: number) => `k${i}`): ReadonlyArray<Item> =>
  Array.from({ length: n }, (_, i) => ({ key: key(from + i), value: from + i }))

layer(PgliteClient.layer())("GroupCommit", (it) => {
  describe("batching", () => {
    it.effect("writes a call at once, alone, when nothing is being written", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const { commits, sizes, stored } = yield* aWriter()
          assert.strictEqual(yield* commits.write({ key: "a", value: 1 }), "a#1")
          assert.strictEqual(yield* commits.write({ key: "b", value: 2 }), "b#2")
          assert.deepStrictEqual(sizes(), [1, 1])
          assert.deepStrictEqual(yield* stored, [
            { key: "a", value: 1 },
            { key: "b", value: 2 }
          ])
        })
      ))

    it.effect("writes the calls that arrive during a write together in the next one, each with its own answer", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const gate = yield* Deferred.make<void>()
          const { batches, commits, sizes, stored } = yield* aWriter({ gate })
          const first = yield* callAll(commits, items(0, 1))
          yield* Effect.yieldNow
          const rest = yield* callAll(commits, items(1, 10))
          yield* Deferred.succeed(gate, undefined)
          const answers = yield* Fiber.joinAll([...first, ...rest])
          assert.deepStrictEqual(sizes(), [1, 10])
          assert.deepStrictEqual(
            answers,
            items(0, 11).map((item, i) => `${item.key}#${i + 1}`)
          )
          // In the order the calls came.
          assert.deepStrictEqual(batches[1]!.map((item) => item.value), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
          assert.strictEqual((yield* stored).length, 11)
        })
      ))

    it.effect("puts at most `maxBatch` calls in one write", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const gate = yield* Deferred.make<void>()
          const { commits, sizes, stored } = yield* aWriter({ gate, maxBatch: 4 })
          const first = yield* callAll(commits, items(0, 1))
          yield* Effect.yieldNow
          const rest = yield* callAll(commits, items(1, 10))
          yield* Deferred.succeed(gate, undefined)
          yield* Fiber.joinAll([...first, ...rest])
          assert.deepStrictEqual(sizes(), [1, 4, 4, 2])
          assert.deepStrictEqual((yield* stored).map((row) => row.value), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
        })
      ))

    it.effect("writes two calls with one key in separate writes, in the order they came", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const gate = yield* Deferred.make<void>()
          const { batches, commits, stored } = yield* aWriter({ gate, keyed: true })
          const first = yield* callAll(commits, items(0, 1))
          yield* Effect.yieldNow
          // Keys a, b, a, c, a.
          const keys = ["a", "b", "a", "c", "a"]
          const rest = yield* callAll(commits, items(1, 5, (i) => keys[i - 1]!))
          yield* Deferred.succeed(gate, undefined)
          yield* Fiber.joinAll([...first, ...rest])
          assert.deepStrictEqual(
            batches.slice(1).map((batch) => batch.map((item) => `${item.key}${item.value}`)),
            [["a1", "b2", "c4"], ["a3"], ["a5"]]
          )
          assert.deepStrictEqual(
            (yield* stored).filter((row) => row.key === "a").map((row) => row.value),
            [1, 3, 5]
          )
        })
      ))
  })

  describe("failures", () => {
    it.effect("fails every call of a failed write with its error, and writes the next calls", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const gate = yield* Deferred.make<void>()
          const { commits, sizes, stored } = yield* aWriter({ gate })
          const first = yield* callAll(commits, items(0, 1))
          yield* Effect.yieldNow
          // Two calls with one value: the statement breaks the unique constraint, for all three.
          const broken = yield* callAll(commits, [
            { key: "x", value: 7 },
            { key: "y", value: 8 },
            { key: "z", value: 7 }
          ])
          yield* Deferred.succeed(gate, undefined)
          yield* Fiber.joinAll(first)
          for (const fiber of broken) {
            const error = yield* Effect.flip(Fiber.join(fiber))
            assert.strictEqual(error._tag, "SqlError")
          }
          // (The failed statement used sequence numbers up: they are not given back.)
          assert.match(yield* commits.write({ key: "w", value: 9 }), /^w#\d+$/)
          assert.deepStrictEqual(sizes(), [1, 3, 1])
          assert.deepStrictEqual((yield* stored).map((row) => row.key), ["k0", "w"])
        })
      ))

    it.effect("answers every call of a write that dies with the defect, and goes on", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const { commits, stored } = yield* aWriter()
          const exit = yield* Effect.exit(commits.write({ key: "bad", value: -1 }))
          assert.isTrue(Exit.hasDies(exit))
          assert.strictEqual(yield* commits.write({ key: "good", value: 1 }), "good#1")
          assert.deepStrictEqual((yield* stored).map((row) => row.key), ["good"])
        })
      ))
  })

  describe("interruption and shutdown", () => {
    it.effect("leaves out a call interrupted while it waits; the others are written, and the next calls too", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const gate = yield* Deferred.make<void>()
          const { commits, sizes, stored } = yield* aWriter({ gate })
          const first = yield* callAll(commits, items(0, 1))
          yield* Effect.yieldNow
          const [a, gone, c] = yield* callAll(commits, items(1, 3))
          yield* Fiber.interrupt(gone!)
          yield* Deferred.succeed(gate, undefined)
          assert.deepStrictEqual(yield* Fiber.joinAll([...first, a!, c!]), ["k0#1", "k1#2", "k3#3"])
          assert.strictEqual(yield* commits.write({ key: "k4", value: 4 }), "k4#4")
          assert.deepStrictEqual(sizes(), [1, 2, 1])
          assert.deepStrictEqual((yield* stored).map((row) => row.value), [0, 1, 3, 4])
        })
      ))

    it.effect("interrupts the calls still waiting when its scope closes, and every call after", () =>
      Effect.gen(function* () {
        const gate = yield* Deferred.make<void>()
        const scope = yield* Scope.make()
        const { commits } = yield* aWriter({ gate }).pipe(Scope.provide(scope))
        const waiting = yield* callAll(commits, items(0, 3))
        yield* Effect.yieldNow
        yield* Scope.close(scope, Exit.void)
        for (const fiber of waiting) assert.isTrue(Exit.hasInterrupts(yield* Fiber.await(fiber)))
        assert.isTrue(Exit.hasInterrupts(yield* Effect.exit(commits.write({ key: "late", value: 9 }))))
      }))
  })
})
