/**
 * The approval use-cases: what the page at `/approve/{token}` shows, the decision on a link,
 * and the e-mail that sends the link to the approver.
 *
 * The token is the only credential: it names one approval, hence one post of one workspace.
 * A decision is saved with the post's optimistic version, so of two concurrent decisions one
 * wins and the other is told `already_decided`.
 *
 * @since 0.1.0
 */
import type { Ids as Id } from "@postwire/domain"
import { Effect, Option } from "effect"
import {
  type Approval as ApprovalWire,
  ErrorDetail,
  formatInstant,
  type Post,
  PostwireError,
  TargetRules
} from "@postwire/domain"
import { EngineConfig, type PlatformCatalog } from "../EngineConfig.ts"
import { BlobStore } from "../media/BlobStore.ts"
import * as PostEvents from "../posts/PostEvents.ts"
import { type PostRead, postRead } from "../posts/PostView.ts"
import { derivePostStatus, move, readyStatus } from "../posts/TargetStatus.ts"
import { accountContext, CredentialsCipher } from "../secrets/CredentialsCipher.ts"
import { type CreatorInfo, PlatformClient } from "../platform/PlatformClient.ts"
import type { PlatformFailure } from "../platform/PlatformFailure.ts"
import { PublishingStore } from "../publishing/PublishingStore.ts"
import type { AccountRecord } from "../store/AccountStore.ts"
import type { OutboxEvent } from "../store/Outbox.ts"
import type { ApprovalRecord, ConsentRecord, MediaRecord, PostAggregate, TargetRecord } from "../store/PostStore.ts"
import type { WorkspaceRecord } from "../store/WorkspaceStore.ts"
import { Store } from "../store/Store.ts"
import { approvalTokenHash } from "../secrets/ApprovalToken.ts"
import { checkRedirectUrl } from "../urls/RedirectAllowList.ts"

/** The e-mail with a pending approval's link, sent when the post is saved (it lives below posts). */
export { notifyApprover } from "../mail/ApprovalRequest.ts"
/** The redirect allow-list, shared with the connect links. */
export { checkRedirectUrl, isAllowedRedirect, redirectRefusal } from "../urls/RedirectAllowList.ts"

const now = Effect.clockWith((c) => c.currentTimeMillis)

const unknownLink = () => new PostwireError({ code: "not_found", details: { resource: ErrorDetail.resource("approval") } })

// ---------------------------------------------------------------------------------------------
// Reading a link
// ---------------------------------------------------------------------------------------------

/** A post found by the token of its current approval. */
interface Resolved {
  readonly aggregate: PostAggregate
  readonly approval: ApprovalRecord
  readonly workspace: WorkspaceRecord
}

/** Finds the post of a token; a replaced approval's token is no longer found. */
const resolveToken = Effect.fn("approvals.resolve")(function* (token: string) {
  const store = yield* Store
  if (token === "" || token.length > 128) return Option.none<Resolved>()
  const hash = approvalTokenHash(token)
  const found = yield* store.findApprovalByTokenHash(hash)
  if (Option.isNone(found)) return Option.none<Resolved>()
  const post = yield* store.getPost(found.value.workspaceId, found.value.postId)
  const workspace = yield* store.getWorkspace(found.value.workspaceId)
  if (Option.isNone(post) || Option.isNone(workspace)) return Option.none<Resolved>()
  const approval = post.value.approval
  if (approval === null || approval.tokenHash !== hash) return Option.none<Resolved>()
  return Option.some<Resolved>({ aggregate: post.value, approval, workspace: workspace.value })
})

/**
 * Whether a target still needs the person's consent under this approval: its platform's options
 * say it publishes only with one (`needsConsent`, TikTok's direct posts), and it has none, or the
 * consent came from an earlier approval of content that has since changed (a caption edited
 * after approval asks again).
 */
