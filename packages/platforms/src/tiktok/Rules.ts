/**
 * What TikTok accepts (Content Posting API), each rule with the page it comes from:
 *
 * - A post is one video, or a photo post of 1 to 35 images, never both
 *   (https://developers.tiktok.com/doc/content-posting-api-reference-photo-post: `photo_images`
 *   "up to 35"; https://developers.tiktok.com/doc/content-posting-api-reference-direct-post: one
 *   `video_url`).
 * - Images: JPEG or WebP, at most 20 MB each
 *   (https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide, "Image
 *   restrictions"). PNG is not taken: validate refuses it (docs/decisions.md, "TikTok photo posts").
 * - Videos: MP4, WebM or MOV; H.264, H.265, VP8 or VP9; 360 to 4096 pixels wide and high; at most
 *   4 GB; at most the creator's `max_video_post_duration_sec`, 600 s (10 minutes) when unknown
 *   (media transfer guide, "Video restrictions";
 *   https://developers.tiktok.com/doc/content-posting-api-reference-query-creator-info).
 * - Caption: a video's `title` is at most 2,200 UTF-16 runes (direct post reference), which is a
 *   JavaScript string's length; a photo post's caption goes out as its `description` (at most
 *   4,000 runes, photo post reference), held to the same 2,200 here.
 * - About 15 posts a day per creator (direct post reference, `spam_risk_too_many_posts`).
 *
 * Frame rate (23 to 60 FPS) is not read from the file: TikTok refuses it while processing
 * (`frame_rate_check_failed`), and the target fails with that reason.
 *
 * @since 0.4.0
 */
import { TargetRules } from "@postwire/domain"
import * as Reasons from "./Reasons.ts"

const { invalid, tooLong } = TargetRules

/** The longest video a creator may post when TikTok does not say otherwise, in seconds. */
export const defaultMaxVideoSeconds = 600

/** The most images of a photo post (photo post reference, `photo_images`). */
export const maxPhotoImages = 35

/** Image types a photo post takes (media transfer guide, "Image restrictions": WebP, JPEG). */
export const imageTypes: ReadonlyArray<string> = ["image/jpeg", "image/webp"]

/** Largest image, in bytes: 20 MB. */
export const maxImageBytes = 20 * 1024 * 1024

/** Video types (media transfer guide, "Video restrictions": MP4, WebM, MOV). */
export const videoTypes: ReadonlyArray<string> = ["video/mp4", "video/webm", "video/quicktime"]

/** Video codecs as the file names them (H.264, H.265, VP8, VP9). */
export const videoCodecs: ReadonlyArray<string> = ["avc1", "avc3", "hvc1", "hev1", "vp08", "vp09", "vp8", "vp9", "h264", "h265", "hevc"]

/** A video's width and height, each, in pixels. */
export const videoPictureSize = { min: 360, max: 4096 } as const

/** Largest video, in bytes: 4 GB. */
export const maxVideoBytes = 4 * 1024 * 1024 * 1024


/** A `media_invalid` break on one item. */
const onItem = (index: number, broken: TargetRules.RuleBreak): TargetRules.RuleBreak => ({ ...broken, field: `media[${index}]` })

const megabytes = (bytes: number, unit: number) => String(Math.ceil((bytes / unit) * 10) / 10)

/** Whether a target's media make a photo post (images only). */
export const isPhotoPost = (media: ReadonlyArray<Pick<TargetRules.MediaFacts, "kind">>): boolean =>
  media.length > 0 && media.every((m) => m.kind === "image")

const checkImage = (target: TargetRules.TargetFacts, m: TargetRules.MediaFacts, index: number): TargetRules.RuleBreak | undefined => {
  const { platform } = target
  if (m.mime !== undefined && !imageTypes.includes(m.mime)) {
    return onItem(index, invalid(platform, "tiktok_image_format", Reasons.reason("tiktok_image_format", { value: m.mime })))
  }
  if (m.sizeBytes !== undefined && m.sizeBytes > maxImageBytes) {
    const detail = Reasons.reason("tiktok_image_bytes", { limit: 20, size: megabytes(m.sizeBytes, 1024 * 1024) })
    return onItem(index, invalid(platform, "tiktok_image_bytes", detail))
  }
  return undefined
}

const checkVideo = (target: TargetRules.TargetFacts, m: TargetRules.MediaFacts): TargetRules.RuleBreak | undefined => {
  const { platform } = target
  if (m.mime !== undefined && !videoTypes.includes(m.mime)) {
    return onItem(0, invalid(platform, "tiktok_video_format", Reasons.reason("tiktok_video_format", { value: m.mime })))
  }
  const codec = m.codec?.toLowerCase()
  if (codec !== undefined && codec !== null && codec !== "" && !videoCodecs.includes(codec)) {
    return onItem(0, invalid(platform, "tiktok_video_codec", Reasons.reason("tiktok_video_codec", { value: m.codec! })))
  }
  const { width, height } = m
  const outside = (n: number | null | undefined) =>
    typeof n === "number" && (n < videoPictureSize.min || n > videoPictureSize.max)
  if (outside(width) || outside(height)) {
    const detail = Reasons.reason("tiktok_video_picture_size", {
      min: videoPictureSize.min,
      max: videoPictureSize.max,
      value: `${width ?? "?"}×${height ?? "?"}`
    })
    return onItem(0, invalid(platform, "tiktok_video_picture_size", detail))
  }
  if (m.sizeBytes !== undefined && m.sizeBytes > maxVideoBytes) {
    const detail = Reasons.reason("tiktok_video_bytes", { limit: 4, size: megabytes(m.sizeBytes, 1024 * 1024 * 1024) })
    return onItem(0, invalid(platform, "tiktok_video_bytes", detail))
  }
  return tooLong([m], "max_video_duration", target.maxVideoSeconds ?? defaultMaxVideoSeconds)
}

/** TikTok's rules. */
export const rules: TargetRules.PlatformRuleSet = {
  displayName: "TikTok",
  captionMax: 2200,
  dailyQuota: 15,
  mediaMin: 1,
  mediaMax: maxPhotoImages,
  // TikTok's API gives an app no access to comments.
  comments: { read: false, reply: false, hide: false, delete: false, push: false },
  checkMedia: (target, media) => {
    const { platform } = target
    const videos = media.filter((m) => m.kind === "video").length
    if (videos > 0 && videos < media.length) {
      return invalid(platform, "tiktok_photo_or_video", Reasons.reason("tiktok_photo_or_video", { max: maxPhotoImages }))
    }
    if (videos > 1) return invalid(platform, "shortvideo_one_video", Reasons.reason("shortvideo_one_video"))
    if (videos === 0) {
      if (media.length < 1 || media.length > maxPhotoImages) {
        return invalid(platform, "tiktok_photo_count", Reasons.reason("tiktok_photo_count", { max: maxPhotoImages }))
      }
      for (const [index, m] of media.entries()) {
        const broken = checkImage(target, m, index)
        if (broken !== undefined) return broken
      }
      return undefined
    }
    return checkVideo(target, media[0]!)
  }
}
