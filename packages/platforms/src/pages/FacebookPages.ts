/**
 * The pages adapter: Facebook Pages through the Graph API.
 *
 * - No media: a `feed` post with the caption as `message` (and its first address as `link`).
 * - One image: a `photos` post. Several images: each uploaded unpublished, then one `feed` post
 *   with `attached_media`.
 * - One video: a reel. `video_reels` start, then the hosted-file upload (`file_url` header on
 *   the upload address Meta returns), then `finish` with `video_state=PUBLISHED`, then the video's
 *   status until its publishing phase completes. The video id is persisted after the upload, and
 *   before `finish` is sent the video's status is read: a reel whose publishing has started is
 *   never finished twice.
 *
 * Page tokens do not expire on their own; when one is invalidated and the credentials hold the
 * user token it came from, a new Page token is derived from it once.
 *
 * @since 0.1.0
 */
import type { CredentialsUpdate, PlatformFailure, PublishInput, PublishStep } from "@postwire/core"
import { ErrorDetail } from "@postwire/domain"
import { Effect, type Redacted, Schema } from "effect"
import { HttpClientRequest } from "effect/http"
import * as Credentials from "../Credentials.ts"
import * as MediaRules from "../internal/MediaRules.ts"
import * as TokenSession from "../internal/TokenSession.ts"
import { amend, failure, field, malformed, retrying, stringField, type Wire } from "../internal/Wire.ts"
import * as GraphApi from "../graph/GraphApi.ts"

/** Facebook Pages settings. */
export interface Config {
  /** Graph host with version, default `https://graph.facebook.com/v23.0`. */
  readonly baseUrl: string
  /** Adds `appsecret_proof` to every call when set. */
  readonly appSecret?: Redacted.Redacted<string> | undefined
  /** Delay between status checks of a reel. */
  readonly pollIntervalMs: number
}

/** Defaults. */
export const defaults = {
  baseUrl: "https://graph.facebook.com/v23.0",
  pollIntervalMs: 10_000
} as const

/** The resume state of a reel: its video id, and whether `finish` was sent. */
export const State = Schema.Struct({
  video_id: Schema.String,
  phase: Schema.Literals(["uploaded", "finished"])
})
/** The resume state of a reel. */
export type State = typeof State.Type

type Session = TokenSession.TokenSession<Credentials.PagesCredentials>

/** The Pages adapter. */
export interface FacebookPages {
  readonly publish: (
    input: PublishInput
  ) => Effect.Effect<PublishStep & { readonly credentials?: CredentialsUpdate | undefined }, PlatformFailure>
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

  const refreshFor = (pageId: string) =>
    TokenSession.makeRefresher<Credentials.PagesCredentials>(
      (credentials) =>
        credentials.user_access_token === undefined
          ? Effect.fail(failure("token_expired", "no_refresh", { needsReconnect: true }))
          : graph.get(pageId, { fields: "access_token" }, credentials.user_access_token).pipe(
              Effect.flatMap((body) => {
                const token = stringField(body, "access_token")
                return token === undefined
                  ? Effect.fail(failure("permission_missing", "page_token_missing", { needsReconnect: true }))
                  : Effect.succeed({ ...credentials, page_access_token: token })
              })
            ),
      (credentials) => credentials.page_access_token
    )
  const refreshers = new Map<string, TokenSession.Refresh<Credentials.PagesCredentials>>()

  const permalinkOf = (session: Session, id: string) =>
    get(session, id, { fields: "permalink_url" }).pipe(
      Effect.map((body) => absolute(stringField(body, "permalink_url"))),
      Effect.orElseSucceed(() => null)
    )

  const published = (session: Session, platformPostId: string, state: unknown) =>
    Effect.map(
      permalinkOf(session, platformPostId),
      (permalink): PublishStep => ({ _tag: "Published", platformPostId, permalink, state })
    )

  const idOf = (body: unknown, key: string) => {
    const id = stringField(body, key)
    return id === undefined ? Effect.fail(malformed(key)) : Effect.succeed(id)
  }

  /** Posts without video complete in one call; a lost answer cannot be looked up, so it is not re-sent. */
  const postNow = (session: Session, input: PublishInput, pageId: string) =>
    Effect.gen(function* () {
      const caption = input.post.caption
      const images = input.media
      if (images.length === 0) {
        const body = yield* post(session, `${pageId}/feed`, { message: caption, link: firstLink(caption) }, "unambiguous")
        const id = yield* idOf(body, "id")
        return yield* published(session, id, { post_id: id })
      }
      if (images.length === 1) {
        const body = yield* post(
          session,
          `${pageId}/photos`,
          { url: images[0]!.url, caption, published: true },
          "unambiguous"
        )
        const id = stringField(body, "post_id") ?? (yield* idOf(body, "id"))
        return yield* published(session, id, { post_id: id })
      }
      const attached: Record<string, string> = {}
      for (const [i, image] of images.entries()) {
        const body = yield* post(session, `${pageId}/photos`, { url: image.url, published: false })
        attached[`attached_media[${i}]`] = JSON.stringify({ media_fbid: yield* idOf(body, "id") })
      }
      const body = yield* post(session, `${pageId}/feed`, { message: caption, ...attached }, "unambiguous")
      const id = yield* idOf(body, "id")
      return yield* published(session, id, { post_id: id })
    })

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
      if (status.publishing === "complete" || status.publishStatus === "published") {
        return yield* published(session, state.video_id, state)
      }
      const inProgress = (next: State): PublishStep => ({ _tag: "InProgress", state: next, pollAfterMs: config.pollIntervalMs })
      // Publishing has started: `finish` was sent already, maybe by a step whose answer was lost.
      if (state.phase === "finished" || status.publishing !== "not_started") return inProgress({ ...state, phase: "finished" })
      yield* post(
        session,
        `${pageId}/video_reels`,
        { upload_phase: "finish", video_id: state.video_id, video_state: "PUBLISHED", description: input.post.caption },
        "none"
      )
      return inProgress({ ...state, phase: "finished" })
    }).pipe(retrying(wire.retry))

  const publish: FacebookPages["publish"] = (input) =>
    Effect.gen(function* () {
      const pageId = input.account.externalId
      if (pageId === null) {
        return yield* Effect.fail(failure("permission_missing", "page_id_missing", { needsReconnect: true }))
      }
      const credentials = yield* Credentials.decode("pages", input.account.credentials)
      let refresh = refreshers.get(pageId)
      if (refresh === undefined) {
        refresh = refreshFor(pageId)
        refreshers.set(pageId, refresh)
      }
      const session = yield* TokenSession.make({
        accountId: input.account.id,
        credentials,
        refresh,
        encode: (c) => Credentials.encode("pages", c)
      })
      const step = Effect.gen(function* () {
        if (input.state === null || input.state === undefined) {
          const ruleBreak = MediaRules.check(input)
          if (ruleBreak !== undefined) return yield* Effect.fail(ruleBreak)
          return input.media.some((m) => m.record.kind === "video")
            ? yield* uploadReel(session, input, pageId)
            : yield* postNow(session, input, pageId)
        }
        const state = yield* Schema.decodeUnknownEffect(State)(input.state).pipe(
          Effect.mapError(() => failure("internal_error", "unreadable_state", { retryable: false }))
        )
        return yield* advanceReel(session, input, pageId, state)
      })
      return yield* TokenSession.withCredentials(session, step)
    }).pipe(
      Effect.mapError((f) => (f.state === undefined ? amend(f, { state: input.state ?? null }) : f)),
      Effect.withSpan("platforms.pages.publish")
    )

  return { publish }
}
