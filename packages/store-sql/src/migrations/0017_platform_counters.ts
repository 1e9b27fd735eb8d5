/**
 * The platforms' counters (`PlatformCounters` in `@postwire/core`): a plugin's named budget per
 * window (YouTube's API units per Pacific-time day), shared by every instance on the database and
 * kept across restarts. One row per platform, key and window; `ends_at` (epoch ms) lets rows of
 * windows long over be deleted.
 *
 * @since 0.7.0
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Creates `platform_counters`. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE platform_counters (
    platform text NOT NULL,
    key text NOT NULL,
    window_id text NOT NULL,
    used bigint NOT NULL CHECK (used >= 0),
    ends_at bigint NOT NULL,
    PRIMARY KEY (platform, key, window_id)
  )`
  yield* sql`CREATE INDEX platform_counters_ends_at ON platform_counters (ends_at)`
})
