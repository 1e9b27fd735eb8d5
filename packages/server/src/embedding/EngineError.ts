/**
 * How the engine's Promise API rejects: an `Error` carrying the shared error shape, so an
 * embedding app handles a failure exactly as an SDK user handles the API's answer.
 *
 * @since 0.1.0
 */
import { Cause, Effect, Schema } from "effect"
import { type ErrorItem, type Locale, PostwireError, renderError, RequestIssues } from "@postwire/domain"
import { fieldPath } from "../http/ApiErrorsLive.ts"

/**
 * A failure of an engine call, in the shared error shape: `code`, `message` (in the engine's
 * locale), `messageId` (Indonesian), `field`, `targetId`, `retryable`, `docs`, and for a
 * post with several problems each of them in `issues`.
 *
 * @example
 * ```ts
 * try {
 *   await workspace.posts.create({ profile_id: "prof_…", caption: "", media: [], targets: [] })
 * } catch (error) {
 *   if (error instanceof PostwireEngineError) console.log(error.code, error.field) // invalid_request media
 * }
 * ```
 */
export class PostwireEngineError extends Error {
  override readonly name = "PostwireEngineError"
  readonly code: string
  /** The message in Indonesian (`message` follows the engine's locale). */
  readonly messageId: string
  readonly field: string | undefined
  readonly targetId: string | undefined
  readonly retryable: boolean
  readonly docs: string
  readonly platformCode: string | undefined
  /** Every problem, when there are several. */
  readonly issues: ReadonlyArray<ErrorItem>

  constructor(error: ErrorItem & { readonly issues?: ReadonlyArray<ErrorItem> | undefined }) {
    super(error.message)
    this.code = error.code
    this.messageId = error.message_id
    this.field = error.field
    this.targetId = error.target_id
    this.retryable = error.retryable
    this.docs = error.docs
    this.platformCode = error.platform_code
    this.issues = error.issues ?? []
  }
}

/** Decodes what a caller passed with a wire schema; bad input fails `invalid_request` naming the field. */
export const decodeInput =
  <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S, root: string) =>
  (input: unknown): Effect.Effect<S["Type"], PostwireError> =>
    Schema.decodeUnknownEffect(schema)(input, { errors: "all", onExcessProperty: "error" }).pipe(
      Effect.mapError((error) => {
        const issues = RequestIssues.describe(error.issue).map((issue) => {
          const path = fieldPath(issue.path)
          return new PostwireError({ code: "invalid_request", field: path === "" ? root : path, details: { detail: issue.detail } })
        })
        const [first] = issues
        if (first === undefined) return new PostwireError({ code: "invalid_request", field: root })
        return issues.length > 1 ? new PostwireError({ ...first, code: first.code, issues }) : first
      })
    )

/** Runs an engine call for a Promise: a domain failure rejects with {@link PostwireEngineError}, anything else as it is. */
export const toPromiseFailure =
  (locale: Locale, publicUrl: string) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, unknown, R> =>
    Effect.catchCause(effect, (cause): Effect.Effect<never, unknown> => {
      const failure = Cause.findErrorOption(cause)
      if (failure._tag === "Some" && failure.value instanceof PostwireError) {
        return Effect.fail(new PostwireEngineError(renderError(failure.value, locale, publicUrl)))
      }
      return Effect.failCause(cause)
    })
