/**
 * The two ways a call can fail: the API answered with an error ({@link PostwireApiError}), or
 * no usable answer arrived ({@link PostwireConnectionError}).
 *
 * Both are real `Error` subclasses, so `try/catch` and `instanceof` work in Promise code, and
 * both are tagged, so Effect code can use `Effect.catchTag`.
 *
 * @since 0.1.0
 */
import type { ErrorItem, ErrorObject } from "@postwire/domain"
import { Data } from "effect"

/**
 * An error answered by the API, in its one error shape
 * `{ error: { code, message, message_id, target_id?, field?, retryable, docs, issues? } }`,
 * with the HTTP status and the request id beside it.
 *
 * A request that breaks the contract's schema (a missing field, a typo in a field name, a
 * `limit` of 500) is rejected before it is sent, with the same `400 invalid_request` error the
 * server would answer, naming the `field`.
 *
 * @example
 * ```ts
 * import { Postwire, PostwireApiError } from "@postwire/client"
 *
 * const postwire = new Postwire({ apiKey: process.env.POSTWIRE_API_KEY!, baseUrl: "http://localhost:8080" })
 * try {
 *   await postwire.posts.get("post_01JD0000000000000000000000")
 * } catch (error) {
 *   if (error instanceof PostwireApiError && error.code === "not_found") {
 *     console.log(error.status, error.message, error.messageId) // 404, English, Indonesian
 *   } else {
 *     throw error
 *   }
 * }
 * ```
 *
 * @since 0.1.0
 */
export class PostwireApiError extends Data.TaggedError("PostwireApiError")<{
  /** HTTP status of the answer: 400, 401, 403, 404, 409, 410, 422, 429 or 5xx. */
  readonly status: number
  /** The normalized error code, e.g. `not_found`, `consent_required`, `quota_exceeded`. */
  readonly code: string
  /** Human-readable text, in English unless the client was made with `locale: "id"`. */
  readonly message: string
  /** The same text in Indonesian (`message_id` on the wire). */
  readonly messageId: string
  /** The request field concerned, e.g. `targets[0].account_id` or `media[0]`. */
  readonly field?: string | undefined
  /** The target concerned, when one applies (`target_id` on the wire). */
  readonly targetId?: string | undefined
  /** The platform's own error code, when a platform caused the error (`platform_code` on the wire). */
  readonly platformCode?: string | undefined
  /** Whether sending the same request again can succeed without changes. */
  readonly retryable: boolean
  /** Address of the documentation entry for `code`. */
  readonly docs: string
  /** Every problem found, for a 422 platform validation failure. */
  readonly issues?: ReadonlyArray<ErrorItem> | undefined
  /** The server's request id (`X-Request-Id` header), to quote when asking for help. */
  readonly requestId?: string | undefined
  /** Seconds the server asked to wait (`Retry-After` header), on a 429. */
  readonly retryAfter?: number | undefined
  /** The `error` object of the answer, as the contract decodes it. */
  readonly error: ErrorObject
}> {}

/**
 * No usable answer arrived: the server could not be reached, the connection broke, or the
 * answer did not match the API contract (a proxy's HTML page with a 200, or a server of another
 * version).
 *
 * `kind` tells the two apart. Network failures of a GET, or of a POST of posts or media (they
 * carry an `Idempotency-Key`), were already retried `maxRetries` times before this error is
 * returned; those of `webhooks.create`, `webhooks.test` and `approvals.decide` are not (the
 * server does not deduplicate them).
 *
 * @example
 * ```ts
 * import { Postwire, PostwireConnectionError } from "@postwire/client"
 *
 * const postwire = new Postwire({ apiKey: process.env.POSTWIRE_API_KEY!, baseUrl: "http://localhost:8080" })
 * try {
 *   await postwire.accounts.list()
 * } catch (error) {
 *   if (error instanceof PostwireConnectionError && error.kind === "network") {
 *     console.log(`Postwire is unreachable: ${error.message}`)
 *   }
 * }
 * ```
 *
 * @since 0.1.0
 */
export class PostwireConnectionError extends Data.TaggedError("PostwireConnectionError")<{
  /** `network`: no answer arrived; `invalid_response`: an answer arrived that the contract does not allow. */
  readonly kind: "network" | "invalid_response"
  /** What went wrong, in English. */
  readonly message: string
  /** `true` for `network` (the same request may succeed later), `false` for `invalid_response`. */
  readonly retryable: boolean
  /** HTTP method of the request. */
  readonly method: string
  /** Address of the request. */
  readonly url: string
  /** The underlying failure. */
  readonly cause?: unknown
}> {}

/**
 * Every failure of a client call.
 *
 * @example
 * ```ts
 * import type { PostwireClientError } from "@postwire/client"
 *
 * const describe = (error: PostwireClientError): string =>
 *   error._tag === "PostwireApiError" ? `${error.status} ${error.code}` : `${error.kind}: ${error.message}`
 * ```
 *
 * @since 0.1.0
 */
export type PostwireClientError = PostwireApiError | PostwireConnectionError
