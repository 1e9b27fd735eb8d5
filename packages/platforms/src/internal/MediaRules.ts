/**
 * What media each platform accepts for a target, checked before anything is sent, by the real
 * adapters and by the simulated platform alike, so a sandbox account refuses what the real
 * platform would.
 *
 * @internal
 */
import type { PlatformFailure, PublishInput } from "@postwire/core"
import { ErrorDetail, type LocalizedText, type Platform } from "@postwire/domain"
import { failure } from "./Wire.ts"

/** Facebook Reels must last 3 to 90 seconds. */
const pagesReelSeconds = { min: 3, max: 90 } as const

/** The kind of photo-platform post a target makes (defaults: one video is a reel, else feed). */
export const photoKind = (input: Pick<PublishInput, "target" | "media">): "reel" | "feed" | "story" =>
  input.target.options.photo?.type ??
  (input.media.length === 1 && input.media[0]!.record.kind === "video" ? "reel" : "feed")

const invalid = (platform: Platform, detail: LocalizedText) =>
  failure("media_invalid", "media_rules", { details: { platform, detail }, state: null })

/** The first reason the target's media cannot go to its platform, if any. */
export const check = (input: Pick<PublishInput, "target" | "media">): PlatformFailure | undefined => {
  const platform = input.target.platform
  const kinds = input.media.map((m) => m.record.kind)
  const videos = kinds.filter((k) => k === "video").length
  switch (platform) {
    case "shortvideo":
      return kinds.length === 1 && videos === 1 ? undefined : invalid(platform, ErrorDetail.reason("shortvideo_one_video"))
    case "photo": {
      const kind = photoKind(input)
      if (kind === "reel") return kinds.length === 1 && videos === 1 ? undefined : invalid(platform, ErrorDetail.reason("reel_one_video"))
      if (kind === "story") return kinds.length === 1 ? undefined : invalid(platform, ErrorDetail.reason("story_one_item"))
      return kinds.length >= 1 && kinds.length <= 10 ? undefined : invalid(platform, ErrorDetail.reason("feed_item_count"))
    }
    case "pages": {
      if (videos === 0) return kinds.length <= 10 ? undefined : invalid(platform, ErrorDetail.reason("page_images_max"))
      if (kinds.length > 1) return invalid(platform, ErrorDetail.reason("page_images_or_one_video"))
      const duration = input.media[0]!.record.durationSeconds
      if (duration !== null && duration > pagesReelSeconds.max) {
        return failure("media_too_long", "media_rules", {
          details: { duration: Math.ceil(duration), limit: pagesReelSeconds.max },
          state: null
        })
      }
      if (duration !== null && duration < pagesReelSeconds.min) {
        return invalid(platform, ErrorDetail.reason("reel_min_duration", { min: pagesReelSeconds.min }))
      }
      return undefined
    }
    case "textpost":
      return kinds.length <= 20 ? undefined : invalid(platform, ErrorDetail.reason("textpost_items_max"))
  }
}
