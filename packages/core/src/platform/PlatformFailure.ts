/**
 * How a platform call fails, in the engine's words: `PlatformFailure`, normalized to a catalog
 * code, and the refreshed tokens a call may hand back (`CredentialsUpdate`). Every port that
 * calls a platform (publishing, connect, comments, analytics) fails with it, so it sits below
 * all of them.
 *
 * @since 0.1.0
 */
import { Data } from "effect"
import type { ErrorCode, ErrorDetails } from "@postwire/domain"

/** New platform credentials to store after a refresh (tokens rotate). */
export interface CredentialsUpdate {
  readonly accountId: string
  /** Opaque to the engine, encrypted by the server before storage. */
  readonly credentials: string
}

/** A platform failure, normalized to a catalog code; the raw platform code is kept for support. */
export class PlatformFailure extends Data.TaggedError("PlatformFailure")<{
  readonly code: ErrorCode
  /** The platform's own code, e.g. `spam_risk_too_many_posts` or `190/463`. */
  readonly platformCode: string
  readonly retryable: boolean
  /** Details for the message (e.g. `limit`, `duration`, a `detail` from `ErrorDetail`). */
  readonly details?: ErrorDetails | undefined
  /** The account must be reconnected: its token could not be refreshed. */
  readonly needsReconnect?: boolean | undefined
  /** Resume state to persist even though this step failed (e.g. a container was created). */
  readonly state?: unknown
  /** Tokens refreshed during the failed step: store them anyway, the old ones may be revoked. */
  readonly credentials?: CredentialsUpdate | undefined
  /**
   * The platform said the target is not published (a container that expired or failed, a
   * publish it refused). Only such a failure ends a target that may have been published (see
   * `PublishInput.checkpoint`); any other keeps it `publishing`, asked again later.
   */
  readonly notPublished?: boolean | undefined
  /**
   * The platform's call-rate limit (e.g. TikTok's 6 inits a minute per user) refused the call or
   * would have: nothing was sent that could publish, and the call may be made again from this
   * time on (epoch milliseconds). The publisher keeps the target `publishing` and takes its step
   * again then, instead of failing it (with `notPublished`, or before anything may have published).
   */
  readonly retryAt?: number | undefined
  /**
   * The platform's recovery path ran out of its documented bound without learning whether the
   * target was published (a status that never ends, a lost answer never found): the target ends
   * `failed` with this failure's code although it may have been published, never asked forever.
   */
  readonly gaveUp?: boolean | undefined
}> {}
