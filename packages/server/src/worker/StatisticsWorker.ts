/**
 * The planner's statistics in the server: `TableStatistics` of `@postwire/store-sql`, refreshed
 * ten seconds after the start and then every minute, on an instance with role `worker` or `all`
 * (the embedded database has no autovacuum to do it; docs/operations.md). With stores that are
 * not SQL there is nothing to refresh and the loop idles.
 *
 * @since 0.4.0
 */
import { Effect, Layer } from "effect"
import { TableStatistics } from "@postwire/store-sql"
import * as BackgroundLoops from "../observability/BackgroundLoops.ts"

/** Runs the statistics refresh in the background while the layer is alive. */
export const layer = Layer.effectDiscard(
  Effect.gen(function* () {
    const statistics = yield* Effect.serviceOption(TableStatistics.TableStatistics)
    if (statistics._tag === "Some") {
      yield* TableStatistics.start().pipe(Effect.provideService(TableStatistics.TableStatistics, statistics.value))
    }
    yield* BackgroundLoops.running("table_statistics")
  })
)
