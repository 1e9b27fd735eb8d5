/**
 * The platforms' words on the wire (the wire enum) and the shape of a platform's rules. Each
 * platform's rules are its plugin's (`@postwire/platforms`, one folder per platform).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** The built-in platforms' words of the API: TikTok, Instagram, Facebook Pages, Threads, Mastodon, LinkedIn, YouTube and Bluesky. */
export const builtinPlatforms = ["shortvideo", "photo", "pages", "textpost", "fediverse", "professional", "video", "atproto"] as const

/**
 * The names people know the built-in platforms by, beside their words (part of the wire enum:
 * the approval page and e-mail name a target's platform with it). A plugin's display name is its
 * registry's (`PlatformPlugin.displayName`).
 */
export const builtinDisplayNames: Readonly<Record<BuiltinPlatform, string>> = {
  shortvideo: "TikTok",
  photo: "Instagram",
  pages: "Facebook Pages",
  textpost: "Threads",
  fediverse: "Mastodon",
  professional: "LinkedIn",
  video: "YouTube",
  atproto: "Bluesky"
}
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
  (builtinDisplayNames as Readonly<Record<string, string | undefined>>)[platform] ?? platform
