/**
 * The four platforms and their rules, as data.
 *
 * Every limit here is a default; the server's configuration may override it.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** The built-in platforms' words of the API: TikTok, Instagram, Facebook Pages, Threads, Mastodon, LinkedIn, YouTube and Bluesky. */
export const builtinPlatforms = ["shortvideo", "photo", "pages", "textpost", "fediverse", "professional", "video", "atproto"] as const
/** A built-in platform's word. */
export type BuiltinPlatform = (typeof builtinPlatforms)[number]

/**
 * A platform's word on the wire: a built-in one, or the name of a platform plugin the server
 * registered (lowercase letters, digits and `_`, starting with a letter, 2 to 32 characters).
 * The wire checks the form; whether the server serves that platform is checked against its
 * registry, with an error naming the known platforms.
 */
export type Platform = BuiltinPlatform | (string & {})

/** The form of a platform's word. */
export const platformPattern = /^[a-z][a-z0-9_]{1,31}$/

/**
 * The wire schema of a platform's word (see {@link Platform}): a string; the registry decides
 * whether the server serves it (its plugins' words follow {@link platformPattern}).
 */
export const Platform = Schema.String

/** Every built-in platform, in documentation order. */
export const platforms: ReadonlyArray<BuiltinPlatform> = builtinPlatforms

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

/**
 * The rules of each built-in platform as they are by default (decisions.md: "Limits not shown in
 * the spec").
 *
 * @deprecated Each platform's rules are its plugin's (`@postwire/platforms`' `Registry`; the
 * engine reads `EngineSettings.platforms`). Kept for code that read this table; a test keeps it
 * equal to the plugins' rules.
 */
export const platformRules: Readonly<Record<BuiltinPlatform, PlatformRules>> = {
  shortvideo: { displayName: "TikTok", captionMax: 2200, dailyQuota: 15, mediaMin: 1, mediaMax: 35 },
  photo: { displayName: "Instagram", captionMax: 2200, dailyQuota: 100, mediaMin: 1, mediaMax: 10 },
  pages: { displayName: "Facebook Pages", captionMax: 63206, dailyQuota: 50, mediaMin: 0, mediaMax: 10 },
  textpost: { displayName: "Threads", captionMax: 500, dailyQuota: 250, mediaMin: 0, mediaMax: 20 },
  fediverse: { displayName: "Mastodon", captionMax: 500, dailyQuota: 300, mediaMin: 0, mediaMax: 4 },
  professional: { displayName: "LinkedIn", captionMax: 3000, dailyQuota: 150, mediaMin: 0, mediaMax: 20 },
  video: { displayName: "YouTube", captionMax: 5000, dailyQuota: 6, mediaMin: 1, mediaMax: 1 },
  atproto: { displayName: "Bluesky", captionMax: 300, dailyQuota: 11666, mediaMin: 0, mediaMax: 4 }
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

/**
 * The name people know a platform by: a built-in platform's (`TikTok`), else its word (a plugin's
 * display name is its registry's: `PlatformPlugin.displayName`).
 */
export const displayNameOf = (platform: Platform): string =>
  (platformRules as Readonly<Record<string, PlatformRules | undefined>>)[platform]?.displayName ?? platform
