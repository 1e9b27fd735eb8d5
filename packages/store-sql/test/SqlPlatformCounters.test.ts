/**
 * The platforms' counters (`PlatformCounters`) on both databases and in memory: adds within the
 * limit are atomic under concurrency, a forced add goes over, platforms do not share keys, and
 * the count is the database's (two store layers on one database, one after the other, agree).
 */
import { makeMemoryCounters, PlatformCounters } from "@postwire/core"
import { Effect, Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aDatabase, backends, type TestDatabase } from "../../../test/support/TestServer.ts"

const day = { id: "2026-12-05", endsAt: Date.parse("2026-12-06T08:00:00.000Z") }

const withCounters = <A, E>(f: (counters: PlatformCounters["Service"]) => Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    return yield* f(yield* PlatformCounters)
  })

const backendsAndMemory = [...backends(), "memory"] as const

describe.each(backendsAndMemory)("PlatformCounters on %s", (backend) => {
  let database: TestDatabase | undefined
  const runtimes: Array<ManagedRuntime.ManagedRuntime<PlatformCounters, unknown>> = []
  const memory = Layer.succeed(PlatformCounters)(makeMemoryCounters())

  /** A store layer on the database (a new one each call: another engine on the same database). */
  const anEngine = () => {
    const runtime = ManagedRuntime.make(database === undefined ? memory : (database.stores() as unknown as Layer.Layer<PlatformCounters, unknown>))
    runtimes.push(runtime)
    return runtime
  }
  const stop = async (runtime: ManagedRuntime.ManagedRuntime<PlatformCounters, unknown>) => {
    runtimes.splice(runtimes.indexOf(runtime), 1)
    await runtime.dispose()
  }

  beforeAll(async () => {
    if (backend !== "memory") database = await aDatabase(backend)
  })
  afterAll(async () => {
    for (const runtime of runtimes) await runtime.dispose()
    await database?.drop()
  })

  it("adds within the limit atomically: of 20 concurrent adds of 1 under a limit of 7, exactly 7 are allowed", async () => {
    const engine = anEngine()
    const answers = await engine.runPromise(
      withCounters((counters) =>
        Effect.all(
          Array.from({ length: 20 }, () => counters.add("video", { key: "project-a", window: day, units: 1, limit: 7 })),
          { concurrency: "unbounded" }
        )
      )
    )
    expect(answers.filter((a) => a._tag === "Allowed")).toHaveLength(7)
    expect(answers.filter((a) => a._tag === "Refused")).toHaveLength(13)
    for (const refused of answers.filter((a) => a._tag === "Refused")) expect(refused).toEqual({ _tag: "Refused", used: 7, endsAt: day.endsAt })
    expect(await engine.runPromise(withCounters((c) => c.read("video", "project-a", day)))).toBe(7)
    await stop(engine)
  })

  it("a forced add goes over the limit; another platform, key or window counts apart", async () => {
    const engine = anEngine()
    const run = <A>(f: (c: PlatformCounters["Service"]) => Effect.Effect<A, unknown>) =>
      engine.runPromise(withCounters(f))
    expect(await run((c) => c.add("video", { key: "project-b", window: day, units: 1600, limit: 1000 }))).toMatchObject({
      _tag: "Refused",
      used: 0
    })
    expect(await run((c) => c.add("video", { key: "project-b", window: day, units: 1600, limit: 1000, force: true }))).toMatchObject({
      _tag: "Allowed",
      used: 1600
    })
    expect(await run((c) => c.read("other", "project-b", day))).toBe(0)
    expect(await run((c) => c.read("video", "project-c", day))).toBe(0)
    expect(await run((c) => c.read("video", "project-b", { id: "2026-12-06", endsAt: day.endsAt + 86_400_000 }))).toBe(0)
    await stop(engine)
  })

  if (backend !== "memory") it("the count is the database's: an engine started after another one stopped reads it", async () => {
    const first = anEngine()
    await first.runPromise(
      withCounters((c) => c.add("video", { key: "project-d", window: day, units: 3, limit: 5 }))
    )
    await stop(first)
    const second = anEngine()
    const answer = await second.runPromise(
      withCounters((c) => c.add("video", { key: "project-d", window: day, units: 3, limit: 5 }))
    )
    expect(answer).toEqual({ _tag: "Refused", used: 3, endsAt: day.endsAt })
    await stop(second)
  })
})
