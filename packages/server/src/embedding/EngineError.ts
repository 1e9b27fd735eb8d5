/**
 * How the engine's Promise API rejects: an `Error` carrying the shared error shape, so an
 * embedding app handles a failure exactly as an SDK user handles the API's answer.
 *
 * @since 0.1.0
 */
import { Cause, Effect, Schema } from "effect"
import { type ErrorItem, type Locale, PostwireError, renderError, RequestIssues } from "@postwire/domain"
import { explainStartupFailure, type SettingNames } from "../cli/StartupFailure.ts"
import type { ServerSettings } from "../config/ServerConfig.ts"
import { fieldPath } from "../http/Failures.ts"

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

/** How an embedding app names the settings the fix mentions. */
const embedSettingNames: SettingNames = {
  dataDir: "the `dataDir` option",
  secretMissing:
    "POSTWIRE_SECRET is not set: on PostgreSQL pass it in the `env` option (or POSTWIRE_SECRET_FILE) to every instance, generated with `postwire secrets generate`."
}

/**
 * Why `PostwireEngine.make` or `makeHandler` could not start: the same one or two lines naming
 * the cause and the fix that `postwire serve` prints, as `message`. `_tag` names the cause
 * (`DataDirectoryInUse`, `SecretRequired`, `StoreError`, …), with the cause's fields `dataDir`,
 * `pid` and `path` where it has them; the original failure is `cause`.
 *
 * @example
 * ```ts
 * import { PostwireEngine, PostwireStartError } from "@postwire/server"
 *
 * try {
 *   await PostwireEngine.make({ dataDir: "./.postwire" })
 * } catch (error) {
 *   if (error instanceof PostwireStartError && error._tag === "DataDirectoryInUse") {
 *     console.error(error.message) // The data directory ./.postwire is in use by another Postwire process (pid 4242). …
 *   }
 * }
 * ```
 */
export class PostwireStartError extends Error {
  override readonly name = "PostwireStartError"
  /** The cause's tag (`DataDirectoryInUse`, `SecretRequired`, …), or `StartFailed` when it has none. */
  readonly _tag: string
  /** The data directory in question (`DataDirectoryInUse`, `DataDirectoryNotWritable`). */
  readonly dataDir: string | undefined
  /** The process holding the data directory (`DataDirectoryInUse`). */
  readonly pid: number | undefined
  /** The file in question (`SecretFileExposed`, `SecretFileUnusable`). */
  readonly path: string | undefined

  constructor(message: string, tag: string, fields: { readonly dataDir?: unknown; readonly pid?: unknown; readonly path?: unknown }, cause: unknown) {
    super(message, { cause })
    this._tag = tag
    this.dataDir = typeof fields.dataDir === "string" ? fields.dataDir : undefined
    this.pid = typeof fields.pid === "number" ? fields.pid : undefined
    this.path = typeof fields.path === "string" ? fields.path : undefined
  }
}

/** The tagged error a start failed with, outermost first: the one an app can branch on. */
const taggedIn = (
  cause: Cause.Cause<unknown>
): ({ readonly _tag: string; readonly dataDir?: unknown; readonly pid?: unknown; readonly path?: unknown }) | undefined => {
  for (const reason of cause.reasons) {
    const value = Cause.isFailReason(reason) ? reason.error : Cause.isDieReason(reason) ? reason.defect : undefined
    if (typeof value === "object" && value !== null && "_tag" in value && typeof value._tag === "string") {
      return value as { readonly _tag: string; readonly dataDir?: unknown; readonly pid?: unknown; readonly path?: unknown }
    }
  }
  return undefined
}

/** Turns a failed start of the engine or the handler into a {@link PostwireStartError}. */
export const startFailure = (
  cause: Cause.Cause<unknown>,
  settings: Pick<ServerSettings, "port" | "host" | "dataDir" | "databaseUrl">
): PostwireStartError => {
  const message = explainStartupFailure(cause, settings, embedSettingNames) ?? "Postwire was stopped while it started."
  const tagged = taggedIn(cause)
  return new PostwireStartError(message, tagged?._tag ?? "StartFailed", tagged ?? {}, Cause.squash(cause))
}
