/**
 * The posts use-cases: create, validate, get, list, update, cancel, retry.
 *
 * Each reads through the `Store`, decides with pure rules (`TargetStatus`, `PostValidation`), and
 * writes the change with its events in one save.
 *
 * @since 0.1.0
 */
import type { Ids as Id } from "@postwire/domain"
import { Effect, Option } from "effect"
import { defaultPageSize, ErrorDetail, type LocalizedText, type Post, PostwireError, parseInstant, TargetRules } from "@postwire/domain"
import { approvalToken, approvalTokenHash, approvalUrl } from "../secrets/ApprovalToken.ts"
import { type Caller, refuseLiveToTestKey, sees } from "../Caller.ts"
import { EngineConfig } from "../EngineConfig.ts"
import { Ids } from "../ids/Ids.ts"
import { notifyApprover } from "../mail/ApprovalRequest.ts"
import * as Spans from "../Spans.ts"
import type { OutboxEvent } from "../store/Outbox.ts"
import type { ApprovalRecord, PostAggregate, TargetRecord } from "../store/PostStore.ts"
import { Store } from "../store/Store.ts"
import type { VersionConflict } from "../store/StoreError.ts"
import { decodeCursor, encodeCursor, filterDigest } from "./Cursor.ts"
import * as PostEvents from "./PostEvents.ts"
import { captionProblem, dayFull, firstFailure, planPost, quotaExceeded } from "./PostValidation.ts"
import { calendarDay, quotaLimit, quotaWindow } from "./Quota.ts"
import { type PostRead, postRead, type RetryResult } from "./PostView.ts"
import { derivePostStatus, isFinished, move, readyStatus } from "./TargetStatus.ts"

const now = Effect.clockWith((c) => c.currentTimeMillis)

const notFound = (resource: ErrorDetail.Resource) =>
  new PostwireError({ code: "not_found", details: { resource: ErrorDetail.resource(resource) } })

const invalidState = (detail: LocalizedText) =>
  new PostwireError({ code: "invalid_state", details: { resource: ErrorDetail.resource("post"), detail } })

/** Whether a post's events are live: any of its accounts is a live (non-sandbox) account. */
const livemodeOf = Effect.fn("posts.livemode")(function* (aggregate: PostAggregate) {
  const store = yield* Store
  const accounts = yield* store.getAccounts(
    aggregate.post.workspaceId,
    aggregate.targets.map((t) => t.accountId)
  )
  return accounts.some((a) => !a.sandbox)
})

/** The live (non-sandbox) accounts among those the posts target. */
const liveAccountIds = Effect.fn("posts.liveAccounts")(function* (caller: Caller, posts: ReadonlyArray<PostAggregate>) {
  const store = yield* Store
  const ids = [...new Set(posts.flatMap((p) => p.targets.map((t) => t.accountId)))]
  const accounts = ids.length === 0 ? [] : yield* store.getAccounts(caller.workspaceId, ids)
  return new Set<string>(accounts.filter((a) => !a.sandbox).map((a) => a.id))
})

/** A new approval for a post, with its link. */
const newApproval = Effect.fn("approvals.create")(function* (workspaceId: Id.WorkspaceId, postId: Id.PostId, at: number) {
  const settings = yield* EngineConfig
  const id = yield* Ids.use((ids) => ids.make("approval"))
  const token = approvalToken(settings.keyring, id)
  const record: ApprovalRecord = {
    id,
    workspaceId,
    postId,
    tokenHash: approvalTokenHash(token),
    status: "pending",
    expiresAt: at + settings.approvalTtlMs,
    decidedAt: null,
    reason: null,
    createdAt: at
  }
  return { record, url: approvalUrl(settings.publicBaseUrl, token) }
})

/** How far past a post's instant its atomic quota count looks: concurrent creates within it count each other. */
const concurrentCreateMs = 60_000

