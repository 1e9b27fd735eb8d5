/**
 * The `PublishingStore` service: the publisher's queue on the engine's database. It claims due
 * targets with a lease, moves them through `publishing`, persists each step's platform state,
 * and records the outcome, every write with the events it causes in one transaction.
 *
 * It works on the same tables as the `Store`, and keeps the post row coherent with it: every
 * write that changes a target also bumps the post's `version`, and one that changes a target's
 * status writes the post's status the engine decided (`planSteps`, `Completion.postStatus`), so a
 * concurrent `Store.savePost` (a PATCH, a cancel, a retry) fails with `VersionConflict`, reads
 * again, and sees the change. Writes that only move a lease leave the version alone: a stale
 * save can at worst drop a lease, which the worker then notices and gives the target up.
 *
 * Every write checks the lease: a worker whose lease was taken over changes nothing.
 *
 * It also keeps the targets published without their public address (TikTok's moderation) until
 * the permalink backfill fills it in or gives up, leased like targets are.
 *
 * @since 0.1.0
 */
import { Context, type Effect, Option } from "effect"
import type { Ids } from "@postwire/domain"
import { derivePostStatus, move, startableStatuses } from "../posts/TargetStatus.ts"
import type { AccountRecord } from "../store/AccountStore.ts"
import type { OutboxEvent } from "../store/Outbox.ts"
import type { MediaRecord, PostRecord, TargetFailure, TargetRecord } from "../store/PostStore.ts"
import type { QuotaUsage } from "../store/PostStore.ts"
import type { StoreError } from "../store/StoreError.ts"

/** Names one target (and the post it belongs to, whose row each write locks first). */
export interface TargetKey {
  readonly workspaceId: Ids.WorkspaceId
  readonly postId: Ids.PostId
  readonly targetId: Ids.TargetId
}

/** The key of a target record. */
export const targetKey = (target: TargetRecord): TargetKey => ({
  workspaceId: target.workspaceId,
  postId: target.postId,
  targetId: target.id
})

/** What a worker asks of {@link PublishingStoreShape.claimDueTargets}. */
export interface ClaimRequest {
  /** The worker instance; every later write names it. */
  readonly owner: string
  /** Now: targets due at or before it are claimed. */
  readonly at: number
  /** Until when the claimed targets are the worker's. */
  readonly leaseUntil: number
  /** At most this many targets. */
  readonly limit: number
  /** At most this many targets of one account leased at once, counting every instance's leases. */
  readonly perAccount: number
}

/** How a publishing attempt ended. */
export type Outcome =
  | {
      readonly _tag: "Published"
      readonly permalink: string | null
      readonly publishedAt: number
      readonly platformState: unknown
      /**
       * Set when the platform makes the public address later: the target is remembered as
       * waiting for its permalink ({@link PendingPermalink}), first asked for at this time.
       */
      readonly permalinkAskAt?: number | undefined
      /**
       * Set when the platform said its id of the published item: the target's comments and
       * metrics are followed from now on (a comment polling state, first polled at
       * `firstCommentPollAt`, and an analytics target are written with the outcome).
       */
      readonly tracking?: FollowUp | undefined
    }
  | {
      readonly _tag: "Failed"
      /** What went wrong, as data: rendered into the shared error shape when read. */
      readonly error: TargetFailure
      /** The state a retry resumes from; `null` starts over. */
      readonly platformState: unknown
    }

/** What the engine follows of a published target: its comments and its metrics. */
export interface FollowUp {
  /** The platform's id of the published item. */
  readonly platformPostId: string
  /** When its comments are first read (the engine's schedule). */
  readonly firstCommentPollAt: number
}

/**
 * The engine's rule for a post's status from the statuses of all its targets. A store applies it
 * to what only it can read at the moment of a write: every target of the post as the write
 * leaves them, other writers' changes included.
 */
export type PostStatusRule = (statuses: ReadonlyArray<TargetRecord["status"]>) => PostRecord["status"]

/** A change to the account that published (or failed to), written with the outcome. */
export interface AccountChange {
  /** Sealed credentials to store (tokens rotate). */
  readonly credentials?: string | undefined
  /** A new status, and its events (`account.needs_reconnect`). */
  readonly status?: { readonly value: AccountRecord["status"]; readonly events: ReadonlyArray<OutboxEvent> } | undefined
}

