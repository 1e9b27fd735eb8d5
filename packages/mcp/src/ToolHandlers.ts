/**
 * What each tool does: one API call with the caller's key (see {@link McpCaller}), its answer
 * returned as the tool's result and its error as the tool's error. `create_post` and
 * `validate_post` first apply the human-review rules the tool server enforces for agents.
 *
 * @since 0.1.0
 */
import type { CreatePostInput, PostwireClientError, PostwireClientService } from "@postwire/client"
import { docsUrl, ErrorCatalog, type ErrorItem, isErrorCode, renderMessage, withoutApprovalLinks } from "@postwire/domain"
import { Effect } from "effect"
import * as IdempotencyKey from "./IdempotencyKey.ts"
import { type Caller, McpCaller } from "./McpCaller.ts"
import { catalogError, type ErrorContext, fromClientError, type ToolError } from "./ToolError.ts"
import { type PostwireToolkit, platformsOf, type ToolOptions } from "./Tools.ts"

type Args = Record<string, unknown>

const isRecord = (value: unknown): value is Args => typeof value === "object" && value !== null && !Array.isArray(value)

/** The arguments of a call as an object (the schema says so; a model may still send something else). */
const argumentsOf = (value: unknown, context: ErrorContext): Effect.Effect<Args, ToolError> =>
  value === undefined
    ? Effect.succeed({})
    : isRecord(value)
      ? Effect.succeed(value)
      : Effect.fail(
          catalogError("invalid_request", context, { details: { detail: { en: "must be an object", id: "harus berupa objek" } } })
        )

/** A required id argument, refused with `invalid_request` naming the field when it is not a non-empty string. */
const idOf = (args: Args, context: ErrorContext): Effect.Effect<string, ToolError> =>
  typeof args.id === "string" && args.id !== ""
    ? Effect.succeed(args.id)
    : Effect.fail(
        catalogError("invalid_request", context, {
          field: "id",
          details: { field: "id", detail: { en: "must be a non-empty string", id: "harus berupa teks yang tidak kosong" } }
        })
      )

/** `get_post_metrics`' `series` flag, refused with `invalid_request` naming it when it is not a boolean. */
const seriesOf = (args: Args, context: ErrorContext): Effect.Effect<boolean, ToolError> =>
  args.series === undefined || typeof args.series === "boolean"
    ? Effect.succeed(args.series === true)
    : Effect.fail(
        catalogError("invalid_request", context, {
          field: "series",
          details: { field: "series", detail: { en: "must be true or false", id: "harus true atau false" } }
        })
      )

/** The query of `get_analytics` as the SDK types it; the API checks every field. */
type AnalyticsQuery = NonNullable<Parameters<PostwireClientService["analytics"]["overview"]>[0]>

const withoutKey = (record: Args, key: string): Args => Object.fromEntries(Object.entries(record).filter(([k]) => k !== key))

/**
 * A create request as the tool server sends it: approval by a person unless the operator allows
 * otherwise, and never an agent's consent: a `consent` in any target's options is set aside (with
 * a `consent_by_person` warning), and a target whose platform needs a person's consent for it
 * (`ToolPlatform.needsConsent`) always goes to the approval page.
 */
