/**
 * Comment polling in the server: the `CommentIngestion` loop of `@postwire/core`, run for as long
 * as the server does on an instance with role `worker` or `all`, with the server's comment
 * settings (docs/comments.md states the schedule and the budget).
 *
 * @since 0.3.0
 */
import { randomUUID } from "node:crypto"
import { hostname } from "node:os"
import { CommentIngestion } from "@postwire/core"
import { Effect, Layer } from "effect"
import { ServerConfig } from "../config/ServerConfig.ts"
import * as BackgroundLoops from "../observability/BackgroundLoops.ts"

/** Runs comment polling in the background while the layer is alive; leases held at shutdown run out on their own. */
export const layer = Layer.effectDiscard(
  Effect.gen(function* () {
    const config = yield* ServerConfig
    const owner = `${hostname()}:${process.pid}:${randomUUID()}`
    yield* CommentIngestion.start({
      ...CommentIngestion.defaults(owner),
      concurrency: config.comments.concurrency,
      idlePollMs: config.comments.pollMs,
      hourlyCallBudget: config.comments.hourlyCallBudget
    })
    yield* BackgroundLoops.running("comment_polling")
  })
)
