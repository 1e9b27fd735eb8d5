/**
 * The video adapter: YouTube Data API v3 `videos.insert` with the resumable upload protocol
 * (https://developers.google.com/youtube/v3/guides/using_resumable_upload_protocol).
 *
 * 1. Before anything is sent, the target's options are resolved (title, `made_for_kids`, …) and
 *    the upload is counted in the project's day (`videos.insert` has its own bucket, 100 a day
 *    by default): a day that is spent fails `quota_exceeded` at once (see `Quota.ts`), and
 *    validate and create refuse such a target up front ({@link admitFor}).
 * 2. `POST {upload}/videos?uploadType=resumable&part=snippet,status` with the video resource
 *    answers the upload session's address in `Location`. It is saved through `checkpoint` before
 *    the first byte: from then on the target is only ever resumed, never uploaded again.
 * 3. The bytes go in `PUT`s of {@link Config.chunkBytes} (a multiple of 256 KiB) with
 *    `Content-Range: bytes a-b/total`; YouTube answers `308 Resume Incomplete` with the `Range`
 *    it has, and the next chunk starts after it. A chunk that fails (no answer, a 5xx) asks the
 *    session where it is (`PUT` with `Content-Range: bytes *\/total`, no body) and goes on from
 *    the offset the server reports.
 * 4. The last chunk's answer (200 or 201) is the video resource: its id is the post. When that
 *    answer is lost, asking the session gives it again (200/201 with the resource); a session
 *    that is gone (404) is resolved by the channel's uploads playlist
 *    (`playlistItems.list` on `contentDetails.relatedPlaylists.uploads`), matched by title and
 *    time, looked through again for {@link Config.lostUploadWindowMs} before the target fails
 *    `publish_unconfirmed`.
 * 5. With `thumbnail_media_id` among the post's media, `thumbnails.set` uploads it; a refused
 *    thumbnail does not undo the published video.
 *
 * The public address is `https://www.youtube.com/shorts/{id}` for a Short (square or vertical,
 * at most three minutes) and `https://www.youtube.com/watch?v={id}` otherwise.
 *
 * @since 0.5.0
 */
import type { AdmitInput, Counters, PlatformFailure, PublishInput, PublishStep } from "@postwire/core"
import { formatInstant } from "@postwire/domain"
import { Clock, Effect, Option, type Redacted, Schema } from "effect"
import { HttpClientRequest } from "effect/http"
import type * as Credentials from "./Credentials.ts"
import * as TokenSession from "../internal/TokenSession.ts"
import { failure, field, malformed, stringField, type Wire, type WireResponse } from "../internal/Wire.ts"
import * as Google from "./GoogleApi.ts"
import * as Options from "./Options.ts"
import * as Quota from "./Quota.ts"
import * as Rules from "./Rules.ts"
import * as Reasons from "./Reasons.ts"

/** YouTube's publishing settings. */
export interface Config {
  /** Default `https://www.googleapis.com/youtube/v3`. */
  readonly apiUrl: string
  /** Default `https://www.googleapis.com/upload/youtube/v3`. */
  readonly uploadUrl: string
  /** Default `https://oauth2.googleapis.com/token`. */
  readonly tokenUrl: string
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  /** Bytes per `PUT`: a multiple of 256 KiB (the protocol's rule). Default 8 MiB. */
  readonly chunkBytes: number
  /** The project's units a day for calls other than uploads (`POSTWIRE_YOUTUBE_DAILY_UNITS`). Default 10,000. */
  readonly dailyUnits: number
  /** The project's `videos.insert` calls a day, their own bucket (`POSTWIRE_YOUTUBE_DAILY_UPLOADS`). Default 100. */
  readonly dailyUploads: number
  /** What each call costs in units (the quota calculator); `insert` 0: uploads count in their own bucket only. */
  readonly unitCosts: Quota.UnitCosts
  /** How long a lost upload is looked for in the uploads playlist. Default 2 hours. */
  readonly lostUploadWindowMs: number
  /** Wait between two looks. Default 1 minute. */
  readonly lookIntervalMs: number
}

