/**
 * The tools an agent sees: names, descriptions written for a model, input and output schemas
 * derived from the contract's schemas in `@postwire/domain`, and the MCP hints
 * (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`).
 *
 * @since 0.1.0
 */
import { Account, builtinDisplayNames, builtinPlatforms, Comment, ErrorItem, Media, type PlatformRules, Post } from "@postwire/domain"
import { Schema } from "effect"
import { Tool, Toolkit } from "effect/ai"
import { ToolError } from "./ToolError.ts"

/**
 * What the tool list depends on.
 *
 * @since 0.1.0
 */
export interface ToolOptions {
  /**
   * Whether `create_post` accepts `approval.mode: "none"` (publish without a person's approval).
   * Only the operator decides: `--allow-skip-approval` (stdio) or
   * `POSTWIRE_MCP_ALLOW_SKIP_APPROVAL=1` (HTTP). Default `false`.
   */
  readonly allowSkipApproval: boolean
  /**
   * The platforms the API behind the tools serves (its registry: built-in and plugins), for the
   * descriptions, the platform-rules resource and `create_post`'s per-target options. Default:
   * the built-in platforms (a tool server told nothing of the server's plugins still passes their
   * options through).
   */
  readonly platforms?: ReadonlyArray<ToolPlatform> | undefined
}

/**
 * A platform as the tools describe it: its word, its name for people, its rules and the schema
 * of its per-target options (`targets[].<name>`), when it takes some.
 *
 * @since 0.5.0
 */
export interface ToolPlatform {
  readonly name: string
  readonly displayName: string
  /** Its rules (its plugin's); absent when the tool server was not told them. */
  readonly rules?: PlatformRules | undefined
  readonly options?: Schema.Top | undefined
  /**
   * Whether a target with these options publishes only with a person's consent (its plugin's
   * `options.needsConsent`, given the options as the request has them): the tool server then
   * always asks for a person's approval, where the consent is given.
   */
  readonly needsConsent?: ((options: unknown) => boolean) | undefined
}

/**
 * The platforms of `options`, or the built-in ones by their words and names (their rules and
 * options are then the API's to check).
 *
 * @since 0.5.0
 */
export const platformsOf = (options: Pick<ToolOptions, "platforms">): ReadonlyArray<ToolPlatform> =>
  options.platforms ?? builtinPlatforms.map((name) => ({ name, displayName: builtinDisplayNames[name] }))


const id = (what: string, prefix: string) =>
  Schema.String.annotate({ description: `The ${what}'s id, e.g. "${prefix}_01JD0000000000000000000000".` })

const pageLimit = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100 })).annotate({
  description: "Items per page, 1 to 100. Default 25."
})
const cursor = Schema.String.annotate({
  description: "The opaque `cursor.next` of the previous page, to get the next one. Leave out for the first page."
})

/** A quota with what is left of it: an agent should not have to subtract. */
const QuotaWithRemaining = Schema.Struct({
  ...Account.Quota.fields,
  remaining: Schema.Number.annotate({
    description: "Posts the account can still publish before `resets_at` (limit minus used, never below 0)."
  })
})

/**
 * An account as the tools return it: the API's account, its quota with `remaining`.
 *
 * @since 0.1.0
 */
export const AccountWithRemaining = Schema.Struct({ ...Account.Account.fields, quota: QuotaWithRemaining })

const AccountPage = Schema.Struct({ data: Schema.Array(AccountWithRemaining), cursor: Account.AccountList.fields.cursor })

const humanReview =
  "A person must approve every post before it publishes: the post is created with approval mode \"link\" and waits " +
  "in status awaiting_approval. The approval link is never shown to you (`approval.url` is null): the approver gets it " +
  "by e-mail when you set `approval.notify.email` (ask the user who approves), or through the workspace's own systems. " +
  "Tell the user the post waits for their approval."

/**
 * What the tools say of consent: which platforms' posts need a person's consent (those whose
 * plugin says so), and that an agent never gives it.
 *
 * @since 0.5.0
 */
export const consentRule = (options: Pick<ToolOptions, "platforms">): string => {
  const needing = platformsOf(options).filter((p) => p.needsConsent !== undefined)
  const which =
    needing.length === 0
      ? "Some platforms' posts need a person's consent (`consent` in a target's options)"
      : `${needing.map((p) => `${p.displayName} (platform ${p.name})`).join(", ")} posts of some kinds need a person's consent (\`consent\` in the target's options, for example a direct post)`
  return `${which}; only a person gives it, on the approval page. Never send \`consent\`: it is set aside, and such a post always goes to the approval page.`
}

