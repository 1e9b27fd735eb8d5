/**
 * TikTok as a plugin (wire word `shortvideo`): Content Posting API publishing, Login Kit
 * connect with creator_info, no comments API, tokens refreshed halfway through their life.
 *
 * @since 0.4.0
 */
import { Redacted } from "effect"
import type { PlatformPlugin } from "../Plugin.ts"
import * as Reasons from "./Reasons.ts"
import { examples } from "./Examples.ts"
import { ShortVideoCredentials } from "./Credentials.ts"
import { options } from "./Options.ts"
import { isPhotoPost, rules } from "./Rules.ts"
import * as TikTokAnalytics from "./Analytics.ts"
import * as TikTok from "./TikTok.ts"
import * as TikTokComments from "./TikTokComments.ts"
import * as TikTokConnect from "./TikTokConnect.ts"

const day = 24 * 60 * 60 * 1000

/** The setting that lists the TikTok app's verified domains and URL prefixes for PULL_FROM_URL. */
export const verifiedPrefixesSetting = "POSTWIRE_TIKTOK_VERIFIED_URL_PREFIXES"

/** The verified domains and URL prefixes a comma-separated setting lists. */
export const parsePrefixes = (raw: string | undefined): ReadonlyArray<string> | undefined => {
  const prefixes = (raw ?? "").split(",").map((p) => p.trim()).filter((p) => p !== "")
  return prefixes.length === 0 ? undefined : prefixes
}

/**
 * Why TikTok would refuse every media address of a server at `publicUrl`, if it would: the
 * addresses (`{publicUrl}/media-files/…`) fall under none of the app's verified prefixes. One line,
 * naming both settings. `undefined`: they fall under one.
 */
export const verifiedPrefixProblem = (publicUrl: string | undefined, prefixes: ReadonlyArray<string>): string | undefined => {
  const base = (publicUrl ?? "").trim().replace(/\/+$/, "")
  const sample = `${base}/media-files/`
  if (base !== "" && TikTok.underVerifiedPrefix(sample, prefixes)) return undefined
  const where = base === "" ? "POSTWIRE_PUBLIC_URL is not set (media addresses are on localhost)" : `media addresses start with ${sample}`
  return `Invalid configuration ${verifiedPrefixesSetting}: ${where}, outside the TikTok app's verified prefixes (${prefixes.join(", ")}); TikTok would refuse to pull every media item (url_ownership_unverified). Set POSTWIRE_PUBLIC_URL to an address under a verified prefix, or verify its prefix in the app's settings and list it here.`
}

/** The TikTok plugin. */
export const tiktok: PlatformPlugin<TikTok.Config, TikTokConnect.Settings, typeof ShortVideoCredentials> = {
  name: "shortvideo",
  displayName: rules.displayName,
  credentials: ShortVideoCredentials,
  reasons: Reasons.catalogue.texts,
  examples,
  rules,
  options,
  publish: {
    defaults: { ...TikTok.defaults, clientKey: "", clientSecret: Redacted.make("") },
    secrets: ["clientSecret"],
    make: (settings, wire) => TikTok.make(settings, wire),
    comments: () => TikTokComments.adapter,
    analytics: (settings, wire) => TikTokAnalytics.make(settings, wire)
  },
  connect: {
    defaults: { ...TikTokConnect.defaults, clientKey: "", clientSecret: Redacted.make("") },
    secrets: ["clientSecret"],
    make: (settings, wire) => TikTokConnect.make(settings, wire)
  },
  env: (read) => {
    const verifiedUrlPrefixes = parsePrefixes(read.text(verifiedPrefixesSetting))
    if (verifiedUrlPrefixes !== undefined) {
      // Checked at start: a server whose media TikTok would never pull does not start.
      const problem = verifiedPrefixProblem(read.text("POSTWIRE_PUBLIC_URL"), verifiedUrlPrefixes)
      if (problem !== undefined) throw new Error(problem)
    }
    return {
    publish: {
      baseUrl: read.url("POSTWIRE_TIKTOK_BASE_URL"),
      clientKey: read.text("POSTWIRE_TIKTOK_CLIENT_KEY"),
      clientSecret: read.secret("POSTWIRE_TIKTOK_CLIENT_SECRET"),
      pollIntervalMs: read.pollIntervalMs,
      verifiedUrlPrefixes
    },
    connect: {
      clientKey: read.text("POSTWIRE_TIKTOK_CLIENT_KEY"),
      clientSecret: read.secret("POSTWIRE_TIKTOK_CLIENT_SECRET"),
      authorizeUrl: read.exactUrl("POSTWIRE_TIKTOK_AUTHORIZE_URL"),
      apiUrl: read.url("POSTWIRE_TIKTOK_BASE_URL")
    }
    }
  },
  tokenRenewal: { readsCreatorInfo: true },
  analytics: TikTokAnalytics.capabilities,
  capabilities: { creatorInfo: true },
  sandbox: {
    tokens: { accessMs: day, refreshMs: 365 * day },
    // A real inbox post waits for the creator to finish it in the app; the simulated creator
    // finishes it at once, so a sandbox inbox post gets its public address like a direct one.
    post: (input, { handle, numericId, seed }) => {
      const id = numericId(seed)
      return { id, permalink: TikTok.permalink(handle, id, isPhotoPost(input.media.map((m) => m.record))) }
    }
  }
}
