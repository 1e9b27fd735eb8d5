/**
 * The options of a LinkedIn target (`targets[].professional` in a request,
 * `targets[].options.professional` in answers):
 *
 * - `visibility`: `PUBLIC` (default, anyone on or off LinkedIn) or `CONNECTIONS` (a member's
 *   1st-degree connections; a company page's posts are public)
 *   https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api
 * - `link`: an article to share (`content.article`: `source`, `title`, `description`); the
 *   post's one image, if any, is the article's thumbnail; no video, no second image.
 *
 * @example
 * ```json
 * { "account_id": "acc_…", "professional": { "visibility": "CONNECTIONS", "link": { "url": "https://example.com/launch", "title": "Our launch" } } }
 * ```
 *
 * @since 0.5.0
 */
import { TargetRules } from "@postwire/domain"
import { Schema } from "effect"
import * as Reasons from "./Reasons.ts"

/** The article a post shares. */
export const ArticleLink = Schema.Struct({
  /** The article's address (http or https). */
  url: Schema.String.check(Schema.isPattern(/^https?:\/\/\S+$/)).annotate({
    description: "The article's address (http or https), LinkedIn's `content.article.source`."
  }),
  /** Its title as the post shows it (LinkedIn: up to 400 characters). */
  title: Schema.optionalKey(
    Schema.String.check(Schema.isMaxLength(400)).annotate({ description: "The article's title as the post shows it, up to 400 characters." })
  ),
  /** Its description (up to 4,086 characters). */
  description: Schema.optionalKey(
    Schema.String.check(Schema.isMaxLength(4086)).annotate({ description: "The article's description as the post shows it, up to 4,086 characters." })
  )
}).annotate({
  description:
    "An article the post shares (LinkedIn's `content.article`); the post's one image, if any, is its thumbnail. With a video or a second image: 422 `media_invalid`."
})

/** A target's LinkedIn options. */
export const ProfessionalOptions = Schema.Struct({
  visibility: Schema.optionalKey(
    Schema.Literals(["PUBLIC", "CONNECTIONS"]).annotate({
      description: "Who sees the post: `PUBLIC` (anyone, the default) or `CONNECTIONS` (a member's 1st-degree connections; a company page's posts are public)."
    })
  ),
  link: Schema.optionalKey(ArticleLink)
}).annotate({ description: "LinkedIn (`professional`) options of a target." })
/** A target's LinkedIn options. */
export type ProfessionalOptions = typeof ProfessionalOptions.Type

/** The options key of a target: `targets[].professional`. */
export const key = "professional"

const decodeOptions = Schema.decodeUnknownOption(ProfessionalOptions)

/** A target's stored options, or the defaults when it has none (or they no longer decode). */
export const read = (options: unknown): ProfessionalOptions => {
  const stored = typeof options === "object" && options !== null ? (options as Record<string, unknown>)[key] : undefined
  if (stored === undefined) return {}
  const decoded = decodeOptions(stored)
  return decoded._tag === "Some" ? decoded.value : {}
}

/**
 * What the target publishes with: visibility `PUBLIC` unless asked, and a refusal (422
 * `media_invalid`) of an article link with a video or more than one image: a post's `content` is
 * one article (whose `thumbnail` may be one image) or media, never both.
 */
export const resolve = (options: unknown, post: TargetRules.OptionsPost): TargetRules.OptionsResolution => {
  const given = (options ?? {}) as ProfessionalOptions
  if (given.link !== undefined && (post.media.length > 1 || post.media.some((m) => m.kind === "video"))) {
    return TargetRules.refused({
      code: "media_invalid",
      field: "media",
      details: { platform: key, detail: Reasons.reason("professional_article_with_media") }
    })
  }
  return TargetRules.resolved({ visibility: given.visibility ?? "PUBLIC", ...(given.link === undefined ? {} : { link: given.link }) })
}

/** The LinkedIn plugin's `options`. */
export const options: TargetRules.OptionsSpec = { schema: ProfessionalOptions, resolve }
