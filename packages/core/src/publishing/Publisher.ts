/**
 * The publisher: a worker loop that claims due targets with a lease and publishes each through
 * the `PlatformClient`, one step at a time, recording every outcome with its events.
 *
 * A target goes `queued` (or `scheduled`, once due) → `publishing` → `published` | `failed`, on
 * its own: one target failing never touches another. A step that leaves the target in progress
 * on its platform persists the platform's state (a container or publish id) and gives the
 * target up until its next poll; any instance may take the next step, and it resumes from that
 * state, so the adapter asks the platform before it would publish again. A crashed worker's
 * leases run out and its targets are claimed again.
 *
 * Right before a call that may publish, the adapter saves its state through the step's
 * `checkpoint`, and the target is marked as possibly published (`unconfirmedSince`). From then
 * on it ends `published`, or `failed` only on a failure that says the platform did not publish it
 * (`notPublished`) or that the platform's bound for an unknown outcome passed (`gaveUp`); any other failure (an outage, a lost answer, a token to renew, a worker that
 * died) keeps it `publishing`, asked again after a wait that doubles up to a bound
 * ({@link unconfirmedWaitMs}), and `PublishingStore.unconfirmedTargets` counts those waiting.
 * A target published before its platform made a public address is remembered for the
 * `PermalinkBackfill`, which fills the permalink in later. A failure with a `retryAt` (a
 * platform's per-minute limit, nothing published) keeps the target `publishing`, due again then.
 *
 * @since 0.1.0
 */
import { Cause, Clock, Effect, Fiber, FiberMap, Option, Queue, References, Schedule, Semaphore } from "effect"
import { ErrorCatalog, formatInstant, type Ids as Id } from "@postwire/domain"
import * as AccountEvents from "../accounts/AccountEvents.ts"
import * as CommentSchedule from "../comments/CommentSchedule.ts"
import { EngineConfig, type EngineSettings } from "../EngineConfig.ts"
import * as LeasedWork from "../internal/LeasedWork.ts"
import { Ids } from "../ids/Ids.ts"
import { BlobStore } from "../media/BlobStore.ts"
import { ImageConverter, type ImageConverterShape } from "../media/ImageConverter.ts"
import * as Renditions from "../media/Renditions.ts"
import * as PostEvents from "../posts/PostEvents.ts"
import { quotaLimit, quotaWindow } from "../posts/Quota.ts"
import { failureOf } from "../posts/TargetErrors.ts"
import { derivePostStatus, move } from "../posts/TargetStatus.ts"
import type { AccountRecord } from "../store/AccountStore.ts"
import type { MediaRecord, PostRecord, TargetRecord } from "../store/PostStore.ts"
import * as Spans from "../Spans.ts"
import type { QuotaUsage } from "../store/PostStore.ts"
import { accountContext, CredentialsCipher, openAccountCredentials } from "../secrets/CredentialsCipher.ts"
import { signMediaUrl } from "./MediaUrls.ts"
import * as PermalinkBackfill from "./PermalinkBackfill.ts"
import * as PublishingMetrics from "./PublishingMetrics.ts"
import { PlatformClient, type PublishMedia, type PublishStep } from "../platform/PlatformClient.ts"
import { type CredentialsUpdate, PlatformFailure } from "../platform/PlatformFailure.ts"
import {
  type AccountChange,
  type Outcome,
  PublishingStore,
  type TargetKey,
  type TargetStep,
  targetKey
} from "./PublishingStore.ts"

/** How a worker instance publishes. */
export interface PublisherSettings {
  /** This instance's name in every lease it takes; unique per process. */
  readonly owner: string
  /** Targets this instance works on at once. */
  readonly concurrency: number
  /** Targets of one account being worked on at once, across every instance. */
  readonly perAccountConcurrency: number
  /** How long a claim lasts without renewal; an instance renews its leases every third of it. */
  readonly leaseMs: number
  /** How long to wait before looking again when nothing was due. */
  readonly idlePollMs: number
  /**
   * A step that leaves its target in progress with a wait at most this long (a platform asked to
   * be polled again shortly) keeps the lease and its slot, and the same worker takes the next
   * step once the wait is over, without queueing, claiming and reading the target again. While
   * due targets wait for a slot, a target keeps its slot this way only within this long of its
   * claim: then it goes back to the queue, behind them. Longer waits give the target back to the
   * queue. A negative value always gives it back.
   */
  readonly holdPollMs: number
  /**
   * While due targets remain, a worker with fewer than a quarter of its slots free waits this
   * long at most for more to free up, so that one claim takes several targets.
   */
  readonly claimGatherMs: number
  /** How long a signed media address handed to a platform stays valid. */
  readonly mediaUrlTtlMs: number
  /** On shutdown, how long running steps may take to finish before they are interrupted. */
  readonly shutdownGraceMs: number
  /**
   * A target that may have been published but whose platform could not say so is asked again
   * after this long at first; each later wait is as long as the time waited so far (the waits
   * double), up to {@link PublisherSettings.unconfirmedMaxWaitMs}.
   */
  readonly unconfirmedFirstWaitMs: number
  /** The longest wait between two asks about a target that may have been published. */
  readonly unconfirmedMaxWaitMs: number
  /**
   * The longest a publishing step may go without progress (from its claim, or from the end of
   * the step before it on a held target). Past it, the heartbeat stops renewing its lease and
   * interrupts it: the lease runs out and any instance recovers the target from its last saved
   * state, as after a killed worker.
   */
  readonly stepTimeoutMs: number
  /**
   * A target whose step failed for a reason of this instance's own (its database did not
   * answer, an adapter defect) and not the target's goes back to the queue, due again after
   * this long at first, doubling with each such failure in a row, up to
   * {@link PublisherSettings.requeueMaxWaitMs}. It is never failed for it.
   */
  readonly requeueFirstWaitMs: number
  /** The longest wait before a target given back after an infrastructure failure is tried again. */
  readonly requeueMaxWaitMs: number
}

