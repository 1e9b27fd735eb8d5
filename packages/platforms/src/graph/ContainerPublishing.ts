/**
 * Meta's container flow, shared by Instagram and Threads: check the publishing limit, create the
 * media container (and carousel children first), poll it until it is ready, publish it, read the
 * permalink.
 *
 * The container id is the resume state and is persisted before the publish call. Every later
 * step asks the container's status first: a container already PUBLISHED is never published
 * again; its media is found among the account's recent posts.
 *
 * @since 0.1.0
 */
import type { AccountRecord, CredentialsUpdate, PlatformFailure, PublishInput, PublishStep } from "@postwire/core"
import { type ErrorCode, ErrorDetail } from "@postwire/domain"
import { Clock, Effect, Option, type Redacted, Schema } from "effect"
import { HttpClientRequest } from "effect/http"
import * as Credentials from "../Credentials.ts"
import * as MediaRules from "../internal/MediaRules.ts"
import * as TokenSession from "../internal/TokenSession.ts"
import { amend, failure, field, malformed, numberField, retrying, stringField, type Wire } from "../internal/Wire.ts"
import * as GraphApi from "./GraphApi.ts"
import type { GraphParams, GraphRetry } from "./GraphApi.ts"
import * as GraphError from "./GraphError.ts"

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

/** What differs between Instagram and Threads. */
export interface ContainerPlatform {
  readonly platform: "photo" | "textpost"
  /** Edge that creates containers and lists published media (`media`, `threads`). */
  readonly mediaEdge: string
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
}

/** Defaults shared by the container platforms; each adds its hosts. */
export const defaults = {
  pollIntervalMs: 10_000,
  processingTimeoutMs: 10 * 60_000,
  refreshWithinMs: 7 * 24 * 60 * 60_000
} as const

/** The resume state of a container target. */
export const State = Schema.Struct({
  /** Carousel children created so far (empty for a single item). */
  children: Schema.Array(Schema.String),
  /** The container to publish; `null` while carousel children are still processing. */
  container_id: Schema.NullOr(Schema.String),
  started_at: Schema.Number
})
/** The resume state of a container target. */
export type State = typeof State.Type

/** An adapter built on the container flow. */
export interface ContainerAdapter {
  readonly publish: (
    input: PublishInput
  ) => Effect.Effect<PublishStep & { readonly credentials?: CredentialsUpdate | undefined }, PlatformFailure>
}

/** Instagram and Threads credentials: the same long-lived token shape. */
type LongLived = Credentials.PhotoCredentials

type Session = TokenSession.TokenSession<LongLived>

