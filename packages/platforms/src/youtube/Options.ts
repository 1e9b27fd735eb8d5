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
import { ErrorDetail, type ErrorDetails } from "@postwire/domain"
import { Schema } from "effect"
import * as Rules from "./Rules.ts"

/** `status.privacyStatus` (https://developers.google.com/youtube/v3/docs/videos#status.privacyStatus). */
export const PrivacyStatus = Schema.Literals(["public", "unlisted", "private"])
export type PrivacyStatus = typeof PrivacyStatus.Type

/** The options a request gives a YouTube target. */
export const VideoOptions = Schema.Struct({
  /** The video's title (1 to 100 characters, no `<` `>`); default: the caption's first line. */
  title: Schema.optionalKey(Schema.String),
  /** `public`, `unlisted` or `private`; default `public`. */
  privacy_status: Schema.optionalKey(PrivacyStatus),
  /** Whether the video is made for kids: required, no default. */
  made_for_kids: Schema.optionalKey(Schema.Boolean),
  /** Tags, at most 500 characters in all. */
  tags: Schema.optionalKey(Schema.Array(Schema.String)),
  /** A media id (`med_…`) of a JPEG or PNG image to set as the custom thumbnail. */
  thumbnail_media_id: Schema.optionalKey(Schema.String),
  /** The video category id (`22` People & Blogs is YouTube's usual default). */
  category_id: Schema.optionalKey(Schema.String)
})
export type VideoOptions = typeof VideoOptions.Type

/** What a target publishes with: every field decided. */
export const Resolved = Schema.Struct({
  title: Schema.String,
  privacy_status: PrivacyStatus,
  made_for_kids: Schema.Boolean,
  tags: Schema.Array(Schema.String),
  thumbnail_media_id: Schema.NullOr(Schema.String),
  category_id: Schema.NullOr(Schema.String)
})
export type Resolved = typeof Resolved.Type

/** A refusal of a target's options: the field it concerns (relative to the target) and why. */
export interface Refusal {
  readonly code: "invalid_request" | "caption_invalid" | "media_invalid"
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
  const refuse = (field: string, detail: ReturnType<typeof ErrorDetail.reason>, code: Refusal["code"] = "invalid_request") =>
    ({ _tag: "Refused", refusal: { code, field, details: { platform: "video", detail } } }) as const
  if (options?.made_for_kids === undefined) {
    return refuse("video.made_for_kids", ErrorDetail.reason("youtube_made_for_kids_required"))
  }
  const given = options.title
  const title = given ?? Rules.titleFromCaption(caption)
  const where = given === undefined ? "caption" : "video.title"
  if (title.trim() === "") return refuse(where, ErrorDetail.reason("youtube_title_missing"))
  if (Rules.titleLength(title) > Rules.titleMax) {
    return refuse(where, ErrorDetail.reason("youtube_title_length", { max: Rules.titleMax, count: Rules.titleLength(title) }))
  }
  if (Rules.hasAngleBrackets(title)) return refuse(where, ErrorDetail.reason("youtube_angle_brackets"))
  const tags = options.tags ?? []
  if (Rules.tagsLength(tags) > Rules.tagsMax) {
    return refuse("video.tags", ErrorDetail.reason("youtube_tags_length", { max: Rules.tagsMax, count: Rules.tagsLength(tags) }))
  }
  if (tags.some(Rules.hasAngleBrackets)) return refuse("video.tags", ErrorDetail.reason("youtube_angle_brackets"))
  return {
    _tag: "Ok",
    value: {
      title,
      privacy_status: options.privacy_status ?? "public",
      made_for_kids: options.made_for_kids,
      tags,
      thumbnail_media_id: options.thumbnail_media_id ?? null,
      category_id: options.category_id ?? null
    }
  }
}

const decodeGiven = Schema.decodeUnknownExit(VideoOptions)
const decodeResolved = Schema.decodeUnknownExit(Resolved)

/**
 * The options a stored target publishes with: `target.options.video`, resolved already (the
 * options interface stores the resolved form) or as the request gave them. `undefined`: none.
 */
export const fromTarget = (
  options: unknown
): { readonly _tag: "Resolved"; readonly value: Resolved } | { readonly _tag: "Given"; readonly value: VideoOptions } | undefined => {
  const raw = typeof options === "object" && options !== null ? (options as Record<string, unknown>).video : undefined
  if (raw === undefined || raw === null) return undefined
  const resolved = decodeResolved(raw)
  if (resolved._tag === "Success") return { _tag: "Resolved", value: resolved.value }
  const given = decodeGiven(raw)
  return given._tag === "Success" ? { _tag: "Given", value: given.value } : undefined
}
