/**
 * What a Facebook Page accepts (Pages API and Video API), each rule with the page it comes from:
 *
 * - text alone, up to 10 photos, or one video; a message of up to 63,206 characters
 *   (https://developers.facebook.com/docs/pages-api/posts);
 * - photos in JPEG, BMP, PNG, GIF or TIFF of at most 10 MB (Page photo specification:
 *   https://developers.facebook.com/docs/page-stories-api, "Photo specifications"; the Page photos
 *   reference, https://developers.facebook.com/docs/graph-api/reference/page/photos, names no other);
 * - a video that meets the reel specification (3 to 90 seconds, 9:16, at least 540 × 960 pixels:
 *   https://developers.facebook.com/docs/video-api/guides/reels-publishing, "Video specifications")
 *   goes out as a reel; any other video as a Page video (`POST /{page-id}/videos` with `file_url`:
 *   https://developers.facebook.com/docs/video-api/guides/publishing and
 *   https://developers.facebook.com/docs/graph-api/reference/page/videos), which Meta takes by
 *   address up to 1 GB and 20 minutes (longer and larger files need the resumable upload);
 * - 30 API-published reels per Page in a 24-hour moving period (reels-publishing, "Rate Limit":
 *   "Pages are limited to 30 API-published reels within a 24-hour moving period"): counted
 *   separately by validate and create ({@link rules.quotas}), and enforced by Meta when a reel is
 *   published; Postwire's own default for every Page post is {@link rules.dailyQuota}.
 *
 * @since 0.4.0
 */
import { TargetRules } from "@postwire/domain"
import * as Reasons from "./Reasons.ts"

const { countFits, invalid, tooLong } = TargetRules

/**
 * How long a Facebook Page reel may last, in seconds ("Duration: 3 to 90 seconds",
 * https://developers.facebook.com/docs/video-api/guides/reels-publishing).
 */
export const reelSeconds = { min: 3, max: 90 } as const

/**
 * A reel's smallest picture, in pixels as displayed ("Minimum is 540 x 960 pixels",
 * https://developers.facebook.com/docs/video-api/guides/reels-publishing).
 */
export const reelMinSize = { width: 540, height: 960 } as const

/**
 * How far a reel's width / height may be from 9 / 16: encoders round sizes to even pixels
 * (1080 × 1920 is exact, 720 × 1278 is not), and the documentation gives no tolerance.
 */
const reelRatioTolerance = 0.01

/**
 * API-published reels a Page may publish in a 24-hour moving period ("Rate Limit",
 * https://developers.facebook.com/docs/video-api/guides/reels-publishing): Meta refuses the 31st
 * when it is published.
 */
export const reelsPerDay = 30

/**
 * The longest Page video sent by address, in seconds: a non-resumable upload (`file_url`) takes
 * up to 20 minutes (https://developers.facebook.com/docs/graph-api/reference/page/videos).
 */
export const pageVideoMaxSeconds = 20 * 60

/** The largest Page video sent by address, in bytes (1 GB, same page). */
export const pageVideoMaxBytes = 1024 * 1024 * 1024

/** The photo formats a Page takes (".jpeg, .bmp, .png, .gif, .tiff"). */
export const photoMimes: ReadonlyArray<string> = ["image/jpeg", "image/png", "image/gif", "image/bmp", "image/tiff"]

/** The largest Page photo, in bytes ("Files can not exceed 10MB"). */
export const photoMaxBytes = 10 * 1024 * 1024

/**
 * Whether a video goes out as a reel: it meets the reel specification (duration, 9:16, size).
 * A video whose length or size could not be read is not a reel: a Page video takes it as it is.
 */
export const isReel = (video: TargetRules.MediaFacts): boolean => {
  const { durationSeconds: duration, width, height } = video
  if (duration === null || width == null || height == null || width <= 0 || height <= 0) return false
  return (
    duration >= reelSeconds.min &&
    duration <= reelSeconds.max &&
    Math.abs(width / height - 9 / 16) <= reelRatioTolerance &&
    width >= reelMinSize.width &&
    height >= reelMinSize.height
  )
}

/** Whether a post's media go out as a reel: exactly one video that meets the reel specification. */
export const isReelPost = (media: ReadonlyArray<TargetRules.MediaFacts>): boolean =>
  media.length === 1 && media[0]!.kind === "video" && isReel(media[0]!)

const megabytes = (bytes: number) => Math.round(bytes / (1024 * 1024))

/** Facebook Pages' rules. */
export const rules: TargetRules.PlatformRuleSet = {
  displayName: "Facebook Pages",
  captionMax: 63206,
  // Postwire's default for every Page post in a rolling 24 hours (Meta documents no count for
  // feed, photo and video posts); reels have Meta's own 30 ({@link reelsPerDay}).
  dailyQuota: 50,
  // Pages also publish text alone; the API's create request still asks for one media item.
  mediaMin: 0,
  mediaMax: 10,
  comments: { read: true, reply: true, hide: true, delete: true, push: true },
  // Meta's 30 reels a Page in 24 hours, counted apart from the Page's other posts.
  quotas: [{ rule: "reels_per_day", limit: reelsPerDay, what: { en: "reels", id: "reel" }, counts: isReelPost }],
  checkMedia: (target, media) => {
    const { platform } = target
    const videos = media.filter((m) => m.kind === "video").length
    if (videos === 0) {
      if (!countFits(target.rules, media.length)) {
        return invalid(platform, "page_images_max", Reasons.reason("page_images_max", { max: target.rules.mediaMax }))
      }
      for (const [index, image] of media.entries()) {
        if (image.mime !== undefined && image.mime !== "" && !photoMimes.includes(image.mime)) {
          return { ...invalid(platform, "page_photo_format", Reasons.reason("page_photo_format", { value: image.mime })), field: `media[${index}]` }
        }
        if (image.sizeBytes !== undefined && image.sizeBytes > photoMaxBytes) {
          return {
            ...invalid(platform, "page_photo_too_large", Reasons.reason("page_photo_too_large", { max: megabytes(photoMaxBytes) })),
            field: `media[${index}]`
          }
        }
      }
      return undefined
    }
    if (media.length > 1) return invalid(platform, "page_video_or_images", Reasons.reason("page_video_or_images"))
    const video = media[0]!
    // A reel, or else a Page video: only what neither takes is refused.
    if (isReel(video)) return undefined
    const long = tooLong(media, "page_video_max_duration", pageVideoMaxSeconds)
    if (long !== undefined) return long
    if (video.sizeBytes !== undefined && video.sizeBytes > pageVideoMaxBytes) {
      return {
        ...invalid(platform, "page_video_too_large", Reasons.reason("page_video_too_large", { max: megabytes(pageVideoMaxBytes) })),
        field: "media[0]"
      }
    }
    return undefined
  }
}