export const needsConsent = (target: TargetRecord, approvalId: Id.ApprovalId, platforms: PlatformCatalog): boolean =>
  platforms.get(target.platform)?.options?.needsConsent?.((target.options as Readonly<Record<string, unknown>>)[target.platform]) === true &&
  (target.consent === null ||
    (target.consent.givenBy.startsWith("approval:") && target.consent.givenBy !== `approval:${approvalId}`))

/** A failure of the platform, as the API reports it for one target. */
const platformError = (failure: PlatformFailure, targetId: Id.TargetId): PostwireError =>
  new PostwireError({
    code: failure.code,
    targetId,
    details: failure.details,
    platformCode: failure.platformCode,
    retryable: failure.retryable
  })

/** Longest video of the post, in seconds, or `null` when none has a known duration. */
const videoDuration = (media: ReadonlyArray<MediaRecord>): number | null => {
  const durations = media.flatMap((m) => (m.kind === "video" && m.durationSeconds !== null ? [m.durationSeconds] : []))
  return durations.length === 0 ? null : Math.max(...durations)
}

/** Whether the creator can take this video now (TikTok: check the duration before asking). */
const creatorProblem = (creator: CreatorInfo, media: ReadonlyArray<MediaRecord>, targetId: Id.TargetId) => {
  const duration = videoDuration(media)
  return duration !== null && duration > creator.maxVideoPostDurationSec
    ? new PostwireError({
        code: "media_too_long",
        targetId,
        details: { duration: Math.ceil(duration), limit: creator.maxVideoPostDurationSec }
      })
    : undefined
}

/**
 * Asks the platform what the creator may do now (TikTok `creator_info`), as the publisher
 * would: with the account's credentials opened, and keeping the tokens a refresh rotated.
 */
const askCreator = Effect.fn("approvals.creatorInfo")(function* (account: AccountRecord) {
  const client = yield* PlatformClient
  const settings = yield* EngineConfig
  const cipher = Option.getOrElse(yield* Effect.serviceOption(CredentialsCipher), () => CredentialsCipher.make(settings.keyring))
  const context = accountContext(account.workspaceId, account.id)
  const opened =
    account.credentials === null ? account : { ...account, credentials: Option.getOrNull(cipher.open(account.credentials, context)) }
  const keepRotated = (update: { readonly accountId: string; readonly credentials: string } | undefined) =>
    Effect.gen(function* () {
      const queue = yield* Effect.serviceOption(PublishingStore)
      if (update === undefined || update.accountId !== account.id) return
      if (Option.isNone(queue)) return yield* Effect.logWarning("refreshed credentials not stored: no PublishingStore")
      yield* queue.value
        .updateAccountCredentials(account.workspaceId, account.id, cipher.seal(update.credentials, context))
        .pipe(Effect.catchCause((cause) => Effect.logError("refreshed credentials not stored", cause)))
    })
  return yield* client.creatorInfo(opened).pipe(
    Effect.tap((info) => keepRotated(info.credentials)),
    Effect.tapError((failure) => keepRotated(failure.credentials))
  )
})

/**
 * What the consent form of one target needs: the creator's current options from a fresh
 * `creator_info`, or why the creator cannot post this now.
 */
export type ConsentForm =
  | { readonly _tag: "Ready"; readonly creator: CreatorInfo }
  | { readonly _tag: "Unavailable"; readonly error: PostwireError }

/** A target as the page shows it. */
export interface PageTarget {
  readonly target: TargetRecord
  readonly account: AccountRecord | undefined
  /** Present for a shortvideo direct target that still needs consent, while the link is pending. */
  readonly consentForm: ConsentForm | undefined
}

/** The post behind a link, with what the page shows of it. */
export interface PageSummary {
  readonly approval: ApprovalRecord
  readonly post: PostAggregate["post"]
  readonly media: ReadonlyArray<MediaRecord>
  readonly targets: ReadonlyArray<PageTarget>
}

/**
 * What the page of a token shows: the post to decide on (`Pending`), or why there is nothing
 * to decide: the link is unknown (or was replaced), expired, already decided, or its post no
 * longer waits for approval (it was cancelled).
 */
