/**
 * Publishing in the server: the publisher loop of `@postwire/core` and its permalink backfill,
 * run for as long as the server does on an instance with role `worker` or `all`, with the
 * server's publishing settings (the backfill takes its defaults).
 *
 * @since 0.1.0
 */
import { randomUUID } from "node:crypto"
import { hostname } from "node:os"
import { Effect, Layer } from "effect"
import {
  type BlobStore,
  type CredentialsCipher,
  type EngineConfig,
  type Ids,
  PermalinkBackfill,
  type PlatformClient,
  Publisher,
  type PublishingStore,
  type Store
} from "@postwire/core"
import { ServerConfig } from "../config/ServerConfig.ts"
import * as BackgroundLoops from "../observability/BackgroundLoops.ts"

/**
 * Runs the publisher and the permalink backfill in the background while the layer is alive.
 * Each instance leases targets and pending permalinks under its own name; when the server stops,
 * running steps get a grace period, then the instance gives its target leases back so another
 * instance continues at once (a pending permalink's lease runs out on its own).
 */
export const layer: Layer.Layer<
  never,
  never,
  Store | PublishingStore | PlatformClient | CredentialsCipher | BlobStore | EngineConfig | Ids | ServerConfig
> = Layer.effectDiscard(
  Effect.gen(function* () {
    const config = yield* ServerConfig
    const owner = `${hostname()}:${process.pid}:${randomUUID()}`
    yield* Publisher.start({
      ...Publisher.defaults(owner),
      concurrency: config.publishing.concurrency,
      perAccountConcurrency: config.publishing.accountConcurrency,
      leaseMs: config.publishing.leaseMs,
      idlePollMs: config.publishing.pollMs,
      shutdownGraceMs: config.publishing.shutdownGraceMs,
      ...(config.publishing.stepTimeoutMs === undefined ? {} : { stepTimeoutMs: config.publishing.stepTimeoutMs })
    })
    yield* BackgroundLoops.running("publisher")
    const backfill = PermalinkBackfill.defaults(owner)
    // An idle backfill looks no less often than the publisher: a permalink due soon is asked soon.
    yield* PermalinkBackfill.start({ ...backfill, idlePollMs: Math.min(backfill.idlePollMs, config.publishing.pollMs) })
    yield* BackgroundLoops.running("permalink_backfill")
  })
)