/** How one create is checked beyond the request itself. */
export interface CreateOptions {
  /**
   * Caps each account at its daily quota on the calendar day of `scheduled_at`, in the offset it
   * was written in (batch creation): a full day is 429 `quota_exceeded_for_day`, counted and
   * inserted atomically.
   */
  readonly quotaByDay?: boolean | undefined
}

/**
 * Creates a post: checks it, then stores it with its targets, approval and first events.
 * Returns the post as stored (the server renders it as `POST /v1/posts` answers).
 */
export const createPost = Effect.fn("posts.create")(function* (
  caller: Caller,
  request: Post.CreatePostRequest,
  options: CreateOptions = {}
) {
  const store = yield* Store
  const settings = yield* EngineConfig
  const at = yield* now
  const day = options.quotaByDay === true && typeof request.scheduled_at === "string"
    ? calendarDay(request.scheduled_at)
    : undefined
  const { plan: maybePlan, problems } = yield* planPost(caller, request, { day })
  if (Option.isNone(maybePlan)) return yield* Effect.fail(firstFailure(problems))
  const plan = maybePlan.value

  const postId = yield* Ids.use((ids) => ids.make("post"))
  const traceParent = yield* Spans.currentTraceParent
  const approval = plan.approvalMode === "link" ? yield* newApproval(caller.workspaceId, postId, at) : undefined
  const initial = approval ? "awaiting_approval" : readyStatus(plan.scheduledAt, at)

  const targets: Array<TargetRecord> = []
  for (const t of plan.targets) {
    // The consent given with the request (a platform whose targets need one keeps it in its
    // options): recorded as given by the key.
    const consent = t.rules.options?.needsConsent === undefined
      ? undefined
      : TargetRules.consentOf((t.options as Readonly<Record<string, unknown>>)[t.account.platform])
    targets.push({
      id: yield* Ids.use((ids) => ids.make("target")),
      workspaceId: caller.workspaceId,
      postId,
      accountId: t.account.id,
      platform: t.account.platform,
      status: initial,
      options: t.options,
      consent: consent === undefined ? null : { consent, givenBy: `key:${caller.keyId}`, givenAt: at },
      permalink: null,
      publishedAt: null,
      error: null,
      attempts: 0,
      platformState: null,
      dueAt: initial === "awaiting_approval" ? null : plan.publishAt,
      leaseOwner: null,
      leaseUntil: null,
      updatedAt: at
    })
  }
  const post = {
    id: postId,
    workspaceId: caller.workspaceId,
    profileId: request.profile_id,
    caption: request.caption,
    media: request.media,
    scheduledAt: plan.scheduledAt,
    aiGenerated: request.ai_generated ?? false,
    approvalMode: plan.approvalMode,
    notify: request.approval?.notify ?? null,
    status: derivePostStatus(targets.map((t) => t.status)),
    publishAt: plan.publishAt,
    createdAt: at,
    updatedAt: at,
    version: 1,
    // While tracing is on, this request's span: each publishing step's trace links back to it.
    ...(traceParent === undefined ? {} : { traceParent })
  } as const
  const aggregate: PostAggregate = { post, targets, approval: approval?.record ?? null }

  const livemode = plan.targets.some((t) => !t.account.sandbox)
  const events: Array<OutboxEvent> = []
  if (approval) {
    events.push(
      yield* PostEvents.makeEvent(
        caller.workspaceId,
        "post.awaiting_approval",
        yield* PostEvents.awaitingApproval(post, { id: approval.record.id, url: approval.url, expiresAt: approval.record.expiresAt }),
        livemode,
        at
      )
    )
  } else if (post.status === "scheduled") {
    events.push(yield* PostEvents.makeEvent(caller.workspaceId, "post.scheduled", PostEvents.scheduled(post), livemode, at))
  }
  // The plan counted the quotas; the insert counts them again under the accounts' locks, so two
  // concurrent creates can never together exceed one (the calendar day first, as the plan does).
  // The rolling window reaches a little past this post's instant: a concurrent create whose
  // instant is a few milliseconds later (or from an instance whose clock is ahead) commits first,
  // and every 24 hours that hold that target and this one must still stay within the limit.
  const window = quotaWindow(plan.publishAt)
  const caps = plan.targets.flatMap((t) => {
    const limit = quotaLimit(t.account, settings)
    const rolling = { accountId: t.account.id, from: window.from, to: window.to + concurrentCreateMs, limit }
    return day === undefined ? [rolling] : [{ accountId: t.account.id, from: day.from, to: day.to, limit }, rolling]
  })
  const full = yield* store.insertPostWithinQuota(aggregate, events, caps)
  if (Option.isSome(full)) {
    const target = plan.targets.find((t) => t.account.id === full.value)!
    const limit = quotaLimit(target.account, settings)
    if (day !== undefined) {
      const daily = yield* store.countQuotaUsage(caller.workspaceId, target.account.id, day.from, day.to)
      if (daily.used + 1 > limit) return yield* Effect.fail(dayFull(day, target.account, limit))
    }
    const usage = yield* store.countQuotaUsage(caller.workspaceId, target.account.id, window.from, window.to)
    return yield* Effect.fail(quotaExceeded(target.index, limit, usage.oldest ?? plan.publishAt))
  }
  // Once the post is committed: a create under an `Idempotency-Key` commits with the key's
  // stored answer, and a rolled-back post must not have sent its approver a link.
  if (approval) yield* store.afterCommit(notifyApprover(aggregate))

  return postRead(aggregate, settings.keyring, at) satisfies PostRead
})

