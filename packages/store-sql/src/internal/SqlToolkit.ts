/**
 * What every SQL store shares: the traced operation wrapper that turns SQL failures into a
 * `StoreError`, numbers read back from `bigint` columns, and the `outbox_events` row of an event.
 *
 * @internal
 */
import { type OutboxEvent, StoreError } from "@postwire/core"
import { Effect } from "effect"
import { SqlError } from "effect/sql"

/**
 * The operation wrapper of one store: `operation("name")(effect)` runs in a span
 * `<service>.name`, with every SQL failure turned into a `StoreError` naming the operation.
 */
export const operations =
  (service: string) =>
  (name: string) =>
  <A, E>(effect: Effect.Effect<A, E | SqlError.SqlError>): Effect.Effect<A, Exclude<E, SqlError.SqlError> | StoreError> =>
    effect.pipe(
      Effect.catchIf(SqlError.isSqlError, (cause) => Effect.fail(new StoreError({ operation: name, cause }))),
      Effect.withSpan(`${service}.${name}`)
    )

/** A number from a column the driver may hand back as a string (`bigint`, `count(*)`). */
export const toNumber = (value: unknown): number => (typeof value === "number" ? value : Number(value))

/** {@link toNumber}, keeping `null` (and a missing value) as `null`. */
export const toNumberOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : toNumber(value))

/** The `outbox_events` row of an event. */
export const eventRow = (event: OutboxEvent) => ({
  workspace_id: event.workspaceId,
  id: event.id,
  type: event.type,
  created_at: event.createdAt,
  livemode: event.livemode,
  data: JSON.stringify(event.data)
})