/** The defaults, for an instance named `owner`. */
export const defaults = (owner: string): PublisherSettings => ({
  owner,
  concurrency: 128,
  perAccountConcurrency: 4,
  leaseMs: 60_000,
  idlePollMs: 1_000,
  holdPollMs: 1_000,
  claimGatherMs: 25,
  mediaUrlTtlMs: 24 * 60 * 60 * 1000,
  shutdownGraceMs: 10_000,
  unconfirmedFirstWaitMs: 30_000,
  unconfirmedMaxWaitMs: 10 * 60_000,
  stepTimeoutMs: 5 * 60_000,
  requeueFirstWaitMs: 5_000,
  requeueMaxWaitMs: 5 * 60_000
})

/**
 * How long a target waits before it is tried again after its `requeues`-th infrastructure
 * failure in a row (the first is 1): the first wait, doubling, never more than the longest.
 *
 * @example
 * ```ts
 * requeueWaitMs(Publisher.defaults("w1"), 3) // 20_000
 * ```
 */
export const requeueWaitMs = (
  settings: Pick<PublisherSettings, "requeueFirstWaitMs" | "requeueMaxWaitMs">,
  requeues: number
): number => Math.min(settings.requeueFirstWaitMs * 2 ** Math.max(0, Math.min(30, requeues - 1)), settings.requeueMaxWaitMs)

/**
 * Whether a failure belongs to this instance's infrastructure and not to the target: the
 * store did not answer while checkpointing (`checkpoint_failed`) or the adapter failed
 * unexpectedly (`adapter_defect`, a lost database among the causes). Such a target is given
 * back to the queue, never failed for it.
 */
export const isInfrastructureFailure = (failure: PlatformFailure): boolean =>
  failure.code === "internal_error" &&
  (failure.platformCode === "checkpoint_failed" || failure.platformCode === "adapter_defect")

/**
 * How long a target that may have been published waits before its platform is asked again,
 * `waitedMs` after the publish was sent: the first wait, then as long as it waited so far, never
 * more than the longest wait (defaults: 30 s, 30 s, 1 m, 2 m, 4 m, 8 m, then every 10 minutes).
 *
 * @example
 * ```ts
 * unconfirmedWaitMs(Publisher.defaults("w1"), 60_000) // 60_000
 * ```
 */
export const unconfirmedWaitMs = (
  settings: Pick<PublisherSettings, "unconfirmedFirstWaitMs" | "unconfirmedMaxWaitMs">,
  waitedMs: number
): number => Math.min(Math.max(settings.unconfirmedFirstWaitMs, waitedMs), settings.unconfirmedMaxWaitMs)

/** The services the publisher needs. */
export type PublisherServices = PublishingStore | PlatformClient | CredentialsCipher | BlobStore | EngineConfig | Ids

const day = 24 * 60 * 60 * 1000

const now = Clock.currentTimeMillis

/**
 * The services a step uses, read from the context once per worker (or per round) instead of once
 * per target: each read is an operation of the runtime, and a target is many of them.
 */
interface StepServices {
  readonly queue: PublishingStore["Service"]
  readonly platform: PlatformClient["Service"]
  readonly engine: EngineSettings
  readonly blobs: BlobStore["Service"]
  readonly converter: ImageConverterShape | undefined
}

const stepServices = Effect.gen(function* () {
  const services: StepServices = {
    queue: yield* PublishingStore,
    platform: yield* PlatformClient,
    engine: yield* EngineConfig,
    blobs: yield* BlobStore,
    converter: yield* ImageConverter
  }
  return services
})

/** What a step knows about its target once it started. */
interface Started {
  readonly services: StepServices
  readonly settings: PublisherSettings
  readonly key: TargetKey
  readonly post: PostRecord
  readonly target: TargetRecord
  readonly account: AccountRecord | undefined
  readonly livemode: boolean
  readonly at: number
  /** Since when the platform may have published the target (see `TargetRecord.unconfirmedSince`). */
  readonly unconfirmedSince: number | null
  /** Infrastructure failures of this target in a row before this step (see {@link requeueWaitMs}). */
  readonly requeues: number
}

/** A failure the publisher decides without asking the platform. */
const refusal = (code: PlatformFailure["code"], platformCode: string) =>
  new PlatformFailure({ code, platformCode, retryable: ErrorCatalog[code].retryable })

const noUpdate = Effect.succeed(undefined)