/** Builds the adapter of a container platform. */
export const make = (spec: ContainerPlatform, config: Config, wire: Wire): ContainerAdapter => {
  const graph = GraphApi.make({ wire, baseUrl: config.baseUrl, platform: spec.platform, appSecret: config.appSecret })

  const refresh: TokenSession.Refresh<LongLived> | null =
    config.refreshUrl === null
      ? null
      : TokenSession.makeRefresher(
          (credentials) =>
            Effect.gen(function* () {
              const request = HttpClientRequest.get(config.refreshUrl!).pipe(
                HttpClientRequest.setUrlParams({
                  grant_type: spec.refreshGrantType,
                  access_token: credentials.access_token
                })
              )
              const body = yield* wire.send(request).pipe(Effect.flatMap(graph.interpret), retrying(wire.retry))
              const accessToken = stringField(body, "access_token")
              if (accessToken === undefined) {
                return yield* Effect.fail(failure("token_expired", "refresh_malformed", { needsReconnect: true }))
              }
              const now = yield* Clock.currentTimeMillis
              const expiresIn = numberField(body, "expires_in")
              // Keep what the account's credentials carry besides the token (user id, scopes).
              const { expires_at: _old, ...kept } = credentials
              return {
                ...kept,
                access_token: accessToken,
                issued_at: now,
                ...(expiresIn === undefined ? {} : { expires_at: now + expiresIn * 1000 })
              }
            }),
          (credentials) => credentials.access_token
        )

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

  const checkLimit = (session: Session, userId: string) =>
    Effect.gen(function* () {
      const body = yield* get(session, `${userId}/${spec.limitEdge}`, { fields: "quota_usage,config" })
      const data = field(body, "data")
      const entry = Array.isArray(data) ? data[0] : undefined
      const usage = numberField(entry, "quota_usage")
      const total = numberField(field(entry, "config"), "quota_total")
      if (usage === undefined || total === undefined || usage < total) return
      const duration = numberField(field(entry, "config"), "quota_duration") ?? 86_400
      const now = yield* Clock.currentTimeMillis
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

  const permalinkOf = (session: Session, mediaId: string) =>
    get(session, mediaId, { fields: "permalink" }).pipe(
      Effect.map((body) => stringField(body, "permalink") ?? null),
      // The post is published whatever happens here: a missing permalink must not fail it.
      Effect.orElseSucceed(() => null)
    )

  const inProgress = (state: State): PublishStep => ({ _tag: "InProgress", state, pollAfterMs: config.pollIntervalMs })

  const stillProcessing = (state: State) =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      if (now - state.started_at > config.processingTimeoutMs) {
        // Never published: abandoning the container and starting over cannot publish twice.
        return yield* Effect.fail(failure("platform_unavailable", "processing_timeout", { state: null }))
      }
      return inProgress(state)
    })

  const terminalFailure = (status: ContainerStatus): PlatformFailure =>
    status.status === "EXPIRED"
      ? failure("platform_unavailable", "container_expired", { state: null })
      : amend(spec.containerError(status.detail), { state: null })

  /** A PUBLISHED container whose publish answer was lost: find the media among recent posts. */
  const recoverPublished = (session: Session, input: PublishInput, userId: string, containerId: string) =>
    get(session, `${userId}/${spec.mediaEdge}`, { fields: `id,${spec.captionField},permalink`, limit: 25 }).pipe(
      Effect.map((body) => {
        const data = field(body, "data")
        const match = Array.isArray(data)
          ? data.find((item) => stringField(item, spec.captionField) === input.post.caption)
          : undefined
        const id = stringField(match, "id")
        return id === undefined
          ? Option.none<{ id: string; permalink: string | null }>()
          : Option.some({ id, permalink: stringField(match, "permalink") ?? null })
      }),
      Effect.orElseSucceed(() => Option.none<{ id: string; permalink: string | null }>()),
      Effect.map(
        (found): PublishStep =>
          Option.match(found, {
            onNone: () => ({ _tag: "Published", platformPostId: containerId, permalink: null, state: input.state }),
            onSome: ({ id, permalink }) => ({ _tag: "Published", platformPostId: id, permalink, state: input.state })
          })
      )
    )

  /** Looks the container up, then publishes it only if it was not published already. */
  const publishContainer = (session: Session, input: PublishInput, userId: string, state: State, containerId: string) =>
    Effect.gen(function* () {
      const status = yield* statusOf(session, containerId, "none")
      switch (status.status) {
        case "PUBLISHED":
          return yield* recoverPublished(session, input, userId, containerId)
        case "FINISHED":
          break
        case "ERROR":
        case "EXPIRED":
          return yield* Effect.fail(terminalFailure(status))
        default:
          return yield* stillProcessing(state)
      }
      const published = yield* post(session, `${userId}/${spec.publishEdge}`, { creation_id: containerId }, "none").pipe(
        Effect.map(Option.some),
        Effect.catchIf(GraphError.isNotReady, () => Effect.succeed(Option.none<unknown>()))
      )
      if (Option.isNone(published)) return inProgress(state)
      const mediaId = yield* idOf(published.value, "media id")
      const permalink = yield* permalinkOf(session, mediaId)
      return { _tag: "Published", platformPostId: mediaId, permalink, state } satisfies PublishStep
    }).pipe(
      // The whole look-up-then-publish is retried: every re-send is preceded by a fresh look-up.
      retrying(wire.retry),
      Effect.catchIf(
        (f: PlatformFailure) => f.code === "quota_exceeded" && f.details === undefined,
        (f) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            Effect.fail(amend(f, { details: quotaDetails(spec.defaultQuota, 86_400, now) }))
          )
      )
    )

  const start = (session: Session, input: PublishInput, userId: string) =>
    Effect.gen(function* () {
      const ruleBreak = MediaRules.check(input)
      if (ruleBreak !== undefined) return yield* Effect.fail(ruleBreak)
      const plan = spec.plan(input)
      yield* checkLimit(session, userId)
      const now = yield* Clock.currentTimeMillis
      const children: Array<string> = []
      for (const child of plan.children) children.push(yield* createContainer(session, userId, child))
      const containerId = children.length === 0 ? yield* createContainer(session, userId, plan.parent([])) : null
      return inProgress({ children, container_id: containerId, started_at: now })
    }).pipe(Effect.mapError((f) => (f.state === undefined ? amend(f, { state: null }) : f)))

  const waitForChildren = (session: Session, input: PublishInput, userId: string, state: State) =>
    Effect.gen(function* () {
      const statuses = yield* Effect.forEach(state.children, (child) => statusOf(session, child))
      const broken = statuses.find((s) => s.status === "ERROR" || s.status === "EXPIRED")
      if (broken !== undefined) return yield* Effect.fail(terminalFailure(broken))
      if (!statuses.every((s) => s.status === "FINISHED")) return yield* stillProcessing(state)
      const plan = spec.plan(input)
      const containerId = yield* createContainer(session, userId, plan.parent(state.children))
      return inProgress({ ...state, container_id: containerId })
    })

  const openSession = (account: AccountRecord) =>
    Effect.gen(function* () {
      const credentials = yield* Credentials.decode(spec.platform, account.credentials)
      const session = yield* TokenSession.make({
        accountId: account.id,
        credentials,
        refresh,
        encode: (c) => Credentials.encode(spec.platform, c)
      })
      // Meta refreshes only a token that is still valid: renew it while it is, before it lapses.
      const now = yield* Clock.currentTimeMillis
      const expiresAt = credentials.expires_at
      if (refresh !== null && expiresAt !== undefined && expiresAt - now < config.refreshWithinMs) {
        yield* expiresAt <= now
          ? session.refreshNow
          : // Still valid: a failed renewal must not stop this publish.
            Effect.ignore(session.refreshNow)
      }
      return session
    })

  const publish: ContainerAdapter["publish"] = (input) =>
    Effect.gen(function* () {
      const userId = input.account.externalId
      if (userId === null) {
        return yield* Effect.fail(failure("permission_missing", "account_id_missing", { needsReconnect: true }))
      }
      const session = yield* openSession(input.account)
      const step = Effect.gen(function* () {
        if (input.state === null || input.state === undefined) return yield* start(session, input, userId)
        const state = yield* Schema.decodeUnknownEffect(State)(input.state).pipe(
          Effect.mapError(() => failure("internal_error", "unreadable_state", { retryable: false }))
        )
        return state.container_id === null
          ? yield* waitForChildren(session, input, userId, state)
          : yield* publishContainer(session, input, userId, state, state.container_id)
      })
      return yield* TokenSession.withCredentials(session, step)
    }).pipe(
      Effect.mapError((f) => (f.state === undefined ? amend(f, { state: input.state ?? null }) : f)),
      Effect.withSpan(`platforms.${spec.platform}.publish`)
    )

  return { publish }
}

/** The media failure of a container that ended in ERROR, with the platform's reason. */
export const mediaFailure = (platform: "photo" | "textpost", code: ErrorCode, detail: string | undefined) =>
  failure(code, detail ?? "container_error", {
    details: code === "media_invalid" ? { platform, detail: ErrorDetail.reason("platform_could_not_process_media") } : undefined
  })