export const reviewable = (
  args: Args,
  options: ToolOptions,
  context: ErrorContext
): Effect.Effect<{ readonly body: Args; readonly warnings: ReadonlyArray<ErrorItem> }, ToolError> =>
  Effect.gen(function* () {
    const approval = isRecord(args.approval) ? args.approval : undefined
    const askedMode = approval?.mode
    if (askedMode === "none" && !options.allowSkipApproval) {
      return yield* Effect.fail(catalogError("approval_required", context, { field: "approval.mode" }))
    }
    const warnings: Array<ErrorItem> = []
    const consentWarning = (field: string): ErrorItem => {
      const { error } = catalogError("consent_by_person", context, { field })
      return {
        code: error.code,
        message: error.message,
        message_id: error.message_id,
        field,
        retryable: error.retryable,
        docs: error.docs
      }
    }
    const served = new Map(platformsOf(options).map((platform) => [platform.name, platform]))
    let direct = false
    const targets = Array.isArray(args.targets)
      ? args.targets.map((target, index) => {
          if (!isRecord(target)) return target
          const entries = Object.entries(target).map(([key, value]) => {
            if (key === "account_id" || !isRecord(value)) return [key, value] as const
            const given = "consent" in value ? withoutKey(value, "consent") : value
            if ("consent" in value) warnings.push(consentWarning(`targets[${index}].${key}.consent`))
            // The platform's rule when the tool server knows it; otherwise (a standalone tool server
            // told no platforms) an agent that offered consent was posting something that needs it.
            const needsConsent = served.get(key)?.needsConsent
            if (needsConsent === undefined ? "consent" in value : needsConsent(given)) direct = true
            return [key, given] as const
          })
          return Object.fromEntries(entries)
        })
      : args.targets
    // A post that needs a person's consent can only publish once a person gives it on the
    // approval page, so it always gets one, whatever the operator allows.
    const mode = askedMode === "none" && !direct ? "none" : "link"
    if (askedMode === "none" && direct) warnings.push(consentWarning("approval.mode"))
    const body: Args = { ...args, targets, approval: { ...(approval ?? {}), mode } }
    return { body, warnings }
  })

/**
 * A tool's result and error without approval links. The API already leaves them out for the
 * tool server; this holds even against a server that does not, so no answer an agent reads ever
 * carries the link that approves its own post.
 */
const linkless = <A>(effect: Effect.Effect<A, ToolError>): Effect.Effect<A, ToolError> =>
  effect.pipe(
    Effect.map((result) => withoutApprovalLinks(result) as A),
    Effect.mapError((error) => withoutApprovalLinks(error) as ToolError)
  )

const withRemaining = <A extends { readonly quota: { readonly used: number; readonly limit: number } }>(account: A) => ({
  ...account,
  quota: { ...account.quota, remaining: Math.max(0, account.quota.limit - account.quota.used) }
})

const whatToDo = (code: string, retryable: boolean): string => {
  if (code === "rate_limited") return "Wait retry_after_seconds, then send the same call again."
  if (code === "quota_exceeded") return "Schedule the post after the account's quota resets (see list_accounts), or use another account."
  if (code === "consent_required" || code === "approval_required" || code === "consent_by_person")
    return "Create the post with approval mode \"link\" and `approval.notify.email` set to the person who approves; they give consent and approve on the page the e-mail links to."
  if (code === "token_expired" || code === "permission_missing")
    return "Ask a person to reconnect the account; retrying will not help until then."
  if (code === "insufficient_scope" || code === "unauthorized")
    return "Ask the operator for an API key with the scope the tool needs; retrying will not help."
  return retryable
    ? "Send the same call again later; it carries the same Idempotency-Key, so it cannot act twice."
    : "Change the request as the message says (see `field`); sending it unchanged fails again."
}

/**
 * The handlers of every tool.
 *
 * @since 0.1.0
 */
