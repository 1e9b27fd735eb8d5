/**
 * The rules a target must meet on its platform, as data ({@link platformRules},
 * {@link reelSeconds}) plus pure checks. `POST /v1/posts/validate` and create, the approval
 * page, every platform adapter and the simulated platform all check through this module, so a
 * request that validates cleanly is never refused by Postwire's own rules at publish time. What
 * only the platform knows at publish time (a creator's privacy options, TikTok's
 * `max_video_post_duration_sec`) stays the platform's.
 *
 * @example
 * ```ts
 * import { TargetRules } from "@postwire/domain"
 * const broken = TargetRules.mediaRuleBreak({ platform: "pages" }, [{ kind: "video", durationSeconds: 120 }])
 * // { code: "media_too_long", rule: "reel_max_duration", field: "media[0]", details: { duration: 120, limit: 90 } }
 * ```
 *
 * @since 0.1.0
 */

import type { ErrorDetails } from "./ApiError.ts"
import * as ErrorDetail from "./ErrorDetail.ts"
import type { LocalizedText } from "./LocalizedText.ts"
import { defaultMaxVideoDurationSec, type Platform, platformRules } from "./Platform.ts"
import type { Consent, PhotoType } from "./Post.ts"

/** How long a Facebook Page reel may last, in seconds (platforms.md: "Reels: 3–90 s"). */
export const reelSeconds = { min: 3, max: 90 } as const

/** What the rules need to know of a media item. */
export interface MediaFacts {
  readonly kind: "image" | "video"
  /** `null` when the length could not be read (an image, or a video without a duration). */
  readonly durationSeconds: number | null
}

/** What the rules need to know of a target. */
export interface TargetFacts {
  readonly platform: Platform
  /** The photo type asked for (photo only); resolved with {@link photoType}. */
  readonly photoType?: PhotoType | undefined
  /** The longest shortvideo the account allows, in seconds; default {@link defaultMaxVideoDurationSec}. */
  readonly maxVideoSeconds?: number | undefined
}

/** A rule the target breaks: the failure to report, and which rule it was. */
export interface RuleBreak {
  readonly code: "media_invalid" | "media_too_long" | "privacy_level_mismatch"
  /** The rule's name, stable: kept as the failure's `platform_code` at publish time. */
  readonly rule: string
  /** The request field it concerns, relative to the request (`media`, `media[0]`) or to the target. */
  readonly field: string
  readonly details: ErrorDetails
}

/** The photo type of a target: the one asked for, or `reel` for one video, else `feed`. */
export const photoType = (requested: PhotoType | undefined, media: ReadonlyArray<MediaFacts>): PhotoType =>
  requested ?? (media.length === 1 && media[0]!.kind === "video" ? "reel" : "feed")

/** A `media_invalid` break; its rule is named after the reason that explains it. */
const invalid = (platform: Platform, rule: ErrorDetail.Reason, detail: LocalizedText): RuleBreak => ({
  code: "media_invalid",
  rule,
  field: "media",
  details: { platform, detail }
})

const tooLong = (media: ReadonlyArray<MediaFacts>, rule: string, limit: number): RuleBreak | undefined => {
  const index = media.findIndex((m) => m.kind === "video")
  const duration = index < 0 ? null : media[index]!.durationSeconds
  if (duration === null || duration <= limit) return undefined
  // Rounded up: a 90.4 s video is too long for a 90 s limit, and must not read "90 seconds".
  return { code: "media_too_long", rule, field: `media[${index}]`, details: { duration: Math.ceil(duration), limit } }
}

/** The count of media a platform takes, from {@link platformRules}. */
const countFits = (platform: Platform, count: number): boolean =>
  count >= platformRules[platform].mediaMin && count <= platformRules[platform].mediaMax

/** The first rule the target's media breaks on its platform, if any. */
export const mediaRuleBreak = (target: TargetFacts, media: ReadonlyArray<MediaFacts>): RuleBreak | undefined => {
  const { platform } = target
  const videos = media.filter((m) => m.kind === "video").length
  const max = platformRules[platform].mediaMax
  switch (platform) {
    case "shortvideo":
      if (!countFits(platform, media.length) || videos !== 1) return invalid(platform, "shortvideo_one_video", ErrorDetail.reason("shortvideo_one_video"))
      return tooLong(media, "max_video_duration", target.maxVideoSeconds ?? defaultMaxVideoDurationSec)
    case "photo": {
      const type = photoType(target.photoType, media)
      if (type === "reel") return media.length === 1 && videos === 1 ? undefined : invalid(platform, "reel_one_video", ErrorDetail.reason("reel_one_video"))
      if (type === "story") return media.length === 1 ? undefined : invalid(platform, "story_one_item", ErrorDetail.reason("story_one_item"))
      return countFits(platform, media.length) ? undefined : invalid(platform, "feed_item_count", ErrorDetail.reason("feed_item_count", { max }))
    }
    case "pages": {
      if (videos === 0) return countFits(platform, media.length) ? undefined : invalid(platform, "page_images_max", ErrorDetail.reason("page_images_max", { max }))
      if (media.length > 1) return invalid(platform, "page_video_or_images", ErrorDetail.reason("page_video_or_images"))
      const long = tooLong(media, "reel_max_duration", reelSeconds.max)
      if (long !== undefined) return long
      const duration = media[0]!.durationSeconds
      return duration !== null && duration < reelSeconds.min
        ? invalid(platform, "reel_min_duration", ErrorDetail.reason("reel_min_duration", { min: reelSeconds.min }))
        : undefined
    }
    case "textpost":
      return countFits(platform, media.length) ? undefined : invalid(platform, "textpost_items_max", ErrorDetail.reason("textpost_items_max", { max }))
  }
}

/**
 * The rule a shortvideo consent breaks by itself, if any: branded content cannot be private
 * (TikTok's Content Sharing Guidelines). Whether the privacy level is one of the creator's
 * options is the platform's to say.
 */
export const consentRuleBreak = (consent: Pick<Consent, "privacy_level" | "branded_content">): RuleBreak | undefined =>
  consent.branded_content === true && consent.privacy_level === "SELF_ONLY"
    ? { code: "privacy_level_mismatch", rule: "branded_content_private", field: "shortvideo.consent.privacy_level", details: {} }
    : undefined
