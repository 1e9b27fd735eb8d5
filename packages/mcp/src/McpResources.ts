/**
 * Context an agent reads rather than calls: the error catalog and the platform rules, as MCP
 * resources, from the data in `@postwire/domain` (the same data the API enforces).
 *
 * @since 0.1.0
 */
import { defaultPageSize, docsUrl, ErrorCatalog, errorCodes, Media, Post } from "@postwire/domain"
import { Effect, Layer } from "effect"
import { McpServer } from "effect/ai"
import { platformsOf, type ToolPlatform } from "./Tools.ts"

/**
 * The address of the error catalog resource.
 *
 * @since 0.1.0
 */
export const errorsUri = "postwire://errors"

/**
 * The address of the platform rules resource.
 *
 * @since 0.1.0
 */
export const platformRulesUri = "postwire://platform-rules"

/**
 * Every error code with its status, retryability, both texts and when it is returned.
 *
 * @since 0.1.0
 */
export const errorCatalogDocument = (docsBaseUrl: string) => ({
  errors: errorCodes.map((code) => {
    const entry = ErrorCatalog[code]
    return {
      code,
      status: entry.status,
      retryable: entry.retryable,
      kind: entry.kind,
      message_en: entry.en,
      message_id: entry.indonesian,
      when: entry.when,
      docs: docsUrl(docsBaseUrl, code)
    }
  })
})

/**
 * Caption limits, media counts, default daily quotas and the limits of a post, per platform.
 *
 * @since 0.1.0
 */
export const platformRulesDocument = (served: ReadonlyArray<ToolPlatform> = platformsOf({})) => ({
  platforms: served.map(({ name: platform, displayName, rules, needsConsent }) => {
    return {
      platform,
      name: displayName,
      ...(rules === undefined
        ? {}
        : {
            caption_max_characters: rules.captionMax,
            media_per_post: { min: rules.mediaMin, max: rules.mediaMax },
            default_daily_quota: rules.dailyQuota
          }),
      ...(needsConsent === undefined
        ? {}
        : {
            consent:
              "Some posts of this platform need a person's consent (`consent` in the target's options: privacy level and the confirmations it asks); a person gives it on the approval page."
          })
    }
  }),
  post: {
    media_max: 10,
    targets_max: Post.maxTargets,
    inline_upload_max_bytes: Media.maxInlineUploadBytes,
    page_size_default: defaultPageSize,
    page_size_max: 100,
    quota_window: "Each account's quota counts posts over a rolling 24 hours; list_accounts shows what remains."
  }
})

const json = (value: unknown) => JSON.stringify(value, null, 2)

/**
 * Registers both resources.
 *
 * @since 0.1.0
 */
export const layer = (options: {
  readonly docsBaseUrl: string
  readonly platforms?: ReadonlyArray<ToolPlatform> | undefined
}): Layer.Layer<never, never, McpServer.McpServer> =>
  Layer.mergeAll(
    McpServer.resource({
      uri: errorsUri,
      name: "Postwire error catalog",
      description:
        "Every error code a Postwire call can return: HTTP status, whether retrying can succeed, the English and Indonesian texts, and when it happens.",
      mimeType: "application/json",
      audience: ["assistant"],
      content: Effect.sync(() => json(errorCatalogDocument(options.docsBaseUrl)))
    }),
    McpServer.resource({
      uri: platformRulesUri,
      name: "Postwire platform rules",
      description:
        "Per platform: caption length limit, media per post, default daily posting quota; and the limits of a post (targets, upload size, page size).",
      mimeType: "application/json",
      audience: ["assistant"],
      content: Effect.sync(() => json(platformRulesDocument(platformsOf(options))))
    })
  )
