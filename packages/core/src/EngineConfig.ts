/**
 * The engine's settings. Every limit has the documented default and may be overridden.
 *
 * @since 0.1.0
 */
import { Context, Layer } from "effect"
import { type Platform, platformRules } from "@postwire/domain"
import * as Keyring from "./secrets/Keyring.ts"

/** Settings the use-cases read. */
export interface EngineSettings {
  /** Base of approval links and docs links, e.g. `http://localhost:8080`. */
  readonly publicBaseUrl: string
  /**
   * The server's master secrets, newest first: every key that seals credentials or signs
   * approval links, media addresses, cursors and sandbox codes derives from them. Never leaves
   * the server, never stored in the database.
   */
  readonly keyring: Keyring.Keyring
  /** How long an approval link is valid. Default 7 days. */
  readonly approvalTtlMs: number
  /** How long a list cursor is valid. Default 24 hours. */
  readonly cursorTtlMs: number
  /** Longest `from`/`to` range of a list. Default 92 days. */
  readonly maxRangeMs: number
  /** Default daily quota per platform (an account may override). */
  readonly dailyQuota: Readonly<Record<Platform, number>>
  /** Caption limit per platform. */
  readonly captionMax: Readonly<Record<Platform, number>>
  /** Idempotency window. Default 24 hours. */
  readonly idempotencyTtlMs: number
}

const day = 24 * 60 * 60 * 1000

/**
 * The documented defaults, given the two values that have none: the public address and the
 * master secret (one string, or a keyring of several, newest first).
 */
export const defaultSettings = (publicBaseUrl: string, secret: string | Keyring.Keyring): EngineSettings => ({
  publicBaseUrl,
  keyring: typeof secret === "string" ? Keyring.make([secret]) : secret,
  approvalTtlMs: 7 * day,
  cursorTtlMs: day,
  maxRangeMs: 92 * day,
  dailyQuota: {
    shortvideo: platformRules.shortvideo.dailyQuota,
    photo: platformRules.photo.dailyQuota,
    pages: platformRules.pages.dailyQuota,
    textpost: platformRules.textpost.dailyQuota
  },
  captionMax: {
    shortvideo: platformRules.shortvideo.captionMax,
    photo: platformRules.photo.captionMax,
    pages: platformRules.pages.captionMax,
    textpost: platformRules.textpost.captionMax
  },
  idempotencyTtlMs: day
})

/** The engine's settings. */
export class EngineConfig extends Context.Service<EngineConfig, EngineSettings>()("postwire/EngineConfig") {
  /** Settings with the documented defaults. */
  static readonly layer = (settings: EngineSettings): Layer.Layer<EngineConfig> =>
    Layer.succeed(EngineConfig)(settings)
}
