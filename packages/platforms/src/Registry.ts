/**
 * The platform registry: every platform a server serves, as plugins. The built-in four are
 * listed here (one line each); a deployment adds its own (`PostwireEngine.make({ platforms })`,
 * `makeHandler`, `postwire serve --plugin`). The publishing, connect and comment routers, the
 * engine's rules (`EngineSettings.platforms`) and the account capabilities all read it.
 *
 * @example
 * ```ts
 * import { Registry } from "@postwire/platforms"
 *
 * const registry = Registry.make([myBlogPlugin])
 * registry.names // ["shortvideo", "photo", "pages", "textpost", "atproto", "blog"]
 * ```
 *
 * @since 0.4.0
 */
import type { PlatformCatalog } from "@postwire/core"
import { ErrorDetail, isLocalizedText, type TargetRules } from "@postwire/domain"
import { Schema } from "effect"
import { atproto } from "./atproto/plugin.ts"
import * as ConnectForm from "./connect/ConnectForm.ts"
import { facebook } from "./facebook/plugin.ts"
import { fediverse } from "./fediverse/plugin.ts"
import { instagram } from "./instagram/plugin.ts"
import { linkedin } from "./linkedin/plugin.ts"
import type { PlatformPlugin } from "./Plugin.ts"
import { threads } from "./threads/plugin.ts"
import { tiktok } from "./tiktok/plugin.ts"
import { youtube } from "./youtube/plugin.ts"

/** The built-in platforms, in documentation order. */
export const builtins: ReadonlyArray<PlatformPlugin> = [tiktok, instagram, facebook, threads, fediverse, linkedin, youtube, atproto]

/** A platform's wire word: lowercase letters, digits and `_`, starting with a letter, 2 to 32 characters. */
export const namePattern = /^[a-z][a-z0-9_]{1,31}$/

/** A plugin that cannot be registered, and why (one line, for a start error). */
export class PluginProblem extends Error {
  constructor(
    /** The plugin's name, or where it came from when it has none. */
    readonly plugin: string,
    readonly problem: string
  ) {
    super(`platform plugin ${plugin}: ${problem}`)
    this.name = "PluginProblem"
  }
}

