/**
 * The permalink backfill: a worker loop that asks the platform again for the public address of
 * targets published without one, and stores it on the target once the platform has it.
 *
 * TikTok answers `PUBLISH_COMPLETE` before moderation ends and keeps the public post id back
 * until then (usually under a minute, sometimes hours). The publisher records such a target
 * `published` at once, with `permalink: null` and its `post.published`, and remembers it as
 * pending in the `PublishingStore`. This loop claims the pending ones that are due, with a lease
 * like targets (`FOR UPDATE SKIP LOCKED` in SQL), so any number of instances share them and a
 * restart loses nothing; it asks 1 minute after publishing, then after 2, 4, 8, 16 and 32
 * minutes, then every hour, and gives up 48 hours after publishing: the target stays published
 * without a permalink.
 *
 * Filling a permalink writes no webhook event: the API's event list has none for it, and
 * `post.published` was sent when the target published. `GET /v1/posts/{id}` shows it.
 *
 * @since 0.1.0
 */
import { Cause, Clock, Effect, Option } from "effect"
import * as LeasedWork from "../internal/LeasedWork.ts"
import { Store } from "../store/Store.ts"
import { accountContext, CredentialsCipher, openAccountCredentials } from "../secrets/CredentialsCipher.ts"
import { PlatformClient } from "../platform/PlatformClient.ts"
import { type CredentialsUpdate, PlatformFailure } from "../platform/PlatformFailure.ts"
import { type PendingPermalink, PublishingStore, type TargetKey } from "./PublishingStore.ts"

const minute = 60_000
const hour = 60 * minute

/** The first ask comes this long after the target published. */
export const firstAskAfterMs = minute

/** The wait between asks doubles from {@link firstAskAfterMs} up to this. */
export const maxAskIntervalMs = hour

/** No ask is made later than this after the target published. */
export const giveUpAfterMs = 48 * hour

/**
 * The wait before the next ask once the platform was asked `asked` times: 1 m, 2 m, 4 m, 8 m,
 * 16 m, 32 m, then 1 h.
 */
export const askDelayMs = (asked: number): number => Math.min(firstAskAfterMs * 2 ** Math.max(0, asked), maxAskIntervalMs)

/**
 * When to ask next, after an ask at `at` that found nothing, or `null` when that would be past
 * {@link giveUpAfterMs} from publishing: stop then.
 *
 * @example
 * ```ts
 * nextAskAt({ since: t, asked: 0 }, t + 60_000) // t + 180_000: the second ask, 2 minutes later
 * ```
 */
export const nextAskAt = (pending: Pick<PendingPermalink, "since" | "asked">, at: number): number | null => {
  const next = at + askDelayMs(pending.asked + 1)
  return next > pending.since + giveUpAfterMs ? null : next
}

/** How a worker instance backfills permalinks. */
export interface PermalinkBackfillSettings {
  /** This instance's name in every lease it takes; unique per process. */
  readonly owner: string
  /** Pending permalinks asked for at once. */
  readonly concurrency: number
  /** How long a claim lasts; longer than one ask with its retries takes, as it is not renewed. */
  readonly leaseMs: number
  /** How long to wait before looking again when nothing was due. */
  readonly idlePollMs: number
}

/** The defaults, for an instance named `owner`. */
export const defaults = (owner: string): PermalinkBackfillSettings => ({
  owner,
  concurrency: 4,
  leaseMs: 5 * minute,
  idlePollMs: 15_000
})

/** The services the backfill needs. */
export type PermalinkBackfillServices = Store | PublishingStore | PlatformClient | CredentialsCipher

/** How one ask ended. */
export type AskOutcome = "filled" | "deferred" | "abandoned" | "lost"

const keyOf = (pending: PendingPermalink): TargetKey => ({
  workspaceId: pending.workspaceId,
  postId: pending.postId,
  targetId: pending.targetId
})

/** Seals refreshed tokens for the account they name (tokens rotate: they must be kept). */
const sealUpdate = Effect.fn("permalinks.sealCredentials")(function* (
  pending: PendingPermalink,
  update: CredentialsUpdate | undefined
) {
  if (update === undefined || update.accountId !== pending.accountId) return undefined
  const cipher = yield* CredentialsCipher
  return cipher.seal(update.credentials, accountContext(pending.workspaceId, pending.accountId))
})

/** Stops asking for one pending permalink. */
const abandon = (settings: PermalinkBackfillSettings, pending: PendingPermalink, credentials?: string) =>
  PublishingStore.use((queue) => queue.abandonPermalink(keyOf(pending), settings.owner, credentials)).pipe(
    Effect.map((held) => (held ? ("abandoned" as const) : ("lost" as const)))
  )

