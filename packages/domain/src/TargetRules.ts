/**
 * The rules a target must meet on its platform: the shape of a platform's rules
 * ({@link PlatformRuleSet}, declared by each platform's plugin) and the shared checks they are
 * written with. `POST /v1/posts/validate` and create, the approval
 * page, every platform adapter and the simulated platform all check through this module, so a
 * request that validates cleanly is never refused by Postwire's own rules at publish time. What
 * only the platform knows at publish time (a creator's privacy options, TikTok's
 * `max_video_post_duration_sec`) stays the platform's.
 *
 * @example
 * ```ts
 * import { TargetRules } from "@postwire/domain"
 * const broken = TargetRules.mediaRuleBreak({ platform: "blog", rules }, [{ kind: "video", durationSeconds: 120 }])
 * // the first rule of `rules.checkMedia` the media breaks, or undefined
 * ```
 *
 * @since 0.1.0
 */

import type { Schema } from "effect"
import type { ErrorDetails } from "./ApiError.ts"
import type { ErrorCode } from "./ErrorCatalog.ts"
import type { LocalizedText } from "./LocalizedText.ts"
import type { CommentCapabilities } from "./Comment.ts"
import type { Platform, PlatformRules } from "./Platform.ts"
import type { Consent, PhotoType } from "./Post.ts"

/** What the rules need to know of a media item. */
export interface MediaFacts {
  readonly kind: "image" | "video"
  /** `null` when the length could not be read (an image, or a video without a duration). */
  readonly durationSeconds: number | null
  /** The MIME type read from the bytes (`image/jpeg`, `image/png`, `video/mp4`, …), when known. */
  readonly mime?: string | undefined
  /** Width and height in pixels as displayed; `null` or absent when they could not be read. */
  readonly width?: number | null | undefined
  readonly height?: number | null | undefined
  /** The file's size in bytes, when known. */
  readonly sizeBytes?: number | undefined
  /** A video track's codec (`avc1`, `hvc1`, …), when read from the file. */
  readonly codec?: string | null | undefined
}

/** What the rules need to know of a target. */
export interface TargetFacts {
  readonly platform: Platform
  /** The platform's rules (its plugin's `rules`): what is checked. */
  readonly rules: PlatformRuleSet
  /**
   * The options the target publishes with on its platform, as stored (the encoded form of its
   * plugin's `options.schema`, `targets[].options.<platform>` on the wire); `undefined` when it
   * has none.
   */
  readonly options?: unknown
  /** The longest video the account allows, in seconds, when the account says (a simulated limit, a creator's). */
  readonly maxVideoSeconds?: number | undefined
}