/**
 * Checks a post without saving anything: every problem, as failures (the server renders them
 * into `issues` in the caller's language).
 */
export const validatePost = Effect.fn("posts.validate")(function* (caller: Caller, request: Post.CreatePostRequest) {
  const { problems } = yield* planPost(caller, request)
  return { problems } satisfies { readonly problems: ReadonlyArray<PostwireError> }
})

const loadPost = Effect.fn("posts.load")(function* (caller: Caller, id: Id.PostId) {
  const store = yield* Store
  const found = yield* store.getPost(caller.workspaceId, id)
  if (Option.isNone(found)) return yield* Effect.fail(notFound("post"))
  if (caller.kind === "test") yield* refuseLiveToTestKey(caller, yield* livemodeOf(found.value))
  return found.value
})

/** A post with its targets, each with its permalink or stored failure. */
export const getPost = Effect.fn("posts.get")(function* (caller: Caller, id: Id.PostId) {
  const settings = yield* EngineConfig
  const aggregate = yield* loadPost(caller, id)
  return postRead(aggregate, settings.keyring, yield* now) satisfies PostRead
})

/** Lists posts newest first, filtered, a page at a time. */
export const listPosts = Effect.fn("posts.list")(function* (caller: Caller, query: Post.ListPostsQuery) {
  const store = yield* Store
  const settings = yield* EngineConfig
  const at = yield* now
  const from = query.from === undefined ? undefined : parseInstant(query.from)
  const to = query.to === undefined ? undefined : parseInstant(query.to)
  if (from !== undefined && to !== undefined) {
    if (to <= from) {
      return yield* Effect.fail(
        new PostwireError({ code: "invalid_range", field: "to", details: { detail: ErrorDetail.reason("range_order") } })
      )
    }
    if (to - from > settings.maxRangeMs) {
      return yield* Effect.fail(
        new PostwireError({
          code: "invalid_range",
          field: "to",
          details: { detail: ErrorDetail.reason("range_too_long", { days: Math.round(settings.maxRangeMs / 86_400_000) }) }
        })
      )
    }
  }
  const filter = { status: query.status, profileId: query.profile_id, platform: query.platform, from, to }
  const digest = filterDigest(`posts:${caller.workspaceId}`, filter)
  let after: { sortKey: number; id: string } | undefined
  if (query.cursor !== undefined) {
    const decoded = decodeCursor(settings.keyring, query.cursor, digest, at, settings.cursorTtlMs)
    if (Option.isNone(decoded)) {
      return yield* Effect.fail(new PostwireError({ code: "invalid_cursor", field: "cursor" }))
    }
    after = decoded.value
  }
  const limit = query.limit ?? defaultPageSize
  const rows = yield* store.listPosts(caller.workspaceId, filter, after, limit + 1)
  const page = rows.slice(0, limit)
  const last = page[page.length - 1]
  const hasMore = rows.length > limit && last !== undefined
  // A test key sees only test-mode posts; the cursor still follows the page as stored.
  const live = caller.kind === "test" ? yield* liveAccountIds(caller, page) : new Set<string>()
  const visible = page.filter((a) => sees(caller, a.targets.some((t) => live.has(t.accountId))))
  return {
    data: visible.map((a): PostRead => postRead(a, settings.keyring, at)),
    cursor: {
      next: hasMore ? encodeCursor(settings.keyring, { sortKey: last.post.publishAt, id: last.post.id }, digest, at) : null,
      has_more: hasMore
    }
  } satisfies { readonly data: ReadonlyArray<PostRead>; readonly cursor: Post.PostList["cursor"] }
})

