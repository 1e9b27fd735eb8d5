/**
 * Comment ingestion: a worker loop that reads what is new under each published target, on the
 * schedule of `CommentSchedule` (often while the post is young, rarer later, never after 30
 * days), and the path comments a platform pushes (Meta's webhooks) take into the same store.
 *
 * Each target's polling state is a row claimed with a lease by its `nextPollAt` (`FOR UPDATE
 * SKIP LOCKED` in SQL), so any number of instances share the targets and a crash loses nothing:
 * the lease runs out and the poll is made again from the saved cursor. New comments are
 * inserted once per account and platform comment id, each with its `comment.created` event, in
 * the transaction that saves the poll's cursor; a comment seen twice (a repeated poll, the
 * webhook and a poll) is stored and announced once.
 *
 * Each account has a budget of platform calls per clock hour (`hourlyCallBudget`): a poll takes
 * one call from it before it runs and adds the extra calls it reports; an account out of budget
 * is polled again when the next hour starts. Failed polls back off (1, 2, 4 … minutes, at most an
 * hour, never sooner than the schedule).
 *
 * @since 0.3.0
 */
import { Cause, Clock, Effect, Option } from "effect"
import type { Ids } from "../ids/Ids.ts"
import * as LeasedWork from "../internal/LeasedWork.ts"
import type { CredentialsCipher } from "../secrets/CredentialsCipher.ts"
import { openAccountCredentials } from "../secrets/CredentialsCipher.ts"
import { PlatformFailure } from "../platform/PlatformFailure.ts"
import * as AccountEvents from "../accounts/AccountEvents.ts"
import type { AccountRecord } from "../store/AccountStore.ts"
import type { OutboxEvent } from "../store/Outbox.ts"
import { Store } from "../store/Store.ts"
import { CommentPlatform, type PushedComment } from "./CommentPlatform.ts"
import * as CommentSchedule from "./CommentSchedule.ts"
import { type CommentPollState, CommentStore, type PollKey } from "./CommentStore.ts"
import { commentCreatedEvent, newComments, sealUpdate } from "./Comments.ts"

/** How a worker instance polls comments. */

/**
 * The next poll after a failure, no earlier than the time the platform's rate limit named (Meta's
 * Business Use Case throttles say when calls are accepted again); `null` (polling over) stays.
 */
const notBefore = (next: number | null, retryAt: number | undefined): number | null =>
  next === null || retryAt === undefined ? next : Math.max(next, retryAt)

export interface CommentIngestionSettings {
  /** This instance's name in every lease it takes; unique per process. */
  readonly owner: string
  /** Targets polled at once. */
  readonly concurrency: number
  /** How long a claim lasts; longer than one poll takes, as it is not renewed. */
  readonly leaseMs: number
  /** How long to wait before looking again when nothing was due. */
  readonly idlePollMs: number
  /** Platform calls one account may spend on comments per clock hour. */
  readonly hourlyCallBudget: number
}

/** The defaults, for an instance named `owner`. */
export const defaults = (owner: string): CommentIngestionSettings => ({
  owner,
  concurrency: 8,
  leaseMs: 2 * 60_000,
  idlePollMs: 5_000,
  hourlyCallBudget: CommentSchedule.defaultHourlyCallBudget
})

/** The services ingestion needs. */
export type CommentIngestionServices = Store | CommentStore | CommentPlatform | CredentialsCipher | Ids

/** How one poll ended. */
export type PollOutcome = "polled" | "failed" | "over_budget" | "stopped" | "lost"

const keyOf = (state: CommentPollState): PollKey => ({ workspaceId: state.workspaceId, targetId: state.targetId })

const stop = (settings: CommentIngestionSettings, state: CommentPollState, at: number) =>
  CommentStore.use((s) => s.deferPoll(keyOf(state), settings.owner, { at, nextPollAt: null, failures: state.failures })).pipe(
    Effect.map((held) => (held ? ("stopped" as const) : ("lost" as const)))
  )

/**
 * What a failed poll changes on its account: a token or permission the platform refused
 * (`needsReconnect`) makes a connected account `needs_reconnect`, with its event, as a publish
 * would; the person reconnects it, and polling goes on with the new token.
 */
const reconnectOf = Effect.fnUntraced(function* (account: AccountRecord, failure: PlatformFailure, at: number) {
  if (failure.needsReconnect !== true || account.status !== "connected") return undefined
  const event = yield* AccountEvents.needsReconnect(account, failure.code, at)
  return { reason: { code: failure.code, platformCode: failure.platformCode }, events: [event] }
})

/**
 * Polls one claimed target once and records what it found: new comments with their events and
 * the new cursor, or a later retry. Returns `lost` when the lease was no longer this instance's:
 * comments found are still stored once, the cursor is not saved.
 */
