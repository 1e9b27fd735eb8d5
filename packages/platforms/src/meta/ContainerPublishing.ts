/**
 * Meta's container flow, shared by Instagram and Threads: check the publishing limit (a reading
 * far from the quota stands for {@link limitReuseMs}), create the media container (and carousel
 * children first), poll it until it is ready, publish it, read the permalink.
 *
 * Exactly once, with answers that get lost:
 * - The container id is the resume state, saved as soon as the container exists; a container is
 *   created only when none was saved, and a saved one is reused by every later step.
 * - Right before the publish call the state is saved again through the publisher's `checkpoint`
 *   (`publish_sent_at`): from then on the target may be published, and it is never failed unless
 *   the platform says it is not (an ERROR or EXPIRED container, a publish it refused).
 * - Every step with a container asks the container's status first: a PUBLISHED container is
 *   never published again. Its media is then found without guessing: Meta's container has no
 *   field naming the media it became (`id` and the status only), so the account's media edge is
 *   paged through with Meta's cursors, from the container's creation time (`since`), for the
 *   media carrying the container's caption. The container id is never taken for the post id.
 * - While the platform cannot be asked (an outage after a lost answer), the step stays in
 *   progress and asks again after a wait that doubles, up to {@link unconfirmedMaxWaitMs}.
 * - A permalink that cannot be read (or a media not listed yet) does not hold the target back: it
 *   is `published`, and the permalink backfill asks {@link ContainerAdapter} `permalink` later.
 *
 * @since 0.1.0
 */
import type {
  CredentialsUpdate,
  PermalinkInput,
  PermalinkLookup,
  PlatformFailure,
  PublishInput,
  PublishStep
} from "@postwire/core"
import { Spans } from "@postwire/core"
import { type ErrorCode, ErrorDetail, formatInstant, type TargetRules } from "@postwire/domain"
import { Clock, Deferred, Effect, Exit, Option, type Redacted, Schema } from "effect"
import type * as Credentials from "./Credentials.ts"
import * as MediaRules from "../internal/MediaRules.ts"
import * as TokenSession from "../internal/TokenSession.ts"
import { amend, failure, field, malformed, numberField, retrying, stringField, type Wire } from "../internal/Wire.ts"
import * as GraphApi from "./GraphApi.ts"
import type { GraphParams, GraphRetry } from "./GraphApi.ts"
import * as GraphError from "./GraphError.ts"
import * as Sessions from "./Sessions.ts"

/** The containers to create: carousel children first (none for a single item), then the parent. */
export interface ContainerPlan {
  readonly children: ReadonlyArray<GraphParams>
  readonly parent: (childIds: ReadonlyArray<string>) => GraphParams
}

/** A container's processing status, read from the platform's own field names. */
export interface ContainerStatus {
  /** IN_PROGRESS, FINISHED, ERROR, EXPIRED or PUBLISHED. */
  readonly status: string
  readonly detail: string | undefined
}

/** What tells a target's published media apart: its post's caption, and the target's options. */
export interface ListingInput {
  readonly post: { readonly caption: string }
  readonly target: PublishInput["target"]
}

/** What differs between Instagram and Threads. */
export interface ContainerPlatform {
  readonly platform: "photo" | "textpost"
  /** Edge that creates containers and lists published media (`media`, `threads`). */
  readonly mediaEdge: string
  /**
   * Where the published media of this target is listed, when not on `mediaEdge`, and the caption
   * it carries there (`undefined`: none, e.g. an Instagram story on the `stories` edge).
   */
  readonly listing?: ((input: ListingInput) => {
    readonly edge: string
    readonly caption: string | undefined
  }) | undefined
  /** Edge that publishes a container (`media_publish`, `threads_publish`). */
  readonly publishEdge: string
  /** Edge of the rolling-24-hour publishing limit. */
  readonly limitEdge: string
  /** The caption's field name on a published media (`caption`, `text`). */
  readonly captionField: string
  /** The `fields` asked of a container. */
  readonly statusFields: string
  readonly readStatus: (body: unknown) => ContainerStatus
  /** The failure of a container that ended in ERROR. */
  readonly containerError: (detail: string | undefined) => PlatformFailure
  readonly plan: (input: PublishInput) => ContainerPlan
  /** The daily limit when the platform does not say it (for the message). */
  readonly defaultQuota: number
  /** The platform's rules, checked before anything is sent. */
  readonly rules: TargetRules.PlatformRuleSet
  /** The `grant_type` of the token refresh (`ig_refresh_token`, `th_refresh_token`). */
  readonly refreshGrantType: string
}