/**
 * Applies a change to a post and saves it with its events; when another writer saved first,
 * reads again and re-applies (the change is re-checked against the fresh state).
 */
const changePost = <E, R>(
  caller: Caller,
  id: Id.PostId,
  change: (
    aggregate: PostAggregate,
    at: number
  ) => Effect.Effect<{ readonly next: PostAggregate; readonly events: ReadonlyArray<OutboxEvent> }, E, R>
) =>
  Effect.gen(function* () {
    const store = yield* Store
    for (let attempt = 0; ; attempt++) {
      const current = yield* loadPost(caller, id)
      const at = yield* now
      const { next, events } = yield* change(current, at)
      const saved = yield* store.savePost(next, events).pipe(
        Effect.as(true),
        Effect.catchTag("VersionConflict", (e: VersionConflict) => (attempt < 4 ? Effect.succeed(false) : Effect.fail(e)))
      )
      if (saved) return next
    }
  })

/** Rebuilds the post row from its targets after a change. */
const settle = (aggregate: PostAggregate, at: number, changes: Partial<PostAggregate["post"]> = {}): PostAggregate => {
  const post = { ...aggregate.post, ...changes }
  return {
    ...aggregate,
    post: {
      ...post,
      status: derivePostStatus(aggregate.targets.map((t) => t.status)),
      publishAt: post.scheduledAt ?? post.createdAt,
      updatedAt: at,
      version: aggregate.post.version + 1
    }
  }
}