export type ApprovalPage =
  | { readonly _tag: "Unknown" }
  | { readonly _tag: "Expired"; readonly approval: ApprovalRecord }
  | { readonly _tag: "Decided"; readonly summary: PageSummary }
  | { readonly _tag: "Closed"; readonly summary: PageSummary }
  | { readonly _tag: "Pending"; readonly summary: PageSummary; readonly workspace: WorkspaceRecord }

const summarize = Effect.fn("approvals.summarize")(function* (resolved: Resolved, withConsentForms: boolean) {
  const store = yield* Store
  const { platforms } = yield* EngineConfig
  const { aggregate, approval } = resolved
  const { post } = aggregate
  const accounts = yield* store.getAccounts(
    post.workspaceId,
    aggregate.targets.map((t) => t.accountId)
  )
  const byId = new Map(accounts.map((a) => [a.id, a]))
  const found = yield* store.getMediaItems(post.workspaceId, post.media)
  const mediaById = new Map(found.map((m) => [m.id, m]))
  const media = post.media.flatMap((id) => {
    const m = mediaById.get(id)
    return m === undefined ? [] : [m]
  })
  const targets: Array<PageTarget> = []
  for (const target of aggregate.targets) {
    const account = byId.get(target.accountId)
    let consentForm: ConsentForm | undefined
    if (withConsentForms && account !== undefined && target.status === "awaiting_approval" && needsConsent(target, approval.id, platforms)) {
      consentForm = yield* askCreator(account).pipe(
        Effect.map((creator): ConsentForm => {
          const problem = creatorProblem(creator, media, target.id)
          return problem === undefined ? { _tag: "Ready", creator } : { _tag: "Unavailable", error: problem }
        }),
        Effect.catch((failure) => Effect.succeed<ConsentForm>({ _tag: "Unavailable", error: platformError(failure, target.id) }))
      )
    }
    targets.push({ target, account, consentForm })
  }
  return { approval, post, media, targets } satisfies PageSummary
})

/**
 * What the approval page of a token shows. For each shortvideo direct target that needs consent
 * it asks the platform for the creator's current options (`PlatformClient.creatorInfo`).
 */
export const loadApprovalPage = Effect.fn("approvals.page")(function* (token: string) {
  const found = yield* resolveToken(token)
  if (Option.isNone(found)) return page({ _tag: "Unknown" })
  const resolved = found.value
  const { approval, aggregate } = resolved
  if (approval.status === "approved" || approval.status === "rejected") {
    return page({ _tag: "Decided", summary: yield* summarize(resolved, false) })
  }
  if (approval.status === "expired" || approval.expiresAt <= (yield* now)) return page({ _tag: "Expired", approval })
  if (!aggregate.targets.some((t) => t.status === "awaiting_approval")) {
    return page({ _tag: "Closed", summary: yield* summarize(resolved, false) })
  }
  return page({ _tag: "Pending", summary: yield* summarize(resolved, true), workspace: resolved.workspace })
})

const page = (p: ApprovalPage): ApprovalPage => p

/**
 * The bytes of one media item of a pending link's post, for the page's images and players.
 * Anything else (another post's media, an expired or decided link) is `not_found`.
 */
export const loadApprovalMedia = Effect.fn("approvals.media")(function* (token: string, mediaId: Id.MediaId) {
  const store = yield* Store
  const blobs = yield* BlobStore
  const missing = new PostwireError({ code: "not_found", details: { resource: ErrorDetail.resource("media") } })
  const found = yield* resolveToken(token)
  if (Option.isNone(found)) return yield* Effect.fail(missing)
  const { approval, aggregate } = found.value
  if (approval.status !== "pending" || approval.expiresAt <= (yield* now)) return yield* Effect.fail(missing)
  if (!aggregate.post.media.includes(mediaId)) return yield* Effect.fail(missing)
  const record = yield* store.getMedia(aggregate.post.workspaceId, mediaId)
  if (Option.isNone(record)) return yield* Effect.fail(missing)
  const bytes = yield* blobs.get(record.value.blobKey)
  return { record: record.value, bytes }
})

