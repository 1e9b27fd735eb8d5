/**
 * The `PublishingStore` service: the publisher's queue on the engine's database. It claims due
 * targets with a lease, moves them through `publishing`, persists each step's platform state,
 * and records the outcome, every write with the events it causes in one transaction.
 *
 * It works on the same tables as the `Store`, and keeps the post row coherent with it: every
 * write that changes a target also bumps the post's `version` and re-derives its `status`, so a
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
import { Context, type Effect, type Option } from "effect"
import type { Ids } from "@postwire/domain"
import type { AccountRecord, OutboxEvent, PostRecord, TargetFailure, TargetRecord } from "../store/Records.ts"
import type { QuotaUsage, StoreError } from "../store/Store.ts"

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
       * The platform's id of the published item: when set, the target's comments are polled
       * from now on (a comment polling state is written with the outcome).
       */
      readonly platformPostId?: string | null | undefined
    }
  | {
      readonly _tag: "Failed"
      /** What went wrong, as data: rendered into the shared error shape when read. */
      readonly error: TargetFailure
      /** The state a retry resumes from; `null` starts over. */
      readonly platformState: unknown
    }

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

/** A post whose target just started, as {@link PublishingStoreShape.startPublishing} left it. */
export interface StartedPost {
  readonly post: PostRecord
  readonly targets: ReadonlyArray<TargetRecord>
  /** Whether this was the post's first target to start, so that `firstStartEvents` were written. */
  readonly firstStart: boolean
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
   * change until {@link startPublishing}. Each claimed target carries its `unconfirmedSince`.
   * A target whose post names a media item still `processing` waits: it is not claimed until
   * the item is `ready` or `failed` (the publisher then fails it with the item's error).
   */
  readonly claimDueTargets: (request: ClaimRequest) => Effect.Effect<ReadonlyArray<TargetRecord>, StoreError>

  /**
   * Moves a target `owner` holds from `queued` or `scheduled` to `publishing`, deriving the
   * post's status again and bumping its version, and returns the post and its targets as they
   * are after the change (read under the post's lock: an edit made since the claim is in it).
   * When no target of the post had started before, `firstStartEvents` (`post.publishing`) are
   * written with the change. `None` when the lease is no longer `owner`'s or the target left the
   * queue meanwhile (a cancel won): nothing may be sent then.
   */
  readonly startPublishing: (
    key: TargetKey,
    owner: string,
    at: number,
    firstStartEvents: ReadonlyArray<OutboxEvent>
  ) => Effect.Effect<Option.Option<StartedPost>, StoreError>

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
   * it is no longer possibly published (`unconfirmedSince` cleared), the lease is given up, the post's status is derived again, and the events and account
   * change are written, in one transaction. False when `owner` no longer held it.
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

  /** Extends every lease `owner` holds; returns the ids of the targets it still holds. */
  readonly renewLeases: (
    owner: string,
    at: number,
    leaseUntil: number
  ) => Effect.Effect<ReadonlyArray<string>, StoreError>

  /** Gives up every lease `owner` holds (shutting down), so other instances take them at once. */
  readonly releaseTargets: (owner: string) => Effect.Effect<number, StoreError>

  /** Stores an account's sealed credentials. */
  readonly updateAccountCredentials: (
    workspaceId: Ids.WorkspaceId,
    accountId: Ids.AccountId,
    credentials: string
  ) => Effect.Effect<void, StoreError>

  /**
   * What the account has published in `[from, to)` (by `publishedAt`), plus its targets being
   * published right now other than `exceptTargetId`: the quota check at publish time.
   */
  readonly publishedUsage: (
    workspaceId: Ids.WorkspaceId,
    accountId: Ids.AccountId,
    from: number,
    to: number,
    exceptTargetId: Ids.TargetId
  ) => Effect.Effect<QuotaUsage, StoreError>
}

/** The publisher's queue. */
export class PublishingStore extends Context.Service<PublishingStore, PublishingStoreShape>()(
  "postwire/PublishingStore"
) {}