export const pollTarget = Effect.fn("comments.poll")(
  function* (settings: CommentIngestionSettings, state: CommentPollState) {
    const store = yield* Store
    const comments = yield* CommentStore
    const platform = yield* CommentPlatform
    const at = yield* Clock.currentTimeMillis
    const account = yield* store.getAccount(state.workspaceId, state.accountId)
    if (Option.isNone(account) || account.value.status === "disconnected") return yield* stop(settings, state, at)
    if (!platform.capabilities(account.value.platform, account.value.sandbox).read) return yield* stop(settings, state, at)
    const aggregate = yield* store.getPost(state.workspaceId, state.postId)
    const target = Option.isSome(aggregate) ? aggregate.value.targets.find((t) => t.id === state.targetId) : undefined
    if (Option.isNone(aggregate) || target === undefined || target.status !== "published") return yield* stop(settings, state, at)

    const window = CommentSchedule.budgetWindow(at)
    const allowed = yield* comments.takeCallBudget(state.workspaceId, state.accountId, window, settings.hourlyCallBudget, 1)
    if (!allowed) {
      yield* Effect.logInfo("the account's hourly comment budget is spent; polling again next hour")
      const held = yield* comments.deferPoll(keyOf(state), settings.owner, {
        at,
        nextPollAt: Math.min(CommentSchedule.budgetWindowEnd(at), state.publishedAt + CommentSchedule.stopAfterMs),
        failures: state.failures
      })
      return held ? ("over_budget" as const) : ("lost" as const)
    }

    const result = yield* platform
      .poll({
        post: aggregate.value.post,
        target: { ...target, platformPostId: state.platformPostId },
        account: yield* openAccountCredentials(account.value),
        cursor: state.cursor
      })
      .pipe(
        Effect.catchDefect((defect) =>
          Effect.logError("the comment adapter failed unexpectedly", Cause.die(defect)).pipe(
            Effect.andThen(
              Effect.fail(new PlatformFailure({ code: "internal_error", platformCode: "adapter_defect", retryable: true }))
            )
          )
        ),
        Effect.result
      )
    if (result._tag === "Failure") {
      const failures = state.failures + 1
      yield* Effect.logWarning("polling comments failed", {
        code: result.failure.code,
        platform_code: result.failure.platformCode,
        failures
      })
      const held = yield* comments.deferPoll(keyOf(state), settings.owner, {
        at,
        nextPollAt: notBefore(CommentSchedule.retryAt(state.publishedAt, at, failures), result.failure.retryAt),
        failures,
        credentials: yield* sealUpdate(account.value, result.failure.credentials),
        reconnect: yield* reconnectOf(account.value, result.failure, at)
      })
      return held ? ("failed" as const) : ("lost" as const)
    }
    const poll = result.success
    if (poll.calls > 1) yield* comments.addCalls(state.workspaceId, state.accountId, window, poll.calls - 1)
    const prepared = yield* newComments(state, poll.comments, at)
    const livemode = !account.value.sandbox
    const stored = yield* comments.storeComments({
      workspaceId: state.workspaceId,
      comments: prepared,
      event: (comment, eventId): OutboxEvent => commentCreatedEvent(comment, eventId, livemode, at),
      poll: {
        key: keyOf(state),
        completion: {
          owner: settings.owner,
          at,
          cursor: poll.cursor,
          nextPollAt: CommentSchedule.nextPollAt(state.publishedAt, at),
          credentials: yield* sealUpdate(account.value, poll.credentials)
        }
      }
    })
    if (stored.inserted.length > 0) yield* Effect.logInfo("new comments stored", { count: stored.inserted.length })
    return stored.pollSaved ? ("polled" as const) : ("lost" as const)
  },
  (effect, _settings, state) => Effect.annotateLogs(effect, { target_id: state.targetId, post_id: state.postId })
)

/**
 * One round: claims the polls that are due (up to `settings.concurrency`) and runs each,
 * concurrently, waiting for all of them. For an app that drives the engine itself, and for
 * tests; a server runs {@link start}.
 */
export const pollDueTargets = Effect.fn("comments.round")(function* (settings: CommentIngestionSettings) {
  const comments = yield* CommentStore
  return yield* LeasedWork.round(
    settings,
    (claim) => comments.claimDuePolls(claim),
    (state) => pollTarget(settings, state),
    "polling comments failed unexpectedly"
  )
})

/**
 * Runs ingestion in the current scope until it closes: a round whenever the previous one claimed
 * all it could, otherwise after `idlePollMs`.
 *
 * @example
 * ```ts
 * const CommentsLive = Layer.effectDiscard(CommentIngestion.start(CommentIngestion.defaults("worker-1")))
 * ```
 */
export const start = Effect.fn("comments.start")(function* (settings: CommentIngestionSettings) {
  yield* LeasedWork.loop(settings, pollDueTargets(settings), "comment round failed")
})

/**
 * Stores comments a platform pushed (Meta's webhooks), through the same path as polling: each is
 * mapped to the polled targets of its item (by the platform's post id and account id) and stored
 * once, with its `comment.created` when new. An edit or removal changes the stored comment.
 * Comments under items Postwire did not publish are ignored. Returns how many were inserted.
 */
export const ingestPushedComments = Effect.fn("comments.ingestPushed")(function* (
  pushed: ReadonlyArray<PushedComment>
) {
  const store = yield* Store
  const comments = yield* CommentStore
  const at = yield* Clock.currentTimeMillis
  let inserted = 0
  for (const change of pushed) {
    const places = yield* comments.findPolledTargets(change.platform, change.accountExternalId, change.platformPostId)
    for (const place of places) {
      if (change.change === "removed") {
        yield* comments.changeComment(place.workspaceId, place.accountId, change.comment.platformCommentId, { deleted: true })
        continue
      }
      if (change.change === "edited") {
        const edited = yield* comments.changeComment(place.workspaceId, place.accountId, change.comment.platformCommentId, {
          text: change.comment.text,
          hidden: change.comment.hidden
        })
        if (Option.isSome(edited)) continue
      }
      const account = yield* store.getAccount(place.workspaceId, place.accountId)
      const livemode = Option.isSome(account) && !account.value.sandbox
      const prepared = yield* newComments(place, [change.comment], at)
      const stored = yield* comments.storeComments({
        workspaceId: place.workspaceId,
        comments: prepared,
        event: (comment, eventId) => commentCreatedEvent(comment, eventId, livemode, at)
      })
      inserted += stored.inserted.length
    }
  }
  return inserted
})
