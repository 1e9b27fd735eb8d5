/**
 * A target's failure as data, and its rendering into the shared error shape when it is read.
 *
 * The engine stores what went wrong ({@link TargetFailure}), never the words: a corrected catalog
 * text, a translation or a new public address reaches failures stored before it, because every
 * read renders them again in the reader's language.
 *
 * @since 0.4.0
 */
import { ErrorCatalog, type ErrorObject, type Locale, PostwireError, renderError } from "@postwire/domain"
import type { TargetFailure } from "../store/PostStore.ts"

/** What a target stores of a failure: its code and details, the platform's code, whether a retry can succeed. */
export const failureOf = (error: {
  readonly code: PostwireError["code"]
  readonly details?: PostwireError["details"]
  readonly platformCode?: string | undefined
  readonly retryable?: boolean | undefined
}): TargetFailure => ({
  code: error.code,
  ...(error.details === undefined ? {} : { details: error.details }),
  ...(error.platformCode === undefined ? {} : { platform_code: error.platformCode }),
  retryable: error.retryable ?? ErrorCatalog[error.code].retryable
})

/**
 * The failure as the domain error it was, about `targetId`. A code this version's catalog does
 * not know (a row edited by hand) reads as `internal_error`, keeping the platform's code, so one
 * odd row never fails the read of a whole page.
 */
export const failureError = (targetId: string, failure: TargetFailure): PostwireError =>
  Object.hasOwn(ErrorCatalog, failure.code)
    ? new PostwireError({
      code: failure.code,
      targetId,
      details: failure.details,
      platformCode: failure.platform_code,
      retryable: failure.retryable
    })
    : new PostwireError({ code: "internal_error", targetId, platformCode: failure.platform_code, retryable: false })

/**
 * A target's stored failure in the shared error shape: `message` in `locale` (`message_id`
 * always Indonesian), both in the current catalog's words, `docs` under `publicBaseUrl`.
 */
export const renderTargetError = (
  targetId: string,
  failure: TargetFailure,
  locale: Locale,
  publicBaseUrl: string
): ErrorObject => renderError(failureError(targetId, failure), locale, publicBaseUrl)
