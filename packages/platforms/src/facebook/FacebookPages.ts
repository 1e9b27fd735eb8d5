/**
 * The pages adapter: Facebook Pages through the Graph API.
 *
 * - No media: a `feed` post with the caption as `message` (and its first address as `link`).
 * - One image: a `photos` post. Several images: each uploaded unpublished, then one `feed` post
 *   with `attached_media`.
 * - One video that meets the reel specification (3 to 90 s, 9:16, at least 540 × 960: see
 *   {@link isReel}): a reel. `video_reels` start, then the hosted-file upload (`file_url` header on
 *   the upload address Meta returns), then `finish` with `video_state=PUBLISHED`, then the video's
 *   status until its publishing phase completes. The video id is persisted after the upload, and
 *   before `finish` is sent the video's status is read: a reel whose publishing has started is
 *   never finished twice.
 * - Any other video: a Page video, `POST /{page-id}/videos` with `file_url` and `description`
 *   (on the `graph-video` host when the base address is Meta's), sent once like a text post (a
 *   lost answer is looked up in the Page's `videos`), then the video's status until it is ready.
 *
 * A text or photo post is created and published by one call. Right before it the state is saved
 * through the publisher's `checkpoint` (`post_sent_at`); when the answer is lost (a timeout, a
 * dropped connection), the Page's `published_posts` are read from 5 minutes before the call
 * (`since`, then Meta's `after` cursors) for the post with the caption: found, it is the post;
 * while not listed, asked again; still not listed {@link Config.lostPostWindowMs} after the call,
 * it was not published, and the target fails `retryable` (a retry posts it).
 *
 * Page tokens do not expire on their own; when one is invalidated and the credentials hold the
 * user token it came from, a new Page token is derived from it once.
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
import { ErrorDetail } from "@postwire/domain"
import { Clock, Effect, Option, type Redacted, Schema } from "effect"
import { HttpClientRequest } from "effect/http"
import type * as Credentials from "./Credentials.ts"
import * as MediaRules from "../internal/MediaRules.ts"
import { isReel, reelsPerDay, rules } from "./Rules.ts"
import * as TokenSession from "../internal/TokenSession.ts"
import { amend, failure, field, malformed, retrying, stringField, type Wire } from "../internal/Wire.ts"
import * as GraphApi from "../meta/GraphApi.ts"
import * as Sessions from "../meta/Sessions.ts"

const dayMs = 24 * 60 * 60 * 1000

/** Facebook Pages settings. */
export interface Config {
  /** Graph host with version, default `https://graph.facebook.com/v23.0`. */
  readonly baseUrl: string
  /** Adds `appsecret_proof` to every call when set. */
  readonly appSecret?: Redacted.Redacted<string> | undefined
  /** Delay between status checks of a reel. */
  readonly pollIntervalMs: number
  /**
   * After a lost answer to a text or photo post, how long the Page's posts are looked through
   * for it before concluding it was not published.
   */
  readonly lostPostWindowMs?: number | undefined
}

/** Defaults. */
export const defaults = {
  baseUrl: "https://graph.facebook.com/v23.0",
  pollIntervalMs: 10_000,
  lostPostWindowMs: 10 * 60_000
} as const

/** Page timestamps and ours may differ this much: posts are looked for from this long before. */
const clockSkewMs = 5 * 60_000

/** At most this many pages of the Page's posts are read when looking for one (100 each). */
const maxPostPages = 20

/**
 * The resume state of a video: its id, and whether a reel's `finish` was sent (`posted`: a Page
 * video, published by its upload call, waiting to be ready).
 */
export const State = Schema.Struct({
  video_id: Schema.String,
  phase: Schema.Literals(["uploaded", "finished", "posted"])
})
/** The resume state of a reel. */
export type State = typeof State.Type

