/**
 * Media jobs in the server: URL imports and the expiry of unfinished uploads and unused media
 * (docs/media.md), run by the `MediaJobs` loop of `@postwire/core` for as long as the server
 * does, on an instance with role `worker` or `all`.
 *
 * @since 0.3.0
 */
import { randomUUID } from "node:crypto"
import { hostname } from "node:os"
import { Effect, Layer } from "effect"
import { MediaJobs } from "@postwire/core"
import * as BackgroundLoops from "../observability/BackgroundLoops.ts"

/** Runs the media jobs loop in the background while the layer is alive. */
export const layer = Layer.effectDiscard(
  Effect.andThen(
    MediaJobs.start(MediaJobs.defaults(`${hostname()}:${process.pid}:${randomUUID()}`)),
    BackgroundLoops.running("media_jobs")
  )
)
