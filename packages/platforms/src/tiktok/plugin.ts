/**
 * TikTok as a plugin (wire word `shortvideo`): Content Posting API publishing, Login Kit
 * connect with creator_info, no comments API, tokens refreshed halfway through their life.
 *
 * @since 0.4.0
 */
import { Redacted } from "effect"
import type { PlatformPlugin } from "../Plugin.ts"
import { rules } from "./Rules.ts"
import * as TikTok from "./TikTok.ts"
import * as TikTokComments from "./TikTokComments.ts"
import * as TikTokConnect from "./TikTokConnect.ts"

const day = 24 * 60 * 60 * 1000

/** The TikTok plugin. */
export const tiktok: PlatformPlugin<TikTok.Config, TikTokConnect.Settings> = {
  name: "shortvideo",
  displayName: rules.displayName,
  rules,
  publish: {
    defaults: { ...TikTok.defaults, clientKey: "", clientSecret: Redacted.make("") },
    secrets: ["clientSecret"],
    make: (settings, wire) => TikTok.make(settings, wire),
    comments: () => TikTokComments.adapter
  },
  connect: {
    defaults: { ...TikTokConnect.defaults, clientKey: "", clientSecret: Redacted.make("") },
    secrets: ["clientSecret"],
    make: (settings, wire) => TikTokConnect.make(settings, wire)
  },
  env: (read) => ({
    publish: {
      baseUrl: read.url("POSTWIRE_TIKTOK_BASE_URL"),
      clientKey: read.text("POSTWIRE_TIKTOK_CLIENT_KEY"),
      clientSecret: read.secret("POSTWIRE_TIKTOK_CLIENT_SECRET"),
      pollIntervalMs: read.pollIntervalMs
    },
    connect: {
      clientKey: read.text("POSTWIRE_TIKTOK_CLIENT_KEY"),
      clientSecret: read.secret("POSTWIRE_TIKTOK_CLIENT_SECRET"),
      authorizeUrl: read.exactUrl("POSTWIRE_TIKTOK_AUTHORIZE_URL"),
      apiUrl: read.url("POSTWIRE_TIKTOK_BASE_URL")
    }
  }),
  tokenRenewal: { readsCreatorInfo: true },
  capabilities: { creatorInfo: true },
  sandbox: {
    tokens: { accessMs: day, refreshMs: 365 * day },
    // A real inbox post waits for the creator to finish it in the app; the simulated creator
    // finishes it at once, so a sandbox inbox post gets its public address like a direct one.
    post: (_input, { handle, numericId, seed }) => {
      const id = numericId(seed)
      return { id, permalink: TikTok.permalink(handle, id) }
    }
  }
}