export const layer = (toolkit: PostwireToolkit, options: ToolOptions) =>
  toolkit.toLayer(
    Effect.gen(function* () {
      const { current } = yield* McpCaller

      /** Runs one API call for the caller, with a derived Idempotency-Key when it mutates. */
      const call = <A>(
        tool: string,
        rawArgs: unknown,
        run: (client: PostwireClientService, args: Args, caller: Caller) => Effect.Effect<A, PostwireClientError | ToolError>,
        mutates: boolean
      ): Effect.Effect<A, ToolError> =>
        Effect.gen(function* () {
          const caller = yield* current
          const args = yield* argumentsOf(rawArgs, caller)
          const client = yield* caller.client(mutates ? IdempotencyKey.derive(tool, args) : undefined)
          return yield* run(client, args, caller).pipe(
            Effect.mapError((error) => ("_tag" in error ? fromClientError(error, caller) : error))
          )
        }).pipe(linkless, Effect.withSpan(`mcp.${tool}`))

      return toolkit.of({
        list_profiles: (args) => call("list_profiles", args, (client, a) => client.profiles.list(a), false),
        list_accounts: (args) =>
          call(
            "list_accounts",
            args,
            (client, a) => Effect.map(client.accounts.list(a), (page) => ({ ...page, data: page.data.map(withRemaining) })),
            false
          ),
        get_account: (args) =>
          call(
            "get_account",
            args,
            (client, a, caller) => Effect.flatMap(idOf(a, caller), (id) => Effect.map(client.accounts.get(id), withRemaining)),
            false
          ),
        upload_media: (args) =>
          call(
            "upload_media",
            args,
            (client, a) => client.media.upload(a as { data: string; filename?: string }),
            true
          ),
        validate_post: (args) =>
          call(
            "validate_post",
            args,
            (client, a, caller) =>
              Effect.flatMap(reviewable(a, options, caller), ({ body }) => client.posts.validate(body as CreatePostInput)),
            false
          ),
        create_post: (args) =>
          call(
            "create_post",
            args,
            (client, a, caller) =>
              Effect.gen(function* () {
                const { body, warnings } = yield* reviewable(a, options, caller)
                const created = yield* client.posts.create(body as CreatePostInput)
                return { ...created, warnings: [...created.warnings, ...warnings] }
              }),
            true
          ),
        list_posts: (args) => call("list_posts", args, (client, a) => client.posts.list(a), false),
        get_post: (args) =>
          call("get_post", args, (client, a, caller) => Effect.flatMap(idOf(a, caller), (id) => client.posts.get(id)), false),
        update_post: (args) =>
          call(
            "update_post",
            args,
            (client, a, caller) => Effect.flatMap(idOf(a, caller), (id) => client.posts.update(id, withoutKey(a, "id"))),
            true
          ),
        cancel_post: (args) =>
          call("cancel_post", args, (client, a, caller) => Effect.flatMap(idOf(a, caller), (id) => client.posts.cancel(id)), true),
        retry_post: (args) =>
          Effect.gen(function* () {
            const caller = yield* current
            const a = yield* argumentsOf(args, caller)
            const id = yield* idOf(a, caller)
            // The key also names the post's state (`updated_at`): a target that fails again after a retry
            // can be retried again with the same arguments; a call repeated while the first is unanswered
            // carries the same key, and one repeated after it finds nothing left to retry.
            const reader = yield* caller.client()
            const state = yield* reader.posts.get(id).pipe(
              Effect.map((post) => post.updated_at),
              Effect.orElseSucceed(() => null)
            )
            const client = yield* caller.client(IdempotencyKey.derive("retry_post", { ...a, post_updated_at: state }))
            return yield* client.posts.retry(id).pipe(Effect.mapError((error) => fromClientError(error, caller)))
          }).pipe(linkless, Effect.withSpan("mcp.retry_post")),
        list_comments: (args) => call("list_comments", args, (client, a) => client.comments.list(a), false),
        reply_to_comment: (args) =>
          call(
            "reply_to_comment",
            args,
            (client, a, caller) =>
              Effect.flatMap(idOf(a, caller), (id) => client.comments.reply(id, { text: String(a.text ?? "") })),
            true
          ),
        hide_comment: (args) =>
          call(
            "hide_comment",
            args,
            (client, a, caller) =>
              Effect.flatMap(idOf(a, caller), (id) => (a.hidden === false ? client.comments.unhide(id) : client.comments.hide(id))),
            true
          ),
        get_post_metrics: (args) =>
          call(
            "get_post_metrics",
            args,
            (client, a, caller) =>
              Effect.gen(function* () {
                const id = yield* idOf(a, caller)
                const series = yield* seriesOf(a, caller)
                return yield* client.analytics.postMetrics(id, series ? { series: "true" } : {})
              }),
            false
          ),
        get_analytics: (args) =>
          call("get_analytics", args, (client, a) => client.analytics.overview(a as AnalyticsQuery), false),
        explain_error: (args) =>
          Effect.gen(function* () {
            const caller = yield* current
            const a = yield* argumentsOf(args, caller)
            const code = typeof a.code === "string" ? a.code.trim() : ""
            if (!isErrorCode(code)) return yield* Effect.fail(catalogError("unknown_error_code", caller, { field: "code" }))
            const entry = ErrorCatalog[code]
            return {
              code,
              status: entry.status,
              retryable: entry.retryable,
              message: renderMessage(code, caller.locale),
              message_en: renderMessage(code, "en"),
              message_id: renderMessage(code, "id"),
              when: entry.when,
              what_to_do: whatToDo(code, entry.retryable),
              docs: docsUrl(caller.docsBaseUrl, code)
            }
          })
      })
    })
  )
