/**
 * What Threads accepts (Threads API), each rule with the page it comes from:
 *
 * - Text alone, one image or video, or a carousel of 2 to 20 images and videos (a post of one
 *   media item is a single IMAGE or VIDEO post, never a carousel of one).
 *   https://developers.facebook.com/documentation/threads/posts#carousel-posts
 * - Text up to 500 characters, "emojis are counted as the number of UTF-8 bytes"
 *   (https://developers.facebook.com/documentation/threads/posts#limitations): see {@link captionLength}.
 * - At most 5 links, counted as Threads counts them: every unique URL of the text. From 22 December
 *   2025 more fail at container creation with `THREADS_API__LINK_LIMIT_EXCEEDED`.
 *   https://developers.facebook.com/documentation/threads/create-posts/text-attachments#limitations
 * - Images: JPEG or PNG, an aspect ratio up to 10:1 either way (widths outside 320–1440 are
 *   scaled by Threads, not refused). Videos: MOV or MP4, at most 1920 pixels wide, an aspect
 *   ratio between 0.01:1 and 10:1, at most 300 seconds.
 *   https://developers.facebook.com/documentation/threads/posts#media-specifications
 * - 250 API-published posts per profile in a rolling 24 hours (a carousel counts as one).
 *   https://developers.facebook.com/documentation/threads/overview#rate-limiting
 *
 * What Postwire cannot know at validate (file sizes: 8 MB an image, 1 GB a video; codecs, frame
 * rates, bitrates) stays the platform's: a container that fails reports it at publish.
 *
 * @since 0.4.0
 */
import { ErrorDetail, TargetRules } from "@postwire/domain"
import * as Reasons from "./Reasons.ts"

const { captionInvalid, countFits, invalid, tooLong } = TargetRules

/** The longest text, counted by {@link captionLength}. */
export const textMax = 500

/** The most links a post takes (text-attachments#limitations). */
export const linksMax = 5

/** The most items of a carousel (posts#carousel-posts); Instagram's is 10. */
export const carouselMax = 20

/** The longest video, in seconds (posts#media-specifications). */
export const videoSecondsMax = 300

/** The widest video, in pixels (posts#media-specifications, "maximum columns"). */
export const videoWidthMax = 1920

/** Image formats Threads publishes (posts#media-specifications). */
export const imageTypes: ReadonlyArray<string> = ["image/jpeg", "image/png"]

/** Video formats Threads publishes (posts#media-specifications). */
export const videoTypes: ReadonlyArray<string> = ["video/mp4", "video/quicktime"]

const graphemes = new Intl.Segmenter("en", { granularity: "grapheme" })
const utf8 = new TextEncoder()
/** A grapheme that is an emoji: a pictograph, a flag (regional indicators) or a keycap. */
const emoji = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20E3/u

/**
 * The length of a text as Threads counts it against its 500: each emoji (a whole grapheme
 * cluster: `👍🏽` with its skin tone, a flag, a keycap, a ZWJ family) counts its UTF-8 bytes,
 * as the documentation says; every other character counts one per Unicode code point (`é`
 * precomposed is 1, `e` + a combining accent is 2; a CJK character is 1, not its 3 bytes).
 *
 * @example
 * ```ts
 * captionLength("hi 😀") // 3 + 4 = 7
 * ```
 */
export const captionLength = (text: string): number => {
  let length = 0
  for (const { segment } of graphemes.segment(text)) {
    if (emoji.test(segment)) length += utf8.encode(segment).length
    else for (const _ of segment) length += 1
  }
  return length
}

/** Bare host names (without `www.` or a scheme) counted as links: the common top-level domains. */
const bareHosts = "com|net|org|io|co|dev|app|me|id|ai|gg|tv|ly|info|biz|xyz|uk|de|us|ca|au|in|jp|fr|es|it|nl|br|ru|edu|gov"

const urlPattern = new RegExp(
  String.raw`(?:\bhttps?:\/\/[^\s<>"]+|\bwww\.[^\s<>"]+|(?<![@\w.-])(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+(?:${bareHosts})\b(?:\/[^\s<>"]*)?)`,
  "giu"
)

