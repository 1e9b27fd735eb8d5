/**
 * The outbox: events written in the same transaction as the change that caused them, read by
 * the webhook dispatcher and the event feed.
 *
 * @since 0.1.0
 */
import type { Effect } from "effect"
import type { Ids } from "@postwire/domain"
import type { StoreError } from "./StoreError.ts"

/** An event written to the outbox in the same transaction as the change that caused it. */
export interface OutboxEvent {
  readonly id: Ids.EventId
  readonly workspaceId: Ids.WorkspaceId
  readonly type: string
  readonly createdAt: number
  readonly livemode: boolean
  readonly data: Readonly<Record<string, unknown>>
}

/** Reads of the outbox. */
export interface OutboxStoreShape {
  /** Events of a workspace in the order they were written (for tests and replay). */
  readonly listEvents: (workspaceId: Ids.WorkspaceId) => Effect.Effect<ReadonlyArray<OutboxEvent>, StoreError>
}
