/**
 * What Instagram accepts (Instagram Platform, content publishing), each rule with the page it
 * comes from:
 *
 * - caption: at most 2,200 characters, 30 hashtags and 20 @mentions
 *   (https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/media,
 *   parameter `caption`: "Maximum 2200 characters, 30 hashtags, and 20 @ tags");
 * - images: aspect ratio 4:5 to 1.91:1 in the feed and in carousels (same page, "Image
 *   Specifications": "Aspect ratio: Must be within a 4:5 to 1.91:1 range"); JPEG only ("Format:
 *   JPEG"): see {@link notJpeg};
 * - a carousel: 2 to 10 images or videos, no reel inside (same page, "Carousel posts" and
 *   "Reels Limitations"; https://developers.facebook.com/docs/instagram-platform/content-publishing,
 *   "Carousel posts": "up to 10 images, videos, or a mix");
 * - a reel: one video of 3 seconds to 15 minutes (same reference, "Reels Specifications":
 *   "Duration: 15 mins maximum, 3 seconds minimum"); a single feed video is published as a reel
 *   (content-publishing: feed VIDEO containers were retired on 9 November 2023);
 * - a story: one image or one video of 3 to 60 seconds (same reference, "Story video
 *   specifications"); a carousel video lasts 3 to 60 seconds ("Video Specifications");
 * - 100 API-published posts per account in a rolling 24 hours (content-publishing, "Rate
 *   Limit"; the adapter reads the live `quota_total` from `content_publishing_limit`).
 *
 * @since 0.4.0
 */
import { type Platform, TargetRules } from "@postwire/domain"
import { kindOf } from "./Options.ts"
import * as Reasons from "./Reasons.ts"

const { countFits, invalid } = TargetRules

/** How many hashtags and @mentions a caption may carry (IG User Media reference, `caption`). */
export const captionTags = { hashtags: 30, mentions: 20 } as const

/** How long a video may last, in seconds, by where it goes (IG User Media reference). */
export const videoSeconds = {
  reel: { min: 3, max: 15 * 60 },
  story: { min: 3, max: 60 },
  carousel: { min: 3, max: 60 }
} as const

/** The widest and the tallest feed image Instagram takes, as width / height (4:5 to 1.91:1). */
export const feedAspect = { min: 4 / 5, max: 1.91 } as const

// A hashtag is `#` followed by letters, digits or underscores, and not glued to a word before it
// (`a#b` is not a hashtag; `#café` is). A mention is `@` followed by a username's characters
// (letters, digits, `.` and `_`), not glued to a word before it (`me@example.com` is not a mention).
const hashtagPattern = /(?<![\p{L}\p{N}_&])#[\p{L}\p{N}_]*[\p{L}_][\p{L}\p{N}_]*/gu
const mentionPattern = /(?<![\p{L}\p{N}_.])@[A-Za-z0-9._]*[A-Za-z0-9_]/gu

/**
 * The hashtags of a caption as Instagram counts them: every occurrence (a tag written twice is
 * counted twice). A `#` followed only by digits (`#1`) is not a hashtag on Instagram.
 */
export const hashtags = (caption: string): number => caption.match(hashtagPattern)?.length ?? 0

/** The @mentions of a caption: every occurrence of `@username`. */
export const mentions = (caption: string): number => caption.match(mentionPattern)?.length ?? 0

/**
 * The first caption rule a caption breaks beyond its length, if any. Not for a story: the adapter
 * creates a STORIES container without `caption` (Instagram.ts, `plan`; the IG User Media reference
 * describes `caption` for feed images, videos, reels and carousels,
 * https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/media),
 * so a story's hashtags and mentions never reach Instagram.
 */
const checkCaption = (caption: string, target?: TargetRules.CaptionTarget): TargetRules.RuleBreak | undefined => {
  if (target !== undefined && kindOf(target.options, []) === "story") return undefined
  const platform: Platform = "photo"
  const tags = hashtags(caption)
  if (tags > captionTags.hashtags) {
    return TargetRules.captionInvalid(
      platform,
      "ig_hashtags_max",
      Reasons.reason("ig_hashtags_max", { max: captionTags.hashtags, count: tags })
    )
  }
  const named = mentions(caption)
  return named > captionTags.mentions
    ? TargetRules.captionInvalid(
        platform,
        "ig_mentions_max",
        Reasons.reason("ig_mentions_max", { max: captionTags.mentions, count: named })
      )
    : undefined
}

