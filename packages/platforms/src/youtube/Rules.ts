/**
 * What YouTube accepts (YouTube Data API v3), each rule with the page it comes from:
 *
 * - An upload is exactly one video (`videos.insert` takes one media body:
 *   https://developers.google.com/youtube/v3/docs/videos/insert, "Accepted Media MIME types:
 *   video/*, application/octet-stream"); images are not taken (a custom thumbnail is an option).
 * - At most 256 GB (videos.insert, "Maximum file size: 256GB").
 * - At most 12 hours long (https://support.google.com/youtube/answer/71673: "the maximum … length
 *   is 12 hours"; accounts that are not verified are held to 15 minutes by YouTube itself, which
 *   refuses the upload: `uploadLimitExceeded`).
 * - Title: 1 to 100 characters, no `<` or `>`
 *   (https://developers.google.com/youtube/v3/docs/videos#snippet.title).
 * - Description: at most 5,000 bytes, no `<` or `>`
 *   (https://developers.google.com/youtube/v3/docs/videos#snippet.description). The caption is
 *   the description; it is counted in UTF-8 bytes.
 * - Tags: at most 500 characters in all, commas between tags and the quotes around a tag with a
 *   space counted (https://developers.google.com/youtube/v3/docs/videos#snippet.tags[]).
 * - Shorts: a video that is square or vertical and at most three minutes long is a Short
 *   (https://support.google.com/youtube/answer/15424877, "Eligibility for three-minute Shorts");
 *   YouTube decides by itself, Postwire reads the same facts to give the `/shorts/` address.
 * - Daily: the API project's 10,000 units a day, an upload costing 1,600
 *   (https://developers.google.com/youtube/v3/determine_quota_cost): six uploads a day, the
 *   account's default quota.
 *
 * @since 0.5.0
 */
import { TargetRules } from "@postwire/domain"
import * as Reasons from "./Reasons.ts"

const { invalid, captionInvalid } = TargetRules

/** Largest video, in bytes: 256 GB (videos.insert). */
export const maxVideoBytes = 256 * 1024 * 1024 * 1024

/** Longest video, in seconds: 12 hours (https://support.google.com/youtube/answer/71673). */
export const maxVideoSeconds = 12 * 60 * 60

/** Longest title, in characters (videos#snippet.title). */
export const titleMax = 100

/** Longest description, in UTF-8 bytes (videos#snippet.description). */
export const descriptionMaxBytes = 5000

/** Most characters of all tags together (videos#snippet.tags[]). */
export const tagsMax = 500

/** Longest Short, in seconds (https://support.google.com/youtube/answer/15424877). */
export const shortMaxSeconds = 180

const encoder = new TextEncoder()

/** A text's length in UTF-8 bytes, as YouTube counts a description. */
export const utf8Bytes = (text: string): number => encoder.encode(text).length

/** Whether a text has a character YouTube refuses in titles and descriptions. */
export const hasAngleBrackets = (text: string): boolean => /[<>]/.test(text)

/** A title's length in characters (code points). */
export const titleLength = (title: string): number => Array.from(title).length

/**
 * Tags as YouTube counts them: their lengths, a comma between two, and the quotes around a tag
 * that holds a space (videos#snippet.tags[]).
 */
export const tagsLength = (tags: ReadonlyArray<string>): number =>
  tags.reduce((sum, tag) => sum + Array.from(tag).length + (/\s/.test(tag) ? 2 : 0), 0) + Math.max(0, tags.length - 1)

/**
 * The title when no option gives one: the caption's first line, trimmed; one longer than 100
 * characters is cut at 99 and ends with `…` (docs/decisions.md, "YouTube titles"). Empty when the
 * caption has no text.
 */
export const titleFromCaption = (caption: string): string => {
  const first = (caption.split(/\r?\n/).find((line) => line.trim() !== "") ?? "").trim()
  const chars = Array.from(first)
  return chars.length <= titleMax ? first : `${chars.slice(0, titleMax - 1).join("").trimEnd()}…`
}

/** Whether a video is a Short: square or vertical, and at most three minutes long. */
export const isShort = (m: Pick<TargetRules.MediaFacts, "width" | "height" | "durationSeconds">): boolean =>
  typeof m.width === "number" &&
  typeof m.height === "number" &&
  m.height >= m.width &&
  m.durationSeconds !== null &&
  m.durationSeconds <= shortMaxSeconds

const gigabytes = (bytes: number) => String(Math.ceil((bytes / (1024 * 1024 * 1024)) * 10) / 10)

/** YouTube's rules. */
export const rules: TargetRules.PlatformRuleSet = {
  displayName: "YouTube",
  captionMax: descriptionMaxBytes,
  captionLength: utf8Bytes,
  dailyQuota: 6,
  mediaMin: 1,
  mediaMax: 1,
  comments: { read: true, reply: true, hide: true, delete: true, push: false },
  checkCaption: (caption) =>
    hasAngleBrackets(caption)
      ? captionInvalid("video", "youtube_angle_brackets", Reasons.reason("youtube_angle_brackets"))
      : undefined,
  checkMedia: (target, media) => {
    const { platform } = target
    if (media.length !== 1 || media[0]!.kind !== "video") {
      return invalid(platform, "youtube_one_video", Reasons.reason("youtube_one_video"))
    }
    const m = media[0]!
    if (m.mime !== undefined && !m.mime.startsWith("video/") && m.mime !== "application/octet-stream") {
      return { ...invalid(platform, "youtube_video_format", Reasons.reason("youtube_video_format", { value: m.mime })), field: "media[0]" }
    }
    if (m.sizeBytes !== undefined && m.sizeBytes > maxVideoBytes) {
      const detail = Reasons.reason("youtube_video_bytes", { limit: 256, size: gigabytes(m.sizeBytes) })
      return { ...invalid(platform, "youtube_video_bytes", detail), field: "media[0]" }
    }
    return TargetRules.tooLong(media, "youtube_max_duration", maxVideoSeconds)
  }
}
