/**
 * A Mastodon target's options (`targets[].fediverse` in a request, `targets[].options.fediverse`
 * in a response), the parameters of `POST /api/v1/statuses`
 * (https://docs.joinmastodon.org/methods/statuses/#create):
 *
 * - `visibility`: `public`, `unlisted`, `private` (followers only) or `direct`; absent: the
 *   account's default visibility on its server.
 * - `spoiler_text`: a content warning shown before the text (it counts towards the server's
 *   character limit).
 * - `sensitive`: the media is marked sensitive (hidden behind a warning).
 * - `language`: the ISO 639 language code of the text; absent: the server guesses.
 * - `alt`: the description (alt text) of each media item, in the post's order, sent as the
 *   `description` of `POST /api/v2/media` (https://docs.joinmastodon.org/methods/media/#v2). At
 *   most one per media item; each within the server's `description_limit`
 *   (`configuration.media_attachments.description_limit` of `/api/v2/instance`,
 *   https://docs.joinmastodon.org/entities/Instance/#description_limit; 1,500 characters by
 *   default, what validate checks). An empty text, or none, sends no description.
 *
 * @since 0.5.0
 */
import { TargetRules } from "@postwire/domain"
import { Schema } from "effect"
import { defaultLimits, descriptionBreak, textLength } from "./Rules.ts"
import * as Reasons from "./Reasons.ts"

/** `visibility` values (https://docs.joinmastodon.org/entities/Status/#visibility). */
export const visibilities = ["public", "unlisted", "private", "direct"] as const

/** The options of a Mastodon target. */
export const FediverseOptions = Schema.Struct({
  visibility: Schema.optionalKey(
    Schema.Literals(visibilities).annotate({
      description: "Who sees the status: `public`, `unlisted`, `private` (followers only) or `direct` (mentioned people only). Default: the account's own default on its server."
    })
  ),
  spoiler_text: Schema.optionalKey(
    Schema.String.check(Schema.isMaxLength(1_500)).annotate({
      description: "A content warning shown before the text; it counts towards the server's character limit."
    })
  ),
  sensitive: Schema.optionalKey(Schema.Boolean.annotate({ description: "Mark the media as sensitive. Default `false`." })),
  language: Schema.optionalKey(
    Schema.String.check(Schema.isPattern(/^[a-z]{2,3}$/)).annotate({
      description: "The ISO 639 code of the text's language (`en`, `id`); default: the server guesses."
    })
  ),
  alt: Schema.optionalKey(
    Schema.Array(Schema.String).annotate({
      description:
        "The description (alt text) of each media item, in the post's order: at most one per item, each within the server's description limit (1,500 characters by default). An empty text sends none."
    })
  )
}).annotate({ description: "Mastodon options: the parameters of the status." })
/** The options of a Mastodon target. */
export type FediverseOptions = typeof FediverseOptions.Type

const decode = Schema.decodeUnknownExit(FediverseOptions)

/** The options stored with a target (`target.options.fediverse`); none or unreadable: `{}`. */
export const read = (options: unknown): FediverseOptions => {
  const stored = typeof options === "object" && options !== null ? (options as Record<string, unknown>).fediverse : undefined
  if (stored === undefined || stored === null) return {}
  const result = decode(stored)
  return result._tag === "Success" ? result.value : {}
}

/**
 * The plugin's `options`: decoded with {@link FediverseOptions}; a content warning that makes the
 * text longer than Mastodon's default 500 (Mastodon counts both together,
 * https://docs.joinmastodon.org/user/posting/#cw) is refused with `caption_too_long` on
 * `targets[i].fediverse.spoiler_text`; more descriptions than media items, or one longer than
 * the default `description_limit`, with `media_invalid` on `targets[i].fediverse.alt[j]`. None
 * given: none stored (the account's defaults apply).
 */
export const options: TargetRules.OptionsSpec = {
  schema: FediverseOptions,
  resolve: (given, post) => {
    const options = given as FediverseOptions | undefined
    const alt = options?.alt ?? []
    if (alt.length > post.media.length) {
      return TargetRules.refused({
        code: "media_invalid",
        field: `alt[${post.media.length}]`,
        details: { platform: "fediverse", detail: Reasons.reason("fediverse_alt_count", { count: alt.length, max: post.media.length }) }
      })
    }
    const long = descriptionBreak(alt, defaultLimits.descriptionLimit)
    if (long !== undefined) {
      return TargetRules.refused({
        code: "media_invalid",
        field: `alt[${long.index}]`,
        details: { platform: "fediverse", detail: Reasons.reason("fediverse_alt_too_long", { max: long.max, size: long.size }) }
      })
    }
    const spoiler = options?.spoiler_text
    if (spoiler !== undefined && spoiler !== "") {
      const length = textLength(post.caption) + textLength(spoiler)
      if (length > defaultLimits.maxCharacters) {
        return TargetRules.refused({
          code: "caption_too_long",
          field: "spoiler_text",
          details: { limit: defaultLimits.maxCharacters, platform: "fediverse" }
        })
      }
    }
    return TargetRules.resolved(options ?? {})
  }
}
