/**
 * YouTube's per-target options (`targets[].video` in requests, `targets[].options.video` in
 * responses), and what a target publishes with once they are resolved against the post.
 *
 * `made_for_kids` is required and has no default: YouTube's `status.selfDeclaredMadeForKids`
 * (https://developers.google.com/youtube/v3/docs/videos#status.selfDeclaredMadeForKids) is a
 * legal declaration (COPPA) the person makes, so Postwire never picks it for them.
 *
 * @since 0.5.0
 */
import { type ErrorDetail, type ErrorDetails, TargetRules } from "@postwire/domain"
import { Schema } from "effect"
import * as Rules from "./Rules.ts"
import * as Reasons from "./Reasons.ts"

/** `status.privacyStatus` (https://developers.google.com/youtube/v3/docs/videos#status.privacyStatus). */
export const PrivacyStatus = Schema.Literals(["public", "unlisted", "private"])
export type PrivacyStatus = typeof PrivacyStatus.Type

/** The options a request gives a YouTube target. */
export const VideoOptions = Schema.Struct({
  /** The video's title (1 to 100 characters, no `<` `>`); default: the caption's first line. */
  title: Schema.optionalKey(Schema.String.annotate({ description: "The video's title, 1 to 100 characters without `<` or `>`. Default: the caption's first line (cut to 99 characters and `…` when longer)." })),
  /** `public`, `unlisted` or `private`; default `public`. */
  privacy_status: Schema.optionalKey(PrivacyStatus.annotate({ description: "Who can watch: `public` (default), `unlisted` or `private`. Uploads of an unverified API project are locked private by YouTube." })),
  /** Whether the video is made for kids: required, no default. */
  made_for_kids: Schema.optionalKey(Schema.Boolean.annotate({ description: "Whether the video is made for kids (YouTube's `selfDeclaredMadeForKids`). Required: a target without it is 422 `option_required`; Postwire picks no default." })),
  /** Tags, at most 500 characters in all. */
  tags: Schema.optionalKey(Schema.Array(Schema.String).annotate({ description: "The video's tags, at most 500 characters in all." })),
  /** A media id (`med_…`) of a JPEG or PNG image to set as the custom thumbnail. */
  thumbnail_media_id: Schema.optionalKey(Schema.String.annotate({ description: "A media id (`med_…`) of a JPEG or PNG image to set as the custom thumbnail (`thumbnails.set`)." })),
  /** The video category id (`22` People & Blogs is YouTube's usual default). */
  category_id: Schema.optionalKey(Schema.String.annotate({ description: "The video category id (for example `22`, People & Blogs, YouTube's usual default)." }))
})
export type VideoOptions = typeof VideoOptions.Type

/**
 * What a target publishes with: the options with every field decided (title, privacy, tags),
 * stored with the target in the request's own form (it decodes with {@link VideoOptions}).
 */
export type Resolved = VideoOptions & {
  readonly title: string
  readonly privacy_status: PrivacyStatus
  readonly made_for_kids: boolean
  readonly tags: ReadonlyArray<string>
}

/**
 * A refusal of a target's options: a 422 code of the catalog, the option it concerns (relative
 * to `targets[].video`) and the details its message is filled with.
 */
export interface Refusal {
  readonly code: "option_required" | "caption_invalid"
  readonly field: string
  readonly details: ErrorDetails
}

/**
 * Resolves a target's options against its caption: the title from the option or the caption's
 * first line, defaults for the rest; a refusal names the first rule broken.
 */
export const resolve = (
  options: VideoOptions | undefined,
  caption: string
): { readonly _tag: "Ok"; readonly value: Resolved } | { readonly _tag: "Refused"; readonly refusal: Refusal } => {
  const refuse = (field: string, detail: ReturnType<typeof ErrorDetail.reason>) =>
    ({ _tag: "Refused", refusal: { code: "caption_invalid", field, details: { platform: "video", detail } } }) as const
  if (options?.made_for_kids === undefined) {
    return {
      _tag: "Refused",
      refusal: {
        code: "option_required",
        field: "made_for_kids",
        details: { platform: "video", option: "video.made_for_kids", detail: Reasons.reason("youtube_made_for_kids_required") }
      }
    }
  }
  const title = options.title ?? Rules.titleFromCaption(caption)
  if (title.trim() === "") return refuse("title", Reasons.reason("youtube_title_missing"))
  if (Rules.titleLength(title) > Rules.titleMax) {
    return refuse("title", Reasons.reason("youtube_title_length", { max: Rules.titleMax, count: Rules.titleLength(title) }))
  }
  if (Rules.hasAngleBrackets(title)) return refuse("title", Reasons.reason("youtube_angle_brackets"))
  const tags = options.tags ?? []
  if (Rules.tagsLength(tags) > Rules.tagsMax) {
    return refuse("tags", Reasons.reason("youtube_tags_length", { max: Rules.tagsMax, count: Rules.tagsLength(tags) }))
  }
  if (tags.some(Rules.hasAngleBrackets)) return refuse("tags", Reasons.reason("youtube_angle_brackets"))
  return {
    _tag: "Ok",
    value: {
      ...options,
      title,
      privacy_status: options.privacy_status ?? "public",
      made_for_kids: options.made_for_kids,
      tags
    }
  }
}

const decodeGiven = Schema.decodeUnknownExit(VideoOptions)

/**
 * The options a stored target was given (`target.options.video`, the resolved form the options
 * interface stores, or as a request gave them); `undefined`: none, or unreadable.
 */
export const fromTarget = (options: unknown): VideoOptions | undefined => {
  const raw = typeof options === "object" && options !== null ? (options as Record<string, unknown>).video : undefined
  if (raw === undefined || raw === null) return undefined
  const given = decodeGiven(raw)
  return given._tag === "Success" ? given.value : undefined
}

/**
 * The plugin's `options` (the per-target options interface): the request's `targets[].video`
 * decoded with {@link VideoOptions}, resolved against the post's caption by {@link resolve}.
 */
export const spec: TargetRules.OptionsSpec = {
  schema: VideoOptions,
  resolve: (given, post) => {
    const resolved = resolve(given as VideoOptions | undefined, post.caption)
    return resolved._tag === "Ok" ? TargetRules.resolved(resolved.value) : TargetRules.refused(resolved.refusal)
  }
}