/**
 * A platform's options schema as the tools offer it: without its `consent` field (consent is a
 * person's, given on the approval page), keeping its description.
 */
const withoutConsent = (schema: Schema.Top): Schema.Top => {
  const fields = (schema as { readonly fields?: Schema.Struct.Fields }).fields
  if (fields === undefined || !("consent" in fields)) return schema
  const { consent: _consent, ...rest } = fields
  const description = schema.ast.annotations?.description
  const struct = Schema.Struct(rest)
  return typeof description === "string" ? struct.annotate({ description }) : struct
}

/** The wire's own option fields of a target (`Post.TargetInput`), without consent. */
const builtinTargetFields: Schema.Struct.Fields = Object.fromEntries(
  Object.entries(Post.TargetInput.schema.fields).map(([key, field]) => {
    const inner = (field as { readonly schema?: Schema.Top }).schema
    return [key, key === "account_id" || inner === undefined ? field : Schema.optionalKey(withoutConsent(inner))]
  })
)

/**
 * A target of `create_post`: the built-in platforms' options, and each plugin's under its word
 * (from its schema). Told no platforms, any other key passes through to the API, which decides.
 */
const targetInput = (options: ToolOptions) => {
  const pluginFields = Object.fromEntries(
    platformsOf(options).flatMap((platform) =>
      platform.options === undefined || platform.name in builtinTargetFields
        ? []
        : [
            [
              platform.name,
              Schema.optionalKey(
                withoutConsent(platform.options).annotate({ description: `Options of a ${platform.name} (${platform.displayName}) target.` })
              )
            ]
          ]
    )
  ) as Record<string, Schema.optionalKey<Schema.Top>>
  const fields = Schema.Struct({ ...builtinTargetFields, ...pluginFields })
  return options.platforms === undefined ? Schema.StructWithRest(fields, [Schema.Record(Schema.String, Schema.Unknown)]) : fields
}

const createPostInput = (options: ToolOptions) =>
  Schema.Struct({
    ...Post.CreatePostRequest.fields,
    targets: Schema.Array(targetInput(options))
      .check(Schema.isMinLength(1), Schema.isMaxLength(Post.maxTargets))
      .annotate({ description: "The accounts to publish to (from list_accounts), each with its platform's options." }),
    approval: Schema.optionalKey(
      Schema.Struct({
        mode: Schema.optionalKey(options.allowSkipApproval ? Schema.Literals(["link", "none"]) : Schema.Literal("link")).annotate({
          description: options.allowSkipApproval
            ? "\"link\" (default): a person approves on the approval page. \"none\": publish without approval (this tool server's operator allowed it)."
            : "Always \"link\": a person approves on the approval page. \"none\" is refused by this tool server."
        }),
        notify: Post.ApprovalInput.fields.notify
      })
    ).annotate({ description: "Who approves the post, and how they hear of it." })
  })

const idInput = (what: string, prefix: string) => Schema.Struct({ id: id(what, prefix) })

const jsonSchema = (schema: Schema.Top) => Tool.getJsonSchemaFromSchema(schema as Schema.Constraint)

const readOnly = <T extends Tool.Any>(tool: T): T =>
  tool.annotate(Tool.Readonly, true).annotate(Tool.Destructive, false).annotate(Tool.Idempotent, true).annotate(Tool.OpenWorld, false) as T

const mutating = <T extends Tool.Any>(tool: T, hints: { readonly destructive: boolean; readonly openWorld: boolean }): T =>
  tool
    .annotate(Tool.Readonly, false)
    .annotate(Tool.Destructive, hints.destructive)
    // Each call carries an Idempotency-Key derived from its arguments: the same call twice acts once.
    .annotate(Tool.Idempotent, true)
    .annotate(Tool.OpenWorld, hints.openWorld) as T

const failure = ToolError
const failureMode = "error" as const

/**
 * The toolkit of the tool server, for the given operator options.
 *
 * @example
 * ```ts
 * import { Tools } from "@postwire/mcp"
 *
 * const toolkit = Tools.make({ allowSkipApproval: false })
 * Object.keys(toolkit.tools) // ["list_profiles", "list_accounts", …]
 * ```
 *
 * @since 0.1.0
 */