/** Settings of a container platform (Instagram, Threads). */
export interface Config {
  /** Graph host with its version. */
  readonly baseUrl: string
  /**
   * Where to refresh a long-lived token (`GET ?grant_type=...&access_token=...`); `null` when
   * tokens cannot be refreshed (Facebook Login): an expired token means reconnecting.
   */
  readonly refreshUrl: string | null
  /** A token expiring sooner than this is refreshed first (Meta refreshes only valid tokens). */
  readonly refreshWithinMs: number
  /** Adds `appsecret_proof` to every call when set. */
  readonly appSecret?: Redacted.Redacted<string> | undefined
  /** Delay between container status checks. */
  readonly pollIntervalMs: number
  /** A container still processing after this long is abandoned (a retry starts over). */
  readonly processingTimeoutMs: number
  /**
   * After the publish call was sent, how long the container may stay unpublished-but-busy
   * (`IN_PROGRESS`) or unreadable before the account's media are looked through for the post and,
   * not found, the target fails `publish_unconfirmed`. Default 24 hours, when Meta expires an
   * unpublished container.
   */
  readonly unconfirmedWindowMs?: number | undefined
}

/** The longest wait between two asks about a container whose publish answer was lost. */
export const unconfirmedMaxWaitMs = 10 * 60_000

/** Platform timestamps and ours may differ this much: media are looked for from this long before. */
export const clockSkewMs = 5 * 60_000

/** At most this many pages of the account's media are read when looking for one (100 each). */
export const maxMediaPages = 50

/**
 * How long a publishing-limit reading far from the quota stands in for reading it again: within
 * this time, while the reading plus the containers this adapter created since stay under
 * {@link limitReuseShare} of the quota, a new target does not ask. The platform still enforces
 * its limit at the publish call (refused there with `quota_exceeded`, the container kept).
 */
export const limitReuseMs = 30_000

/** Share of the quota below which a recent limit reading is reused. */
export const limitReuseShare = 0.8

/** Accounts whose last limit reading is remembered (the least recently read are forgotten). */
const limitReadingsKept = 1_000

/** The last publishing-limit reading of an account, and the containers created since. */
interface LimitReading {
  readonly usage: number
  readonly total: number
  readonly at: number
  startedSince: number
}

/** Defaults shared by the container platforms; each adds its hosts. */
export const defaults = {
  pollIntervalMs: 10_000,
  processingTimeoutMs: 10 * 60_000,
  unconfirmedWindowMs: 24 * 60 * 60_000,
  refreshWithinMs: 7 * 24 * 60 * 60_000
} as const

/** The resume state of a container target. */
export const State = Schema.Struct({
  /** Carousel children created so far (empty for a single item). */
  children: Schema.Array(Schema.String),
  /** The container to publish; `null` while carousel children are still processing. */
  container_id: Schema.NullOr(Schema.String),
  /** When the attempt began (before any container was created): the lower bound of a search. */
  started_at: Schema.Number,
  /** When the publish call was first sent: the platform may have published it since. */
  publish_sent_at: Schema.optional(Schema.Number),
  /** The published media, once the platform named it. */
  media_id: Schema.optional(Schema.String),
  /** Asks in a row that the platform could not answer since the publish was sent. */
  unanswered: Schema.optional(Schema.Number)
})
/** The resume state of a container target. */
export type State = typeof State.Type

const decodeStateSchema = Schema.decodeUnknownEffect(State)

/** An adapter built on the container flow. */
export interface ContainerAdapter {
  readonly publish: (
    input: PublishInput
  ) => Effect.Effect<PublishStep & { readonly credentials?: CredentialsUpdate | undefined }, PlatformFailure>
  /**
   * Finds the public address (and the media id, when it was not known) of a target published
   * without one: `NotYet` while the platform does not list it or cannot be asked.
   */
  readonly permalink: (
    input: PermalinkInput
  ) => Effect.Effect<PermalinkLookup & { readonly credentials?: CredentialsUpdate | undefined }, PlatformFailure>
}