/** Seals a credentials update from an adapter for the account it names (most steps have none). */
const sealUpdate = (started: Started, update: CredentialsUpdate | undefined) => {
  const account = started.account
  if (update === undefined || account === undefined || update.accountId !== account.id) return noUpdate
  return CredentialsCipher.useSync((cipher) => cipher.seal(update.credentials, accountContext(account.workspaceId, account.id)))
}

/** The account change a failure causes: `needs_reconnect` (with its event) when it asks for one. */
const reconnectChange = Effect.fnUntraced(function* (started: Started, failure: PlatformFailure) {
  const { account, at } = started
  if (failure.needsReconnect !== true || account === undefined || account.status !== "connected") return undefined
  const event = yield* AccountEvents.needsReconnect(account, failure.code, at)
  return { value: "needs_reconnect", events: [event] } satisfies AccountChange["status"]
})

/**
 * Keeps a target that may have been published `publishing` after a failure that does not say
 * the platform did not publish it: the platform is asked again later, the target never reported
 * failed. The account change the failure asks for (a reconnect, new tokens) is written with it.
 */
const recordUnconfirmed = Effect.fnUntraced(function* (
  started: Started,
  failure: PlatformFailure,
  since: number,
  latestState: unknown
) {
  const { queue } = started.services
  const { at, settings, target } = started
  // A failure's `null` state means "start over": never for a target that may be published.
  const platformState = failure.state ?? latestState ?? target.platformState
  const saved = yield* queue.saveProgress(started.key, settings.owner, {
    at,
    platformState,
    // Asked again after its wait, and never before a time the platform's rate limit named.
    dueAt: Math.max(at + unconfirmedWaitMs(settings, at - since), failure.retryAt ?? 0),
    account: { credentials: yield* sealUpdate(started, failure.credentials), status: yield* reconnectChange(started, failure) }
  })
  if (!saved) return yield* leaseLost("saving an unconfirmed publish")
  yield* Effect.logWarning("the platform may have published the target and could not say so: asking again later", {
    code: failure.code,
    platform_code: failure.platformCode,
    unconfirmed_since: formatInstant(since)
  })
  return "unconfirmed" as const
})

/**
 * Keeps a target `publishing` after its platform's call-rate limit refused a call that published
 * nothing (a `PlatformFailure` with `retryAt`): it is due again at that time, its turn, instead of
 * failing. The account change the failure asks for (new tokens) is written with it.
 */
const recordWait = Effect.fnUntraced(function* (started: Started, failure: PlatformFailure, retryAt: number, latestState: unknown) {
  const { queue } = started.services
  const saved = yield* queue.saveProgress(started.key, started.settings.owner, {
    at: started.at,
    platformState: failure.state === undefined ? latestState : failure.state,
    dueAt: Math.max(started.at, retryAt),
    account: { credentials: yield* sealUpdate(started, failure.credentials) }
  })
  yield* Effect.logInfo("the platform's rate limit is spent: the target waits for its turn", {
    platform_code: failure.platformCode,
    retry_at: formatInstant(retryAt)
  })
  return saved ? ("in_progress" as const) : ("lost" as const)
})

/**
 * A platform's quota refusal with what its message needs: an adapter that knows the platform's
 * numbers gives them; one that could not (the platform's answer named no limit, a plugin) gets
 * the account's quota and the latest its rolling 24 hours can free a slot, so the message never
 * reads "a daily posting limit of ." with the numbers missing.
 */
const withQuotaDetails = (started: Started, failure: PlatformFailure, engine: EngineSettings): PlatformFailure => {
  if (failure.code !== "quota_exceeded" || started.account === undefined) return failure
  const details = failure.details ?? {}
  if (details.limit !== undefined && details.resets_at !== undefined) return failure
  return new PlatformFailure({
    ...failure,
    details: {
      ...details,
      limit: details.limit ?? quotaLimit(started.account, engine),
      resets_at: details.resets_at ?? formatInstant(started.at + day)
    }
  })
}

/** Records a failed attempt; a failure that needs a reconnect also marks the account. */
const recordFailure = Effect.fnUntraced(function* (started: Started, failure: PlatformFailure) {
  const { engine, queue } = started.services
  const { at, post, target } = started
  // Stored as data, rendered whenever it is read (in the reader's language and the current words).
  const error = failureOf(withQuotaDetails(started, failure, engine))
  const failed: TargetRecord = move(target, "failed", { error })
  const events = [
    yield* PostEvents.makeEvent(
      target.workspaceId,
      "post.failed",
      PostEvents.failed(post, failed, error, engine.publicBaseUrl),
      started.livemode,
      at
    )
  ]
  const credentials = yield* sealUpdate(started, failure.credentials)
  const status = yield* reconnectChange(started, failure)
  const outcome: Outcome = {
    _tag: "Failed",
    error,
    platformState: failure.state === undefined ? target.platformState : failure.state
  }
  const recorded = yield* queue.completeTarget(started.key, started.settings.owner, {
    at,
    outcome,
    events,
    account: { credentials, status },
    postStatus: derivePostStatus
  })
  if (!recorded) return yield* leaseLost("recording the failure")
  yield* Effect.logInfo("target failed", { code: failure.code, platform_code: failure.platformCode })
  return "failed" as const
})

