import { Effect, Fiber, Layer, Scope } from "effect"
import { HttpRouter } from "effect/http"
import { afterEach, describe, expect, it } from "vitest"
import { resolveSettings, ServerConfig } from "../src/config/ServerConfig.ts"
import { ReadyRoute } from "../src/http/Readiness.ts"
import * as BackgroundLoops from "../src/observability/BackgroundLoops.ts"

/** `GET /ready` of an instance whose loops are registered in `loops`, with no database to wait for. */
const readyOf = (role: "api" | "worker", loops: BackgroundLoops.BackgroundLoops["Service"]) => {
  const settings = resolveSettings({ role }, {})
  const { handler, dispose } = HttpRouter.toWebHandler(
    ReadyRoute.pipe(Layer.provideMerge(Layer.mergeAll(ServerConfig.layer(settings), Layer.succeed(BackgroundLoops.BackgroundLoops)(loops)))),
    { disableLogger: true }
  )
  cleanups.push(dispose)
  return handler(new Request("http://localhost/ready"))
}

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const dispose of cleanups.splice(0)) await dispose()
})

/** Registers every expected loop in a fresh registry, one of them on a fiber the test controls. */
const aWorker = async () => {
  const loops = { loops: new Map<string, () => boolean>() }
  const scope = Effect.runSync(Scope.make())
  const dispatcher = Effect.runFork(Effect.never)
  await Effect.runPromise(
    Effect.gen(function* () {
      for (const name of BackgroundLoops.expected) {
        yield* BackgroundLoops.running(name, name === "dispatcher" ? dispatcher : undefined)
      }
    }).pipe(Effect.provideService(BackgroundLoops.BackgroundLoops, loops), Scope.provide(scope))
  )
  return { loops, dispatcher, scope }
}

describe("GET /ready and the background loops", () => {
  it("is ready while every loop of a worker runs, and lists them", async () => {
    const { loops, dispatcher } = await aWorker()
    const response = await readyOf("worker", loops)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      status: "ready",
      loops: Object.fromEntries(BackgroundLoops.expected.map((name) => [name, "running"]))
    })
    await Effect.runPromise(Fiber.interrupt(dispatcher))
  })

  it("is not ready, in the shared shape, once a loop's fiber ended", async () => {
    const { loops, dispatcher } = await aWorker()
    await Effect.runPromise(Fiber.interrupt(dispatcher))
    const response = await readyOf("worker", loops)
    expect(response.status).toBe(503)
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("not_ready")
  })

  it("is not ready once the layer that ran a loop closed", async () => {
    const { loops, dispatcher, scope } = await aWorker()
    await Effect.runPromise(Scope.close(scope, Effect.void as never))
    const response = await readyOf("worker", loops)
    expect(response.status).toBe(503)
    await Effect.runPromise(Fiber.interrupt(dispatcher))
  })

  it("asks no loop of an api instance", async () => {
    const response = await readyOf("api", { loops: new Map() })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ status: "ready", loops: {} })
  })
})
