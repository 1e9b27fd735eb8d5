/**
 * Timestamps on the wire: ISO 8601. Responses are UTC with milliseconds; requests must carry
 * an offset (`Z` or `+07:00`), so that no instant is ever guessed.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

const instantWithOffset = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|z|[+-]\d{2}:?\d{2})$/

/** An instant in a request: ISO 8601 with a UTC offset. */
export const InstantInput = Schema.String.check(
  Schema.makeFilter(
    (s: string) =>
      (instantWithOffset.test(s) && !Number.isNaN(Date.parse(s))) ||
      "must be an ISO 8601 timestamp with a UTC offset, e.g. 2026-11-22T09:00:00+07:00"
  )
)

/** An instant in a response: ISO 8601 in UTC with milliseconds, e.g. `2026-11-22T01:02:03.456Z`. */
export const Instant = Schema.String

/** Formats epoch milliseconds the way every response does. */
export const formatInstant = (epochMillis: number): string => new Date(epochMillis).toISOString()

/** Parses a validated request instant to epoch milliseconds. */
export const parseInstant = (s: string): number => Date.parse(s)