/**
 * The lease of a target was no longer this instance's: another instance took it over (this one
 * was too slow, or stuck) and continues it. Not an error: the target usually ends published.
 */
const leaseLost = (when: string) =>
  Effect.as(Effect.logDebug("lease lost: another instance continues the target", { when }), "lost" as const)

/**
 * Gives a target back to the queue after a failure of this instance's infrastructure (see
 * {@link isInfrastructureFailure}, or the store not answering), without failing it: due again
 * after {@link requeueWaitMs}, counted in the publishing metrics. When even that write fails
 * the lease runs out and the target is claimed again then.
 */
const requeue = Effect.fnUntraced(function* (
  settings: PublisherSettings,
  target: TargetRecord,
  requeues: number,
  reason: string,
  cause: unknown
) {
  const queue = yield* PublishingStore
  const at = yield* now
  const waitMs = requeueWaitMs(settings, requeues + 1)
  yield* PublishingMetrics.recordRequeue({ platform: target.platform, reason })
  yield* Effect.logWarning("publishing step failed for a reason of this instance's own: the target goes back to the queue", {
    reason,
    retry_in_ms: waitMs,
    cause: cause instanceof Error ? cause.message : String(cause)
  })
  const given = yield* queue.requeueTarget(targetKey(target), settings.owner, { at, dueAt: at + waitMs }).pipe(
    Effect.catchTag("StoreError", () => Effect.succeed(true))
  )
  return given ? ("requeued" as const) : yield* leaseLost("giving the target back")
})

/** Records a published target and its `post.published`. */
const recordPublished = Effect.fnUntraced(function* (
  started: Started,
  step: Extract<PublishStep, { _tag: "Published" }>,
  update: CredentialsUpdate | undefined
) {
  const { platform, queue } = started.services
  const { at, post, target } = started
  const published: TargetRecord = move(target, "published", { permalink: step.permalink, publishedAt: at })
  // Published now; the permalink backfill asks for the public address the platform makes later.
  const permalinkPending = step.permalinkPending === true && step.permalink === null && platform.permalink !== undefined
  const event = yield* PostEvents.makeEvent(
    target.workspaceId,
    "post.published",
    PostEvents.published(post, published),
    started.livemode,
    at
  )
  const recorded = yield* queue.completeTarget(started.key, started.settings.owner, {
    at,
    outcome: {
      _tag: "Published",
      permalink: step.permalink,
      publishedAt: at,
      platformState: step.state,
      // Its comments are read from a minute on, and its metrics on the collector's schedule.
      ...(typeof step.platformPostId === "string"
        ? { tracking: { platformPostId: step.platformPostId, firstCommentPollAt: at + CommentSchedule.firstPollAfterMs } }
        : {}),
      ...(permalinkPending
        ? { permalinkAskAt: at + Math.max(0, step.permalinkAskAfterMs ?? PermalinkBackfill.firstAskAfterMs) }
        : {})
    },
    events: [event],
    account: { credentials: yield* sealUpdate(started, update) },
    postStatus: derivePostStatus
  })
  yield* Effect.logInfo("target published", {
    platform_post_id: step.platformPostId,
    permalink: step.permalink,
    permalink_pending: permalinkPending
  })
  return recorded ? ("published" as const) : ("lost" as const)
})

/**
 * Persists the state of a step in progress; the target is due again after `pollAfterMs`. With
 * `keepLease` this worker keeps it to take the next step itself. Returns the sealed credentials
 * it stored, if any, or `lost`.
 */
const recordProgress = (
  started: Started,
  step: Extract<PublishStep, { _tag: "InProgress" }>,
  update: CredentialsUpdate | undefined,
  keepLease = false
) =>
  Effect.flatMap(sealUpdate(started, update), (credentials) =>
    Effect.map(
      started.services.queue.saveProgress(started.key, started.settings.owner, {
        at: started.at,
        platformState: step.state,
        dueAt: started.at + Math.max(0, step.pollAfterMs),
        keepLease,
        account: { credentials }
      }),
      (saved) => (saved ? { credentials } : ("lost" as const))
    )
  )

/**
 * The account's quota at publish time: published and publishing targets in the last 24 hours
 * (`usage`, read as the target started).
 */
const quotaRefusal = (started: Started, account: AccountRecord, usage: QuotaUsage, engine: EngineSettings) => {
  const limit = quotaLimit(account, engine)
  if (usage.used < limit) return undefined
  return new PlatformFailure({
    code: "quota_exceeded",
    platformCode: "daily_quota",
    retryable: true,
    details: { limit, resets_at: formatInstant((usage.oldest ?? started.at) + day) },
    state: started.target.platformState
  })
}

/**
 * The media of a post as the adapters need them (a signed public address and the bytes), from
 * the items read as the step started; none when one is missing, unless `partial`.
 */
