/**
 * How the engine's storage fails: the database itself ({@link StoreError}), or a save that lost
 * a race ({@link VersionConflict}). Every store port fails with these.
 *
 * @since 0.1.0
 */
import { Data } from "effect"
import type { Ids } from "@postwire/domain"

/** The database failed; never a user's fault. */
export class StoreError extends Data.TaggedError("StoreError")<{
  readonly operation: string
  readonly cause: unknown
}> {
  /** `{operation}: {the cause's message}`, so a log line or a thrown error says what failed. */
  override get message(): string {
    return `${this.operation}: ${causeText(this.cause)}`
  }
}

/** The first line of what a database failure said (a driver error, a string, anything). */
const causeText = (cause: unknown): string => {
  const text =
    cause instanceof Error
      ? cause.message || cause.name
      : typeof cause === "object" && cause !== null && "message" in cause && typeof cause.message === "string"
        ? cause.message
        : String(cause)
  return text.split("\n", 1)[0] || "the database failed"
}

/** Someone else saved the post since it was read. */
export class VersionConflict extends Data.TaggedError("VersionConflict")<{
  readonly postId: Ids.PostId
}> {}
