/**
 * Media jobs in the server: URL imports and the expiry of unfinished uploads and unused media
 * (docs/media.md), run by the `MediaJobs` loop of `@postwire/core` for as long as the server
 * does, on an instance with role `worker` or `all`.
 *
 * @since 0.3.0
 */
import { randomUUID } from "node:crypto"
import { hostname } from "node:os"
import { Layer } from "effect"
import { MediaJobs } from "@postwire/core"

/** Runs the media jobs loop in the background while the layer is alive. */
export const layer = Layer.effectDiscard(MediaJobs.start(MediaJobs.defaults(`${hostname()}:${process.pid}:${randomUUID()}`)))