/** Defaults for everything but the app credentials. */
export const defaults = {
  apiUrl: "https://www.googleapis.com/youtube/v3",
  uploadUrl: "https://www.googleapis.com/upload/youtube/v3",
  tokenUrl: "https://oauth2.googleapis.com/token",
  chunkBytes: 8 * 1024 * 1024,
  dailyUnits: Quota.defaultDailyUnits,
  dailyUploads: Quota.defaultDailyUploads,
  unitCosts: Quota.defaultCosts,
  lostUploadWindowMs: 2 * 60 * 60_000,
  lookIntervalMs: 60_000
} as const

/** The protocol's chunk unit: 256 KiB. */
export const chunkUnit = 256 * 1024

/** The public address of a video. */
export const permalink = (videoId: string, short: boolean): string =>
  short ? `https://www.youtube.com/shorts/${videoId}` : `https://www.youtube.com/watch?v=${videoId}`

/** The resume state: the upload session (saved before the first byte), then the video. */
export const State = Schema.Struct({
  /** The upload session's address (`Location` of the initial POST). */
  upload_url: Schema.String,
  /** The file's size in bytes. */
  total: Schema.Number,
  /** When the session was opened (epoch ms). */
  started_at: Schema.Number,
  title: Schema.String,
  short: Schema.Boolean,
  thumbnail_media_id: Schema.NullOr(Schema.String),
  /** The video's id, once known. */
  video_id: Schema.optionalKey(Schema.String),
  /** Looks through the uploads playlist that did not find it yet. */
  looks: Schema.optionalKey(Schema.Number)
})
export type State = typeof State.Type

const decodeState = Schema.decodeUnknownOption(State)

/** The `Range: bytes=0-N` of a 308: the next offset (N + 1), 0 when absent. */
export const nextOffset = (response: WireResponse): number => {
  const range = response.headers?.range
  const match = range === undefined ? null : /bytes=\d+-(\d+)/.exec(range)
  return match === null ? 0 : Number(match[1]) + 1
}

/** A call whose answer did not come (or the platform is down) as `undefined`; other failures stay. */
const unanswered = <A>(self: Effect.Effect<A, PlatformFailure>): Effect.Effect<A | undefined, PlatformFailure> =>
  Effect.catchIf(self, (f) => f.code === "platform_unavailable", () => Effect.succeed(undefined))

type Upload = { readonly _tag: "Done"; readonly videoId: string } | { readonly _tag: "Gone" }

/** The counter keys of a project (its OAuth client id): the uploads bucket and the units. */
const keys = (clientId: string) => ({ uploads: `${clientId}:uploads`, units: `${clientId}:units` })

/** Counts units of a call already made against the project's day (a counter that fails is let be). */
export const chargeFor = (config: Pick<Config, "clientId" | "dailyUnits">, counters: Counters) => (units: number) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) =>
    counters.add({ key: keys(config.clientId).units, window: Quota.window(now), units, limit: config.dailyUnits, force: true })
  ).pipe(Effect.ignore)

/** The refusal of a day the project cannot pay an upload from. */
const dayRefusal = (
  config: Pick<Config, "dailyUnits" | "dailyUploads">,
  bucket: "uploads" | "units",
  at: number,
  used: number,
  cost: number
) =>
  failure("quota_exceeded", bucket === "uploads" ? "project_daily_uploads" : "project_daily_units", {
    notPublished: true,
    details: {
      platform: "video",
      limit: bucket === "uploads" ? config.dailyUploads : config.dailyUnits,
      resets_at: formatInstant(Quota.nextReset(at)),
      detail:
        bucket === "uploads"
          ? Reasons.reason("youtube_project_uploads", { limit: config.dailyUploads, used })
          : Reasons.reason("youtube_project_quota", { limit: config.dailyUnits, cost, used })
    }
  })

/** A counter that cannot be read: the step is taken again later, nothing was sent. */
const counterDown = () => failure("platform_unavailable", "quota_counter_unavailable", { notPublished: true })