/** Changes the caption and/or schedule while no target has started publishing. */
export const updatePost = Effect.fn("posts.update")(function* (
  caller: Caller,
  id: Id.PostId,
  request: Post.UpdatePostRequest
) {
  const settings = yield* EngineConfig
  let renewedApproval: string | undefined
  const saved = yield* changePost(caller, id, (current, at) =>
    Effect.gen(function* () {
      renewedApproval = undefined
      const statuses = current.targets.map((t) => t.status)
      if (statuses.some((s) => s === "publishing" || s === "published" || s === "failed")) {
        return yield* Effect.fail(invalidState(ErrorDetail.reason("publishing_started")))
      }
      if (statuses.every(isFinished)) return yield* Effect.fail(invalidState(ErrorDetail.reason("post_is", { status: current.post.status })))

      const caption = request.caption ?? current.post.caption
      if (request.caption !== undefined) {
        for (const t of current.targets) {
          const tooLong = captionProblem(settings, t.platform, caption, t.options)
          if (tooLong !== undefined) return yield* Effect.fail(tooLong)
        }
      }
      const scheduledAt =
        request.scheduled_at === undefined
          ? current.post.scheduledAt
          : request.scheduled_at === null
            ? null
            : parseInstant(request.scheduled_at)

      const captionChanged = request.caption !== undefined && request.caption !== current.post.caption
      const reapprove =
        captionChanged && current.post.approvalMode === "link" && current.approval !== null && current.approval.status === "approved"
      const events: Array<OutboxEvent> = []
      const livemode = yield* livemodeOf(current)
      let approval = current.approval
      if (reapprove) {
        const fresh = yield* newApproval(caller.workspaceId, current.post.id, at)
        approval = fresh.record
        renewedApproval = fresh.record.id
        events.push(
          yield* PostEvents.makeEvent(
            caller.workspaceId,
            "post.awaiting_approval",
            yield* PostEvents.awaitingApproval(current.post, { id: fresh.record.id, url: fresh.url, expiresAt: fresh.record.expiresAt }),
            livemode,
            at
          )
        )
      }
      const publishAt = scheduledAt ?? current.post.createdAt
      const targets = current.targets.map((t): TargetRecord => {
        if (isFinished(t.status)) return t
        if (reapprove) return move(t, "awaiting_approval", { dueAt: null, updatedAt: at })
        if (t.status === "awaiting_approval") return t
        return move(t, readyStatus(scheduledAt, at), { dueAt: publishAt, updatedAt: at })
      })
      const next = settle({ ...current, targets, approval }, at, { caption, scheduledAt })
      // A receiver that tracks the schedule learns the new time: entering `scheduled`, or a
      // scheduled post given another `scheduled_at`, sends `post.scheduled` with it.
      const rescheduled = current.post.status === "scheduled" && next.post.scheduledAt !== current.post.scheduledAt
      if (next.post.status === "scheduled" && (current.post.status !== "scheduled" || rescheduled)) {
        events.push(yield* PostEvents.makeEvent(caller.workspaceId, "post.scheduled", PostEvents.scheduled(next.post), livemode, at))
      }
      return { next, events }
    })
  )
  if (renewedApproval !== undefined && saved.approval?.id === renewedApproval) yield* notifyApprover(saved)
  return postRead(saved, settings.keyring, yield* now) satisfies PostRead
})

/**
 * Cancels every target that has not published while some target is still on its way; published
 * targets stay published. A finished post cannot be cancelled.
 */
export const cancelPost = Effect.fn("posts.cancel")(function* (caller: Caller, id: Id.PostId) {
  const settings = yield* EngineConfig
  const saved = yield* changePost(caller, id, (current, at) =>
    Effect.gen(function* () {
      if (current.targets.some((t) => t.status === "publishing")) {
        return yield* Effect.fail(invalidState(ErrorDetail.reason("target_publishing")))
      }
      // A post whose every target is finished (published, failed, cancelled or rejected) is over.
      if (current.targets.every((t) => isFinished(t.status))) {
        return yield* Effect.fail(invalidState(ErrorDetail.reason("post_already", { status: current.post.status })))
      }
      const targets = current.targets.map(
        (t): TargetRecord =>
          t.status === "published" || t.status === "cancelled" || t.status === "rejected"
            ? t
            : move(t, "cancelled", { dueAt: null, leaseOwner: null, leaseUntil: null, updatedAt: at })
      )
      return { next: settle({ ...current, targets }, at), events: [] }
    })
  )
  return postRead(saved, settings.keyring, yield* now) satisfies PostRead
})

/** Queues again the targets that failed with a retryable error; nothing else is touched. */
export const retryPost = Effect.fn("posts.retry")(function* (caller: Caller, id: Id.PostId) {
  const retried: Array<string> = []
  const saved = yield* changePost(caller, id, (current, at) =>
    Effect.gen(function* () {
      retried.length = 0
      const targets = current.targets.map((t): TargetRecord => {
        if (t.status !== "failed" || t.error?.retryable !== true) return t
        retried.push(t.id)
        return move(t, "queued", { error: null, dueAt: at, leaseOwner: null, leaseUntil: null, updatedAt: at })
      })
      if (retried.length === 0) return yield* Effect.fail(invalidState(ErrorDetail.reason("nothing_to_retry")))
      return { next: settle({ ...current, targets }, at), events: [] }
    })
  )
  const { keyring } = yield* EngineConfig
  return {
    post: postRead(saved, keyring, yield* now),
    retried: saved.targets.filter((t) => retried.includes(t.id))
  } satisfies RetryResult
})
