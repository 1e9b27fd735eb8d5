/**
 * The engine's settings. Every limit has the documented default and may be overridden.
 *
 * @since 0.1.0
 */
import { Context, Layer } from "effect"
import { type Platform, platformRules } from "@postwire/domain"

/** Settings the use-cases read. */
export interface EngineSettings {
  /** Base of approval links and docs links, e.g. `http://localhost:8080`. */
  readonly publicBaseUrl: string
  /** Server secret (≥ 32 bytes) keying cursors and approval tokens. Never leaves the server. */
  readonly secret: string
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

/** The documented defaults, given the two values that have none. */
export const defaultSettings = (publicBaseUrl: string, secret: string): EngineSettings => ({
  publicBaseUrl,
  secret,
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
