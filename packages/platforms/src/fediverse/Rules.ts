/**
 * What a Mastodon server accepts (wire word `fediverse`), each rule with the page it comes from.
 *
 * Every server sets its own limits and publishes them in `GET /api/v2/instance`
 * (https://docs.joinmastodon.org/methods/instance/#v2, the `configuration` of
 * https://docs.joinmastodon.org/entities/Instance/#configuration). Postwire reads them per server
 * ({@link InstanceLimits}, cached by `Instance.ts`) and checks a publish against them before
 * anything is sent. Validate cannot know which server a target's account is on (the account's
 * credentials, where the server lives, are sealed), so it checks Mastodon's documented defaults,
 * which are also what an unmodified server answers ({@link defaultLimits}):
 *
 * - Text up to 500 characters; every URL counts as 23 characters whatever its length, and a
 *   remote mention `@name@domain` counts as `@name` (https://docs.joinmastodon.org/user/posting/#text,
 *   `configuration.statuses.characters_reserved_per_url`). The content warning (`spoiler_text`)
 *   counts towards the same limit (Mastodon's StatusLengthValidator counts both). Characters are
 *   grapheme clusters.
 * - At most 4 media attachments (`configuration.statuses.max_media_attachments`); a video, GIFV
 *   or audio attachment cannot be combined with other attachments
 *   (https://docs.joinmastodon.org/methods/statuses/#create, `media_ids`; Mastodon refuses
 *   "images_and_video").
 * - Images up to 16 MB (`image_size_limit` 16777216) and 33,177,600 pixels
 *   (`image_matrix_limit`); videos up to 99 MB (`video_size_limit` 103809024) and 8,294,400
 *   pixels (`video_matrix_limit`), in the types of `supported_mime_types`
 *   (https://docs.joinmastodon.org/entities/Instance/#media_attachments).
 * - A media description (alt text) up to 1,500 characters
 *   (`configuration.media_attachments.description_limit`,
 *   https://docs.joinmastodon.org/entities/Instance/#description_limit; the `description` of
 *   https://docs.joinmastodon.org/methods/media/#v2).
 * - Rate limits: 300 calls per 5 minutes per account, 30 media uploads per 30 minutes
 *   (https://docs.joinmastodon.org/api/rate-limits/); no published daily posting quota: Postwire's
 *   default 300 posts per rolling 24 hours stands in for it.
 *
 * @since 0.5.0
 */
import { TargetRules } from "@postwire/domain"
import * as Reasons from "./Reasons.ts"

const { countFits, invalid } = TargetRules

/** A server's limits, as Postwire reads them from `/api/v2/instance`. */
export interface InstanceLimits {
  /** `configuration.statuses.max_characters`. */
  readonly maxCharacters: number
  /** `configuration.statuses.characters_reserved_per_url`. */
  readonly charactersPerUrl: number
  /** `configuration.statuses.max_media_attachments`. */
  readonly maxMediaAttachments: number
  /** `configuration.media_attachments.image_size_limit`, bytes. */
  readonly imageSizeLimit: number
  /** `configuration.media_attachments.video_size_limit`, bytes. */
  readonly videoSizeLimit: number
  /** `configuration.media_attachments.image_matrix_limit`, pixels (width × height). */
  readonly imageMatrixLimit: number
  /** `configuration.media_attachments.video_matrix_limit`, pixels (width × height). */
  readonly videoMatrixLimit: number
  /** `configuration.media_attachments.supported_mime_types`. */
  readonly supportedMimeTypes: ReadonlyArray<string>
  /**
   * `configuration.media_attachments.description_limit`: the longest media description, in
   * characters (Mastodon 4.4 and later publish it; older servers keep the built-in 1,500).
   */
  readonly descriptionLimit: number
}

/**
 * Mastodon's defaults (https://docs.joinmastodon.org/entities/Instance/#configuration, the
 * example answer of https://docs.joinmastodon.org/methods/instance/#v2): what validate checks and
 * what a server that leaves a field out is taken to have.
 */
export const defaultLimits: InstanceLimits = {
  maxCharacters: 500,
  charactersPerUrl: 23,
  maxMediaAttachments: 4,
  imageSizeLimit: 16_777_216,
  videoSizeLimit: 103_809_024,
  imageMatrixLimit: 33_177_600,
  videoMatrixLimit: 8_294_400,
  descriptionLimit: 1_500,
  supportedMimeTypes: [
    "image/jpeg",
    "image/png",
    "image/gif",
    "image/heic",
    "image/heif",
    "image/webp",
    "image/avif",
    "video/webm",
    "video/mp4",
    "video/quicktime",
    "video/ogg",
    "audio/wave",
    "audio/wav",
    "audio/x-wav",
    "audio/x-pn-wave",
    "audio/vnd.wave",
    "audio/ogg",
    "audio/vorbis",
    "audio/mpeg",
    "audio/mp3",
    "audio/webm",
    "audio/flac",
    "audio/aac",
    "audio/m4a",
    "audio/x-m4a",
    "audio/mp4",
    "audio/3gpp",
    "video/x-ms-asf"
  ]
}

