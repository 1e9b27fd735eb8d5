/**
 * Checks a create request against the workspace and the platforms' rules, and lists every
 * problem found. Create fails on the first (by status class); validate returns them all.
 *
 * @since 0.1.0
 */

import {
  ErrorDetail,
  type ErrorDetails,
  type LocalizedText,
  type Platform,
  type Post,
  PostwireError,
  parseInstant,
  RequestIssues,
  TargetRules
} from "@postwire/domain"
import { Cause, Effect, Exit, Option, Schema } from "effect"
import type { Caller } from "../Caller.ts"
import { EngineConfig, type EngineSettings } from "../EngineConfig.ts"
import { PlatformClient } from "../platform/PlatformClient.ts"
import type { AccountRecord } from "../store/AccountStore.ts"
import type { MediaRecord } from "../store/PostStore.ts"
import { Store } from "../store/Store.ts"
import { type CalendarDay, quotaLimit, quotaWindow } from "./Quota.ts"

/** A target with its account, ready to be created. */
export interface PlannedTarget {
  readonly index: number
  readonly input: Post.TargetInput
  readonly account: AccountRecord
  readonly options: Post.TargetOptions
  /** The rules of the account's platform. */
  readonly rules: TargetRules.PlatformRuleSet
}

/** A request that passed every check, with everything loaded. */
export interface PostPlan {
  readonly scheduledAt: number | null
  readonly publishAt: number
  readonly targets: ReadonlyArray<PlannedTarget>
  readonly media: ReadonlyArray<MediaRecord>
  readonly approvalMode: "link" | "none"
}

/** The outcome of planning: the plan when nothing is wrong, and every problem. */
export interface PlanResult {
  readonly plan: Option.Option<PostPlan>
  readonly problems: ReadonlyArray<PostwireError>
}

const problem = (
  code: PostwireError["code"],
  field: string | undefined,
  details?: ErrorDetails
): PostwireError => new PostwireError({ code, field, details })

/** Why a target's options do not fit its account: they are for another platform. */
const platformMismatch = (account: AccountRecord): LocalizedText =>
  ErrorDetail.reason("account_of_platform", { platform: account.platform })

/** The longest video an account allows when it says (its simulated limit); else the platform's rules decide. */
export const maxVideoSeconds = (account: Pick<AccountRecord, "simulate">): number | undefined =>
  account.simulate?.max_video_duration_sec

/**
 * What the platform rules ({@link TargetRules}) need to know of a target: checked with these
 * facts at validate, create and publish alike, so that they always agree.
 */
export const ruleFacts = (
  account: Pick<AccountRecord, "platform" | "simulate">,
  options: Post.TargetOptions,
  rules: TargetRules.PlatformRuleSet
): TargetRules.TargetFacts => ({
  platform: account.platform,
  rules,
  options: (options as Readonly<Record<string, unknown>>)[account.platform],
  maxVideoSeconds: maxVideoSeconds(account)
})

/** The keys of a target entry that are platform options (`targets[].<platform>`): all but `account_id`. */
const optionKeysOf = (input: Post.TargetInput): ReadonlyArray<string> =>
  Object.keys(input).filter((key) => key !== "account_id" && (input as Readonly<Record<string, unknown>>)[key] !== undefined)