/** Asks again later, or gives up when the next ask would come too late. */
const askLater = Effect.fn("permalinks.askLater")(function* (
  settings: PermalinkBackfillSettings,
  pending: PendingPermalink,
  at: number,
  credentials: string | undefined
) {
  const queue = yield* PublishingStore
  const askAt = nextAskAt(pending, at)
  if (askAt === null) {
    yield* Effect.logInfo("gave up waiting for the permalink", { asked: pending.asked + 1 })
    return yield* abandon(settings, pending, credentials)
  }
  const held = yield* queue.deferPermalink(keyOf(pending), settings.owner, { at, askAt, credentials })
  return held ? ("deferred" as const) : ("lost" as const)
})

/**
 * Asks the platform once for the public address of one claimed pending permalink and records
 * what it said: the permalink on the target, another ask later, or none. A target that is gone,
 * no longer published, or already has a permalink is forgotten. Returns `lost` when the lease
 * was no longer this instance's: nothing was written then.
 */
export const askForPermalink = Effect.fn("permalinks.ask")(
  function* (settings: PermalinkBackfillSettings, pending: PendingPermalink) {
    const store = yield* Store
    const queue = yield* PublishingStore
    const platform = yield* PlatformClient
    const at = yield* Clock.currentTimeMillis
    const found = yield* store.getPost(pending.workspaceId, pending.postId)
    const target = Option.isSome(found) ? found.value.targets.find((t) => t.id === pending.targetId) : undefined
    if (target === undefined || target.status !== "published" || target.permalink !== null || platform.permalink === undefined) {
      return yield* abandon(settings, pending)
    }
    const account = yield* store.getAccount(pending.workspaceId, pending.accountId)
    if (Option.isNone(account)) return yield* abandon(settings, pending)

    const lookup = yield* platform
      .permalink({
        target,
        post: Option.getOrUndefined(found)?.post,
        account: yield* openAccountCredentials(account.value),
        state: target.platformState
      })
      .pipe(
        Effect.catchDefect((defect) =>
          Effect.logError("the platform adapter failed unexpectedly", Cause.die(defect)).pipe(
            Effect.andThen(
              Effect.fail(new PlatformFailure({ code: "internal_error", platformCode: "adapter_defect", retryable: true }))
            )
          )
        ),
        Effect.result
      )
    if (lookup._tag === "Failure") {
      // A failed ask counts as one: the schedule goes on (a reconnected account gets its permalink).
      yield* Effect.logWarning("asking for the permalink failed", {
        code: lookup.failure.code,
        platform_code: lookup.failure.platformCode
      })
      return yield* askLater(settings, pending, at, yield* sealUpdate(pending, lookup.failure.credentials))
    }
    const credentials = yield* sealUpdate(pending, lookup.success.credentials)
    switch (lookup.success._tag) {
      case "Found": {
        const { permalink, platformPostId, state } = lookup.success
        const filled = yield* queue.fillPermalink(keyOf(pending), settings.owner, {
          at,
          permalink,
          platformState: state,
          credentials
        })
        if (filled) yield* Effect.logInfo("permalink filled in", { permalink, platform_post_id: platformPostId })
        return filled ? ("filled" as const) : ("lost" as const)
      }
      case "Never":
        yield* Effect.logInfo("the platform will make no permalink", { asked: pending.asked + 1 })
        return yield* abandon(settings, pending, credentials)
      case "NotYet":
        return yield* askLater(settings, pending, at, credentials)
    }
  },
  (effect, _settings, pending) =>
    Effect.annotateLogs(effect, { target_id: pending.targetId, post_id: pending.postId })
)

/**
 * One round: claims the pending permalinks that are due (up to `settings.concurrency`) and asks
 * for each, concurrently, waiting for all of them. For an app that drives the engine itself, and
 * for tests; a server runs {@link start}.
 */
export const fillDuePermalinks = Effect.fn("permalinks.round")(function* (settings: PermalinkBackfillSettings) {
  const queue = yield* PublishingStore
  return yield* LeasedWork.round(
    settings,
    (claim) => queue.claimPendingPermalinks(claim),
    (pending) => askForPermalink(settings, pending),
    "asking for a permalink failed"
  )
})

/**
 * Runs the backfill in the current scope until it closes: a round whenever the previous one
 * claimed all it could, otherwise after `idlePollMs`. Leases held when the scope closes run out
 * on their own (an ask only reads), and another instance continues.
 *
 * @example
 * ```ts
 * const BackfillLive = Layer.effectDiscard(PermalinkBackfill.start(PermalinkBackfill.defaults("worker-1")))
 * ```
 */
export const start = Effect.fn("permalinks.start")(function* (settings: PermalinkBackfillSettings) {
  yield* LeasedWork.loop(settings, fillDuePermalinks(settings), "permalink round failed")
})