// ---------------------------------------------------------------------------------------------
// Deciding
// ---------------------------------------------------------------------------------------------

/** Checks one consent against the creator's current options, as TikTok will at publishing. */
const consentProblem = (
  consent: Post.Consent,
  creator: CreatorInfo,
  media: ReadonlyArray<MediaRecord>,
  targetId: Id.TargetId
): PostwireError | undefined => {
  const field = `consent.${targetId}.privacy_level`
  if (!creator.privacyLevelOptions.includes(consent.privacy_level)) {
    return new PostwireError({ code: "privacy_level_mismatch", targetId, field })
  }
  const broken = TargetRules.consentRuleBreak(consent)
  if (broken !== undefined) return new PostwireError({ code: broken.code, targetId, field })
  return creatorProblem(creator, media, targetId)
}

/** Moves the waiting targets on: approved ones with their consent, or rejected. */
const decideTargets = Effect.fn("approvals.decideTargets")(function* (
  resolved: Resolved,
  request: ApprovalWire.DecisionRequest,
  at: number
) {
  const { aggregate, approval } = resolved
  const { post } = aggregate
  if (request.decision === "reject") {
    return aggregate.targets.map(
      (t): TargetRecord => (t.status === "awaiting_approval" ? move(t, "rejected", { dueAt: null, updatedAt: at }) : t)
    )
  }
  const waiting = aggregate.targets.filter((t) => t.status === "awaiting_approval")
  const { platforms } = yield* EngineConfig
  const needing = waiting.filter((t) => needsConsent(t, approval.id, platforms))
  const given = request.consent ?? {}
  for (const id of Object.keys(given)) {
    if (!needing.some((t) => t.id === id)) {
      return yield* Effect.fail(
        new PostwireError({
          code: "invalid_request",
          field: `consent.${id}`,
          details: { detail: ErrorDetail.reason("consent_not_awaited") }
        })
      )
    }
  }
  const missing = needing.find((t) => given[t.id] === undefined)
  if (missing !== undefined) {
    return yield* Effect.fail(
      new PostwireError({ code: "consent_required", status: 409, targetId: missing.id, field: `consent.${missing.id}` })
    )
  }
  const consents = new Map<string, ConsentRecord>()
  if (needing.length > 0) {
    const store = yield* Store
    const accounts = yield* store.getAccounts(
      post.workspaceId,
      needing.map((t) => t.accountId)
    )
    const media = yield* store.getMediaItems(post.workspaceId, post.media)
    for (const target of needing) {
      const consent = given[target.id]!
      const account = accounts.find((a) => a.id === target.accountId)
      if (account === undefined) return yield* Effect.fail(unknownLink())
      const creator = yield* askCreator(account).pipe(Effect.mapError((f) => platformError(f, target.id)))
      const problem = consentProblem(consent, creator, media, target.id)
      if (problem !== undefined) return yield* Effect.fail(problem)
      consents.set(target.id, { consent, givenBy: `approval:${approval.id}`, givenAt: at })
    }
  }
  const status = readyStatus(post.scheduledAt, at)
  return aggregate.targets.map((t): TargetRecord => {
    if (t.status !== "awaiting_approval") return t
    return move(t, status, { dueAt: post.publishAt, consent: consents.get(t.id) ?? t.consent, updatedAt: at })
  })
})