/** The resume state of a text or photo post whose publishing call was sent (its answer may be lost). */
export const PostState = Schema.Struct({
  /** When the call that creates and publishes the post was first sent. */
  post_sent_at: Schema.Number,
  /** The post's id, once known. */
  post_id: Schema.optional(Schema.String),
  /** Looks through the Page's posts that did not find it yet. */
  asks: Schema.optional(Schema.Number),
  /** `videos`: a Page video, looked for in the Page's videos by its description. */
  edge: Schema.optional(Schema.Literal("videos"))
})
/** The resume state of a text or photo post. */
export type PostState = typeof PostState.Type

type Session = TokenSession.TokenSession<Credentials.PagesCredentials>

/** The Pages adapter. */
export interface FacebookPages {
  readonly publish: (
    input: PublishInput
  ) => Effect.Effect<PublishStep & { readonly credentials?: CredentialsUpdate | undefined }, PlatformFailure>
  /** Reads the permalink of a post or reel published without one: `NotYet` while it cannot be read. */
  readonly permalink: (
    input: PermalinkInput
  ) => Effect.Effect<PermalinkLookup & { readonly credentials?: CredentialsUpdate | undefined }, PlatformFailure>
}

/** A Page's permalink: Meta gives videos a path, posts a full address. */
const absolute = (permalink: string | undefined): string | null =>
  permalink === undefined ? null : permalink.startsWith("/") ? `https://www.facebook.com${permalink}` : permalink