/** The end of an attempt, with everything it writes. */
export interface Completion {
  readonly at: number
  readonly outcome: Outcome
  /** `post.published` or `post.failed`. */
  readonly events: ReadonlyArray<OutboxEvent>
  readonly account?: AccountChange | undefined
  /** The post's status after the completion, from all its targets' statuses as the write leaves them. */
  readonly postStatus: PostStatusRule
}

/** A step that left the target in progress on its platform. */
export interface Progress {
  readonly at: number
  /** The platform's state (a container or publish id): the next step resumes from it. */
  readonly platformState: unknown
  /** When to take the next step. */
  readonly dueAt: number
  /**
   * Keeps the lease: the worker takes the next step itself at `dueAt` (a short wait). Should it
   * die meanwhile, the target is claimed again once the lease runs out.
   */
  readonly keepLease?: boolean | undefined
  readonly account?: AccountChange | undefined
}

/** When a target given back after an infrastructure failure is due again (see `PublishingStore.requeueTarget`). */
export interface Requeue {
  readonly at: number
  readonly dueAt: number
}

/** The state saved right before a call that may publish (see `PublishInput.checkpoint`). */
export interface Checkpoint {
  readonly at: number
  /** The platform's state to resume from (with what a later step needs to ask the platform). */
  readonly platformState: unknown
}

/**
 * The targets waiting for their platform to say whether it published them: a publish was sent,
 * its answer was lost, and nobody is asking right now (the next ask is due later). Metrics read
 * it: a long platform outage shows here, not as failed targets.
 */
export interface UnconfirmedTargets {
  /** How many targets wait. */
  readonly count: number
  /** Since when the longest-waiting one may have been published; `null` when none waits. */
  readonly oldestSince: number | null
}

/** The due targets no worker holds (see {@link PublishingStoreShape.dueTargets}). */
export interface DueTargets {
  /** How many targets are due and unclaimed. */
  readonly count: number
  /** When the longest-waiting one became due; `null` when none is. */
  readonly oldestDueAt: number | null
}

/**
 * What a worker asks of {@link PublishingStoreShape.startSteps}: the targets of one claim, about
 * to take their next step.
 */
export interface StepsRequest {
  /** The worker instance holding the targets' leases. */
  readonly owner: string
  /** Now: the time of every start. */
  readonly at: number
  /**
   * The targets as claimed, in the claim's order. One claimed `queued` or `scheduled` starts
   * (moves to `publishing`); one claimed `publishing` resumes (nothing is written for it).
   */
  readonly targets: ReadonlyArray<TargetRecord>
  /** The quota window `[from, to)` (by `publishedAt`) of the usage read for a target that starts. */
  readonly quotaWindow: { readonly from: number; readonly to: number }
  /**
   * The events a target that is its post's first to start writes with its start
   * (`post.publishing`), given the post as read (before the start) and the accounts of its
   * targets. Called once per post at most, inside the write.
   */
  readonly firstStartEvents: (
    target: TargetRecord,
    read: { readonly post: PostRecord; readonly accounts: ReadonlyArray<AccountRecord> }
  ) => ReadonlyArray<OutboxEvent>
}

/** What a claimed target's step works on, as {@link PublishingStoreShape.startSteps} left it. */
export interface TargetStep {
  /** The post and all its targets after the claim's starts (an edit made since the claim is in it). */
  readonly post: PostRecord
  readonly targets: ReadonlyArray<TargetRecord>
  /** The accounts of the post's targets that exist, each once, in the targets' order. */
  readonly accounts: ReadonlyArray<AccountRecord>
  /** The post's media items that exist, each once, in the post's order. */
  readonly media: ReadonlyArray<MediaRecord>
  /** Whether the target started now; false when it resumes a step of an attempt begun before. */
  readonly started: boolean
  /** The events written with the start: the first-start events when it was its post's first. */
  readonly events: ReadonlyArray<OutboxEvent>
  /**
   * For a target that started now, what its account published in the quota window, plus the
   * account's targets publishing right now other than this one (the claim's targets that started
   * before it, in the claim's order, included): the quota check at publish time. `null` when it
   * resumes.
   */
  readonly usage: QuotaUsage | null
}