/** The events a decision writes with the post: approved or rejected, and scheduled when it now waits for its time. */
const decisionEvents = Effect.fn("approvals.events")(function* (
  before: PostAggregate,
  after: PostAggregate,
  request: ApprovalWire.DecisionRequest,
  at: number
) {
  const store = yield* Store
  const { post } = after
  const approval = after.approval!
  const accounts = yield* store.getAccounts(
    post.workspaceId,
    after.targets.map((t) => t.accountId)
  )
  const livemode = accounts.some((a) => !a.sandbox)
  const decided = {
    post_id: post.id,
    approval_id: approval.id,
    decided_at: formatInstant(at)
  }
  const events: Array<OutboxEvent> = [
    request.decision === "approve"
      ? yield* PostEvents.makeEvent(post.workspaceId, "post.approved", decided, livemode, at)
      : yield* PostEvents.makeEvent(post.workspaceId, "post.rejected", { ...decided, reason: approval.reason }, livemode, at)
  ]
  if (post.status === "scheduled" && before.post.status !== "scheduled") {
    events.push(yield* PostEvents.makeEvent(post.workspaceId, "post.scheduled", PostEvents.scheduled(post), livemode, at))
  }
  return events
})

/** What a decision returns: the decision, the post as saved (the server renders it), where to send the approver. */
export interface Decision {
  readonly decision: ApprovalWire.DecisionRequest["decision"]
  readonly post: PostRead
  readonly redirect_url: string | null
}

/**
 * Approves or rejects the post of an approval link. Approving moves every waiting target to
 * `scheduled` or `queued` and stores the consent given for shortvideo direct targets (given by
 * `approval:<approval id>`); rejecting moves them to `rejected`. The events go out with the
 * change, in one save.
 *
 * Fails with `not_found` (unknown token), `invalid_redirect_url` (400), `already_decided`
 * (409, also for the loser of two concurrent decisions), `approval_expired` (410),
 * `invalid_state` (409: the post was cancelled), `consent_required` (409), or the platform's
 * code when the creator's current options refuse the consent.
 */
export const decideApproval = Effect.fn("approvals.decide")(function* (
  token: string,
  request: ApprovalWire.DecisionRequest
) {
  const store = yield* Store
  const settings = yield* EngineConfig
  for (let attempt = 0; ; attempt++) {
    const found = yield* resolveToken(token)
    if (Option.isNone(found)) return yield* Effect.fail(unknownLink())
    const resolved = found.value
    const { aggregate, approval, workspace } = resolved
    yield* checkRedirectUrl(workspace, request.redirect_url)
    const at = yield* now
    if (approval.status === "approved" || approval.status === "rejected") {
      return yield* Effect.fail(new PostwireError({ code: "already_decided" }))
    }
    if (approval.status === "expired" || approval.expiresAt <= at) {
      return yield* Effect.fail(new PostwireError({ code: "approval_expired" }))
    }
    if (!aggregate.targets.some((t) => t.status === "awaiting_approval")) {
      return yield* Effect.fail(
        new PostwireError({
          code: "invalid_state",
          details: {
            resource: ErrorDetail.resource("post"),
            detail: ErrorDetail.reason("no_longer_awaiting_approval", { status: aggregate.post.status })
          }
        })
      )
    }
    const targets = yield* decideTargets(resolved, request, at)
    const reason = request.reason?.trim()
    const next: PostAggregate = {
      post: {
        ...aggregate.post,
        status: derivePostStatus(targets.map((t) => t.status)),
        updatedAt: at,
        version: aggregate.post.version + 1
      },
      targets,
      approval: {
        ...approval,
        status: request.decision === "approve" ? "approved" : "rejected",
        decidedAt: at,
        reason: reason === undefined || reason === "" ? null : reason
      }
    }
    const events = yield* decisionEvents(aggregate, next, request, at)
    const saved = yield* store.savePost(next, events).pipe(
      Effect.as(true),
      // Someone saved the post first: read it again; if that was a decision, this one is second.
      Effect.catchTag("VersionConflict", (conflict) => (attempt < 4 ? Effect.succeed(false) : Effect.die(conflict)))
    )
    if (saved) {
      return {
        decision: request.decision,
        post: postRead(next, settings.keyring, at),
        redirect_url: request.redirect_url ?? null
      } satisfies Decision
    }
  }
})