const firstLink = (text: string): string | undefined => /https?:\/\/[^\s<>"']+/.exec(text)?.[0]

/** Creates the adapter. */
export const make = (config: Config, wire: Wire): FacebookPages => {
  const graph = GraphApi.make({ wire, baseUrl: config.baseUrl, platform: "pages", appSecret: config.appSecret })

  const get = (session: Session, path: string, params: GraphApi.GraphParams, retry: GraphApi.GraphRetry = "all") =>
    session.authed((c) => graph.get(path, params, c.page_access_token, retry))
  const post = (session: Session, path: string, params: GraphApi.GraphParams, retry: GraphApi.GraphRetry = "all") =>
    session.authed((c) => graph.post(path, params, c.page_access_token, retry))

  const permalinkOf = (session: Session, id: string) =>
    get(session, id, { fields: "permalink_url" }).pipe(
      Effect.map((body) => absolute(stringField(body, "permalink_url"))),
      Effect.orElseSucceed(() => null)
    )

  /** Published; a permalink that could not be read is asked for later by the permalink backfill. */
  const published = (session: Session, platformPostId: string, state: unknown) =>
    Effect.map(
      permalinkOf(session, platformPostId),
      (permalink): PublishStep => ({
        _tag: "Published",
        platformPostId,
        permalink,
        ...(permalink === null ? { permalinkPending: true, permalinkAskAfterMs: config.pollIntervalMs } : {}),
        state
      })
    )

  const idOf = (body: unknown, key: string) => {
    const id = stringField(body, key)
    return id === undefined ? Effect.fail(malformed(key)) : Effect.succeed(id)
  }

  /** A Graph failure that says nothing about whether the call was acted on: no answer came. */
  const answerLost = (f: PlatformFailure) => f.platformCode === "timeout" || f.platformCode === "network_error"

  /**
   * Looks through the Page's published posts since the call was sent (5 minutes of leeway), for
   * the one with the caption: the earliest, should two match.
   */
  const findPost = (session: Session, input: PublishInput, pageId: string, state: PostState) =>
    Effect.gen(function* () {
      const from = state.post_sent_at - clockSkewMs
      let after: string | undefined
      let best: { readonly id: string; readonly at: number } | undefined
      const videos = state.edge === "videos"
      const text = videos ? "description" : "message"
      for (let page = 0; page < maxPostPages; page++) {
        const body = yield* get(session, videos ? `${pageId}/videos` : `${pageId}/published_posts`, {
          fields: `id,${text},created_time`,
          since: Math.floor(from / 1000),
          limit: 100,
          after
        })
        const data = field(body, "data")
        const items = Array.isArray(data) ? data : []
        let older = false
        for (const item of items) {
          const created = stringField(item, "created_time")
          const at = created === undefined ? undefined : Date.parse(created.replace(/([+-]\d{2})(\d{2})$/, "$1:$2"))
          if (at !== undefined && Number.isFinite(at) && at < from) {
            older = true
            continue
          }
          const id = stringField(item, "id")
          if (id === undefined || stringField(item, text) !== input.post.caption) continue
          const when = at !== undefined && Number.isFinite(at) ? at : Number.MAX_SAFE_INTEGER
          if (best === undefined || when < best.at) best = { id, at: when }
        }
        const paging = field(body, "paging")
        after = stringField(field(paging, "cursors"), "after")
        if (older || items.length === 0 || field(paging, "next") === undefined || after === undefined) break
      }
      return Option.fromUndefinedOr(best?.id)
    })

  /**
   * The answer to a post's publishing call was lost: the post is looked for on the Page. Not
   * listed yet: asked again later; not listed within the window: it was not published.
   */
  const recoverPost = (session: Session, input: PublishInput, pageId: string, state: PostState) =>
    Effect.gen(function* () {
      const found = yield* findPost(session, input, pageId, state).pipe(Effect.option)
      if (Option.isSome(found) && Option.isSome(found.value)) {
        const id = found.value.value
        return state.edge === "videos" ? videoPosted(id) : yield* published(session, id, { post_id: id })
      }
      const now = yield* Clock.currentTimeMillis
      const window = config.lostPostWindowMs ?? defaults.lostPostWindowMs
      // Only a listing that answered can say the post is not there.
      if (Option.isSome(found) && now - state.post_sent_at >= window) {
        return yield* Effect.fail(failure("platform_unavailable", "post_not_found_after_lost_answer", { state: null, notPublished: true }))
      }
      const asks = (state.asks ?? 0) + 1
      return {
        _tag: "InProgress",
        state: { ...state, asks },
        pollAfterMs: Math.min(config.pollIntervalMs * 2 ** Math.min(asks, 10), window)
      } satisfies PublishStep
    })

  /**
   * Sends the call that creates and publishes a post, after saving that it is sent; a lost answer
   * is never re-sent: the Page's posts are looked through instead.
   */
  const sendPost = (
    session: Session,
    input: PublishInput,
    pageId: string,
    send: Effect.Effect<string, PlatformFailure>,
    edge?: "videos"
  ) =>
    Effect.gen(function* () {
      const state: PostState = { post_sent_at: yield* Clock.currentTimeMillis, ...(edge === undefined ? {} : { edge }) }
      if (input.checkpoint !== undefined) yield* input.checkpoint(state)
      const sent = yield* send.pipe(
        Effect.map(Option.some),
        Effect.catchIf(answerLost, () => Effect.succeed(Option.none<string>()))
      )
      if (Option.isNone(sent)) return yield* recoverPost(session, input, pageId, state)
      // Refused with an answer: Meta did not publish it.
      if (edge === "videos") return videoPosted(sent.value)
      return yield* published(session, sent.value, { post_id: sent.value })
    }).pipe(
      Effect.mapError((f) => (f.state === undefined && !f.notPublished ? amend(f, { notPublished: true }) : f))
    )

  /** Posts without video complete in one call, sent once: a lost answer is looked up, not re-sent. */
  const postNow = (session: Session, input: PublishInput, pageId: string) =>
    Effect.gen(function* () {
      const caption = input.post.caption
      const images = input.media
      if (images.length === 0) {
        return yield* sendPost(
          session,
          input,
          pageId,
          post(session, `${pageId}/feed`, { message: caption, link: firstLink(caption) }, "unambiguous").pipe(
            Effect.flatMap((body) => idOf(body, "id"))
          )
        )
      }
      if (images.length === 1) {
        return yield* sendPost(
          session,
          input,
          pageId,
          post(session, `${pageId}/photos`, { url: images[0]!.url, caption, published: true }, "unambiguous").pipe(
            Effect.flatMap((body) => {
              const postId = stringField(body, "post_id")
              return postId === undefined ? idOf(body, "id") : Effect.succeed(postId)
            })
          )
        )
      }
      const attached: Record<string, string> = {}
      for (const [i, image] of images.entries()) {
        const body = yield* post(session, `${pageId}/photos`, { url: image.url, published: false })
        attached[`attached_media[${i}]`] = JSON.stringify({ media_fbid: yield* idOf(body, "id") })
      }
      return yield* sendPost(
        session,
        input,
        pageId,
        post(session, `${pageId}/feed`, { message: caption, ...attached }, "unambiguous").pipe(
          Effect.flatMap((body) => idOf(body, "id"))
        )
      )
    })

  /** A Page video was created and published: its status is read until it is ready. */
  const videoPosted = (videoId: string): PublishStep => ({
    _tag: "InProgress",
    state: { video_id: videoId, phase: "posted" } satisfies State,
    pollAfterMs: config.pollIntervalMs
  })

  /** Videos are sent to Meta's `graph-video` host, as the Video API documents; other bases as they are. */
  const videoBase = config.baseUrl.replace(/^https:\/\/graph\.facebook\.com\//, "https://graph-video.facebook.com/")
  const videoGraph =
    videoBase === config.baseUrl ? graph : GraphApi.make({ wire, baseUrl: videoBase, platform: "pages", appSecret: config.appSecret })

  /**
   * A video that is not a reel: one call uploads (Meta fetches `file_url`) and publishes it, sent
   * once; a lost answer is looked for among the Page's videos.
   */
  const postVideo = (session: Session, input: PublishInput, pageId: string) =>
    sendPost(
      session,
      input,
      pageId,
      session
        .authed((c) =>
          videoGraph.post(
            `${pageId}/videos`,
            { file_url: input.media[0]!.url, description: input.post.caption, published: true },
            c.page_access_token,
            "unambiguous"
          )
        )
        .pipe(Effect.flatMap((body) => idOf(body, "id"))),
      "videos"
    )

  /** Starts a reel and hands the video to Meta by address; nothing is published yet. */
  const uploadReel = (session: Session, input: PublishInput, pageId: string) =>
    Effect.gen(function* () {
      const started = yield* post(session, `${pageId}/video_reels`, { upload_phase: "start" })
      const videoId = yield* idOf(started, "video_id")
      const uploadUrl = yield* idOf(started, "upload_url")
      yield* session.authed((c) =>
        wire
          .send(
            HttpClientRequest.post(uploadUrl).pipe(
              HttpClientRequest.setHeaders({ authorization: `OAuth ${c.page_access_token}`, file_url: input.media[0]!.url })
            )
          )
          .pipe(
            Effect.flatMap((response) => {
              if (response.status >= 200 && response.status < 300 && field(response.json, "success") === true) {
                return Effect.void
              }
              if (field(response.json, "error") !== undefined) return Effect.asVoid(graph.interpret(response))
              const retriable = field(field(response.json, "debug_info"), "retriable") === true
              return Effect.fail(
                retriable || response.status >= 500
                  ? failure("platform_unavailable", `rupload_${response.status}`)
                  : failure("media_invalid", `rupload_${response.status}`, {
                      details: { platform: "pages", detail: ErrorDetail.reason("platform_could_not_fetch_video") }
                    })
              )
            }),
            retrying(wire.retry)
          )
      )
      return { _tag: "InProgress", state: { video_id: videoId, phase: "uploaded" }, pollAfterMs: 0 } satisfies PublishStep
    }).pipe(Effect.mapError((f) => (f.state === undefined ? amend(f, { state: null }) : f)))

  const reelStatus = (session: Session, videoId: string, retry: GraphApi.GraphRetry) =>
    get(session, videoId, { fields: "status" }, retry).pipe(
      Effect.map((body) => {
        const status = field(body, "status")
        const phase = (name: string) => stringField(field(status, name), "status")
        return {
          videoStatus: stringField(status, "video_status"),
          failed: [phase("uploading_phase"), phase("processing_phase"), phase("publishing_phase")].includes("error"),
          publishing: phase("publishing_phase") ?? "not_started",
          publishStatus: stringField(field(status, "publishing_phase"), "publish_status")
        }
      })
    )

  const reelFailed = failure("media_invalid", "video_status_error", {
    details: { platform: "pages", detail: ErrorDetail.reason("platform_could_not_process_video") },
    state: null
  })

  const advanceReel = (session: Session, input: PublishInput, pageId: string, state: State) =>
    Effect.gen(function* () {
      const status = yield* reelStatus(session, state.video_id, "none")
      if (status.videoStatus === "error" || status.failed) return yield* Effect.fail(reelFailed)
      if (
        status.publishing === "complete" ||
        status.publishStatus === "published" ||
        (state.phase === "posted" && status.videoStatus === "ready")
      ) {
        return yield* published(session, state.video_id, state)
      }
      const inProgress = (next: State): PublishStep => ({ _tag: "InProgress", state: next, pollAfterMs: config.pollIntervalMs })
      // Publishing has started: `finish` was sent already, maybe by a step whose answer was lost.
      if (state.phase === "posted") return inProgress(state)
      if (state.phase === "finished" || status.publishing !== "not_started") return inProgress({ ...state, phase: "finished" })
      yield* post(
        session,
        `${pageId}/video_reels`,
        { upload_phase: "finish", video_id: state.video_id, video_state: "PUBLISHED", description: input.post.caption },
        "none"
      ).pipe(
        // The Reels API's own limit is refused here, at publishing: its message names the limit
        // and the latest the moving window frees a reel (Meta gives no time).
        Effect.catchIf(
          (f: PlatformFailure) => f.code === "quota_exceeded",
          (f) =>
            Effect.flatMap(Clock.currentTimeMillis, (now) =>
              Effect.fail(amend(f, { details: { ...f.details, limit: reelsPerDay, resets_at: new Date(now + dayMs).toISOString() } }))
            )
        )
      )
      return inProgress({ ...state, phase: "finished" })
    }).pipe(retrying(wire.retry))

  const openSession = Sessions.page(graph)

  const permalink: FacebookPages["permalink"] = (input) =>
    Effect.gen(function* () {
      const pageId = input.account.externalId
      const state = input.state as { readonly post_id?: unknown; readonly video_id?: unknown } | null
      const id = typeof state?.post_id === "string" ? state.post_id : typeof state?.video_id === "string" ? state.video_id : undefined
      if (pageId === null || id === undefined) return { _tag: "Never" } as const
      const session = yield* openSession(input.account, pageId)
      const lookup = Effect.map(
        permalinkOf(session, id),
        (link): PermalinkLookup =>
          link === null ? { _tag: "NotYet" } : { _tag: "Found", permalink: link, platformPostId: id, state: input.state }
      )
      return yield* TokenSession.withCredentials(session, lookup)
    }).pipe(Spans.withSpan("platforms.pages.permalink"))

  const publish: FacebookPages["publish"] = (input) =>
    Effect.gen(function* () {
      const pageId = input.account.externalId
      if (pageId === null) {
        return yield* Effect.fail(failure("permission_missing", "page_id_missing", { needsReconnect: true }))
      }
      const session = yield* openSession(input.account, pageId)
      const step = Effect.gen(function* () {
        if (input.state === null || input.state === undefined) {
          const ruleBreak = MediaRules.check(input, rules)
          if (ruleBreak !== undefined) return yield* Effect.fail(ruleBreak)
          const video = input.media.find((m) => m.record.kind === "video")
          if (video === undefined) return yield* postNow(session, input, pageId)
          return isReel(video.record) ? yield* uploadReel(session, input, pageId) : yield* postVideo(session, input, pageId)
        }
        const postState = Schema.decodeUnknownOption(PostState)(input.state)
        if (Option.isSome(postState)) return yield* recoverPost(session, input, pageId, postState.value)
        const state = yield* Schema.decodeUnknownEffect(State)(input.state).pipe(
          Effect.mapError(() => failure("internal_error", "unreadable_state", { retryable: false }))
        )
        return yield* advanceReel(session, input, pageId, state)
      })
      return yield* TokenSession.withCredentials(session, step)
    }).pipe(
      Effect.mapError((f) => (f.state === undefined ? amend(f, { state: input.state ?? null }) : f)),
      Spans.withSpan("platforms.pages.publish")
    )

  return { publish, permalink }
}