const publishMedia = (
  started: Started,
  records: ReadonlyArray<MediaRecord>,
  partial: boolean,
  blobs: BlobStore["Service"],
  engine: EngineSettings,
  converter: ImageConverterShape | undefined
): Option.Option<ReadonlyArray<PublishMedia>> => {
  const { post } = started
  if (records.length !== post.media.length && !partial) return Option.none()
  const expiresAt = started.at + started.settings.mediaUrlTtlMs
  return Option.some(
    records.map(
      (record): PublishMedia => ({
        record,
        url: signMediaUrl(engine, record, expiresAt),
        read: blobs.get(record.blobKey).pipe(Effect.orDie),
        asJpeg: converter === undefined || record.kind !== "image" ? undefined : jpegOf(started, record, blobs, converter, engine, expiresAt)
      })
    )
  )
}

/** The JPEG rendition of an image as the adapters need it, made once (see `Renditions`). */
const jpegOf = (
  started: Started,
  record: MediaRecord,
  blobs: BlobStore["Service"],
  converter: ImageConverterShape,
  engine: EngineSettings,
  expiresAt: number
): Effect.Effect<PublishMedia, PlatformFailure> =>
  Renditions.ensureJpeg(blobs, converter, record).pipe(
    Effect.map(
      (size): PublishMedia => ({
        record: { ...record, mime: "image/jpeg", sizeBytes: size, sha256: "" },
        url: signMediaUrl(engine, { workspaceId: record.workspaceId, id: Renditions.jpegAddressId(record.id) }, expiresAt),
        read: blobs.get(Renditions.jpegKey(record.blobKey)).pipe(Effect.orDie)
      })
    ),
    Effect.tapError((error) => Effect.logWarning("an image could not be converted to JPEG", { media_id: record.id, reason: error.reason })),
    Effect.mapError(
      () =>
        new PlatformFailure({
          code: "media_invalid",
          platformCode: "jpeg_conversion",
          retryable: false,
          notPublished: true,
          state: started.target.platformState
        })
    )
  )

/** Calls the platform for the next step; a defect of an adapter fails the attempt, retryable. */
const callPlatform = (
  started: Started,
  account: AccountRecord,
  media: ReadonlyArray<PublishMedia>,
  checkpoint: (state: unknown) => Effect.Effect<void, PlatformFailure>
) =>
  Effect.flatMap(openAccountCredentials(account), (opened) =>
    started.services.platform
      .publish({ post: started.post, target: started.target, account: opened, media, state: started.target.platformState, checkpoint })
      .pipe(
        Effect.catchDefect((defect) =>
          Effect.logError("the platform adapter failed unexpectedly", Cause.die(defect)).pipe(
            Effect.andThen(
              Effect.fail(
                new PlatformFailure({
                  code: "internal_error",
                  platformCode: "adapter_defect",
                  retryable: true,
                  state: started.target.platformState
                })
              )
            )
          )
        )
      )
  )

/**
 * Starts the targets of one claim together (`publishing`, with `post.publishing` for a post's
 * first) and reads what each step needs, in one `PublishingStore.startSteps`: for each claimed
 * target, in order, what its step works on, or `None` when its lease was lost or a cancel won.
 */
export const startClaimed = Effect.fnUntraced(function* (
  settings: PublisherSettings,
  claimed: ReadonlyArray<TargetRecord>,
  at: number
) {
  const queue = yield* PublishingStore
  const ids = yield* Ids
  // Made ahead (ids come from a service): the store writes the ones of a post's first start.
  const eventIds = new Map<string, Id.EventId>()
  for (const target of claimed) if (target.status !== "publishing") eventIds.set(target.id, yield* ids.make("event"))
  return yield* queue.startSteps({
    owner: settings.owner,
    at,
    targets: claimed,
    quotaWindow: quotaWindow(at),
    firstStartEvents: (target, { accounts }) => [
      {
        id: eventIds.get(target.id)!,
        workspaceId: target.workspaceId,
        type: "post.publishing",
        createdAt: at,
        livemode: accounts.some((a) => !a.sandbox),
        data: { post_id: target.postId, target_id: target.id, platform: target.platform }
      }
    ]
  })
})

/**
 * Takes the next step of one claimed target, started (or resumed) by {@link startClaimed} at
 * `at`: checks its account and quota, calls the platform, and records the outcome. Returns
 * `lost` when the lease was no longer this instance's: nothing was sent then.
 *
 * A step left in progress with a wait of at most `settings.holdPollMs` is followed by the next
 * one in the same call when `mayHold` agrees; it is given how long the target has had its slot
 * (since `at`), and answers whether it may keep it for one more wait.
 */
export const publishTarget = (
  settings: PublisherSettings,
  claimed: TargetRecord,
  step: Option.Option<TargetStep>,
  at: number,
  mayHold: (heldForMs: number) => boolean = () => true,
  requeues = 0
) => Effect.flatMap(stepServices, (services) => takeStep(services, settings, claimed, step, at, mayHold, requeues))

