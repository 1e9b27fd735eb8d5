/**
 * What Instagram accepts (Instagram Graph API, content publishing): a feed post of 1 to 10
 * items (a carousel from 2), a reel of one video, a story of one item, a 2,200-character caption,
 * and 100 API-published posts per account in a rolling 24 hours.
 *
 * Sources: https://developers.facebook.com/docs/instagram-platform/content-publishing and
 * https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/media
 *
 * @since 0.4.0
 */
import { ErrorDetail, TargetRules } from "@postwire/domain"

const { countFits, invalid } = TargetRules

/** Instagram's rules. */
export const rules: TargetRules.PlatformRuleSet = {
  displayName: "Instagram",
  captionMax: 2200,
  dailyQuota: 100,
  mediaMin: 1,
  mediaMax: 10,
  optionsKey: "photo",
  targetOptions: (input, media) => ({ photo: { type: TargetRules.photoType(input.photo?.type, media) } }),
  comments: { read: true, reply: true, hide: true, delete: true, push: true },
  checkMedia: (target, media) => {
    const { platform } = target
    const videos = media.filter((m) => m.kind === "video").length
    const type = TargetRules.photoType(target.photoType, media)
    if (type === "reel") {
      return media.length === 1 && videos === 1 ? undefined : invalid(platform, "reel_one_video", ErrorDetail.reason("reel_one_video"))
    }
    if (type === "story") {
      return media.length === 1 ? undefined : invalid(platform, "story_one_item", ErrorDetail.reason("story_one_item"))
    }
    return countFits(target.rules, media.length)
      ? undefined
      : invalid(platform, "feed_item_count", ErrorDetail.reason("feed_item_count", { max: target.rules.mediaMax }))
  }
}