/** A post with its targets, as {@link PublishingStoreShape.startSteps} reads and writes them. */
export interface PostWithTargets {
  readonly post: PostRecord
  readonly targets: ReadonlyArray<TargetRecord>
}

/** What {@link PublishingStoreShape.startSteps} read, under the posts' locks, before it writes. */
export interface StepsRead {
  readonly post: (workspaceId: Ids.WorkspaceId, postId: Ids.PostId) => PostWithTargets | undefined
  readonly account: (workspaceId: Ids.WorkspaceId, accountId: Ids.AccountId) => AccountRecord | undefined
  readonly media: (workspaceId: Ids.WorkspaceId, mediaId: Ids.MediaId) => MediaRecord | undefined
  /** What the account published in the request's quota window, plus its targets publishing now. */
  readonly usage: (workspaceId: Ids.WorkspaceId, accountId: Ids.AccountId) => QuotaUsage
}

/** What {@link PublishingStoreShape.startSteps} writes, and answers. */
export interface StepsPlan {
  readonly steps: ReadonlyArray<Option.Option<TargetStep>>
  /** The targets that start: each moves to `publishing` (if `owner` still holds it). */
  readonly started: ReadonlyArray<TargetKey>
  /** The posts with a target that starts, as they are after the starts (status, version, `updatedAt`). */
  readonly changed: ReadonlyArray<PostWithTargets>
  readonly events: ReadonlyArray<OutboxEvent>
}

const hasStarted = (targets: ReadonlyArray<TargetRecord>) =>
  targets.some((t) => t.attempts > 0 || t.status === "publishing" || t.status === "published" || t.status === "failed")

/**
 * Decides {@link PublishingStoreShape.startSteps} from what it read: the one reading of its
 * rules, shared by every implementation (they differ only in how they read and write).
 */
export const planSteps = (request: StepsRequest, read: StepsRead): StepsPlan => {
  const { at, owner } = request
  const before = new Map<string, PostWithTargets>()
  const changed = new Map<string, PostWithTargets>()
  const startsByAccount = new Map<string, number>()
  const started: Array<TargetKey> = []
  const events: Array<OutboxEvent> = []
  const accountsOf = ({ post, targets }: PostWithTargets) =>
    [...new Set(targets.map((t) => t.accountId))].flatMap((id) => read.account(post.workspaceId, id) ?? [])
  const plans = request.targets.map((claim) => {
    const key = `${claim.workspaceId}/${claim.postId}`
    const found = before.get(key) ?? read.post(claim.workspaceId, claim.postId)
    if (found === undefined) return undefined
    before.set(key, found)
    const current = changed.get(key) ?? found
    const target = current.targets.find((t) => t.id === claim.id)
    if (target === undefined || target.leaseOwner !== owner) return undefined
    if (claim.status === "publishing") {
      return target.status === "publishing" ? { key, started: false, events: [], usage: null } : undefined
    }
    if (!startableStatuses.includes(target.status)) return undefined
    // The claim's targets of one account that started before this one are publishing too.
    const account = `${target.workspaceId}/${target.accountId}`
    const startedBefore = startsByAccount.get(account) ?? 0
    startsByAccount.set(account, startedBefore + 1)
    const usage = read.usage(target.workspaceId, target.accountId)
    // The post's first start: none of its targets had started before, nor one of this claim's.
    const written = !changed.has(key) && !hasStarted(found.targets)
      ? request.firstStartEvents(claim, { post: found.post, accounts: accountsOf(found) })
      : []
    events.push(...written)
    started.push(targetKey(target))
    changed.set(key, {
      post: current.post,
      targets: current.targets.map((t) => (t.id === target.id ? move(target, "publishing", { updatedAt: at }) : t))
    })
    return { key, started: true, events: written, usage: { used: usage.used + startedBefore, oldest: usage.oldest } }
  })
  // Each post's status derived once from all its targets, its version bumped once.
  for (const [key, { post, targets }] of changed) {
    changed.set(key, {
      targets,
      post: { ...post, status: derivePostStatus(targets.map((t) => t.status)), updatedAt: at, version: post.version + 1 }
    })
  }
  const steps = plans.map((plan): Option.Option<TargetStep> => {
    if (plan === undefined) return Option.none()
    const { post, targets } = changed.get(plan.key) ?? before.get(plan.key)!
    return Option.some({
      post,
      targets,
      accounts: accountsOf({ post, targets }),
      media: [...new Set(post.media)].flatMap((id) => read.media(post.workspaceId, id) ?? []),
      started: plan.started,
      events: plan.events,
      usage: plan.usage
    })
  })
  return { steps, started, changed: [...changed.values()], events }
}