export const make = (options: ToolOptions) =>
  Toolkit.make(
    readOnly(
      Tool.dynamic("list_profiles", {
        description:
          "List the profiles (brands) of the workspace. A post belongs to one profile; its accounts are the profile's. " +
          "Needs scope posts:read. Pages: pass `cursor.next` back as `cursor` while `cursor.has_more` is true.",
        parameters: jsonSchema(Schema.Struct({ limit: Schema.optionalKey(pageLimit), cursor: Schema.optionalKey(cursor) })),
        success: Account.ProfileList,
        failure,
        failureMode
      })
    ),
    readOnly(
      Tool.dynamic("list_accounts", {
        description:
          "List the social accounts posts can target, with each one's platform, `status` (only \"connected\" accounts " +
          "publish; \"needs_reconnect\" must be reconnected by a person) and `quota` (`remaining` posts before `resets_at`). " +
          "Check the quota before scheduling many posts. Needs scope posts:read.",
        parameters: jsonSchema(
          Schema.Struct({
            ...Account.ListAccountsQuery.fields,
            limit: Schema.optionalKey(pageLimit),
            cursor: Schema.optionalKey(cursor)
          })
        ),
        success: AccountPage,
        failure,
        failureMode
      })
    ),
    readOnly(
      Tool.dynamic("get_account", {
        description: "Get one account with its status and remaining quota. Needs scope posts:read.",
        parameters: jsonSchema(idInput("account", "acc")),
        success: AccountWithRemaining,
        failure,
        failureMode
      })
    ),
    mutating(
      Tool.dynamic("upload_media", {
        description:
          "Upload an image or video (base64, up to 10 MiB decoded) and get its media id, to use in create_post's `media`. " +
          "Sending the same data again returns the same media item. Needs scope posts:write.",
        parameters: jsonSchema(
          Schema.Struct({
            data: Media.UploadMediaRequest.fields.data.annotate({ description: "The file's bytes, base64-encoded." }),
            filename: Media.UploadMediaRequest.fields.filename.annotate({ description: "The file's name, e.g. \"launch.png\"." })
          })
        ),
        success: Media.Media,
        failure,
        failureMode
      }),
      { destructive: false, openWorld: false }
    ),
    readOnly(
      Tool.dynamic("validate_post", {
        description:
          "Check a post against every target platform's rules (caption length, media, quotas) without creating it. " +
          "Takes the same arguments as create_post; `issues` is empty when create_post would accept it. " +
          "Needs scope posts:write.",
        parameters: jsonSchema(createPostInput(options)),
        success: Post.ValidatePostResponse,
        failure,
        failureMode
      })
    ),
    mutating(
      Tool.dynamic("create_post", {
        description:
          `Create a post: a caption and uploaded media, published to one or more accounts now or at \`scheduled_at\`. ${
            options.allowSkipApproval
              ? "By default a person approves it first (approval mode \"link\"; the link reaches them by e-mail through `approval.notify.email`, never through you); this tool server's operator allows `approval.mode: \"none\"`."
              : humanReview
          } ${consentRule(options)} Calling again with the same arguments returns the same post, never a second one. ` +
          "Errors come back as the API's error object (code, message, field, retryable). Needs scope posts:write.",
        parameters: jsonSchema(createPostInput(options)),
        success: Schema.Struct({
          ...Post.CreatePostResponse.fields,
          warnings: Schema.Array(ErrorItem).annotate({
            description: "Things the post was accepted with but should be known, e.g. consent set aside for a person to give."
          })
        }),
        failure,
        failureMode
      }),
      { destructive: false, openWorld: true }
    ),
    readOnly(
      Tool.dynamic("list_posts", {
        description:
          "List posts, newest publish time first, filtered by status, profile, platform or a time range (`from`/`to`, " +
          "ISO 8601 with offset). Pages: pass `cursor.next` back as `cursor` while `cursor.has_more` is true. " +
          "Needs scope posts:read.",
        parameters: jsonSchema(
          Schema.Struct({ ...Post.ListPostsQuery.fields, limit: Schema.optionalKey(pageLimit), cursor: Schema.optionalKey(cursor) })
        ),
        success: Post.PostList,
        failure,
        failureMode
      })
    ),
    readOnly(
      Tool.dynamic("get_post", {
        description:
          "Get a post with each target's status, permalink once published, and error when it failed (an error object " +
          "with `retryable`). Needs scope posts:read.",
        parameters: jsonSchema(idInput("post", "post")),
        success: Post.Post,
        failure,
        failureMode
      })
    ),
    mutating(
      Tool.dynamic("update_post", {
        description:
          "Change a post's caption and/or `scheduled_at` (null publishes as soon as approved) while no target is publishing. " +
          "Needs scope posts:write.",
        parameters: jsonSchema(Schema.Struct({ id: id("post", "post"), ...Post.UpdatePostRequest.fields })),
        success: Post.Post,
        failure,
        failureMode
      }),
      { destructive: true, openWorld: false }
    ),
    mutating(
      Tool.dynamic("cancel_post", {
        description:
          "Cancel the targets of a post that have not published yet; published targets stay published. Cannot be undone. " +
          "Needs scope posts:write.",
        parameters: jsonSchema(idInput("post", "post")),
        success: Post.Post,
        failure,
        failureMode
      }),
      { destructive: true, openWorld: false }
    ),
    mutating(
      Tool.dynamic("retry_post", {
        description:
          "Queue again the targets of a post that failed with `retryable: true`; answers with the targets queued. " +
          "Fix non-retryable errors (see explain_error) instead. Needs scope posts:write.",
        parameters: jsonSchema(idInput("post", "post")),
        success: Post.RetryPostResponse,
        failure,
        failureMode
      }),
      { destructive: false, openWorld: true }
    ),
    readOnly(
      Tool.dynamic("list_comments", {
        description:
          "List the comments people wrote under published posts, newest first, filtered by post, target, account, platform, " +
          "`hidden` (\"true\" or \"false\") or when they were written (`from`/`to`, ISO 8601 with offset). Each comment has its " +
          "author, text, `parent_id` when it answers another comment, and `from_owner` when the account wrote it. Pages: pass " +
          "`cursor.next` back as `cursor` while `cursor.has_more` is true. Needs scope posts:read.",
        parameters: jsonSchema(
          Schema.Struct({ ...Comment.ListCommentsQuery.fields, limit: Schema.optionalKey(pageLimit), cursor: Schema.optionalKey(cursor) })
        ),
        success: Comment.CommentList,
        failure,
        failureMode
      })
    ),
    mutating(
      Tool.dynamic("reply_to_comment", {
        description:
          "Publish an answer to a comment, as the account the post was published with; the answer is public on the platform " +
          "at once and comes back as a comment. Show the user the text before answering on their behalf. Calling again with " +
          "the same arguments returns the same answer, never a second one. Needs scope comments:write.",
        parameters: jsonSchema(Schema.Struct({ id: id("comment", "cmt"), ...Comment.ReplyToCommentRequest.fields })),
        success: Comment.Comment,
        failure,
        failureMode
      }),
      { destructive: false, openWorld: true }
    ),
    mutating(
      Tool.dynamic("hide_comment", {
        description:
          "Hide a comment from the public on its platform (`hidden: true`, the default), or show a hidden one again " +
          "(`hidden: false`); answers the comment. Needs scope comments:write.",
        parameters: jsonSchema(
          Schema.Struct({
            id: id("comment", "cmt"),
            hidden: Schema.optionalKey(
              Schema.Boolean.annotate({ description: "`true` (default) hides the comment; `false` shows it again." })
            )
          })
        ),
        success: Comment.Comment,
        failure,
        failureMode
      }),
      { destructive: false, openWorld: true }
    ),
    readOnly(
      Tool.dynamic("explain_error", {
        description:
          "Explain a Postwire error code (from a tool error or a target's `error.code`): what it means in English and " +
          "Indonesian, whether retrying can succeed, and what to do. Needs no scope.",
        parameters: jsonSchema(
          Schema.Struct({ code: Schema.String.annotate({ description: "The error code, e.g. \"quota_exceeded\"." }) })
        ),
        success: Schema.Struct({
          code: Schema.String.annotate({ description: "The error code explained." }),
          status: Schema.Number.annotate({ description: "The HTTP status the API answers with this code." }),
          retryable: Schema.Boolean.annotate({ description: "Whether the same call can succeed later without changes." }),
          message: Schema.String.annotate({ description: "The text, in the caller's language." }),
          message_en: Schema.String.annotate({ description: "The text in English." }),
          message_id: Schema.String.annotate({ description: "The text in Indonesian." }),
          when: Schema.String.annotate({ description: "When the code is returned." }),
          what_to_do: Schema.String.annotate({ description: "What an agent should do next." }),
          docs: Schema.String.annotate({ description: "The code's entry in the error reference." })
        }),
        failure,
        failureMode
      })
    )
  )

/**
 * The toolkit's type.
 *
 * @since 0.1.0
 */
export type PostwireToolkit = ReturnType<typeof make>
