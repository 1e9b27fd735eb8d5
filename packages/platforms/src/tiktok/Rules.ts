/**
 * What TikTok accepts (Content Posting API): one video a post, up to the creator's longest
 * duration (`max_video_post_duration_sec` of creator_info; 600 s when unknown), a 2,200-character
 * caption, and about 15 posts a day per creator.
 *
 * Sources: https://developers.tiktok.com/doc/content-posting-api-reference-direct-post and
 * https://developers.tiktok.com/doc/content-posting-api-reference-query-creator-info
 *
 * @since 0.4.0
 */
import { ErrorDetail, TargetRules } from "@postwire/domain"

const { countFits, invalid, tooLong } = TargetRules

/** The longest video a creator may post when TikTok does not say otherwise, in seconds. */
export const defaultMaxVideoSeconds = 600

/** TikTok's rules. */
export const rules: TargetRules.PlatformRuleSet = {
  displayName: "TikTok",
  captionMax: 2200,
  dailyQuota: 15,
  mediaMin: 1,
  mediaMax: 1,
  optionsKey: "shortvideo",
  targetOptions: (input) => ({ shortvideo: input.shortvideo ?? { mode: "inbox" } }),
  // TikTok's API gives an app no access to comments.
  comments: { read: false, reply: false, hide: false, delete: false, push: false },
  checkMedia: (target, media) => {
    const videos = media.filter((m) => m.kind === "video").length
    if (!countFits(target.rules, media.length) || videos !== 1) {
      return invalid(target.platform, "shortvideo_one_video", ErrorDetail.reason("shortvideo_one_video"))
    }
    return tooLong(media, "max_video_duration", target.maxVideoSeconds ?? defaultMaxVideoSeconds)
  }
}