/** A target published without its public address, waiting for the permalink backfill. */
export interface PendingPermalink {
  readonly workspaceId: Ids.WorkspaceId
  readonly postId: Ids.PostId
  readonly targetId: Ids.TargetId
  readonly accountId: Ids.AccountId
  /** When the target was published. */
  readonly since: number
  /** How many times the platform was asked so far. */
  readonly asked: number
  /** When to ask next. */
  readonly askAt: number
  /** The backfill instance holding it, and until when. */
  readonly leaseOwner: string | null
  readonly leaseUntil: number | null
}

/** What a backfill instance asks of {@link PublishingStoreShape.claimPendingPermalinks}. */
export interface PermalinkClaimRequest {
  readonly owner: string
  /** Now: permalinks to ask for at or before it are claimed. */
  readonly at: number
  readonly leaseUntil: number
  readonly limit: number
}

/** The public address found for a pending target. */
export interface PermalinkFill {
  readonly at: number
  readonly permalink: string
  /** The target's platform state from now on (with the platform's public id). */
  readonly platformState: unknown
  /** Sealed credentials to store (tokens rotate). */
  readonly credentials?: string | undefined
}

/** The next time to ask for a pending target's public address. */
export interface PermalinkDeferral {
  readonly at: number
  readonly askAt: number
  /** Sealed credentials to store (tokens rotate). */
  readonly credentials?: string | undefined
}

/** The publisher's reads and writes. */
export interface PublishingStoreShape {
  /**
   * Leases up to `limit` due targets to `owner`, earliest due first: `queued` targets and
   * `scheduled` ones whose `dueAt` has come, and `publishing` targets waiting for their next
   * step, when nobody holds them or their lease has run out (a crashed worker's targets are
   * claimed again here). Targets of an account that already has `perAccount` leased targets
   * are left for later. Targets locked by another instance are skipped. The status does not
   * change until {@link startSteps}. Each claimed target carries its `unconfirmedSince`.
   * A target whose post names a media item still `processing` waits: it is not claimed until
   * the item is `ready` or `failed` (the publisher then fails it with the item's error).
   */
  readonly claimDueTargets: (request: ClaimRequest) => Effect.Effect<ReadonlyArray<TargetRecord>, StoreError>

  /**
   * Starts the targets of one claim together and reads what each step needs, in one
   * transaction: locks their posts (in key order), then for each target in the request's order
   * checks that `owner` still holds its lease and that it is still where the claim found it
   * (`queued` or `scheduled` to start, `publishing` to resume), moves each one to start to
   * `publishing`, derives each post's status once from all its targets and bumps its version once,
   * and writes the first-start events of a post none of whose targets had started before (for its
   * first target in the request only). Answers, in the request's order, what each target's step
   * works on ({@link TargetStep}), or `None` when the lease is no longer `owner`'s or the target
   * left the queue meanwhile (a cancel won): nothing may be sent then.
   */
  readonly startSteps: (request: StepsRequest) => Effect.Effect<ReadonlyArray<Option.Option<TargetStep>>, StoreError>

  /**
   * Persists a step's platform state, gives the lease up (unless `progress.keepLease`), and makes
   * the target due again at `progress.dueAt`, still `publishing`. False when `owner` no longer
   * held it.
   */
  readonly saveProgress: (key: TargetKey, owner: string, progress: Progress) => Effect.Effect<boolean, StoreError>

  /**
   * Persists a target's platform state right before a call that may publish it, keeping the
   * lease, and records since when it may have been published (`unconfirmedSince`, kept from an
   * earlier checkpoint of the same attempt). False when `owner` no longer holds it: nothing may
   * be sent then.
   */
  readonly saveCheckpoint: (key: TargetKey, owner: string, checkpoint: Checkpoint) => Effect.Effect<boolean, StoreError>

