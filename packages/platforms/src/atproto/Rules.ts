/**
 * What Bluesky (the AT Protocol's `app.bsky.feed.post`) accepts, each rule with where it comes
 * from:
 *
 * - Text: at most 300 graphemes and 3000 bytes of UTF-8 (`maxGraphemes: 300`, `maxLength: 3000`
 *   of the record's `text`).
 *   https://github.com/bluesky-social/atproto/blob/main/lexicons/app/bsky/feed/post.json
 *   https://docs.bsky.app/docs/advanced-guides/post-richtext
 * - Images: at most 4 (`app.bsky.embed.images#main.images.maxLength: 4`), each at most
 *   1,000,000 bytes (`image.maxSize`), `image/*`; every image carries alt text (`alt`, required).
 *   https://github.com/bluesky-social/atproto/blob/main/lexicons/app/bsky/embed/images.json
 * - Video: one (`app.bsky.embed.video` holds one `video` blob), `video/mp4`, at most 100,000,000
 *   bytes (`maxSize`); up to 3 minutes long (Bluesky raised the limit from 60 seconds in March
 *   2025). A post's embed is one of images, video, external or record: never images and a video.
 *   https://github.com/bluesky-social/atproto/blob/main/lexicons/app/bsky/embed/video.json
 *   https://docs.bsky.app/docs/tutorials/video
 *   https://bsky.social/about/blog/09-11-2024-video
 * - Rate limits of the PDS: 5,000 points an hour and 35,000 a day per account, a created record
 *   costs 3 points: 11,666 records a day (the daily quota below); the answers carry
 *   `ratelimit-limit`, `ratelimit-remaining`, `ratelimit-reset` and `ratelimit-policy`.
 *   https://docs.bsky.app/docs/advanced-guides/rate-limits
 *
 * The blob limit of a particular PDS (its `PDS_BLOB_UPLOAD_LIMIT`, 5 MiB by default on a
 * self-hosted PDS) is the server's: an upload it refuses fails at publish with `media_invalid`.
 *
 * @since 0.5.0
 */
import { ErrorDetail, type LocalizedText, type TargetRules } from "@postwire/domain"
import * as Reasons from "./Reasons.ts"

/** The wire word of Bluesky. */
export const platform = "atproto"

/** The most graphemes of a post's text (post.json `maxGraphemes`). */
export const textMax = 300

/** The most UTF-8 bytes of a post's text (post.json `maxLength`). */
export const textBytesMax = 3000

/** The most images of a post (embed/images.json). */
export const imagesMax = 4

/** The largest image, in bytes (embed/images.json `image.maxSize`). */
export const imageBytesMax = 1_000_000

/** The largest video, in bytes (embed/video.json `video.maxSize`). */
export const videoBytesMax = 100_000_000

/** The longest video, in seconds (docs.bsky.app/docs/tutorials/video; 3 minutes since March 2025). */
export const videoSecondsMax = 180

/** Video formats of `app.bsky.embed.video` (`accept: ["video/mp4"]`). */
export const videoTypes: ReadonlyArray<string> = ["video/mp4"]

/** Image formats the Bluesky app view renders (the lexicon accepts `image/*`). */
export const imageTypes: ReadonlyArray<string> = ["image/jpeg", "image/png", "image/webp", "image/gif"]

const graphemes = new Intl.Segmenter("en", { granularity: "grapheme" })
const utf8 = new TextEncoder()

/** A text's length in graphemes (user-perceived characters), as Bluesky counts its 300. */
export const captionLength = (text: string): number => {
  let n = 0
  for (const _ of graphemes.segment(text)) n += 1
  return n
}

/** A text's length in UTF-8 bytes, as Bluesky counts its 3000. */
export const byteLength = (text: string): number => utf8.encode(text).length

const at = (index: number, broken: TargetRules.RuleBreak): TargetRules.RuleBreak => ({ ...broken, field: `media[${index}]` })

const invalid = (rule: string, detail: LocalizedText): TargetRules.RuleBreak => ({
  code: "media_invalid",
  rule,
  field: "media",
  details: { platform, detail }
})

/** Bluesky's rules. */
export const rules: TargetRules.PlatformRuleSet = {
  displayName: "Bluesky",
  captionMax: textMax,
  captionLength,
  dailyQuota: 11_666,
  mediaMin: 0,
  mediaMax: imagesMax,
  // Replies under the post are read through the thread, answered, hidden by the post's
  // threadgate (`hiddenReplies`); only the account's own replies can be deleted. No push.
  comments: { read: true, reply: true, hide: true, delete: true, push: false },
  checkCaption: (caption) => {
    const count = byteLength(caption)
    return count > textBytesMax
      ? {
          code: "caption_invalid",
          rule: "atproto_text_bytes",
          field: "caption",
          details: { platform, detail: Reasons.reason("atproto_text_bytes", { max: textBytesMax, count }) }
        }
      : undefined
  },
  checkMedia: (target, media) => {
    const videos = media.filter((m) => m.kind === "video").length
    if (videos > 0 && media.length > 1) {
      return invalid("atproto_images_or_video", Reasons.reason("atproto_images_or_video"))
    }
    if (media.length > imagesMax) {
      return invalid("textpost_items_max", ErrorDetail.reason("items_max", { max: imagesMax }))
    }
    for (const [index, item] of media.entries()) {
      if (item.kind === "image") {
        if (item.mime !== undefined && !imageTypes.includes(item.mime)) {
          return at(index, invalid("atproto_image_format", Reasons.reason("atproto_image_format", { value: item.mime })))
        }
        if (item.sizeBytes !== undefined && item.sizeBytes > imageBytesMax) {
          return at(index, invalid("atproto_image_bytes", Reasons.reason("atproto_image_bytes", { max: imageBytesMax, size: item.sizeBytes })))
        }
      } else {
        if (item.mime !== undefined && !videoTypes.includes(item.mime)) {
          return at(index, invalid("atproto_video_format", Reasons.reason("atproto_video_format", { value: item.mime })))
        }
        if (item.sizeBytes !== undefined && item.sizeBytes > videoBytesMax) {
          return at(index, invalid("atproto_video_bytes", Reasons.reason("atproto_video_bytes", { max: videoBytesMax, size: item.sizeBytes })))
        }
        const long = (item.durationSeconds ?? 0) > (target.maxVideoSeconds ?? videoSecondsMax)
        if (long) {
          return {
            code: "media_too_long",
            rule: "atproto_video_duration",
            field: `media[${index}]`,
            details: { duration: Math.ceil(item.durationSeconds ?? 0), limit: target.maxVideoSeconds ?? videoSecondsMax }
          }
        }
      }
    }
    return undefined
  }
}
