/**
 * Metric collection in the server: the `AnalyticsCollection` loop of `@postwire/core`, run for as
 * long as the server does on an instance with role `worker` or `all`, with the server's analytics
 * settings and the comment polling's hourly call budget (docs/analytics.md). A host whose stores
 * have no `AnalyticsStore` runs no collection.
 *
 * @since 0.5.0
 */
import { randomUUID } from "node:crypto"
import { hostname } from "node:os"
import { AnalyticsCollection, AnalyticsStore } from "@postwire/core"
import { Effect, Layer, Option } from "effect"
import { ServerConfig } from "../config/ServerConfig.ts"

/** The collector's settings from the server's. */
export const collectionSettings = (
  config: ServerConfig["Service"],
  owner: string
): AnalyticsCollection.AnalyticsCollectionSettings => ({
  ...AnalyticsCollection.defaults(owner),
  concurrency: config.analytics.claimLimit,
  idlePollMs: config.analytics.pollMs,
  hourlyCallBudget: config.comments.hourlyCallBudget,
  schedule: {
    frequentEveryMs: config.analytics.frequentEveryMs,
    frequentUntilMs: config.analytics.frequentUntilMs,
    dailyEveryMs: config.analytics.dailyEveryMs,
    stopAfterMs: config.analytics.stopAfterMs,
    accountEveryMs: config.analytics.accountEveryMs
  }
})

/** Runs collection in the background while the layer is alive; leases held at shutdown run out on their own. */
export const layer = Layer.effectDiscard(
  Effect.gen(function* () {
    const config = yield* ServerConfig
    const store = yield* Effect.serviceOption(AnalyticsStore)
    if (Option.isNone(store)) return
    const owner = `${hostname()}:${process.pid}:${randomUUID()}`
    yield* AnalyticsCollection.start(collectionSettings(config, owner)).pipe(Effect.provideService(AnalyticsStore, store.value))
  })
)
