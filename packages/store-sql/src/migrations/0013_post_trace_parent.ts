/**
 * The trace of the request that created a post, so that its publishing can point back to it.
 *
 * `posts.trace_parent` holds the W3C `traceparent` of the span that created the post
 * (`posts.create`), written only while tracing is on; each publishing step's trace
 * (`publishing.target`) links to it. A column without a default: adding it rewrites nothing.
 *
 * @since 0.5.0
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Adds the nullable `trace_parent` column to `posts`. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`ALTER TABLE posts ADD COLUMN trace_parent text`)
})