const graphemes = new Intl.Segmenter("en", { granularity: "grapheme" })

/** URLs as Mastodon's counter finds them: `http(s)://` followed by anything but white space. */
const urlPattern = /\bhttps?:\/\/[^\s<>"]+/giu
/** A remote mention `@name@domain`: only `@name` counts. */
const remoteMention = /(^|[^\w@])(@[a-z0-9_]+(?:[a-z0-9_.-]+[a-z0-9_]+)?)@[a-z0-9.-]+\.[a-z]{2,}\b/giu

/**
 * The length of a text as a Mastodon server counts it (https://docs.joinmastodon.org/user/posting/#text):
 * grapheme clusters, every URL as `charactersPerUrl` characters, a remote mention as its local
 * part.
 *
 * @example
 * ```ts
 * textLength("read https://example.com/a/very/long/path") // 5 + 23 = 28
 * ```
 */
export const textLength = (text: string, charactersPerUrl: number = defaultLimits.charactersPerUrl): number => {
  const placeholder = "x".repeat(Math.max(0, charactersPerUrl))
  const countable = text.replace(urlPattern, placeholder).replace(remoteMention, "$1$2")
  let length = 0
  for (const _ of graphemes.segment(countable)) length += 1
  return length
}

/**
 * The first media description longer than `max` characters (Mastodon validates the length of a
 * `description` as Ruby counts a string: code points), with its index and length.
 */
export const descriptionBreak = (
  descriptions: ReadonlyArray<string>,
  max: number
): { readonly index: number; readonly size: number; readonly max: number } | undefined => {
  for (const [index, text] of descriptions.entries()) {
    const size = [...text].length
    if (size > max) return { index, size, max }
  }
  return undefined
}

/** The kind Mastodon gives a file (`image`, `video`, `gifv`, `audio`): only images combine. */
const isImage = (item: TargetRules.MediaFacts): boolean => item.kind === "image" && item.mime !== "image/gif"

const megabytes = (bytes: number) => Math.round((bytes / 1_048_576) * 10) / 10

/**
 * The first media rule of a server that `media` breaks: count, combination, type, size, pixels.
 * `media[i]` names the item.
 */
export const mediaBreak = (
  platform: string,
  limits: InstanceLimits,
  media: ReadonlyArray<TargetRules.MediaFacts>
): TargetRules.RuleBreak | undefined => {
  if (media.length > limits.maxMediaAttachments) {
    return invalid(platform, "fediverse_media_max", Reasons.reason("fediverse_media_max", { max: limits.maxMediaAttachments }))
  }
  if (media.length > 1 && media.some((item) => !isImage(item))) {
    return invalid(platform, "fediverse_images_and_video", Reasons.reason("fediverse_images_and_video"))
  }
  const at = (index: number, broken: TargetRules.RuleBreak): TargetRules.RuleBreak => ({ ...broken, field: `media[${index}]` })
  for (const [index, item] of media.entries()) {
    if (item.mime !== undefined && limits.supportedMimeTypes.length > 0 && !limits.supportedMimeTypes.includes(item.mime)) {
      return at(index, invalid(platform, "fediverse_media_format", Reasons.reason("fediverse_media_format", { value: item.mime })))
    }
    const limit = item.kind === "image" ? limits.imageSizeLimit : limits.videoSizeLimit
    if (typeof item.sizeBytes === "number" && item.sizeBytes > limit) {
      return at(
        index,
        invalid(platform, "fediverse_media_size", Reasons.reason("fediverse_media_size", { max: megabytes(limit), size: megabytes(item.sizeBytes) }))
      )
    }
    const matrix = item.kind === "image" ? limits.imageMatrixLimit : limits.videoMatrixLimit
    if (typeof item.width === "number" && typeof item.height === "number" && item.width * item.height > matrix) {
      return at(
        index,
        invalid(platform, "fediverse_media_pixels", Reasons.reason("fediverse_media_pixels", { max: matrix, size: item.width * item.height }))
      )
    }
  }
  return undefined
}

/**
 * Mastodon's rules at validate: the documented defaults ({@link defaultLimits}); a publish is
 * checked again against its server's own limits before anything is sent.
 */
export const rules: TargetRules.PlatformRuleSet = {
  displayName: "Mastodon",
  captionMax: defaultLimits.maxCharacters,
  captionLength: (caption) => textLength(caption),
  dailyQuota: 300,
  mediaMin: 0,
  mediaMax: defaultLimits.maxMediaAttachments,
  // Replies are statuses: read through the context, answered, and the account's own deleted;
  // Mastodon has no hiding of a reply by the author of the post and no push to apps.
  comments: { read: true, reply: true, hide: false, delete: true, push: false },
  checkMedia: (target, media) => {
    if (!countFits(target.rules, media.length)) {
      return invalid(target.platform, "fediverse_media_max", Reasons.reason("fediverse_media_max", { max: target.rules.mediaMax }))
    }
    return mediaBreak(target.platform, defaultLimits, media)
  }
}
