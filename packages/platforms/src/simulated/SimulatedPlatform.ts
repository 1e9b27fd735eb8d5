/**
 * The simulated platform behind every sandbox account: what a new user sees first.
 *
 * It publishes at once (a shortvideo inbox post too: the simulated creator finishes it in the
 * app at once) with a platform-shaped id and, as its permalink, the server's page of the sandbox
 * target (`{public URL}/sandbox/{workspace}/{post}/{target}`: a sandbox address must never look
 * like a real post on the platform), and refuses what the
 * real platform would refuse (media rules, a shortvideo direct post without consent, a privacy
 * level the creator does not offer, a video longer than the creator may post). An account's
 * `simulate` options make it misbehave on purpose:
 *
 * - `error`: a normalized code (e.g. `platform_unavailable`) to fail with, for the first `times`
 *   attempts of each target (`target.attempts` counts the previous ones), or always when `times`
 *   is absent;
 * - `max_video_duration_sec`: the creator's longest video (default 600);
 * - `privacy_level_options`: the privacy levels the creator offers (default all four).
 *
 * Everything is derived from the ids, so a target publishes to the same permalink every time.
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"
import { type AccountRecord, type CreatorInfo, type PlatformFailure, type PublishInput, type PublishStep, Spans } from "@postwire/core"
import { defaultMaxVideoDurationSec, ErrorDetail, isErrorCode, PrivacyLevel, TargetRules } from "@postwire/domain"
import { Effect } from "effect"
import * as MediaRules from "../internal/MediaRules.ts"
import { failure } from "../internal/Wire.ts"
import type { PlatformPlugin } from "../Plugin.ts"
import * as Registry from "../Registry.ts"

/** The simulated platform, shaped like a `PlatformClient`. */
export interface SimulatedPlatform {
  readonly publish: (input: PublishInput) => Effect.Effect<PublishStep, PlatformFailure>
  readonly creatorInfo: (account: AccountRecord) => Effect.Effect<CreatorInfo, PlatformFailure>
}

const digest = (text: string): Buffer => createHash("sha256").update(text).digest()

/** A 19-digit id like the platforms' int64 ids, stable for a given seed. */
const numericId = (seed: string): string => {
  const n = digest(seed).readBigUInt64BE(0) % 9_000_000_000_000_000_000n
  return String(1_000_000_000_000_000_000n + n)
}

const SHORTCODE_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

/** An 11-character shortcode like Instagram's and Threads', stable for a given seed. */
const shortcode = (seed: string): string =>
  Array.from(digest(seed).subarray(0, 11), (byte) => SHORTCODE_ALPHABET[byte % 64]).join("")

const handleOf = (account: AccountRecord) => account.handle.replace(/^@/, "")

let builtin: Registry.Registry | undefined

/** The registry of the built-in platforms, made when first needed. */
const builtinRegistry = (): Registry.Registry => {
  builtin ??= Registry.make()
  return builtin
}

/**
 * The id and permalink a sandbox target publishes to: its platform plugin's `sandbox.post`,
 * deterministic from the account and target ids; a plugin without one gets a numeric id and no
 * address.
 */
export const simulatedPost = (
  input: PublishInput,
  registry: Registry.Registry = builtinRegistry()
): { readonly id: string; readonly permalink: string | null } => {
  const seed = `${input.account.id}:${input.target.id}`
  const post = registry.get(input.account.platform)?.sandbox?.post
  return post === undefined
    ? { id: numericId(seed), permalink: null }
    : post(input, { seed, handle: handleOf(input.account), numericId, shortcode })
}

const creatorInfoOf = (account: AccountRecord): CreatorInfo => ({
  nickname: account.handle,
  username: handleOf(account),
  privacyLevelOptions: account.simulate?.privacy_level_options ?? PrivacyLevel.literals,
  commentDisabled: false,
  duetDisabled: false,
  stitchDisabled: false,
  maxVideoPostDurationSec: account.simulate?.max_video_duration_sec ?? defaultMaxVideoDurationSec
})

