/**
 * Analytics collection: a worker loop that reads published targets' metrics on the schedule of
 * `AnalyticsSchedule` (often in the first hours, then daily, finished after 30 days by default)
 * and each account's metrics once a day.
 *
 * One claim takes many due targets (`FOR UPDATE SKIP LOCKED` by `next_due_at` in SQL, an index
 * range); they are grouped per account and read in chunks of the platform's `batchSize`, one
 * platform call each where the platform allows it. Every call is taken from the account's
 * hourly budget of platform calls, the one comment polling spends (`comment_call_budgets`); an
 * account out of budget is read again when the next hour starts. A throttled account (the
 * platform names when to come back) waits until then; other failures back off (5, 10, 20 …
 * minutes, at most 6 hours). A refused token makes the account `needs_reconnect`, with its
 * event, and its targets wait a day (the reading resumes once it is reconnected). Each reading
 * is stored as a snapshot, once, with its gain added to the account's rollup.
 *
 * @since 0.5.0
 */
import { Cause, Clock, Effect, Option } from "effect"
import type { Ids } from "@postwire/domain"
import * as AccountEvents from "../accounts/AccountEvents.ts"
import * as CommentSchedule from "../comments/CommentSchedule.ts"
import { CommentStore } from "../comments/CommentStore.ts"
import { sealUpdate } from "../comments/Comments.ts"
import * as LeasedWork from "../internal/LeasedWork.ts"
import { type CredentialsCipher, openAccountCredentials } from "../secrets/CredentialsCipher.ts"
import { PlatformFailure } from "../platform/PlatformFailure.ts"
import type { AccountRecord } from "../store/AccountStore.ts"
import type { TargetRecord } from "../store/PostStore.ts"
import { Store } from "../store/Store.ts"
import { type AnalyticsCapabilities, AnalyticsPlatform } from "./AnalyticsPlatform.ts"
import * as AnalyticsSchedule from "./AnalyticsSchedule.ts"
import { type AnalyticsTarget, AnalyticsStore, type CollectionSave, type TargetOutcome } from "./AnalyticsStore.ts"

/** How a worker instance collects metrics. */
export interface AnalyticsCollectionSettings extends LeasedWork.LeasedSettings {
  /** Platform calls one account may spend per clock hour, shared with comment polling. */
  readonly hourlyCallBudget: number
  readonly schedule: AnalyticsSchedule.ScheduleSettings
}

/** The defaults, for an instance named `owner`: 200 targets a claim. */
export const defaults = (owner: string): AnalyticsCollectionSettings => ({
  owner,
  concurrency: 200,
  leaseMs: 5 * 60_000,
  idlePollMs: 15_000,
  hourlyCallBudget: CommentSchedule.defaultHourlyCallBudget,
  schedule: AnalyticsSchedule.defaultSchedule
})

/** The services collection needs. */
export type AnalyticsCollectionServices = Store | AnalyticsStore | CommentStore | AnalyticsPlatform | CredentialsCipher

/** What a round did, per target claimed. */
export type CollectOutcome = "read" | "rescheduled" | "failed" | "over_budget" | "stopped" | "lost"

/** `YYYY-MM-DD` of `at` in UTC. */
export const utcDate = (at: number): string => new Date(at).toISOString().slice(0, 10)

const reschedule = (t: AnalyticsTarget, nextDueAt: number | null, failures = t.failures): TargetOutcome => ({
  targetId: t.targetId,
  state: nextDueAt === null ? "finished" : t.state,
  nextDueAt,
  failures
})

/** The targets' records, as the platform adapters take them (one read per post). */
const targetRecords = Effect.fnUntraced(function* (workspaceId: Ids.WorkspaceId, targets: ReadonlyArray<AnalyticsTarget>) {
  const store = yield* Store
  const records = new Map<string, TargetRecord>()
  for (const postId of new Set(targets.map((t) => t.postId))) {
    const post = yield* store.getPost(workspaceId, postId)
    if (Option.isNone(post)) continue
    for (const target of post.value.targets) records.set(target.id, target)
  }
  return records
})

