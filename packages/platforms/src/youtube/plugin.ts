/**
 * YouTube as a plugin (wire word `video`): `videos.insert` with resumable uploads, Google OAuth
 * connect with the channel chosen, comments through the Data API, the project's daily uploads
 * and units counted in the engine's shared counters and refused up front, access tokens refreshed with the refresh token.
 *
 * @since 0.5.0
 */
import { Redacted } from "effect"
import type { PlatformPlugin } from "../Plugin.ts"
import * as Reasons from "./Reasons.ts"
import { examples } from "./Examples.ts"
import { VideoCredentials } from "./Credentials.ts"
import * as Rules from "./Rules.ts"
import { rules } from "./Rules.ts"
import * as Google from "./GoogleApi.ts"
import * as Options from "./Options.ts"
import * as Quota from "./Quota.ts"
import * as YouTubeAnalytics from "./Analytics.ts"
import * as YouTube from "./YouTube.ts"
import * as YouTubeComments from "./YouTubeComments.ts"
import * as YouTubeConnect from "./YouTubeConnect.ts"

/** A whole number from a setting, or `undefined` when unset; a wrong value stops the start. */
const units = (raw: string | undefined, name: string): number | undefined => {
  if (raw === undefined || raw.trim() === "") return undefined
  const n = Number(raw.trim())
  if (!Number.isInteger(n) || n <= 0) throw new Error(`Invalid configuration ${name}: must be a positive whole number of units`)
  return n
}

/** The YouTube plugin. */
export const youtube: PlatformPlugin<YouTube.Config, YouTubeConnect.Settings, typeof VideoCredentials> = {
  name: "video",
  displayName: rules.displayName,
  credentials: VideoCredentials,
  reasons: Reasons.catalogue.texts,
  examples,
  rules,
  options: Options.spec,
  publish: {
    defaults: { ...YouTube.defaults, clientId: "", clientSecret: Redacted.make("") },
    secrets: ["clientSecret"],
    make: (settings, wire, services) => YouTube.make(settings, wire, services.counters),
    comments: (settings, wire, config, services) =>
      YouTubeComments.make({
        wire,
        apiUrl: settings.apiUrl,
        config,
        refresher: Google.refresh(wire, settings),
        charge: YouTube.chargeFor(settings, services.counters),
        costs: settings.unitCosts
      }),
    analytics: (settings, wire, services) => YouTubeAnalytics.make(settings, wire, services.counters)
  },
  connect: {
    defaults: { ...YouTubeConnect.defaults, clientId: "", clientSecret: Redacted.make("") },
    secrets: ["clientSecret"],
    make: (settings, wire) => YouTubeConnect.make(settings, wire)
  },
  env: (read) => {
    const dailyUnits = units(read.text("POSTWIRE_YOUTUBE_DAILY_UNITS"), "POSTWIRE_YOUTUBE_DAILY_UNITS")
    const dailyUploads = units(read.text("POSTWIRE_YOUTUBE_DAILY_UPLOADS"), "POSTWIRE_YOUTUBE_DAILY_UPLOADS")
    const insert = units(read.text("POSTWIRE_YOUTUBE_UPLOAD_UNITS"), "POSTWIRE_YOUTUBE_UPLOAD_UNITS")
    return {
      publish: {
        apiUrl: read.url("POSTWIRE_YOUTUBE_API_URL"),
        uploadUrl: read.url("POSTWIRE_YOUTUBE_UPLOAD_URL"),
        tokenUrl: read.exactUrl("POSTWIRE_YOUTUBE_TOKEN_URL"),
        clientId: read.text("POSTWIRE_YOUTUBE_CLIENT_ID"),
        clientSecret: read.secret("POSTWIRE_YOUTUBE_CLIENT_SECRET"),
        dailyUnits,
        dailyUploads,
        unitCosts: insert === undefined ? undefined : { ...Quota.defaultCosts, insert }
      },
      connect: {
        clientId: read.text("POSTWIRE_YOUTUBE_CLIENT_ID"),
        clientSecret: read.secret("POSTWIRE_YOUTUBE_CLIENT_SECRET"),
        authorizeUrl: read.exactUrl("POSTWIRE_YOUTUBE_AUTHORIZE_URL"),
        tokenUrl: read.exactUrl("POSTWIRE_YOUTUBE_TOKEN_URL"),
        revokeUrl: read.exactUrl("POSTWIRE_YOUTUBE_REVOKE_URL"),
        apiUrl: read.url("POSTWIRE_YOUTUBE_API_URL")
      }
    }
  },
  capabilities: { choosesAccounts: true },
  analytics: YouTubeAnalytics.capabilities,
  sandbox: {
    // Google access tokens last an hour; refresh tokens do not expire while used.
    tokens: { accessMs: 60 * 60_000, refreshMs: null },
    post: (input, { shortcode, seed }) => {
      const id = shortcode(seed)
      const video = input.media.find((m) => m.record.kind === "video")
      return { id, permalink: YouTube.permalink(id, video !== undefined && Rules.isShort(video.record)) }
    }
  }
}