/** A rule the target breaks: the failure to report, and which rule it was. */
export interface RuleBreak {
  readonly code: "media_invalid" | "media_too_long" | "privacy_level_mismatch" | "caption_invalid"
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
export const invalid = (platform: Platform, rule: string, detail: LocalizedText): RuleBreak => ({
  code: "media_invalid",
  rule,
  field: "media",
  details: { platform, detail }
})

/**
 * A `caption_invalid` break (too many hashtags, mentions or links for the platform); its rule is
 * named after the reason that explains it, whose text names the limit.
 */
export const captionInvalid = (platform: Platform, rule: string, detail: LocalizedText): RuleBreak => ({
  code: "caption_invalid",
  rule,
  field: "caption",
  details: { platform, detail }
})

/** A `media_too_long` break when the first video lasts longer than `limit` seconds. */
export const tooLong = (media: ReadonlyArray<MediaFacts>, rule: string, limit: number): RuleBreak | undefined => {
  const index = media.findIndex((m) => m.kind === "video")
  const duration = index < 0 ? null : media[index]!.durationSeconds
  if (duration === null || duration <= limit) return undefined
  // Rounded up: a 90.4 s video is too long for a 90 s limit, and must not read "90 seconds".
  return { code: "media_too_long", rule, field: `media[${index}]`, details: { duration: Math.ceil(duration), limit } }
}

/** Whether `count` media items fit the platform's `mediaMin`..`mediaMax`. */
export const countFits = (rules: Pick<PlatformRules, "mediaMin" | "mediaMax">, count: number): boolean =>
  count >= rules.mediaMin && count <= rules.mediaMax

/**
 * What a caption rule may need to know of the target it goes to (Instagram stories carry no
 * caption, so its hashtag and mention limits do not apply to them: it reads the kind from the
 * target's options). Absent: the platform-wide check.
 */
export interface CaptionTarget {
  /**
   * The options the target publishes with on its platform, as stored (the encoded form of its
   * plugin's `options.schema`); `undefined` when it has none.
   */
  readonly options?: unknown
}

/**
 * A platform's rules with the checks that apply them: what a platform plugin declares as its
 * `rules` (each built-in platform's are in its folder of `@postwire/platforms`). Validate, create,
 * the adapters and the simulated platform all check through it.
 */
export interface PlatformRuleSet extends PlatformRules {
  /** Counts a caption as the platform does; default: its length as a JavaScript string. */
  readonly captionLength?: ((caption: string) => number) | undefined
  /**
   * The first rule the caption breaks beyond its length (hashtags, mentions, links), if any: a
   * {@link captionInvalid} break. Absent: only the length is checked.
   */
  readonly checkCaption?: ((caption: string, target?: CaptionTarget) => RuleBreak | undefined) | undefined
  /** The first rule the target's media breaks, if any. */
  readonly checkMedia: (target: TargetFacts, media: ReadonlyArray<MediaFacts>) => RuleBreak | undefined
  /**
   * The per-target options the platform takes (`targets[].<platform>` in requests), from its
   * plugin's `options`; absent: a target of the platform takes none.
   */
  readonly options?: OptionsSpec | undefined
  /** What the platform lets an app do with comments (read, reply, hide, delete, push). */
  readonly comments: CommentCapabilities
  /**
   * Quotas of some kinds of the platform's posts, beside `dailyQuota` (Facebook: 30 reels per
   * Page in 24 hours): validate and create refuse a post of that kind once the account's rolling
   * 24 hours hold `limit` of them, as `quota_exceeded` naming the kind and the limit.
   */
  readonly quotas?: ReadonlyArray<KindQuota> | undefined
}

/**
 * A quota of one kind of a platform's posts in a rolling 24 hours (see
 * {@link PlatformRuleSet.quotas}): the targets counted are the account's targets not
 * `cancelled`, `rejected` or `failed`, at their publish time, whose post is of that kind.
 *
 * @example
 * ```ts
 * const reels: TargetRules.KindQuota = {
 *   rule: "reels_per_day",
 *   limit: 30,
 *   what: { en: "reels", id: "reel" },
 *   counts: (media) => media.length === 1 && media[0]!.kind === "video"
 * }
 * ```
 */
export interface KindQuota {
  /** The rule's name, stable (`reels_per_day`). */
  readonly rule: string
  /** How many posts of the kind an account may publish in a rolling 24 hours. */
  readonly limit: number
  /** What is counted, plural, in English and Indonesian: the error reads "limit of 30 reels". */
  readonly what: LocalizedText
  /** Whether a post with these media and the target's stored options (its platform's) is of the kind. */
  readonly counts: (media: ReadonlyArray<MediaFacts>, options: unknown) => boolean
}

/** The length of a caption as the platform counts it. */
export const captionLength = (rules: Pick<PlatformRuleSet, "captionLength">, caption: string): number =>
  rules.captionLength === undefined ? caption.length : rules.captionLength(caption)

/** The first rule the target's media breaks on its platform, if any (asks the platform's rules). */
export const mediaRuleBreak = (target: TargetFacts, media: ReadonlyArray<MediaFacts>): RuleBreak | undefined =>
  target.rules.checkMedia(target, media)

/**
 * The rule a consent breaks by itself, if any: branded content cannot be private (TikTok's
 * Content Sharing Guidelines, https://developers.tiktok.com/doc/content-sharing-guidelines).
 * Whether the privacy level is one of the creator's options is the platform's to say. The
 * break's `field` is relative to the target's options (`consent.privacy_level`).
 */
export const consentRuleBreak = (consent: Pick<Consent, "privacy_level" | "branded_content">): RuleBreak | undefined =>
  consent.branded_content === true && consent.privacy_level === "SELF_ONLY"
    ? { code: "privacy_level_mismatch", rule: "branded_content_private", field: "consent.privacy_level", details: {} }
    : undefined

/**
 * Why a plugin's `options.resolve` refuses a target's options: a 422 failure of the error
 * catalog (for example `consent_required`), the field it concerns relative to the target's
 * options (`"consent"` names `targets[i].<platform>.consent`; absent: the options themselves),
 * and the details its message is filled with.
 */
export interface OptionsRefusal {
  readonly code: ErrorCode
  readonly field?: string | undefined
  readonly details?: ErrorDetails | undefined
}

/** What `options.resolve` answers: the options to store, or why the target cannot have them. */
export type OptionsResolution =
  | { readonly _tag: "Ok"; readonly value: unknown }
  | { readonly _tag: "Refused"; readonly detail: OptionsRefusal }

/** What `options.resolve` is told of the post. */
export interface OptionsPost {
  readonly caption: string
  readonly media: ReadonlyArray<MediaFacts>
}

/**
 * A platform's per-target options: `targets[].<platform>` in requests, `targets[].options.<platform>`
 * in responses, `input.target.options[<platform>]` for its publisher (the encoded form: decode it
 * with `schema`).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import type { TargetRules } from "@postwire/domain"
 *
 * const options: TargetRules.OptionsSpec = {
 *   schema: Schema.Struct({ tone: Schema.Literals(["formal", "casual"]) }),
 *   resolve: (options) => ({ _tag: "Ok", value: options ?? { tone: "casual" } })
 * }
 * ```
 */
export interface OptionsSpec {
  /**
   * Decodes the request's `targets[].<platform>` (an Effect Schema whose encoded side is JSON);
   * a failure is 400 `invalid_request` naming the field (`targets[0].blog.tone`). Unknown keys
   * are refused.
   */
  readonly schema: Schema.Top
  /**
   * What the target publishes with, from the decoded options (`undefined` when the request had
   * none) and the post: the options to store (encoded with `schema`), or a refusal (422). Absent:
   * the decoded options as given (none stored when the request had none).
   */
  readonly resolve?: ((options: unknown, post: OptionsPost) => OptionsResolution) | undefined
  /**
   * Whether a target with these stored options publishes only with a person's consent (a
   * `Post.Consent`, kept under the options' `consent` key, as TikTok's direct posts): without one
   * in the request the approval page asks for it, and with approval off the request is 422
   * `consent_required` on `targets[i].<platform>.consent`. Absent: never.
   */
  readonly needsConsent?: ((stored: unknown) => boolean) | undefined
}

/** The consent kept in a target's stored options (their `consent` key), if any. */
export const consentOf = (stored: unknown): Consent | undefined =>
  typeof stored === "object" && stored !== null && "consent" in stored ? ((stored as { consent?: Consent }).consent ?? undefined) : undefined

/** An `Ok` resolution. */
export const resolved = (value: unknown): OptionsResolution => ({ _tag: "Ok", value })

/** A `Refused` resolution. */
export const refused = (detail: OptionsRefusal): OptionsResolution => ({ _tag: "Refused", detail })