/** Reads the account's metrics when they are due (daily). */
const collectAccountMetrics = Effect.fnUntraced(function* (
  settings: AnalyticsCollectionSettings,
  account: AccountRecord,
  opened: AccountRecord,
  capabilities: AnalyticsCapabilities,
  at: number
) {
  if (capabilities.account.length === 0) return
  const analytics = yield* AnalyticsStore
  const platform = yield* AnalyticsPlatform
  const comments = yield* CommentStore
  const state = yield* analytics.getAccount(account.workspaceId, account.id)
  if (Option.isSome(state) && state.value.nextDueAt > at) return
  const window = CommentSchedule.budgetWindow(at)
  const allowed = yield* comments.takeCallBudget(account.workspaceId, account.id, window, settings.hourlyCallBudget, 1)
  if (!allowed) return
  const since = utcDate(
    Option.isSome(state) && state.value.collectedAt !== null ? state.value.collectedAt - 86_400_000 : at - 7 * 86_400_000
  )
  const result = yield* Effect.result(platform.collectAccount({ account: opened, since, now: at }))
  if (result._tag === "Failure") {
    yield* Effect.logWarning("reading the account's metrics failed", { code: result.failure.code })
    yield* analytics.saveAccount(account.workspaceId, account.id, { at, nextDueAt: at + 3_600_000, today: utcDate(at) })
    return
  }
  const read = result.success
  if (read.calls > 1) yield* comments.addCalls(account.workspaceId, account.id, window, read.calls - 1)
  yield* analytics.saveAccount(account.workspaceId, account.id, {
    at,
    nextDueAt: at + settings.schedule.accountEveryMs,
    today: utcDate(at),
    reading: {
      current: read.current,
      currentRaw: read.currentRaw,
      days: read.days.map((d) => ({ date: d.date, values: d.metrics, raw: d.raw }))
    }
  })
})

/**
 * Reads one account's claimed targets once, in chunks of the platform's batch size, and saves
 * every outcome in one write: readings, reschedules, the account's new tokens or its
 * `needs_reconnect`.
 */
export const collectAccount = Effect.fn("analytics.account")(
  function* (settings: AnalyticsCollectionSettings, claimed: ReadonlyArray<AnalyticsTarget>) {
    const store = yield* Store
    const analytics = yield* AnalyticsStore
    const platform = yield* AnalyticsPlatform
    const comments = yield* CommentStore
    const at = yield* Clock.currentTimeMillis
    const first = claimed[0]!
    const { schedule } = settings
    const outcomes: Array<TargetOutcome> = []
    const tally: Array<CollectOutcome> = []
    let credentials: string | undefined
    let reconnect: CollectionSave["reconnect"]
    const finish = Effect.fnUntraced(function* (account: AccountRecord | undefined) {
      if (account === undefined || outcomes.length === 0) return tally
      const saved = yield* analytics.saveCollection({
        workspaceId: first.workspaceId,
        accountId: first.accountId,
        profileId: account.profileId,
        platform: account.platform,
        owner: settings.owner,
        at,
        outcomes,
        credentials,
        reconnect
      })
      const lost = outcomes.length - saved.length
      return [...tally, ...Array.from({ length: lost }, () => "lost" as const)]
    })

    const found = yield* store.getAccount(first.workspaceId, first.accountId)
    const account = Option.getOrUndefined(found)
    if (account === undefined || account.status === "disconnected") {
      for (const t of claimed) outcomes.push({ targetId: t.targetId, state: "finished", nextDueAt: null, failures: t.failures })
      tally.push(...claimed.map(() => "stopped" as const))
      return yield* finish(account)
    }
    const capabilities = platform.capabilities(account.platform, account.sandbox)
    if (capabilities === undefined || capabilities.post.length === 0) {
      for (const t of claimed) outcomes.push({ targetId: t.targetId, state: "unsupported", nextDueAt: null, failures: 0 })
      tally.push(...claimed.map(() => "stopped" as const))
      return yield* finish(account)
    }
    if (account.status !== "connected") {
      // Waiting for the person to reconnect it: looked at again in a day.
      for (const t of claimed) outcomes.push(reschedule(t, at + schedule.dailyEveryMs))
      tally.push(...claimed.map(() => "rescheduled" as const))
      return yield* finish(account)
    }
    const due: Array<AnalyticsTarget> = []
    for (const t of claimed) {
      const firstAt = AnalyticsSchedule.firstReadingAt(schedule, t.publishedAt)
      if (t.collectedAt === null && at < firstAt) {
        outcomes.push(reschedule(t, firstAt))
        tally.push("rescheduled")
      } else {
        due.push(t)
      }
    }
    const opened = yield* openAccountCredentials(account)
    const records = yield* targetRecords(first.workspaceId, due)
    const window = CommentSchedule.budgetWindow(at)
    const size = Math.max(1, capabilities.batchSize)
    let stopAt: number | undefined
    for (let i = 0; i < due.length; i += size) {
      const chunk = due.slice(i, i + size)
      if (stopAt !== undefined) {
        for (const t of chunk) outcomes.push(reschedule(t, AnalyticsSchedule.retryAt(schedule, t.publishedAt, at, t.failures, stopAt) ?? null))
        tally.push(...chunk.map(() => "failed" as const))
        continue
      }
      const allowed = yield* comments.takeCallBudget(first.workspaceId, first.accountId, window, settings.hourlyCallBudget, 1)
      if (!allowed) {
        const nextHour = CommentSchedule.budgetWindowEnd(at)
        for (const t of due.slice(i)) {
          outcomes.push(reschedule(t, Math.min(nextHour, t.publishedAt + schedule.stopAfterMs)))
          tally.push("over_budget")
        }
        yield* Effect.logInfo("the account's hourly call budget is spent; reading metrics again next hour")
        break
      }
      const targets = chunk.flatMap((t) => {
        const record = records.get(t.targetId)
        return record === undefined ? [] : [{ ...record, platformPostId: t.platformPostId }]
      })
      const result = yield* platform.collectPosts({ account: opened, targets, now: at }).pipe(
        Effect.catchDefect((defect) =>
          Effect.logError("the analytics adapter failed unexpectedly", Cause.die(defect)).pipe(
            Effect.andThen(Effect.fail(new PlatformFailure({ code: "internal_error", platformCode: "adapter_defect", retryable: true })))
          )
        ),
        Effect.result
      )
      if (result._tag === "Failure") {
        const failure = result.failure
        yield* Effect.logWarning("reading metrics failed", { code: failure.code, platform_code: failure.platformCode })
        credentials ??= yield* sealUpdate(account, failure.credentials)
        if (failure.needsReconnect === true) {
          const event = yield* AccountEvents.needsReconnect(account, failure.code, at)
          reconnect = { reason: { code: failure.code, platformCode: failure.platformCode }, events: [event] }
          for (const t of due.slice(i)) {
            outcomes.push(reschedule(t, at + schedule.dailyEveryMs, t.failures + 1))
            tally.push("failed")
          }
          break
        }
        for (const t of chunk) {
          outcomes.push(reschedule(t, AnalyticsSchedule.retryAt(schedule, t.publishedAt, at, t.failures + 1, failure.retryAt), t.failures + 1))
          tally.push("failed")
        }
        // A throttled account is left alone until the time the platform named.
        if (failure.retryAt !== undefined) stopAt = failure.retryAt
        continue
      }
      const read = result.success
      if (read.calls > 1) yield* comments.addCalls(first.workspaceId, first.accountId, window, read.calls - 1)
      credentials = (yield* sealUpdate(account, read.credentials)) ?? credentials
      const readings = new Map(read.readings.map((r) => [r.targetId as string, r]))
      const gone = new Set<string>(read.gone)
      for (const t of chunk) {
        const reading = readings.get(t.targetId)
        if (gone.has(t.targetId)) {
          outcomes.push({ targetId: t.targetId, state: "gone", nextDueAt: null, failures: 0 })
          tally.push("stopped")
        } else if (reading !== undefined) {
          const next = AnalyticsSchedule.nextReadingAt(schedule, t.publishedAt, at)
          outcomes.push({
            targetId: t.targetId,
            reading: { values: reading.metrics, raw: reading.raw },
            state: next === null ? "finished" : "active",
            nextDueAt: next,
            failures: 0
          })
          tally.push("read")
        } else {
          outcomes.push(reschedule(t, AnalyticsSchedule.nextReadingAt(schedule, t.publishedAt, at), 0))
          tally.push("rescheduled")
        }
      }
    }
    const result = yield* finish(account)
    if (reconnect === undefined && stopAt === undefined) {
      yield* collectAccountMetrics(settings, account, opened, capabilities, at).pipe(
        Effect.catchCause((cause) => LeasedWork.logFailure("reading the account's metrics failed unexpectedly", cause))
      )
    }
    return result
  },
  (effect, _settings, claimed) => Effect.annotateLogs(effect, { account_id: claimed[0]?.accountId ?? "" })
)