/** Instagram and Threads credentials: the same long-lived token shape. */
type LongLived = Credentials.LongLivedToken

type Session = TokenSession.TokenSession<LongLived>

/** A media found on the account's media edge. */
interface FoundMedia {
  readonly id: string
  readonly permalink: string | null
}

/** Meta writes offsets without a colon (`+0000`); returns epoch milliseconds or `undefined`. */
const parseTimestamp = (value: string | undefined): number | undefined => {
  if (value === undefined) return undefined
  const millis = Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, "$1:$2"))
  return Number.isFinite(millis) ? millis : undefined
}

/** Builds the adapter of a container platform. */
export const make = (spec: ContainerPlatform, config: Config, wire: Wire): ContainerAdapter => {
  const publishSpan = `platforms.${spec.platform}.publish`
  const permalinkSpan = `platforms.${spec.platform}.permalink`
  const graph = GraphApi.make({ wire, baseUrl: config.baseUrl, platform: spec.platform, appSecret: config.appSecret })

  const openSession = Sessions.longLived({
    graph,
    wire,
    refreshUrl: config.refreshUrl,
    refreshWithinMs: config.refreshWithinMs,
    refreshGrantType: spec.refreshGrantType
  })

  const get = (session: Session, path: string, params: GraphParams, retry: GraphRetry = "all") =>
    session.authed((c) => graph.get(path, params, c.access_token, retry))
  const post = (session: Session, path: string, params: GraphParams, retry: GraphRetry = "all") =>
    session.authed((c) => graph.post(path, params, c.access_token, retry))

  const idOf = (body: unknown, what: string) => {
    const id = stringField(body, "id")
    return id === undefined ? Effect.fail(malformed(what)) : Effect.succeed(id)
  }

  const quotaDetails = (limit: number, durationSec: number, now: number) => ({
    limit,
    resets_at: new Date(now + durationSec * 1000).toISOString()
  })

  /** Recent limit readings by account (the platform's user id), see {@link limitReuseMs}. */
  const limitReadings = new Map<string, LimitReading>()

  /** Whether the account's last reading says the quota is still far, counting this target. */
  const farFromQuota = (userId: string, now: number): boolean => {
    const reading = limitReadings.get(userId)
    if (reading === undefined) return false
    if (now - reading.at >= limitReuseMs || reading.usage + reading.startedSince + 1 > reading.total * limitReuseShare) {
      limitReadings.delete(userId)
      return false
    }
    reading.startedSince += 1
    return true
  }

  /**
   * Limit reads in flight by account: a target that finds one waits for it and then uses its
   * reading (a burst of one account's targets asks the platform once, not once per target).
   */
  const limitReads = new Map<string, Deferred.Deferred<void>>()

  const checkLimit = (session: Session, userId: string) =>
    Effect.gen(function* () {
      for (;;) {
        if (farFromQuota(userId, yield* Clock.currentTimeMillis)) return
        const inFlight = limitReads.get(userId)
        if (inFlight === undefined) break
        // Its reading may leave the quota far (then it stands for this target too); if not, or
        // if the read failed, this target reads for itself, one read at a time.
        yield* Deferred.await(inFlight)
      }
      const read = Deferred.makeUnsafe<void>()
      limitReads.set(userId, read)
      return yield* readLimit(session, userId).pipe(
        Effect.ensuring(
          Effect.sync(() => {
            if (limitReads.get(userId) === read) limitReads.delete(userId)
            Deferred.doneUnsafe(read, Exit.void)
          })
        )
      )
    })

  const readLimit = (session: Session, userId: string) =>
    Effect.gen(function* () {
      const body = yield* get(session, `${userId}/${spec.limitEdge}`, { fields: "quota_usage,config" })
      const data = field(body, "data")
      const entry = Array.isArray(data) ? data[0] : undefined
      const usage = numberField(entry, "quota_usage")
      const total = numberField(field(entry, "config"), "quota_total")
      const now = yield* Clock.currentTimeMillis
      if (usage === undefined || total === undefined) return
      if (usage < total) {
        if (limitReadings.size >= limitReadingsKept) limitReadings.delete(limitReadings.keys().next().value as string)
        // This target creates one more.
        limitReadings.set(userId, { usage, total, at: now, startedSince: 1 })
        return
      }
      const duration = numberField(field(entry, "config"), "quota_duration") ?? 86_400
      return yield* Effect.fail(
        failure("quota_exceeded", `${spec.limitEdge}:${usage}/${total}`, {
          details: quotaDetails(total, duration, now),
          state: null
        })
      )
    })

  const createContainer = (session: Session, userId: string, params: GraphParams) =>
    post(session, `${userId}/${spec.mediaEdge}`, params).pipe(Effect.flatMap((body) => idOf(body, "container id")))

  const statusOf = (session: Session, containerId: string, retry: GraphRetry = "all") =>
    get(session, containerId, { fields: spec.statusFields }, retry).pipe(Effect.map(spec.readStatus))

  /** The permalink of a media; `None` when the platform did not give it (it is asked for later). */
  const permalinkOf = (session: Session, mediaId: string) =>
    get(session, mediaId, { fields: "permalink" }).pipe(
      Effect.map((body) => Option.fromNullishOr(stringField(body, "permalink"))),
      Effect.orElseSucceed(() => Option.none<string>())
    )

  const inProgress = (state: State, pollAfterMs = config.pollIntervalMs): PublishStep => ({
    _tag: "InProgress",
    state,
    pollAfterMs
  })

  const stillProcessing = (state: State) =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      if (now - state.started_at > config.processingTimeoutMs) {
        // Never published: abandoning the container and starting over cannot publish twice.
        return yield* Effect.fail(failure("platform_unavailable", "processing_timeout", { state: null, notPublished: true }))
      }
      return inProgress(state)
    })

  const terminalFailure = (status: ContainerStatus): PlatformFailure =>
    status.status === "EXPIRED"
      ? failure("platform_unavailable", "container_expired", { state: null, notPublished: true })
      : amend(spec.containerError(status.detail), { state: null, notPublished: true })

  /** The state of a container the platform said is not published: a retry publishes it again. */
  const unpublished = (state: State): State => {
    const { publish_sent_at: _sent, unanswered: _unanswered, ...kept } = state
    return kept
  }

  /** Where the target's media is listed once published, and the caption it carries there. */
  const listingOf = (input: ListingInput) =>
    spec.listing?.(input) ?? { edge: spec.mediaEdge, caption: input.post.caption }

  /**
   * Pages through the account's media published since the container's attempt began (Meta's
   * `since`, and `after` cursors), for the one carrying the target's caption; the earliest when
   * several do. `None` when it is not listed (yet).
   */
  const findMedia = (
    session: Session,
    input: ListingInput,
    userId: string,
    state: State
  ) =>
    Effect.gen(function* () {
      const { caption, edge } = listingOf(input)
      const from = state.started_at - clockSkewMs
      const since = Math.floor(from / 1000)
      let after: string | undefined
      let best: (FoundMedia & { readonly at: number }) | undefined
      for (let page = 0; page < maxMediaPages; page++) {
        const body = yield* get(session, `${userId}/${edge}`, {
          fields: `id,${spec.captionField},permalink,timestamp`,
          since,
          limit: 100,
          after
        })
        const data = field(body, "data")
        const items = Array.isArray(data) ? data : []
        let older = false
        for (const item of items) {
          const at = parseTimestamp(stringField(item, "timestamp"))
          if (at !== undefined && at < from) {
            older = true
            continue
          }
          const id = stringField(item, "id")
          if (id === undefined || stringField(item, spec.captionField) !== caption) continue
          const when = at ?? Number.MAX_SAFE_INTEGER
          if (best === undefined || when < best.at) best = { id, permalink: stringField(item, "permalink") ?? null, at: when }
        }
        const paging = field(body, "paging")
        after = stringField(field(paging, "cursors"), "after")
        // Newest first: a page reaching past the bound is the last one worth reading.
        if (older || items.length === 0 || field(paging, "next") === undefined || after === undefined) break
      }
      return Option.map(Option.fromUndefinedOr(best), ({ id, permalink }): FoundMedia => ({ id, permalink }))
    })

  /** The step of a published media: with its permalink, or published now and the permalink later. */
  const publishedMedia = (session: Session, state: State, mediaId: string, known: string | null = null) =>
    Effect.gen(function* () {
      const permalink = known ?? Option.getOrNull(yield* permalinkOf(session, mediaId))
      return {
        _tag: "Published",
        platformPostId: mediaId,
        permalink,
        ...(permalink === null ? { permalinkPending: true, permalinkAskAfterMs: config.pollIntervalMs } : {}),
        state
      } satisfies PublishStep
    })

  /**
   * A PUBLISHED container whose publish answer was lost: its media is looked for on the account's
   * media edge. Published either way: what is not found now, the permalink backfill finds later.
   */
  const publishedContainer = (session: Session, input: PublishInput, userId: string, state: State) =>
    Effect.gen(function* () {
      if (state.media_id !== undefined) return yield* publishedMedia(session, state, state.media_id)
      const found = yield* findMedia(session, input, userId, state).pipe(
        Effect.orElseSucceed(() => Option.none<FoundMedia>())
      )
      if (Option.isSome(found)) {
        return yield* publishedMedia(session, { ...state, media_id: found.value.id }, found.value.id, found.value.permalink)
      }
      return {
        _tag: "Published",
        platformPostId: null,
        permalink: null,
        permalinkPending: true,
        permalinkAskAfterMs: config.pollIntervalMs,
        state
      } satisfies PublishStep
    })

  /**
   * The publish was sent {@link Config.unconfirmedWindowMs} ago and the container still does not
   * say what became of it: the account's media are looked through for the post; found, it is
   * published, otherwise the target fails `publish_unconfirmed` rather than being asked forever.
   * `undefined` while the window lasts.
   */
  const pastWindow = (session: Session, input: PublishInput, userId: string, state: State) =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const sentAt = state.publish_sent_at
      if (sentAt === undefined || now - sentAt < (config.unconfirmedWindowMs ?? defaults.unconfirmedWindowMs)) return undefined
      const found = yield* findMedia(session, input, userId, state).pipe(Effect.orElseSucceed(() => Option.none<FoundMedia>()))
      if (Option.isSome(found)) {
        return yield* publishedMedia(session, { ...state, media_id: found.value.id }, found.value.id, found.value.permalink)
      }
      return yield* Effect.fail(
        failure("publish_unconfirmed", "container_unconfirmed_after_window", {
          details: { platform: spec.platform, sent_at: formatInstant(sentAt) },
          state,
          gaveUp: true
        })
      )
    })

  /**
   * The publish was sent and the step's attempts ended unanswered. A container still FINISHED was
   * not published: the target fails (retryable; a retry reuses the container). Otherwise, while
   * the platform cannot say, the step stays in progress and asks again after a wait that doubles.
   */
  const afterUnanswered = (
    session: Session,
    input: PublishInput,
    userId: string,
    state: State,
    containerId: string,
    unavailable: PlatformFailure
  ) =>
    statusOf(session, containerId, "none").pipe(
      Effect.option,
      Effect.flatMap((status): Effect.Effect<PublishStep, PlatformFailure> => {
        if (Option.isSome(status)) {
          switch (status.value.status) {
            case "PUBLISHED":
              return publishedContainer(session, input, userId, state)
            case "FINISHED":
              return Effect.fail(amend(unavailable, { state: unpublished(state), notPublished: true }))
            case "ERROR":
            case "EXPIRED":
              return Effect.fail(terminalFailure(status.value))
          }
        }
        return Effect.flatMap(pastWindow(session, input, userId, state), (ended) => {
          if (ended !== undefined) return Effect.succeed<PublishStep>(ended)
          const unanswered = (state.unanswered ?? 0) + 1
          const wait = Math.min(
            wire.retry.baseDelayMs * 2 ** (Math.max(1, wire.retry.attempts) - 1 + unanswered),
            unconfirmedMaxWaitMs
          )
          return Effect.succeed(inProgress({ ...state, unanswered }, wait))
        })
      })
    )

  /** Looks the container up, then publishes it only if it was not published already. */
  const publishContainer = (session: Session, input: PublishInput, userId: string, saved: State, containerId: string) => {
    let state = saved
    // Meta's refusal of the last publish call sent, if it was one: that call published nothing.
    let refused: PlatformFailure | undefined
    const attempt = Effect.gen(function* () {
      const status = yield* statusOf(session, containerId, "none")
      switch (status.status) {
        case "PUBLISHED":
          return yield* publishedContainer(session, input, userId, state)
        case "FINISHED":
          break
        case "ERROR":
        case "EXPIRED":
          return yield* Effect.fail(terminalFailure(status))
        default:
          // After a publish was sent, Meta reports IN_PROGRESS while it publishes: wait, for a bounded time.
          if (state.publish_sent_at === undefined) return yield* stillProcessing(state)
          return (yield* pastWindow(session, input, userId, state)) ?? inProgress(state)
      }
      const now = yield* Clock.currentTimeMillis
      // A publish already sent by an earlier step may have been carried out: only the container says.
      const resent = state.publish_sent_at !== undefined
      const { unanswered: _, ...answered } = state
      state = { ...answered, publish_sent_at: state.publish_sent_at ?? now }
      if (input.checkpoint !== undefined) yield* input.checkpoint(state)
      const published = yield* post(session, `${userId}/${spec.publishEdge}`, { creation_id: containerId }, "none").pipe(
        Effect.tapError((f) =>
          Effect.sync(() => {
            refused = GraphError.isRefusal(f) ? f : undefined
          })
        ),
        Effect.tap(() =>
          Effect.sync(() => {
            refused = undefined
          })
        ),
        Effect.map(Option.some),
        Effect.catchIf(GraphError.isNotReady, () => Effect.succeed(Option.none<unknown>())),
        Effect.catchIf(
          (f: PlatformFailure) => f.code !== "platform_unavailable",
          // A refusal, unless the container was published after all (e.g. "already published");
          // a first send's refusal stands even when the container cannot be read.
          (refusal) =>
            Effect.flatMap(resent ? Effect.map(statusOf(session, containerId), Option.some) : Effect.option(statusOf(session, containerId)), (after) =>
              Option.isSome(after) && after.value.status === "PUBLISHED"
                ? Effect.succeed(Option.some<unknown>(undefined))
                : Effect.fail(amend(refusal, { state: unpublished(state), notPublished: true }))
            )
        )
      )
      if (Option.isNone(published)) return inProgress(state)
      if (published.value === undefined) return yield* publishedContainer(session, input, userId, state)
      const mediaId = stringField(published.value, "id")
      // An answer without the media id: the platform published; find the media like a lost answer.
      if (mediaId === undefined) return yield* publishedContainer(session, input, userId, state)
      return yield* publishedMedia(session, { ...state, media_id: mediaId }, mediaId)
    })
    return attempt.pipe(
      // The whole look-up-then-publish is retried: every re-send is preceded by a fresh look-up.
      retrying(wire.retry),
      Effect.catchIf(
        (f: PlatformFailure) => f.code === "platform_unavailable" && f.state === undefined && state.publish_sent_at !== undefined,
        (unavailable) =>
          refused !== undefined
            ? // Meta refused the last publish sent (a throttle), right after the container said it
              // was not published: nothing was published; a retry reuses the container.
              Effect.fail(amend(refused, { state: unpublished(state), notPublished: true }))
            : // The platform may have published: ask once more what became of the container.
              afterUnanswered(session, input, userId, state, containerId, unavailable)
      ),
      Effect.mapError((f) => (f.state === undefined ? amend(f, { state }) : f)),
      Effect.tapError((f: PlatformFailure) =>
        // The platform refused for its limit: the next target of the account reads it again.
        f.code === "quota_exceeded" ? Effect.sync(() => limitReadings.delete(userId)) : Effect.void
      ),
      Effect.catchIf(
        (f: PlatformFailure) => f.code === "quota_exceeded" && f.details === undefined,
        (f) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            Effect.fail(amend(f, { details: quotaDetails(spec.defaultQuota, 86_400, now) }))
          )
      )
    )
  }

  const start = (session: Session, input: PublishInput, userId: string) =>
    Effect.gen(function* () {
      const ruleBreak = MediaRules.check(input, spec.rules)
      if (ruleBreak !== undefined) return yield* Effect.fail(ruleBreak)
      const plan = spec.plan(input)
      yield* checkLimit(session, userId)
      const now = yield* Clock.currentTimeMillis
      const children: Array<string> = []
      for (const child of plan.children) children.push(yield* createContainer(session, userId, child))
      const containerId = children.length === 0 ? yield* createContainer(session, userId, plan.parent([])) : null
      return inProgress({ children, container_id: containerId, started_at: now })
    }).pipe(
      // Nothing that could publish was created: the target may fail, even after an earlier checkpoint.
      Effect.mapError((f) => amend(f, { state: f.state === undefined ? null : f.state, notPublished: true }))
    )

  const waitForChildren = (session: Session, input: PublishInput, userId: string, state: State) =>
    Effect.gen(function* () {
      const statuses = yield* Effect.forEach(state.children, (child) => statusOf(session, child))
      const broken = statuses.find((s) => s.status === "ERROR" || s.status === "EXPIRED")
      if (broken !== undefined) return yield* Effect.fail(terminalFailure(broken))
      if (!statuses.every((s) => s.status === "FINISHED")) return yield* stillProcessing(state)
      const plan = spec.plan(input)
      const containerId = yield* createContainer(session, userId, plan.parent(state.children)).pipe(
        // The carousel was refused before anything could publish.
        Effect.mapError((f) => amend(f, { notPublished: true }))
      )
      return inProgress({ ...state, container_id: containerId })
    })

  const decodeState = (state: unknown) =>
    decodeStateSchema(state).pipe(
      Effect.mapError(() => failure("internal_error", "unreadable_state", { retryable: false }))
    )

  const publish: ContainerAdapter["publish"] = (input) =>
    Effect.gen(function* () {
      const userId = input.account.externalId
      if (userId === null) {
        return yield* Effect.fail(failure("permission_missing", "account_id_missing", { needsReconnect: true }))
      }
      const session = yield* openSession(input.account)
      const step = Effect.gen(function* () {
        if (input.state === null || input.state === undefined) return yield* start(session, input, userId)
        const state = yield* decodeState(input.state)
        return state.container_id === null
          ? yield* waitForChildren(session, input, userId, state)
          : yield* publishContainer(session, input, userId, state, state.container_id)
      })
      return yield* TokenSession.withCredentials(session, step)
    }).pipe(
      Effect.mapError((f) => (f.state === undefined ? amend(f, { state: input.state ?? null }) : f)),
      Spans.withSpan(publishSpan)
    )

  const permalink: ContainerAdapter["permalink"] = (input) =>
    Effect.gen(function* () {
      const userId = input.account.externalId
      if (userId === null) return { _tag: "Never" } as const
      const state = yield* decodeState(input.state)
      const session = yield* openSession(input.account)
      const lookup = Effect.gen(function* () {
        let found: FoundMedia | undefined
        if (state.media_id !== undefined) {
          found = { id: state.media_id, permalink: null }
        } else if (input.post !== undefined) {
          found = Option.getOrUndefined(yield* findMedia(session, { post: input.post, target: input.target }, userId, state))
        }
        if (found === undefined) return { _tag: "NotYet" } as PermalinkLookup
        const link = found.permalink ?? Option.getOrNull(yield* permalinkOf(session, found.id))
        if (link === null) return { _tag: "NotYet" } as PermalinkLookup
        return {
          _tag: "Found",
          permalink: link,
          platformPostId: found.id,
          state: { ...state, media_id: found.id }
        } as PermalinkLookup
      })
      return yield* TokenSession.withCredentials(session, lookup)
    }).pipe(Spans.withSpan(permalinkSpan))

  return { publish, permalink }
}

/** The media failure of a container that ended in ERROR, with the platform's reason. */
export const mediaFailure = (platform: "photo" | "textpost", code: ErrorCode, detail: string | undefined) =>
  failure(code, detail ?? "container_error", {
    details: code === "media_invalid" ? { platform, detail: ErrorDetail.reason("platform_could_not_process_media") } : undefined
  })