/**
 * The first image that is not a JPEG (when its type is known), as a break naming JPEG: Instagram
 * refuses a PNG or a WebP at container creation (36001/2207005). Not applied by `checkMedia` yet:
 * Postwire is to convert such images to JPEG when publishing (issue #38), and until it does, the
 * choice between refusing them up front and converting is recorded in docs/decisions.md
 * ("Instagram: JPEG-only images").
 */
export const notJpeg = (platform: Platform, media: ReadonlyArray<TargetRules.MediaFacts>): TargetRules.RuleBreak | undefined => {
  const index = media.findIndex((m) => m.kind === "image" && m.mime !== undefined && m.mime !== "" && m.mime !== "image/jpeg")
  if (index < 0) return undefined
  const format = (media[index]!.mime ?? "").replace(/^image\//, "").toUpperCase()
  return { ...invalid(platform, "ig_image_jpeg_only", Reasons.reason("ig_image_jpeg_only", { format })), field: `media[${index}]` }
}

/** The first feed or carousel image outside 4:5 to 1.91:1, when its size is known. */
const badAspect = (platform: Platform, media: ReadonlyArray<TargetRules.MediaFacts>): TargetRules.RuleBreak | undefined => {
  const index = media.findIndex((m) => {
    if (m.kind !== "image" || m.width == null || m.height == null || m.width <= 0 || m.height <= 0) return false
    const ratio = m.width / m.height
    // Two decimals, as Instagram writes the range: 1080 x 566 (1.908) is the documented widest.
    const rounded = Math.round(ratio * 100) / 100
    return rounded < feedAspect.min || rounded > feedAspect.max
  })
  if (index < 0) return undefined
  const { width, height } = media[index]!
  return {
    ...invalid(platform, "ig_image_aspect_ratio", Reasons.reason("ig_image_aspect_ratio", { width: width!, height: height! })),
    field: `media[${index}]`
  }
}

/** The first video shorter or longer than `limits`, as `media_too_long` or a `media_invalid` naming the minimum. */
const badDuration = (
  platform: Platform,
  media: ReadonlyArray<TargetRules.MediaFacts>,
  rule: "reel" | "story" | "carousel"
): TargetRules.RuleBreak | undefined => {
  const limits = videoSeconds[rule]
  for (const [index, m] of media.entries()) {
    if (m.kind !== "video" || m.durationSeconds === null) continue
    if (m.durationSeconds > limits.max) {
      return {
        code: "media_too_long",
        rule: `${rule}_max_duration`,
        field: `media[${index}]`,
        details: { duration: Math.ceil(m.durationSeconds), limit: limits.max }
      }
    }
    if (m.durationSeconds < limits.min) {
      return {
        ...invalid(platform, "ig_video_min_duration", Reasons.reason("ig_video_min_duration", { min: limits.min })),
        field: `media[${index}]`
      }
    }
  }
  return undefined
}

/** Instagram's rules. */
export const rules: TargetRules.PlatformRuleSet = {
  displayName: "Instagram",
  captionMax: 2200,
  dailyQuota: 100,
  mediaMin: 1,
  mediaMax: 10,
  comments: { read: true, reply: true, hide: true, delete: true, push: true },
  checkCaption,
  checkMedia: (target, media) => {
    const { platform } = target
    const videos = media.filter((m) => m.kind === "video").length
    const type = kindOf(target.options, media)
    if (type === "reel") {
      return media.length === 1 && videos === 1
        ? badDuration(platform, media, "reel")
        : invalid(platform, "reel_one_video", Reasons.reason("reel_one_video"))
    }
    if (type === "story") {
      return media.length === 1
        ? badDuration(platform, media, "story")
        : invalid(platform, "story_one_item", Reasons.reason("story_one_item"))
    }
    if (!countFits(target.rules, media.length)) {
      return invalid(platform, "feed_item_count", Reasons.reason("feed_item_count", { max: target.rules.mediaMax }))
    }
    return (
      badAspect(platform, media) ??
      // One feed video is published as a reel; the videos of a carousel follow the feed video rules.
      badDuration(platform, media, media.length === 1 ? "reel" : "carousel")
    )
  }
}