/** The failure an account's `simulate.error` asks for on this attempt, if any. */
const simulatedFailure = (input: PublishInput): PlatformFailure | undefined => {
  const simulate = input.account.simulate
  if (simulate?.error === undefined) return undefined
  if (simulate.times !== undefined && input.target.attempts >= simulate.times) return undefined
  const code = isErrorCode(simulate.error) ? simulate.error : "platform_unavailable"
  return failure(code, `simulated_${simulate.error}`, {
    state: null,
    needsReconnect: code === "token_expired" ? true : undefined,
    details: code === "media_invalid" ? { platform: input.account.platform, detail: ErrorDetail.reason("simulated_failure") } : undefined
  })
}

/**
 * Checks a target whose options need a person's consent (its plugin's `options.needsConsent`) as
 * the real platform would, with the simulated creator's options when the platform has them.
 */
const consentFailure = (input: PublishInput, plugin: PlatformPlugin | undefined): PlatformFailure | undefined => {
  const stored = (input.target.options as Readonly<Record<string, unknown>>)[input.account.platform]
  const spec = plugin === undefined ? undefined : Registry.optionsOf(plugin)
  if (spec?.needsConsent?.(stored) !== true) return undefined
  const consent = input.target.consent?.consent
  if (consent === undefined) return failure("consent_required", "consent_missing", { state: null })
  const info = creatorInfoOf(input.account)
  if (!info.privacyLevelOptions.includes(consent.privacy_level)) {
    return failure("privacy_level_mismatch", "privacy_level_option_mismatch", { state: null })
  }
  const broken = TargetRules.consentRuleBreak(consent)
  if (broken !== undefined) return failure(broken.code, broken.rule, { state: null })
  const duration = input.media[0]?.record.durationSeconds ?? null
  if (plugin?.capabilities?.creatorInfo === true && duration !== null && duration > info.maxVideoPostDurationSec) {
    return failure("media_too_long", "max_video_post_duration_sec", {
      details: { duration: Math.ceil(duration), limit: info.maxVideoPostDurationSec },
      state: null
    })
  }
  return undefined
}

/** Where a simulated platform's targets are shown. */
export interface Options {
  /**
   * The server's sandbox pages (`{public URL}/sandbox`): a target's permalink is
   * `{pageUrl}/{workspace id}/{post id}/{target id}`. Absent: the address its plugin makes up.
   */
  readonly pageUrl?: string | undefined
}

/** The page of a sandbox target under `pageUrl` (see {@link Options}). */
export const pageOf = (pageUrl: string, input: Pick<PublishInput, "post" | "target">): string =>
  `${pageUrl.replace(/\/+$/, "")}/${[input.post.workspaceId, input.post.id, input.target.id].map(encodeURIComponent).join("/")}`

/**
 * Creates the simulated platform of a registry's platforms (default: the built-in ones): a
 * sandbox target must meet its platform's rules as the real platform's would.
 */
export const make = (registry: Registry.Registry = builtinRegistry(), options: Options = {}): SimulatedPlatform => ({
  publish: (input) =>
    Effect.suspend(() => {
      const plugin = registry.get(input.account.platform)
      const refused =
        simulatedFailure(input) ??
        (plugin === undefined ? undefined : MediaRules.check(input, plugin.rules)) ??
        consentFailure(input, plugin)
      if (refused !== undefined) return Effect.fail(refused)
      const post = simulatedPost(input, registry)
      return Effect.succeed<PublishStep>({
        _tag: "Published",
        platformPostId: post.id,
        permalink: options.pageUrl === undefined ? post.permalink : pageOf(options.pageUrl, input),
        state: { simulated: true }
      })
    }).pipe(Spans.withSpan("platforms.simulated.publish")),
  creatorInfo: (account) => Effect.sync(() => creatorInfoOf(account))
})