/** A field path below `at` from a schema issue's path (`tone`, `items[0].kind`). */
const fieldBelow = (at: string, path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>((field, key) => (typeof key === "number" ? `${field}[${key}]` : `${field}.${String(key)}`), at)

/**
 * A target's options on its platform, from the request: decoded with the platform's
 * `options.schema` (400 naming each wrong field), then completed or refused by its `resolve`
 * (422); the result is stored encoded, under the platform's word. Problems are pushed to
 * `problems`; `undefined` when there were any.
 */
export const resolveTargetOptions = (
  at: string,
  platform: Platform,
  rules: TargetRules.PlatformRuleSet,
  given: unknown,
  post: TargetRules.OptionsPost,
  problems: Array<PostwireError>
): Post.TargetOptions | undefined => {
  const spec = rules.options
  if (spec === undefined) return {}
  const key = `${at}.${platform}`
  let decoded: unknown
  if (given !== undefined) {
    const exit = Schema.decodeUnknownExit(spec.schema as Schema.Codec<unknown, unknown>)(given, {
      errors: "all",
      onExcessProperty: "error"
    })
    if (Exit.isFailure(exit)) {
      const error = Cause.findErrorOption(exit.cause)
      const described = Option.isSome(error) && Schema.isSchemaError(error.value) ? RequestIssues.describe(error.value.issue) : []
      for (const issue of described) problems.push(problem("invalid_request", fieldBelow(key, issue.path), { detail: issue.detail }))
      if (described.length === 0) problems.push(problem("invalid_request", key, { detail: ErrorDetail.reason("malformed") }))
      return undefined
    }
    decoded = exit.value
  }
  const resolution = spec.resolve === undefined ? TargetRules.resolved(decoded) : spec.resolve(decoded, post)
  if (resolution._tag === "Refused") {
    const { code, field, details } = resolution.detail
    problems.push(problem(code, field === undefined || field === "" ? key : `${key}.${field}`, details))
    return undefined
  }
  if (resolution.value === undefined) return {}
  const encoded = Schema.encodeUnknownExit(spec.schema as Schema.Codec<unknown, unknown>)(resolution.value)
  // A resolve that answers what its own schema cannot encode is the plugin's bug.
  if (Exit.isFailure(encoded)) throw new Error(`the options of platform ${platform} do not encode with its options.schema`)
  return { [platform]: encoded.value }
}

/**
 * The caption's problem on a platform, if any: `caption_too_long` counted as the platform counts
 * (its rules' `captionLength`) against the configured limit, then the platform's other caption
 * rules (`checkCaption`: hashtags, mentions, links) as `caption_invalid`.
 */
export const captionProblem = (
  settings: EngineSettings,
  platform: Platform,
  caption: string,
  options?: Post.TargetOptions
): PostwireError | undefined => {
  const rules = settings.platforms.get(platform)
  const limit = settings.captionMax[platform] ?? rules?.captionMax
  if (limit === undefined) return undefined
  const length = rules === undefined ? caption.length : TargetRules.captionLength(rules, caption)
  if (length > limit) return problem("caption_too_long", "caption", { limit, platform })
  const broken = rules?.checkCaption?.(caption, { options: (options as Readonly<Record<string, unknown>> | undefined)?.[platform] })
  return broken === undefined ? undefined : problem(broken.code, broken.field, broken.details)
}

/** How a request's quota is checked beyond the rolling 24 hours. */
export interface PlanOptions {
  /** The calendar day of `scheduled_at` (batch creation): a full day is `quota_exceeded_for_day`. */
  readonly day?: CalendarDay | undefined
}

/**
 * The `quota_exceeded_for_day` failure: the day of `scheduled_at` is full for the account.
 */
export const dayFull = (day: CalendarDay, account: AccountRecord, limit: number): PostwireError =>
  problem("quota_exceeded_for_day", "scheduled_at", { account_id: account.id, day: day.date, limit })

/**
 * The `quota_exceeded` failure: the rolling 24 hours of the target at `index` are full; they
 * reset 24 hours after the oldest target counted in them.
 */
export const quotaExceeded = (index: number, limit: number, oldest: number): PostwireError =>
  problem("quota_exceeded", `targets[${index}].account_id`, {
    limit,
    resets_at: new Date(oldest + 24 * 60 * 60 * 1000).toISOString()
  })

/** The target statuses a quota does not count. */
const uncounted: ReadonlySet<string> = new Set(["cancelled", "rejected", "failed"])

/**
 * The account's targets of one kind of post (a platform's `rules.quotas` entry) in `window`:
 * every target not cancelled, rejected or failed, at its publish time (else its post's), whose
 * post is of the kind. Reads the platform's posts of the account's profile from a day before the
 * window (a target may publish after its post's time), newest first, until the limit is passed.
 */
const kindUsage = Effect.fn("posts.kindUsage")(function* (
  caller: Caller,
  account: AccountRecord,
  quota: TargetRules.KindQuota,
  window: { readonly from: number; readonly to: number }
) {
  const store = yield* Store
  const day = 24 * 60 * 60 * 1000
  const filter = { profileId: account.profileId, platform: account.platform, from: window.from - day, to: window.to }
  let used = 0
  let oldest: number | null = null
  let after: { readonly sortKey: number; readonly id: string } | undefined
  const pageSize = 100
  while (used <= quota.limit) {
    const page = yield* store.listPosts(caller.workspaceId, filter, after, pageSize)
    const counted = page.flatMap(({ post, targets }) =>
      targets.flatMap((target) => {
        if (target.accountId !== account.id || uncounted.has(target.status)) return []
        const at = target.publishedAt ?? post.publishAt
        return at >= window.from && at < window.to ? [{ post, target, at }] : []
      })
    )
    if (counted.length > 0) {
      const records = yield* store.getMediaItems(caller.workspaceId, Array.from(new Set(counted.flatMap(({ post }) => post.media))))
      const byId = new Map(records.map((m) => [m.id, m]))
      for (const { post, target, at } of counted) {
        const items = post.media.flatMap((id) => {
          const found = byId.get(id)
          return found === undefined ? [] : [found]
        })
        if (items.length !== post.media.length) continue
        if (!quota.counts(items, (target.options as Readonly<Record<string, unknown>>)[account.platform])) continue
        used += 1
        oldest = oldest === null ? at : Math.min(oldest, at)
      }
    }
    const last = page[page.length - 1]
    if (page.length < pageSize || last === undefined) break
    after = { sortKey: last.post.publishAt, id: last.post.id }
  }
  return { used, oldest }
})

/** Checks a create request; loads the profile, accounts and media it names. */
export const planPost = Effect.fn("posts.plan")(function* (
  caller: Caller,
  request: Post.CreatePostRequest,
  options: PlanOptions = {}
) {
  const store = yield* Store
  const settings: EngineSettings = yield* EngineConfig
  const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
  const problems: Array<PostwireError> = []

  const approvalMode = request.approval?.mode ?? "link"
  const scheduledAt = request.scheduled_at === undefined || request.scheduled_at === null
    ? null
    : parseInstant(request.scheduled_at)
  const publishAt = scheduledAt ?? now
  const window = quotaWindow(publishAt)

  const accountIds = request.targets.map((t) => t.account_id)
  // One round trip where the store can (the profile, accounts, media and each account's usage
  // of the rolling 24 hours); else one read each.
  const inputs = store.readPlanInputs === undefined
    ? undefined
    : yield* store.readPlanInputs(caller.workspaceId, request.profile_id, accountIds, request.media, window.from, window.to)
  const profile = inputs === undefined ? yield* store.getProfile(caller.workspaceId, request.profile_id) : inputs.profile
  if (Option.isNone(profile)) problems.push(problem("not_found", "profile_id", { resource: ErrorDetail.resource("profile") }))

  const accounts = inputs === undefined ? yield* store.getAccounts(caller.workspaceId, accountIds) : inputs.accounts
  const byId = new Map(accounts.map((a) => [a.id, a]))
  const mediaRecords = inputs === undefined ? yield* store.getMediaItems(caller.workspaceId, request.media) : inputs.media
  const mediaById = new Map(mediaRecords.map((m) => [m.id, m]))
  const media: Array<MediaRecord> = []
  request.media.forEach((id, i) => {
    const found = mediaById.get(id)
    if (found === undefined) problems.push(problem("media_not_found", `media[${i}]`))
    else media.push(found)
  })
  const seen = new Set<string>()
  request.media.forEach((id, i) => {
    if (seen.has(id)) problems.push(problem("invalid_request", `media[${i}]`, { detail: ErrorDetail.reason("media_listed_twice") }))
    seen.add(id)
  })

  const targets: Array<PlannedTarget> = []
  const seenAccounts = new Set<string>()

  for (const [index, input] of request.targets.entries()) {
    const at = `targets[${index}]`
    // A key is a platform's options: one of a served platform that takes options.
    const unknownKeys = optionKeysOf(input).filter((key) => settings.platforms.get(key)?.options === undefined)
    if (unknownKeys.length > 0) {
      for (const key of unknownKeys) problems.push(problem("invalid_request", `${at}.${key}`, { detail: ErrorDetail.reason("unknown_field") }))
      continue
    }
    if (seenAccounts.has(input.account_id)) {
      problems.push(problem("invalid_request", `${at}.account_id`, { detail: ErrorDetail.reason("account_listed_twice") }))
      continue
    }
    seenAccounts.add(input.account_id)
    const account = byId.get(input.account_id)
    if (account === undefined) {
      problems.push(problem("account_forbidden", `${at}.account_id`))
      continue
    }
    if (caller.kind === "test" && !account.sandbox) {
      problems.push(problem("test_key_live_account", `${at}.account_id`))
      continue
    }
    if (Option.isSome(profile) && account.profileId !== profile.value.id) {
      problems.push(
        problem("invalid_request", `${at}.account_id`, {
          detail: ErrorDetail.reason("account_of_other_profile", { profile_id: account.profileId })
        })
      )
      continue
    }
    const rules = settings.platforms.get(account.platform)
    if (rules === undefined) {
      problems.push(
        problem("invalid_request", `${at}.account_id`, {
          detail: ErrorDetail.reason("platform_not_served", {
            platform: account.platform,
            values: Array.from(settings.platforms.keys()).join(", ")
          })
        })
      )
      continue
    }
    const foreign = optionKeysOf(input).find((key) => key !== account.platform)
    if (foreign !== undefined) {
      problems.push(problem("invalid_request", `${at}.${foreign}`, { detail: platformMismatch(account) }))
      continue
    }
    const given = (input as Readonly<Record<string, unknown>>)[account.platform]
    const options = resolveTargetOptions(at, account.platform, rules, given, { caption: request.caption, media }, problems)
    if (options === undefined) continue
    targets.push({ index, input, account, options, rules })
  }

  // Platform rules (422): only meaningful once the references resolve.
  for (const t of targets) {
    const captionTooLong = captionProblem(settings, t.account.platform, request.caption, t.options)
    if (captionTooLong !== undefined) problems.push(captionTooLong)
    if (media.length === request.media.length) {
      const broken = TargetRules.mediaRuleBreak(ruleFacts(t.account, t.options, t.rules), media)
      if (broken !== undefined) problems.push(problem(broken.code, broken.field, broken.details))
    }
    // A target that publishes only with a person's consent (its platform's `needsConsent`).
    const stored = (t.options as Readonly<Record<string, unknown>>)[t.account.platform]
    if (t.rules.options?.needsConsent?.(stored) === true) {
      const consentAt = `targets[${t.index}].${t.account.platform}.consent`
      const consent = TargetRules.consentOf(stored)
      if (consent === undefined) {
        if (approvalMode === "none") problems.push(problem("consent_required", consentAt))
      } else {
        const allowed = t.account.simulate?.privacy_level_options
        if (allowed !== undefined && !allowed.includes(consent.privacy_level)) {
          problems.push(problem("privacy_level_mismatch", `${consentAt}.privacy_level`))
        } else {
          const broken = TargetRules.consentRuleBreak(consent)
          if (broken !== undefined) problems.push(problem(broken.code, `${consentAt}.privacy_level`, broken.details))
        }
      }
    }
  }

  // Quotas: each target takes one slot of its account's rolling 24 hours, and with a day given,
  // one of that calendar day, whose being full is the answer that leads.
  for (const t of targets) {
    const limit = quotaLimit(t.account, settings)
    const { day } = options
    if (day !== undefined) {
      const daily = yield* store.countQuotaUsage(caller.workspaceId, t.account.id, day.from, day.to)
      if (daily.used + 1 > limit) {
        problems.push(dayFull(day, t.account, limit))
        continue
      }
    }
    // With a day, the window is counted after it, as it always was (see below).
    const read = day === undefined ? inputs?.usage.get(t.account.id) : undefined
    const usage = read ?? (yield* store.countQuotaUsage(caller.workspaceId, t.account.id, window.from, window.to))
    if (usage.used + 1 > limit) {
      // A concurrent create may have filled the day between the two counts: the full day leads.
      const daily = day === undefined ? undefined : yield* store.countQuotaUsage(caller.workspaceId, t.account.id, day.from, day.to)
      problems.push(
        day !== undefined && daily !== undefined && daily.used + 1 > limit
          ? dayFull(day, t.account, limit)
          : quotaExceeded(t.index, limit, usage.oldest ?? publishAt)
      )
    }
  }

  // Quotas of some kinds of posts (Facebook: 30 reels a Page in 24 hours), beside the daily one.
  for (const t of targets) {
    const quotaAt = `targets[${t.index}].account_id`
    if (media.length !== request.media.length || problems.some((p) => p.code === "quota_exceeded" && p.field === quotaAt)) continue
    const stored = (t.options as Readonly<Record<string, unknown>>)[t.account.platform]
    for (const quota of t.rules.quotas ?? []) {
      if (!quota.counts(media, stored)) continue
      const usage = yield* kindUsage(caller, t.account, quota, window)
      if (usage.used + 1 > quota.limit) {
        problems.push(
          problem("quota_exceeded", quotaAt, {
            limit: { en: `${quota.limit} ${quota.what.en}`, id: `${quota.limit} ${quota.what.id}` },
            resets_at: new Date((usage.oldest ?? publishAt) + 24 * 60 * 60 * 1000).toISOString()
          })
        )
        break
      }
    }
  }

  // A platform's own up-front check (a budget shared by the deployment, spent: YouTube's daily
  // units), for targets that passed every other one.
  const client = yield* Effect.serviceOption(PlatformClient)
  const admit = Option.isSome(client) ? client.value.admit : undefined
  if (admit !== undefined) {
    for (const t of targets) {
      const quotaAt = `targets[${t.index}].account_id`
      if (t.account.sandbox || problems.some((p) => p.code === "quota_exceeded" && p.field === quotaAt)) continue
      const refused = yield* admit({ account: t.account, options: t.options, publishAt })
      if (refused !== undefined) problems.push(problem(refused.code, quotaAt, refused.details))
    }
  }

  const plan: Option.Option<PostPlan> =
    problems.length === 0 ? Option.some({ scheduledAt, publishAt, targets, media, approvalMode }) : Option.none()
  return { plan, problems } satisfies PlanResult
})

const classOrder = [400, 403, 404, 422, 429]

/** The failure create answers with: the first problem by status class; a 422 lists all 422s. */
export const firstFailure = (problems: ReadonlyArray<PostwireError>): PostwireError => {
  for (const status of classOrder) {
    // consent_required leads: it is the rule a caller must act on first.
    const matching = problems
      .filter((p) => p.httpStatus === status)
      .sort((a, b) => Number(b.code === "consent_required") - Number(a.code === "consent_required"))
    const first = matching[0]
    if (first !== undefined) {
      return status === 422 && matching.length > 1
        ? new PostwireError({ ...first, code: first.code, issues: matching })
        : first
    }
  }
  return problems[0]!
}