/** {@link publishTarget} with the services read once by the caller. */
const takeStep = Effect.fnUntraced(function* (
  services: StepServices,
  settings: PublisherSettings,
  claimed: TargetRecord,
  step: Option.Option<TargetStep>,
  at: number,
  mayHold: (heldForMs: number) => boolean,
  requeues: number
) {
  if (Option.isNone(step)) return "lost" as const
  const { blobs, converter, engine, queue } = services
  const { accounts, media: records, post, targets, usage } = step.value
  const key = targetKey(claimed)
  const target = targets.find((t) => t.id === claimed.id)!
  const account = accounts.find((a) => a.id === target.accountId)
  let started: Started = {
    services,
    settings,
    key,
    post,
    target,
    account,
    livemode: accounts.some((a) => !a.sandbox),
    at,
    unconfirmedSince: claimed.unconfirmedSince ?? null,
    requeues
  }
  // Set once a publish may have been sent: from then on only the platform's "not published" fails it.
  let unconfirmedSince = started.unconfirmedSince
  let latestState: unknown = target.platformState
  const fail = (failure: PlatformFailure) =>
    // Another instance holds the target now (a checkpoint found the lease gone): it continues.
    failure.platformCode === "lease_lost"
      ? leaseLost("checkpointing")
      : // Paced: nothing was published, and the platform may be asked again at `retryAt`.
        failure.retryAt !== undefined && (unconfirmedSince === null || failure.notPublished === true)
        ? recordWait(started, failure, failure.retryAt, latestState)
        : unconfirmedSince !== null && failure.notPublished !== true && failure.gaveUp !== true
          ? recordUnconfirmed(started, failure, unconfirmedSince, latestState)
          : // Nothing may have been sent (no checkpoint yet): an infrastructure failure is retried.
            isInfrastructureFailure(failure)
            ? requeue(settings, claimed, requeues, failure.platformCode, failure)
            : recordFailure(started, failure)

  if (account === undefined || account.status !== "connected") {
    return yield* fail(refusal("token_expired", `account_${account?.status ?? "missing"}`))
  }
  // A target resuming a step already passed the check when its attempt began (it has no usage).
  if (usage !== null) {
    const overQuota = quotaRefusal(started, account, usage, engine)
    if (overQuota !== undefined) return yield* recordFailure(started, overQuota)
  }
  // A target that may be published only asks its platform: the media that remain will do.
  const media = publishMedia(started, records, unconfirmedSince !== null, blobs, engine, converter)
  if (Option.isNone(media)) return yield* recordFailure(started, refusal("media_not_found", "media_missing"))
  // A media item that failed (an import or an upload of the wrong format) fails the target with its error.
  const failedMedia = media.value.find((m) => m.record.status === "failed")
  if (failedMedia !== undefined && unconfirmedSince === null) {
    const reason = failedMedia.record.error ?? { code: "unsupported_format" as const }
    return yield* recordFailure(
      started,
      new PlatformFailure({ code: reason.code, platformCode: "media_failed", retryable: false, details: reason.details })
    )
  }
  const checkpoint = (state: unknown) =>
    Effect.gen(function* () {
      const checkpointAt = yield* now
      const held = yield* queue.saveCheckpoint(key, settings.owner, { at: checkpointAt, platformState: state }).pipe(
        Effect.mapError(
          () => new PlatformFailure({ code: "internal_error", platformCode: "checkpoint_failed", retryable: true })
        )
      )
      if (!held) {
        return yield* Effect.fail(
          new PlatformFailure({ code: "internal_error", platformCode: "lease_lost", retryable: true })
        )
      }
      unconfirmedSince = unconfirmedSince ?? checkpointAt
      latestState = state
    })
  for (;;) {
    const step = yield* Effect.result(callPlatform(started, started.account!, media.value, checkpoint))
    if (step._tag === "Failure") return yield* fail(step.failure)
    const { credentials, ...outcome } = step.success
    if (outcome._tag === "Published") return yield* recordPublished(started, outcome, credentials)
    const hold = outcome.pollAfterMs <= settings.holdPollMs && mayHold((yield* now) - at)
    const progress = yield* recordProgress(started, outcome, credentials, hold)
    if (progress === "lost") return progress
    if (!hold) return "in_progress" as const
    // A short wait: this worker keeps the target and takes its next step itself, as any
    // instance would resume it (from the state just saved), without claiming it again.
    yield* Effect.sleep(Math.max(0, outcome.pollAfterMs))
    started = {
      ...started,
      at: yield* now,
      target: { ...started.target, platformState: outcome.state, status: "publishing" },
      account:
        progress.credentials === undefined ? started.account : { ...started.account!, credentials: progress.credentials }
    }
    latestState = outcome.state
  }
},
  // The store did not answer (reading, recording): the target goes back to the queue. Whatever
  // was written stays: a publish already checkpointed is asked about, never sent blindly again.
  (effect, _services, settings, claimed, _step, _at, _mayHold, requeues) =>
    Effect.catchTag(effect, "StoreError", (error) => requeue(settings, claimed, requeues, `store_${error.operation}`, error.cause)),
  (effect, _services, _settings, claimed) => Effect.annotateLogs(effect, { target_id: claimed.id, post_id: claimed.postId }),
  Spans.withSpan("publishing.publishTarget")
)

/**
 * Takes the next step of one claimed target as its own trace (`publishing.target`, with the
 * target and post ids as attributes: a worker's loop would otherwise make one endless trace),
 * linked to the span of the request that created the post when that request was traced
 * (`PostRecord.traceParent`), and records the step in the publishing metrics.
 */
export const publishClaimedTarget = (
  settings: PublisherSettings,
  claimed: TargetRecord,
  step: Option.Option<TargetStep>,
  claimedAt: number,
  mayHold: (heldForMs: number) => boolean = () => true,
  requeues = 0
) => Effect.flatMap(stepServices, (services) => stepTarget(services, settings, claimed, step, claimedAt, mayHold, requeues))