/** The platforms of a server. */
export interface Registry {
  /** Every plugin: the built-in ones, then the added ones in the order given. */
  readonly plugins: ReadonlyArray<PlatformPlugin>
  /** Their wire words, in the same order. */
  readonly names: ReadonlyArray<string>
  /** The plugin of a wire word. */
  readonly get: (name: string) => PlatformPlugin | undefined
  /** Their rules by wire word, for the engine (`EngineSettings.platforms`). */
  readonly catalog: PlatformCatalog
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null

/** What is wrong with a plugin's `reasons`, if anything. */
const reasonsProblemOf = (reasons: unknown): string | undefined => {
  if (reasons === undefined) return undefined
  if (!isRecord(reasons)) return "`reasons` must be an object of texts ({ en, id }) by reason name"
  for (const [name, text] of Object.entries(reasons)) {
    if (!isLocalizedText(text)) return `\`reasons.${name}\` must be a text in English and Indonesian ({ en, id })`
    const problem = ErrorDetail.textProblem(text)
    if (problem !== undefined) return `\`reasons.${name}\` ${problem}`
  }
  return undefined
}

/**
 * Checks that a value is a usable plugin: its name, display name, rules and publisher. Throws
 * {@link PluginProblem} naming what is wrong; `source` names it when it has no name (a file).
 */
export const check = (value: unknown, source = "(unnamed)"): PlatformPlugin => {
  if (!isRecord(value)) throw new PluginProblem(source, "is not an object (export a PlatformPlugin value)")
  const name = value.name
  if (typeof name !== "string") throw new PluginProblem(source, "has no `name` (the platform's wire word)")
  const label = source === "(unnamed)" ? `"${name}"` : `"${name}" (${source})`
  if (!namePattern.test(name)) {
    throw new PluginProblem(label, "`name` must be 2 to 32 lowercase letters, digits or _, starting with a letter")
  }
  if (typeof value.displayName !== "string" || value.displayName === "") throw new PluginProblem(label, "has no `displayName`")
  const rules = value.rules
  if (!isRecord(rules)) throw new PluginProblem(label, "has no `rules`")
  for (const key of ["captionMax", "dailyQuota", "mediaMin", "mediaMax"] as const) {
    const n = rules[key]
    if (typeof n !== "number" || !Number.isInteger(n) || n < 0) throw new PluginProblem(label, `\`rules.${key}\` must be a whole number`)
  }
  if (typeof rules.checkMedia !== "function") throw new PluginProblem(label, "`rules.checkMedia` must be a function")
  if (!isRecord(rules.comments)) throw new PluginProblem(label, "`rules.comments` (the comment capabilities) is missing")
  if (!isRecord(value.publish) || typeof value.publish.make !== "function") {
    throw new PluginProblem(label, "`publish.make` must be a function returning the publisher")
  }
  if (value.connect !== undefined && (!isRecord(value.connect) || typeof value.connect.make !== "function")) {
    throw new PluginProblem(label, "`connect.make` must be a function returning the connector")
  }
  const reasonsProblem = reasonsProblemOf(value.reasons)
  if (reasonsProblem !== undefined) throw new PluginProblem(label, reasonsProblem)
  if (value.credentials !== undefined && !Schema.isSchema(value.credentials)) {
    throw new PluginProblem(label, "`credentials` must be an Effect Schema (the shape of an account's stored credentials)")
  }
  const options = value.options
  if (options !== undefined) {
    if (!isRecord(options) || !Schema.isSchema(options.schema)) {
      throw new PluginProblem(label, "`options.schema` must be an Effect Schema (the per-target options)")
    }
    if (options.resolve !== undefined && typeof options.resolve !== "function") {
      throw new PluginProblem(label, "`options.resolve` must be a function")
    }
  }
  const formProblem = ConnectForm.problemOf(isRecord(value.connect) ? value.connect.form : undefined)
  if (formProblem !== undefined) throw new PluginProblem(label, formProblem)
  return value as unknown as PlatformPlugin
}

/**
 * The registry of the built-in platforms and `extra` plugins. Throws {@link PluginProblem} for
 * a plugin that is not usable or whose name is taken.
 */
export const make = (extra: ReadonlyArray<PlatformPlugin> = []): Registry => {
  const byName = new Map<string, PlatformPlugin>()
  for (const plugin of [...builtins, ...extra]) {
    const checked = check(plugin)
    if (byName.has(checked.name)) throw new PluginProblem(`"${checked.name}"`, "a platform of that name is already registered")
    byName.set(checked.name, checked)
  }
  const plugins = Array.from(byName.values())
  return {
    plugins,
    names: plugins.map((p) => p.name),
    get: (name) => byName.get(name),
    catalog: new Map(plugins.map((p) => [p.name, rulesOf(p)]))
  }
}

/** A plugin's per-target options, as its rules carry them to the engine. */
export const optionsOf = (plugin: PlatformPlugin): TargetRules.OptionsSpec | undefined => plugin.options

const rulesOf = (plugin: PlatformPlugin): TargetRules.PlatformRuleSet => {
  const options = optionsOf(plugin)
  return options === undefined ? plugin.rules : { ...plugin.rules, options }
}

/** The rules of the built-in platforms and `extra` plugins, for `defaultSettings`. */
export const catalog = (extra: ReadonlyArray<PlatformPlugin> = []): PlatformCatalog => make(extra).catalog

/** A registry's plugin of `name`; a defect when there is none (the wire and the store checked it). */
export const plugin = (registry: Registry, name: string): PlatformPlugin => {
  const found = registry.get(name)
  if (found === undefined) throw new PluginProblem(`"${name}"`, `is not registered (known: ${registry.names.join(", ")})`)
  return found
}