  /**
   * The targets waiting for their platform to confirm a publish: `publishing`, possibly
   * published (`unconfirmedSince` set), and held by no live lease at `at`, across workspaces.
   */
  readonly unconfirmedTargets: (at: number) => Effect.Effect<UnconfirmedTargets, StoreError>

  /**
   * The targets due at `at` that no worker holds, across workspaces, and since when the
   * longest-waiting one has been due: the publishing lag an operator alerts on.
   */
  readonly dueTargets: (at: number) => Effect.Effect<DueTargets, StoreError>

  /**
   * Ends an attempt: the target becomes `published` or `failed`, its attempts count one more,
   * it is no longer possibly published (`unconfirmedSince` cleared), the lease is given up, the
   * post's status is set by `completion.postStatus` from all its targets as the write leaves
   * them, and the events and account change are written, in one transaction. False when `owner` no longer held it.
   */
  readonly completeTarget: (key: TargetKey, owner: string, completion: Completion) => Effect.Effect<boolean, StoreError>

  /**
   * Leases up to `limit` pending permalinks whose time to ask has come, earliest first, to
   * `owner`, when nobody holds them or their lease has run out. Rows locked by another instance
   * are skipped. A pending permalink exists from a `completeTarget` whose outcome set
   * `permalinkAskAt` until it is filled or abandoned.
   */
  readonly claimPendingPermalinks: (
    request: PermalinkClaimRequest
  ) => Effect.Effect<ReadonlyArray<PendingPermalink>, StoreError>

  /**
   * Stores the public address on the published target with its new platform state, bumps the
   * post's version, stores the credentials, and forgets the pending permalink, in one
   * transaction. False when `owner` no longer holds it (nothing is written), or when the target
   * is no longer published (the pending permalink is forgotten, the target left alone).
   */
  readonly fillPermalink: (key: TargetKey, owner: string, fill: PermalinkFill) => Effect.Effect<boolean, StoreError>

  /**
   * Counts one more ask, gives the lease up, and makes the pending permalink due at
   * `deferral.askAt`, storing the credentials with it. False when `owner` no longer holds it.
   */
  readonly deferPermalink: (
    key: TargetKey,
    owner: string,
    deferral: PermalinkDeferral
  ) => Effect.Effect<boolean, StoreError>

  /**
   * Stops asking: forgets the pending permalink (the target stays published without one), and
   * stores the credentials if given. False when `owner` no longer holds it.
   */
  readonly abandonPermalink: (
    key: TargetKey,
    owner: string,
    credentials?: string | undefined
  ) => Effect.Effect<boolean, StoreError>

  /**
   * Extends every lease `owner` holds, or only those of the targets named in `only` (the steps
   * still making progress: a stuck one's lease runs out and another instance recovers it);
   * returns the ids of the targets it renewed.
   */
  readonly renewLeases: (
    owner: string,
    at: number,
    leaseUntil: number,
    only?: ReadonlyArray<string> | undefined
  ) => Effect.Effect<ReadonlyArray<string>, StoreError>

  /**
   * Gives a target `owner` holds back to the queue after a failure of this instance's own
   * infrastructure (a lost database, an adapter defect), due again at `dueAt`: still
   * `publishing`, its platform state and `unconfirmedSince` untouched, so the next step resumes
   * exactly where the last saved one left it. False when `owner` no longer holds it.
   */
  readonly requeueTarget: (key: TargetKey, owner: string, requeue: Requeue) => Effect.Effect<boolean, StoreError>

  /** Gives up every lease `owner` holds (shutting down), so other instances take them at once. */
  readonly releaseTargets: (owner: string) => Effect.Effect<number, StoreError>

  /** Stores an account's sealed credentials. */
  readonly updateAccountCredentials: (
    workspaceId: Ids.WorkspaceId,
    accountId: Ids.AccountId,
    credentials: string
  ) => Effect.Effect<void, StoreError>
}

/** The publisher's queue. */
export class PublishingStore extends Context.Service<PublishingStore, PublishingStoreShape>()(
  "postwire/PublishingStore"
) {}
