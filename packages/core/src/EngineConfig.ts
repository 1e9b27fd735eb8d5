/**
 * The engine's settings. Every limit has the documented default and may be overridden.
 *
 * @since 0.1.0
 */
import { Context, Layer } from "effect"
import { ErrorDetail, type Platform, PostwireError, type TargetRules } from "@postwire/domain"
import * as Keyring from "./secrets/Keyring.ts"

/**
 * The rules of every platform the engine serves, by their wire name: the platform registry's
 * (`@postwire/platforms`' `Registry.catalog`), built-in platforms and plugins alike.
 */
export type PlatformCatalog = ReadonlyMap<string, TargetRules.PlatformRuleSet>

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
  /** The platforms served and their rules: validation, quotas and captions ask them. */
  readonly platforms: PlatformCatalog
  /** Default daily quota per platform (an account may override); from {@link platforms} by default. */
  readonly dailyQuota: Readonly<Record<Platform, number>>
  /** Caption limit per platform; from {@link platforms} by default. */
  readonly captionMax: Readonly<Record<Platform, number>>
  /** Idempotency window. Default 24 hours. */
  readonly idempotencyTtlMs: number
}

const day = 24 * 60 * 60 * 1000

/** One value per platform of the catalog. */
const perPlatform = (
  platforms: PlatformCatalog,
  value: (rules: TargetRules.PlatformRuleSet) => number
): Readonly<Record<Platform, number>> =>
  Object.fromEntries(Array.from(platforms, ([name, rules]) => [name, value(rules)])) as Record<Platform, number>

/**
 * The documented defaults, given the values that have none: the public address, the master
 * secret (one string, or a keyring of several, newest first) and the platforms served (the
 * registry's catalog: `Registry.catalog()` of `@postwire/platforms`).
 */
export const defaultSettings = (
  publicBaseUrl: string,
  secret: string | Keyring.Keyring,
  platforms: PlatformCatalog
): EngineSettings => ({
  publicBaseUrl,
  keyring: typeof secret === "string" ? Keyring.make([secret]) : secret,
  approvalTtlMs: 7 * day,
  cursorTtlMs: day,
  maxRangeMs: 92 * day,
  platforms,
  dailyQuota: perPlatform(platforms, (rules) => rules.dailyQuota),
  captionMax: perPlatform(platforms, (rules) => rules.captionMax),
  idempotencyTtlMs: day
})

/**
 * The `invalid_request` of a platform the engine does not serve (no plugin of that name is
 * registered), naming the platforms it knows.
 */
export const notServed = (settings: Pick<EngineSettings, "platforms">, platform: Platform): PostwireError =>
  new PostwireError({
    code: "invalid_request",
    field: "platform",
    details: {
      detail: ErrorDetail.reason("platform_not_served", { platform, values: Array.from(settings.platforms.keys()).join(", ") })
    }
  })

/** The engine's settings. */
export class EngineConfig extends Context.Service<EngineConfig, EngineSettings>()("postwire/EngineConfig") {
  /** Settings with the documented defaults. */
  static readonly layer = (settings: EngineSettings): Layer.Layer<EngineConfig> =>
    Layer.succeed(EngineConfig)(settings)
}