/**
 * One round: claims the targets that are due (up to `settings.concurrency`), reads them grouped
 * per account (accounts concurrently, 8 at a time), and waits for all of them. For an app that
 * drives the engine itself, and for tests; a server runs {@link start}.
 */
export const collectDue = Effect.fn("analytics.round")(function* (settings: AnalyticsCollectionSettings) {
  const analytics = yield* AnalyticsStore
  const at = yield* Clock.currentTimeMillis
  const claimed = yield* analytics.claimDue({ owner: settings.owner, at, leaseUntil: at + settings.leaseMs, limit: settings.concurrency })
  const byAccount = new Map<string, Array<AnalyticsTarget>>()
  for (const t of claimed) {
    const key = `${t.workspaceId}\u0000${t.accountId}`
    const list = byAccount.get(key) ?? []
    list.push(t)
    byAccount.set(key, list)
  }
  const results = yield* Effect.forEach(
    [...byAccount.values()],
    (group) =>
      collectAccount(settings, group).pipe(
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.failCause(cause)
            : Effect.as(LeasedWork.logFailure("collecting metrics failed unexpectedly", cause), group.map(() => "lost" as const))
        )
      ),
    { concurrency: 8 }
  )
  return results.flat()
})

/**
 * Runs collection in the current scope until it closes: a round whenever the previous one
 * claimed all it could, otherwise after `idlePollMs`.
 */
export const start = Effect.fn("analytics.start")(function* (settings: AnalyticsCollectionSettings) {
  yield* LeasedWork.loop(settings, collectDue(settings), "analytics round failed")
})