/** {@link publishClaimedTarget} with the services read once by the caller. */
const stepTarget = (
  services: StepServices,
  settings: PublisherSettings,
  claimed: TargetRecord,
  step: Option.Option<TargetStep>,
  claimedAt: number,
  mayHold: (heldForMs: number) => boolean,
  requeues: number
) => {
  const stepped = Effect.flatMap(takeStep(services, settings, claimed, step, claimedAt, mayHold, requeues), (outcome) =>
    Effect.flatMap(now, (finishedAt) =>
      Effect.as(
        PublishingMetrics.recordStep({
          platform: claimed.platform,
          outcome,
          claimedAt,
          finishedAt,
          dueAt: claimed.dueAt,
          firstStep: claimed.status !== "publishing"
        }),
        outcome
      )
    )
  )
  // The span's options are made only when it is traced: most workers run untraced.
  return Effect.withFiber((fiber) =>
    fiber.getRef(References.TracerEnabled)
      ? Spans.withSpan(stepped, "publishing.target", {
          root: true,
          kind: "consumer",
          attributes: { "postwire.target_id": claimed.id, "postwire.post_id": claimed.postId, "postwire.platform": claimed.platform },
          // The request that created the post, when it was traced: its trace is a link away.
          links: Option.isSome(step) ? Spans.linksTo(step.value.post.traceParent, { "postwire.link": "created_by" }) : []
        })
      : stepped
  )
}

const holdAlways = () => true

/**
 * Takes the next step of the targets of one claim: starts them together ({@link startClaimed}),
 * then takes each one's step concurrently, waiting for all of them (one step each: a target left
 * in progress is given back to the queue, whatever `holdPollMs` says). The outcomes, in order.
 */
export const publishClaimed = Effect.fnUntraced(function* (
  roundSettings: PublisherSettings,
  claimed: ReadonlyArray<TargetRecord>
) {
  const settings: PublisherSettings = { ...roundSettings, holdPollMs: -1 }
  if (claimed.length === 0) return []
  const at = yield* now
  const steps = yield* startClaimed(settings, claimed, at)
  const services = yield* stepServices
  return yield* Effect.forEach(claimed, (target, i) => stepTarget(services, settings, target, steps[i]!, at, holdAlways, 0), {
    concurrency: "unbounded"
  })
})

/**
 * One round: claims what is due now (up to `settings.concurrency`) and takes each target's next
 * step, concurrently, waiting for all of them (one step each: a target left in progress is given
 * back to the queue, whatever `holdPollMs` says). For an app that drives publishing itself, and
 * for tests; a server runs {@link start}.
 */
export const publishDueTargets = Effect.fn("publishing.round")(function* (settings: PublisherSettings) {
  const queue = yield* PublishingStore
  const at = yield* now
  const claimed = yield* queue.claimDueTargets({
    owner: settings.owner,
    at,
    leaseUntil: at + settings.leaseMs,
    limit: settings.concurrency,
    perAccount: settings.perAccountConcurrency
  })
  return yield* publishClaimed(settings, claimed)
})

/**
 * Runs the publisher in the current scope until it closes: claims due targets whenever a slot
 * is free, renews its leases every third of `leaseMs`, and on close stops claiming, lets
 * running steps finish for up to `shutdownGraceMs`, interrupts the rest and gives every lease
 * up so another instance continues at once.
 *
 * @example
 * ```ts
 * const PublishingLive = Layer.effectDiscard(Publisher.start(Publisher.defaults("worker-1")))
 * ```
 */
