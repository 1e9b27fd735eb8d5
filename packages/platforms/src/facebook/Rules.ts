/**
 * What a Facebook Page accepts (Pages API): text alone, up to 10 photos, or one video published
 * as a reel of 3 to 90 seconds; a 63,206-character message; 50 posts a day by default.
 *
 * Sources: https://developers.facebook.com/docs/pages-api/posts and
 * https://developers.facebook.com/docs/video-api/guides/reels-publishing
 *
 * @since 0.4.0
 */
import { ErrorDetail, TargetRules } from "@postwire/domain"

const { countFits, invalid, tooLong } = TargetRules

/** How long a Facebook Page reel may last, in seconds ("Reels: 3–90 s"). */
export const reelSeconds = { min: 3, max: 90 } as const

/** Facebook Pages' rules. */
export const rules: TargetRules.PlatformRuleSet = {
  displayName: "Facebook Pages",
  captionMax: 63206,
  dailyQuota: 50,
  // Pages also publish text alone; the API's create request still asks for one media item.
  mediaMin: 0,
  mediaMax: 10,
  comments: { read: true, reply: true, hide: true, delete: true, push: true },
  checkMedia: (target, media) => {
    const { platform } = target
    const videos = media.filter((m) => m.kind === "video").length
    if (videos === 0) {
      return countFits(target.rules, media.length)
        ? undefined
        : invalid(platform, "page_images_max", ErrorDetail.reason("page_images_max", { max: target.rules.mediaMax }))
    }
    if (media.length > 1) return invalid(platform, "page_video_or_images", ErrorDetail.reason("page_video_or_images"))
    const long = tooLong(media, "reel_max_duration", reelSeconds.max)
    if (long !== undefined) return long
    const duration = media[0]!.durationSeconds
    return duration !== null && duration < reelSeconds.min
      ? invalid(platform, "reel_min_duration", ErrorDetail.reason("reel_min_duration", { min: reelSeconds.min }))
      : undefined
  }
}
