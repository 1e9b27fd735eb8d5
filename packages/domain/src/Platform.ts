/**
 * The four platforms and their rules, as data.
 *
 * Every limit here is a default; the server's configuration may override it.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** The platform words of the API: TikTok, Instagram, Facebook Pages and Threads. */
export const Platform = Schema.Literals(["shortvideo", "photo", "pages", "textpost"])
export type Platform = typeof Platform.Type

/** Every platform, in documentation order. */
export const platforms: ReadonlyArray<Platform> = ["shortvideo", "photo", "pages", "textpost"]

/** What a platform accepts. */
export interface PlatformRules {
  /** Human name of the real platform, for docs and the approval page. */
  readonly displayName: string
  /** Maximum caption length in characters. */
  readonly captionMax: number
  /** Default posting quota per account per rolling 24 hours. */
  readonly dailyQuota: number
  /**
   * Minimum and maximum media items the platform takes in one post (read by `TargetRules`).
   * Facebook Pages and Threads also publish text alone; the API's create request still asks for
   * at least one media item.
   */
  readonly mediaMin: number
  readonly mediaMax: number
}

/** The rules of each platform (decisions.md: "Limits not shown in the spec"). */
export const platformRules: Readonly<Record<Platform, PlatformRules>> = {
  shortvideo: { displayName: "TikTok", captionMax: 2200, dailyQuota: 15, mediaMin: 1, mediaMax: 1 },
  photo: { displayName: "Instagram", captionMax: 2200, dailyQuota: 100, mediaMin: 1, mediaMax: 10 },
  pages: { displayName: "Facebook Pages", captionMax: 63206, dailyQuota: 50, mediaMin: 0, mediaMax: 10 },
  textpost: { displayName: "Threads", captionMax: 500, dailyQuota: 250, mediaMin: 0, mediaMax: 10 }
}

/** The privacy levels a shortvideo creator may be offered. */
export const PrivacyLevel = Schema.Literals([
  "PUBLIC_TO_EVERYONE",
  "MUTUAL_FOLLOW_FRIENDS",
  "FOLLOWER_OF_CREATOR",
  "SELF_ONLY"
])
export type PrivacyLevel = typeof PrivacyLevel.Type

/** Longest shortvideo a creator may post when the platform does not say otherwise, in seconds. */
export const defaultMaxVideoDurationSec = 600
