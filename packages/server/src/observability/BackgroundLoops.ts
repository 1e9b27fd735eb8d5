/**
 * Which background loops this instance runs (the publisher, the permalink backfill, the webhook
 * dispatcher, the log pruner, the token renewal, the comment polling, the media jobs, the tables'
 * statistics), for
 * `GET /ready` and `GET /metrics`. A loop counts as running from its start until its layer
 * closes or, for a loop whose fiber is known, until that fiber ends.
 *
 * @since 0.1.0
 */
import { Context, Effect, type Fiber, Layer } from "effect"

/** The loops of an instance with role `worker` or `all`, by name. */
export const expected = [
  "publisher",
  "permalink_backfill",
  "dispatcher",
  "log_pruner",
  "token_renewal",
  "comment_polling",
  "media_jobs",
  "table_statistics"
] as const

/** The registry of one instance's loops. */
export class BackgroundLoops extends Context.Service<
  BackgroundLoops,
  { readonly loops: Map<string, () => boolean> }
>()("postwire/BackgroundLoops") {
  /** An empty registry. */
  static readonly layer: Layer.Layer<BackgroundLoops> = Layer.sync(BackgroundLoops)(() => ({ loops: new Map() }))
}

/** Marks `name` running until the current scope closes (or, given its fiber, until the fiber ends). */
export const running = (name: string, fiber?: Fiber.Fiber<unknown, unknown>) =>
  Effect.gen(function* () {
    const registry = yield* Effect.serviceOption(BackgroundLoops)
    if (registry._tag === "None") return
    let open = true
    registry.value.loops.set(name, () => open && (fiber === undefined || fiber.pollUnsafe() === undefined))
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        open = false
      })
    )
  })

/** Each registered loop and whether it runs now. */
export const states: Effect.Effect<ReadonlyArray<readonly [string, boolean]>> = Effect.map(
  Effect.serviceOption(BackgroundLoops),
  (registry) => (registry._tag === "None" ? [] : [...registry.value.loops].map(([name, isRunning]) => [name, isRunning()] as const))
)