export const start = Effect.fn("publishing.start")(function* (settings: PublisherSettings) {
  const services = yield* stepServices
  const { queue } = services
  const running = yield* FiberMap.make<string, void, never>()
  // Whether the last claim took all it asked for (more may be due), and since when a claim has
  // waited for more slots to free up.
  let backlog = false
  let gatheringSince: number | null = null
  const gather = Math.max(1, Math.floor(settings.concurrency / 4))
  const slotFreed = yield* Queue.sliding<void>(1)

  // A claim's start locks its targets' rows in key order, a renewal the instance's leased rows in
  // any order: one at a time, so the two never wait on each other.
  const leaseWrites = yield* Semaphore.make(1)

  // When each running step last made progress (its claim, or the end of the step before it on
  // a held target): the heartbeat renews only the leases of steps within `stepTimeoutMs` of it.
  const progressAt = new Map<string, number>()
  // Infrastructure failures in a row per target, for the requeue's backoff (this instance's view).
  const requeues = new Map<string, number>()

  // A target whose platform asks to be asked again shortly keeps its slot: its next step costs
  // no claim and no start. While due targets wait for a slot, only within `holdPollMs` of its
  // claim (a target polled again and again cannot keep a slot from them).
  const mayHold = (heldForMs: number) => !backlog || heldForMs <= settings.holdPollMs
  const step = (target: TargetRecord, started: Option.Option<TargetStep>, at: number) => {
    progressAt.set(target.id, at)
    const holding = (heldForMs: number) => {
      const hold = mayHold(heldForMs)
      // A step ended and the next one starts: progress.
      if (hold) progressAt.set(target.id, at + heldForMs)
      return hold
    }
    return stepTarget(services, settings, target, started, at, holding, requeues.get(target.id) ?? 0).pipe(
      // The lease is left to run out: the target is tried again then, not in a tight loop.
      Effect.catchCause((cause) =>
        Cause.hasInterruptsOnly(cause) ? Effect.void : Effect.logError("publishing step failed", cause)
      ),
      // One finalizer does the step's bookkeeping and frees its slot, however it ended.
      Effect.onExit((exit) => {
        if (exit._tag === "Success" && exit.value !== undefined) {
          if (exit.value === "requeued") requeues.set(target.id, (requeues.get(target.id) ?? 0) + 1)
          else requeues.delete(target.id)
        }
        progressAt.delete(target.id)
        Queue.offerUnsafe(slotFreed, undefined)
        return Effect.void
      }),
      Effect.asVoid
    )
  }

  const round = Effect.gen(function* () {
    const free = settings.concurrency - (yield* FiberMap.size(running))
    if (free <= 0) return yield* Queue.take(slotFreed)
    const at = yield* now
    if (backlog && free < gather && settings.claimGatherMs > 0) {
      // Work remains and few slots are free: one claim for several targets, a moment later.
      gatheringSince ??= at
      const left = gatheringSince + settings.claimGatherMs - at
      if (left > 0) return yield* Effect.raceFirst(Effect.sleep(left), Queue.take(slotFreed))
    }
    gatheringSince = null
    const claimed = yield* queue
      .claimDueTargets({
        owner: settings.owner,
        at,
        leaseUntil: at + settings.leaseMs,
        limit: free,
        perAccount: settings.perAccountConcurrency
      })
      .pipe(
        // Polled every second when idle: untraced, or an operator's traces would be mostly polls.
        Effect.withTracerEnabled(false),
        Effect.catchTag("StoreError", (error) =>
          Effect.as(LeasedWork.logFailure("claiming due targets failed", Cause.fail(error)), [] as ReadonlyArray<TargetRecord>)
        )
      )
    backlog = claimed.length === free
    if (claimed.length > 0) {
      // One start for the whole claim; a failed one leaves the leases to run out (tried again then).
      const steps = yield* leaseWrites.withPermits(1)(
        startClaimed(settings, claimed, at).pipe(
          Spans.withSpan("publishing.startClaimed", { root: true, attributes: { "postwire.targets": claimed.length } })
        )
      )
      for (let i = 0; i < claimed.length; i++) {
        yield* FiberMap.run(running, claimed[i]!.id, { onlyIfMissing: true })(step(claimed[i]!, steps[i]!, at))
      }
    }
    // Caught up: look again after a while, or as soon as a step ends (its account may have more).
    if (claimed.length < free) yield* Effect.raceFirst(Effect.sleep(settings.idlePollMs), Queue.take(slotFreed))
  })

  const renew = Effect.gen(function* () {
    const at = yield* now
    const mine: Array<string> = []
    for (const [id] of running) {
      if (at - (progressAt.get(id) ?? at) <= settings.stepTimeoutMs) {
        mine.push(id)
        continue
      }
      // Stuck (a call that never answers): its lease is not renewed and runs out, and any
      // instance recovers the target from its last saved state, as after a killed worker. The
      // interruption may wait on a database call (bounded by the store): it must not hold up
      // the renewal of the others.
      progressAt.delete(id)
      yield* Effect.logWarning("publishing step made no progress within its time limit: its lease is left to run out", {
        target_id: id,
        step_timeout_ms: settings.stepTimeoutMs
      })
      yield* Effect.forkDetach(FiberMap.remove(running, id))
    }
    const held = new Set(
      yield* leaseWrites.withPermits(1)(queue.renewLeases(settings.owner, at, at + settings.leaseMs, mine))
    )
    // A lease taken over by another instance: stop at once, the other instance resumes.
    for (const id of mine) if (!held.has(id)) yield* FiberMap.remove(running, id)
  }).pipe(
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : LeasedWork.logFailure("renewing leases failed", cause)
    )
  )

  // A defect in one round (a bug, a lost database) is logged, and the loop goes on after a pause.
  const resilientRound = round.pipe(
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause)
        ? Effect.failCause(cause)
        : LeasedWork.logFailure("publishing round failed", cause).pipe(Effect.andThen(Effect.sleep(settings.idlePollMs)))
    )
  )
  const loop = yield* Effect.forkScoped(Effect.forever(resilientRound))
  const heartbeat = yield* Effect.forkScoped(
    Effect.repeat(renew, Schedule.spaced(Math.max(1, Math.floor(settings.leaseMs / 3))))
  )
  yield* Effect.addFinalizer(() =>
    Effect.gen(function* () {
      yield* Fiber.interrupt(loop)
      yield* FiberMap.awaitEmpty(running).pipe(Effect.timeoutOption(settings.shutdownGraceMs))
      yield* FiberMap.clear(running)
      yield* Fiber.interrupt(heartbeat)
      yield* queue.releaseTargets(settings.owner).pipe(Effect.ignore)
    })
  )
})