/**
 * The links of a text as Threads counts them: every unique URL, written with a scheme
 * (`https://…`), with `www.`, or as a bare host name on a common top-level domain
 * (`threads.com/@maya`). Two mentions of one URL are one link; sentence punctuation after a URL is
 * not part of it; the scheme, a trailing `/` and the host's letter case do not tell URLs apart.
 */
export const links = (text: string): ReadonlyArray<string> => {
  const found = new Set<string>()
  for (const match of text.matchAll(urlPattern)) {
    const trimmed = match[0].replace(/[.,!?;:'")\]}]+$/u, "").replace(/^https?:\/\//iu, "")
    const slash = trimmed.indexOf("/")
    const host = (slash < 0 ? trimmed : trimmed.slice(0, slash)).toLowerCase()
    const path = slash < 0 ? "" : trimmed.slice(slash).replace(/\/+$/u, "")
    found.add(host + path)
  }
  return [...found]
}

/** The first media rule of Threads the items break, with the item it concerns. */
const mediaBreak = (target: TargetRules.TargetFacts, media: ReadonlyArray<TargetRules.MediaFacts>) => {
  const at = (index: number, broken: TargetRules.RuleBreak): TargetRules.RuleBreak => ({ ...broken, field: `media[${index}]` })
  for (const [index, item] of media.entries()) {
    const { mime, width, height } = item
    const ratio = typeof width === "number" && typeof height === "number" && width > 0 && height > 0 ? width / height : undefined
    if (item.kind === "image") {
      if (mime !== undefined && !imageTypes.includes(mime)) {
        return at(index, invalid(target.platform, "textpost_image_format", Reasons.reason("textpost_image_format", { value: mime })))
      }
      if (ratio !== undefined && (ratio > 10 || ratio < 1 / 10)) {
        return at(index, invalid(target.platform, "textpost_image_aspect_ratio", Reasons.reason("textpost_image_aspect_ratio")))
      }
    } else {
      if (mime !== undefined && !videoTypes.includes(mime)) {
        return at(index, invalid(target.platform, "textpost_video_format", Reasons.reason("textpost_video_format", { value: mime })))
      }
      if (typeof width === "number" && width > videoWidthMax) {
        return at(index, invalid(target.platform, "textpost_video_width", Reasons.reason("textpost_video_width", { max: videoWidthMax, size: width })))
      }
      if (ratio !== undefined && (ratio > 10 || ratio < 1 / 100)) {
        return at(index, invalid(target.platform, "textpost_video_aspect_ratio", Reasons.reason("textpost_video_aspect_ratio")))
      }
    }
  }
  return undefined
}

/** Threads' rules. */
export const rules: TargetRules.PlatformRuleSet = {
  displayName: "Threads",
  captionMax: textMax,
  captionLength,
  dailyQuota: 250,
  mediaMin: 0,
  mediaMax: carouselMax,
  // Threads deletes only the account's own replies (DELETE /{media-id}); others can be hidden.
  comments: { read: true, reply: true, hide: true, delete: true, push: true },
  checkCaption: (caption) => {
    const count = links(caption).length
    return count > linksMax
      ? captionInvalid("textpost", "textpost_links_max", Reasons.reason("textpost_links_max", { max: linksMax, count }))
      : undefined
  },
  checkMedia: (target, media) => {
    if (!countFits(target.rules, media.length)) {
      return invalid(target.platform, "textpost_items_max", ErrorDetail.reason("items_max", { max: target.rules.mediaMax }))
    }
    // A simulated account's own limit is the sandbox's; else Threads' 300 seconds.
    const broken = mediaBreak(target, media)
    if (broken !== undefined) return broken
    // Every video of a carousel, not only the first.
    const limit = target.maxVideoSeconds ?? videoSecondsMax
    for (const [index, item] of media.entries()) {
      const long = tooLong([item], "textpost_video_duration", limit)
      if (long !== undefined) return { ...long, field: `media[${index}]` }
    }
    return undefined
  }
}