/**
 * The up-front check of validate and create: the day of `publishAt` still has an upload (and,
 * when uploads cost units, the units) for the target; reads only, the upload is counted when it
 * is sent.
 */
export const admitFor = (config: Pick<Config, "clientId" | "dailyUnits" | "dailyUploads" | "unitCosts">, counters: Counters) =>
  (input: AdmitInput): Effect.Effect<PlatformFailure | undefined> =>
    Effect.gen(function* () {
      const window = Quota.window(input.publishAt)
      const { uploads, units } = keys(config.clientId)
      const uploaded = yield* counters.read(uploads, window)
      if (uploaded + 1 > config.dailyUploads) return dayRefusal(config, "uploads", input.publishAt, uploaded, 1)
      const cost = config.unitCosts.insert
      if (cost > 0) {
        const used = yield* counters.read(units, window)
        if (used + cost > config.dailyUnits) return dayRefusal(config, "units", input.publishAt, used, cost)
      }
      return undefined
    }).pipe(Effect.catch(() => Effect.succeed(undefined)))

/** Creates the adapter. */
export const make = (config: Config, wire: Wire, counters: Counters) => {
  const refresher = Google.refresh(wire, config)
  const api = config.apiUrl.replace(/\/+$/, "")
  const chunk = Math.max(chunkUnit, Math.floor(config.chunkBytes / chunkUnit) * chunkUnit)
  const { uploads, units } = keys(config.clientId)

  const charge = chargeFor(config, counters)
  /** A `quotaExceeded` answer to `videos.insert`: the day's uploads are spent, whatever was counted. */
  const noteQuota = (f: PlatformFailure) =>
    f.platformCode === "quotaExceeded"
      ? Effect.flatMap(Clock.currentTimeMillis, (now) =>
          counters.add({ key: uploads, window: Quota.window(now), units: config.dailyUploads, limit: config.dailyUploads, force: true })
        ).pipe(Effect.ignore)
      : Effect.void

  /** Counts the upload (and its units when uploads cost units) in the project's day, or refuses it. */
  const reserve = () =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const window = Quota.window(now)
      const cost = config.unitCosts.insert
      if (cost > 0) {
        const paid = yield* counters.add({ key: units, window, units: cost, limit: config.dailyUnits })
        if (paid._tag === "Refused") return yield* Effect.fail(dayRefusal(config, "units", now, paid.used, cost))
      }
      const counted = yield* counters.add({ key: uploads, window, units: 1, limit: config.dailyUploads })
      if (counted._tag === "Refused") return yield* Effect.fail(dayRefusal(config, "uploads", now, counted.used, 1))
    }).pipe(Effect.catchTag("StoreError", () => Effect.fail(counterDown())))

  const optionsOf = (input: PublishInput): Effect.Effect<Options.Resolved, PlatformFailure> => {
    const resolved = Options.resolve(Options.fromTarget((input.target as { readonly options?: unknown }).options), input.post.caption)
    if (resolved._tag === "Ok") return Effect.succeed(resolved.value)
    const { code, details } = resolved.refusal
    return Effect.fail(failure(code, `option:${resolved.refusal.field}`, { details, notPublished: true }))
  }

  /** Asks the session where it is: the offset to go on from, or the video when it is complete. */
  const status = (session: Google.Session, state: State) =>
    Google.authed(
      wire,
      session,
      HttpClientRequest.put(state.upload_url).pipe(HttpClientRequest.setHeader("Content-Range", `bytes */${state.total}`))
    )

  /** Reads an answer of the session: done (the video), the next offset, gone, or a failure. */
  const readUploadAnswer = (
    response: WireResponse,
    state: State
  ): Effect.Effect<{ readonly _tag: "Offset"; readonly offset: number } | Upload, PlatformFailure> => {
    if (response.status === 200 || response.status === 201) {
      const id = stringField(response.json, "id")
      return id === undefined ? Effect.fail(malformed("video id")) : Effect.succeed({ _tag: "Done", videoId: id })
    }
    if (response.status === 308) return Effect.succeed({ _tag: "Offset", offset: nextOffset(response) })
    if (response.status === 404 || response.status === 410) return Effect.succeed({ _tag: "Gone" })
    // Any other refusal of the session: the upload cannot complete, so no video comes of it.
    return Effect.fail(Google.refusal(response, { state, notPublished: true }))
  }

  /**
   * Sends the bytes from `offset`, each failed chunk followed by a status question; at most
   * `wire.retry.attempts` failures in a row, then the step fails (retryable) with the session
   * saved, and the next step asks again.
   */
  const upload = (session: Google.Session, state: State, bytes: Uint8Array, from: number) =>
    Effect.gen(function* () {
      let offset = from
      let failures = 0
      while (true) {
        const end = Math.min(offset + chunk, state.total)
        const sent = yield* Google.authed(
          wire,
          session,
          HttpClientRequest.put(state.upload_url).pipe(
            HttpClientRequest.setHeader("Content-Range", `bytes ${offset}-${end - 1}/${state.total}`),
            HttpClientRequest.bodyUint8Array(bytes.subarray(offset, end), "application/octet-stream")
          )
        ).pipe(unanswered)
        // No answer, or a server error: the session says what it has.
        const answer = sent !== undefined && sent.status < 500 ? sent : yield* status(session, state).pipe(unanswered)
        if (answer === undefined || answer.status >= 500) {
          failures += 1
          if (failures >= wire.retry.attempts) {
            const code = answer === undefined ? "upload_unanswered" : `http_${answer.status}`
            return yield* Effect.fail(failure("platform_unavailable", code, { state }))
          }
          yield* Effect.sleep(wire.retry.baseDelayMs * 2 ** (failures - 1))
          continue
        }
        const read = yield* readUploadAnswer(answer, state)
        if (read._tag !== "Offset") return read
        failures = read.offset > offset ? 0 : failures + 1
        if (failures >= wire.retry.attempts) return yield* Effect.fail(failure("platform_unavailable", "upload_stalled", { state }))
        offset = read.offset
      }
    })

  /** The channel's uploads playlist: from the credentials, else `channels.list`. */
  const uploadsPlaylist = (session: Google.Session, credentials: Credentials.VideoCredentials) =>
    Effect.gen(function* () {
      if (credentials.uploads_playlist_id !== undefined) return credentials.uploads_playlist_id
      const response = yield* Google.authed(
        wire,
        session,
        HttpClientRequest.get(`${api}/channels`).pipe(HttpClientRequest.setUrlParams({ part: "contentDetails", mine: "true" }))
      )
      yield* charge(config.unitCosts.list)
      if (!Google.ok(response)) return yield* Effect.fail(Google.refusal(response))
      const items = field(response.json, "items")
      const first = Array.isArray(items) ? items[0] : undefined
      const id = stringField(field(field(first, "contentDetails"), "relatedPlaylists"), "uploads")
      if (id === undefined) return yield* Effect.fail(malformed("uploads playlist"))
      return id
    })

  /** Looks for the video among the channel's latest uploads (newest first, 50). */
  const lookUp = (session: Google.Session, credentials: Credentials.VideoCredentials, state: State) =>
    Effect.gen(function* () {
      const playlist = yield* uploadsPlaylist(session, credentials)
      const response = yield* Google.authed(
        wire,
        session,
        HttpClientRequest.get(`${api}/playlistItems`).pipe(
          HttpClientRequest.setUrlParams({ part: "snippet,contentDetails", playlistId: playlist, maxResults: "50" })
        )
      )
      yield* charge(config.unitCosts.list)
      if (!Google.ok(response)) return yield* Effect.fail(Google.refusal(response, { state }))
      const items = field(response.json, "items")
      for (const item of Array.isArray(items) ? items : []) {
        const snippet = field(item, "snippet")
        const at = Date.parse(stringField(snippet, "publishedAt") ?? "")
        if (stringField(snippet, "title") === state.title && (!Number.isFinite(at) || at >= state.started_at - 5 * 60_000)) {
          const id = stringField(field(item, "contentDetails"), "videoId") ?? stringField(field(snippet, "resourceId"), "videoId")
          if (id !== undefined) return Option.some(id)
        }
      }
      return Option.none<string>()
    })

  /** The session is gone: the video is looked for in the uploads playlist, for a bounded time. */
  const resolveGone = (session: Google.Session, credentials: Credentials.VideoCredentials, input: PublishInput, state: State) =>
    Effect.gen(function* () {
      const found = yield* lookUp(session, credentials, state)
      if (Option.isSome(found)) return yield* finish(session, input, { ...state, video_id: found.value })
      const now = yield* Clock.currentTimeMillis
      if (now - state.started_at > config.lostUploadWindowMs) {
        return yield* Effect.fail(
          failure("publish_unconfirmed", "upload_session_gone", { gaveUp: true, state, details: { platform: "video" } })
        )
      }
      const looked: State = { ...state, looks: (state.looks ?? 0) + 1 }
      return { _tag: "InProgress", state: looked, pollAfterMs: config.lookIntervalMs } satisfies PublishStep
    })

  /** The video is there: set its thumbnail when asked, and answer `Published`. */
  const finish = (session: Google.Session, input: PublishInput, state: State & { readonly video_id: string }) =>
    Effect.gen(function* () {
      const thumbnail =
        state.thumbnail_media_id === null ? undefined : input.media.find((m) => m.record.id === state.thumbnail_media_id)
      if (thumbnail !== undefined) {
        const bytes = yield* thumbnail.read
        const response = yield* Google.authed(
          wire,
          session,
          HttpClientRequest.post(`${config.uploadUrl.replace(/\/+$/, "")}/thumbnails/set`).pipe(
            HttpClientRequest.setUrlParams({ videoId: state.video_id, uploadType: "media" }),
            HttpClientRequest.bodyUint8Array(bytes, thumbnail.record.mime)
          )
        ).pipe(Effect.option)
        yield* charge(config.unitCosts.thumbnail)
        // A thumbnail YouTube refuses (an account without custom thumbnails) leaves the video as it is.
        yield* Effect.logWarning("youtube thumbnail not set").pipe(
          Effect.when(Effect.succeed(Option.isNone(response) || !Google.ok(response.value)))
        )
      }
      return {
        _tag: "Published",
        platformPostId: state.video_id,
        permalink: permalink(state.video_id, state.short),
        state: { ...state, thumbnail_media_id: null }
      } satisfies PublishStep
    })

  /** The first step: options, quota, the session (saved), then the bytes. */
  const start = (input: PublishInput, session: Google.Session, credentials: Credentials.VideoCredentials) =>
    Effect.gen(function* () {
      const options = yield* optionsOf(input)
      const video = input.media.find((m) => m.record.kind === "video")
      if (video === undefined || input.media.filter((m) => m.record.kind === "video").length !== 1) {
        return yield* Effect.fail(
          failure("media_invalid", "youtube_one_video", {
            notPublished: true,
            details: { platform: "video", detail: Reasons.reason("youtube_one_video") }
          })
        )
      }
      const description = input.post.caption
      if (Rules.utf8Bytes(description) > Rules.descriptionMaxBytes || Rules.hasAngleBrackets(description)) {
        return yield* Effect.fail(
          failure(Rules.hasAngleBrackets(description) ? "caption_invalid" : "caption_too_long", "description", {
            notPublished: true,
            details: { platform: "video", limit: Rules.descriptionMaxBytes }
          })
        )
      }
      const withThumbnail = options.thumbnail_media_id !== undefined && input.media.some((m) => m.record.id === options.thumbnail_media_id)
      yield* reserve()
      const bytes = yield* video.read
      const resource = {
        snippet: {
          title: options.title,
          description,
          ...(options.tags.length === 0 ? {} : { tags: options.tags }),
          ...(options.category_id === undefined ? {} : { categoryId: options.category_id })
        },
        status: { privacyStatus: options.privacy_status, selfDeclaredMadeForKids: options.made_for_kids }
      }
      const opened = yield* Google.authed(
        wire,
        session,
        HttpClientRequest.post(`${config.uploadUrl.replace(/\/+$/, "")}/videos`).pipe(
          HttpClientRequest.setUrlParams({ uploadType: "resumable", part: "snippet,status" }),
          HttpClientRequest.setHeaders({
            "X-Upload-Content-Length": String(bytes.length),
            "X-Upload-Content-Type": video.record.mime
          }),
          HttpClientRequest.bodyUint8Array(new TextEncoder().encode(JSON.stringify(resource)), "application/json; charset=UTF-8")
        )
      )
      if (!Google.ok(opened)) {
        const refused = Google.refusal(opened, { notPublished: true })
        yield* noteQuota(refused)
        return yield* Effect.fail(refused)
      }
      const location = opened.headers?.location
      if (location === undefined || location === "") return yield* Effect.fail(malformed("upload session location"))
      const state: State = {
        upload_url: location,
        total: bytes.length,
        started_at: yield* Clock.currentTimeMillis,
        title: options.title,
        short: Rules.isShort(video.record),
        thumbnail_media_id: withThumbnail ? (options.thumbnail_media_id ?? null) : null
      }
      // From the first byte on, the video may come to exist: only ever resumed from here.
      if (input.checkpoint !== undefined) yield* input.checkpoint(state)
      const done = yield* upload(session, state, bytes, 0)
      if (done._tag === "Gone") return yield* resolveGone(session, credentials, input, state)
      return yield* finish(session, input, { ...state, video_id: done.videoId })
    })

  /** A later step: the session says where the upload is, and it goes on from there. */
  const resume = (input: PublishInput, session: Google.Session, credentials: Credentials.VideoCredentials, state: State) =>
    Effect.gen(function* () {
      if (state.video_id !== undefined) return yield* finish(session, input, { ...state, video_id: state.video_id })
      if (state.looks !== undefined) return yield* resolveGone(session, credentials, input, state)
      const asked = yield* status(session, state).pipe(Effect.mapError((f) => (f.state === undefined ? withState(f, state) : f)))
      if (asked.status >= 500) return yield* Effect.fail(failure("platform_unavailable", `http_${asked.status}`, { state }))
      const read = yield* readUploadAnswer(asked, state)
      if (read._tag === "Done") return yield* finish(session, input, { ...state, video_id: read.videoId })
      if (read._tag === "Gone") return yield* resolveGone(session, credentials, input, state)
      const video = input.media.find((m) => m.record.kind === "video")
      if (video === undefined) return yield* Effect.fail(malformed("video media"))
      const bytes = yield* video.read
      const done = yield* upload(session, state, bytes, read.offset)
      if (done._tag === "Gone") return yield* resolveGone(session, credentials, input, state)
      return yield* finish(session, input, { ...state, video_id: done.videoId })
    })

  const withState = (f: PlatformFailure, state: State) =>
    failure(f.code, f.platformCode, { details: f.details, retryable: f.retryable, needsReconnect: f.needsReconnect, state })

  return {
    admit: admitFor(config, counters),
    publish: (input: PublishInput) =>
      Effect.gen(function* () {
        const session = yield* Google.openSession(refresher, input.account)
        const credentials = yield* session.authed((c) => Effect.succeed(c))
        const saved = input.state === null || input.state === undefined ? Option.none() : decodeState(input.state)
        if (input.state !== null && input.state !== undefined && Option.isNone(saved)) {
          return yield* Effect.fail(failure("publish_unconfirmed", "state_unreadable", { gaveUp: true }))
        }
        const step = Option.isSome(saved) ? resume(input, session, credentials, saved.value) : start(input, session, credentials)
        return yield* TokenSession.withCredentials(session, step)
      }).pipe(Effect.withSpan("platforms.video.publish"))
  }
}
