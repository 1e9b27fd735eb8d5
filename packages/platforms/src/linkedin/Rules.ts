/**
 * What LinkedIn accepts (the versioned REST APIs of LinkedIn Marketing / Community Management),
 * each rule with the page it comes from:
 *
 * - Text alone, an article link, one image, 2 to 20 images (a MultiImage post), or one video;
 *   images and a video are never mixed (a post's `content` is one of `media`, `multiImage`,
 *   `article`).
 *   https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api
 *   https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/multiimage-post-api
 *   ("a minimum of 2 and a maximum of 20 images")
 * - The commentary up to 3,000 characters, counted after little-text escaping (see `Commentary`).
 *   https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api
 *   https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/little-text-format
 * - Images: JPG, PNG or GIF (GIF up to 250 frames), fewer than 36,152,320 pixels (width × height).
 *   https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/images-api
 * - Videos: MP4, from 3 seconds to 30 minutes, from 75 KB to 500 MB; uploaded in 4 MB parts.
 *   https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/videos-api
 * - 150 posts a member a day (the application's share limit per member; limits reset at
 *   midnight UTC).
 *   https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/rate-limits
 *   https://learn.microsoft.com/en-us/linkedin/consumer/integrations/self-serve/share-on-linkedin
 *
 * What Postwire cannot know at validate (a GIF's frame count, a codec LinkedIn cannot process)
 * stays the platform's: the upload's status `PROCESSING_FAILED` reports it at publish.
 *
 * @since 0.5.0
 */
import { TargetRules } from "@postwire/domain"
import * as Commentary from "./Commentary.ts"
import * as Reasons from "./Reasons.ts"

const { invalid, tooLong } = TargetRules

/** The longest commentary, counted by `Commentary.length`. */
export const commentaryMax = 3_000

/** The most images of a MultiImage post (multiimage-post-api). */
export const imagesMax = 20

/** Image formats LinkedIn takes (images-api). */
export const imageTypes: ReadonlyArray<string> = ["image/jpeg", "image/png", "image/gif"]

/** An image has fewer pixels than this (images-api). */
export const imagePixelsMax = 36_152_320

/** Video formats LinkedIn takes (videos-api). */
export const videoTypes: ReadonlyArray<string> = ["video/mp4"]

/** Shortest and longest video, in seconds (videos-api: 3 seconds to 30 minutes). */
export const videoSecondsMin = 3
export const videoSecondsMax = 30 * 60

/** Smallest and largest video file, in bytes (videos-api: 75 KB to 500 MB). */
export const videoBytesMin = 75 * 1024
export const videoBytesMax = 500 * 1024 * 1024

/** Posts a member (or a page) may publish a day (rate-limits). */
export const dailyQuota = 150

const imageBreak = (target: TargetRules.TargetFacts, item: TargetRules.MediaFacts) => {
  if (item.mime !== undefined && !imageTypes.includes(item.mime)) {
    return invalid(target.platform, "professional_image_format", Reasons.reason("professional_image_format", { value: item.mime }))
  }
  const { width, height } = item
  if (typeof width === "number" && typeof height === "number" && width * height >= imagePixelsMax) {
    return invalid(
      target.platform,
      "professional_image_pixels",
      Reasons.reason("professional_image_pixels", { max: imagePixelsMax, size: width * height })
    )
  }
  return undefined
}

const videoBreak = (target: TargetRules.TargetFacts, item: TargetRules.MediaFacts, media: ReadonlyArray<TargetRules.MediaFacts>) => {
  if (item.mime !== undefined && !videoTypes.includes(item.mime)) {
    return invalid(target.platform, "professional_video_format", Reasons.reason("professional_video_format", { value: item.mime }))
  }
  if (item.sizeBytes !== undefined && (item.sizeBytes < videoBytesMin || item.sizeBytes > videoBytesMax)) {
    return invalid(target.platform, "professional_video_size", Reasons.reason("professional_video_size", { size: item.sizeBytes }))
  }
  if (item.durationSeconds !== null && item.durationSeconds < videoSecondsMin) {
    return invalid(
      target.platform,
      "professional_video_min_duration",
      Reasons.reason("professional_video_min_duration", { min: videoSecondsMin })
    )
  }
  return tooLong(media, "professional_video_duration", target.maxVideoSeconds ?? videoSecondsMax)
}

/** LinkedIn's rules. */
export const rules: TargetRules.PlatformRuleSet = {
  displayName: "LinkedIn",
  captionMax: commentaryMax,
  captionLength: Commentary.length,
  dailyQuota,
  mediaMin: 0,
  mediaMax: imagesMax,
  // A basic app ("Share on LinkedIn") may comment and delete its own comments; reading others'
  // needs r_member_social / r_organization_social (Community Management API). LinkedIn has no
  // hiding of comments and pushes nothing to an app of Postwire's kind.
  // https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/comments-api
  comments: { read: true, reply: true, hide: false, delete: true, push: false },
  checkMedia: (target, media) => {
    const videos = media.filter((m) => m.kind === "video").length
    if (videos > 0 && media.length > 1) {
      return invalid(target.platform, "professional_video_or_images", Reasons.reason("professional_video_or_images"))
    }
    if (media.length > imagesMax) {
      return invalid(target.platform, "professional_images_max", Reasons.reason("professional_images_max", { max: imagesMax }))
    }
    for (const [index, item] of media.entries()) {
      const broken = item.kind === "image" ? imageBreak(target, item) : videoBreak(target, item, media)
      if (broken !== undefined) return { ...broken, field: `media[${index}]` }
    }
    return undefined
  }
}
