/**
 * The shortvideo adapter: TikTok's Content Posting API.
 *
 * A direct post first reads a fresh `creator_info` (the creator may be unable to post now, even
 * with HTTP 200), checks the consented privacy level against the creator's options and the video
 * against `max_video_post_duration_sec`, then initializes a PULL_FROM_URL publish. An inbox post
 * sends the video to the creator's inbox, where the person finishes in the app. The publish id is
 * the resume state; later steps only fetch the status, never initialize again.
 *
 * A target of images only is a photo post (1 to 35 JPEG or WebP images): `content/init` with
 * `media_type` PHOTO, `post_mode` DIRECT_POST (the same creator_info and consent checks) or
 * MEDIA_UPLOAD (the inbox), the images in order by address, the first the cover, the caption as
 * the `description`; the same status fetch follows, and its public address is `/photo/{id}`
 * (https://developers.tiktok.com/doc/content-posting-api-reference-photo-post). With
 * {@link Config.verifiedUrlPrefixes}, a media address outside them fails `media_url_unverified`
 * before anything is sent.
 *
 * A direct post is published once TikTok says `PUBLISH_COMPLETE`, even while moderation still
 * keeps its public post id back: the step says `permalinkPending`, and `permalink` fetches the
 * status again later (the engine's permalink backfill) until the id appears.
 *
 * The init call (direct or inbox) is the one that may publish, and its answer alone carries the
 * publish id. Right before it the state is saved through the publisher's `checkpoint`
 * (`init_sent_at`, no publish id). When its answer is lost (a timeout, a dropped connection),
 * the init is never re-sent: the creator's public videos (Display API `video/list`, newest first,
 * cursor-paged back to 5 minutes before the init) are read for the one with the caption. Found,
 * it is the post; not listed yet (TikTok still downloading, moderation, a listing that failed),
 * asked again after a wait that doubles up to 10 minutes; still not listed
 * {@link Config.lostInitWindowMs} after the init, the target fails retryable (see
 * docs/publishing.md for what that cannot see: inbox drafts and non-public posts).
 *
 * TikTok's answer `FAILED` is final: the target fails at once with the code its `fail_reason` maps
 * to, never asked again. A status still unfinished (or unreadable) {@link Config.statusWindowMs}
 * after the init is looked for among the creator's videos like a lost answer; not found, the
 * target fails `publish_unconfirmed` instead of being polled forever.
 *
 * TikTok's per-user-token call limits (6 inits, 20 creator_info, 30 status fetches a minute) are
 * paced per account ({@link callLimits}): a call the account's window has no room for is not
 * made, and the step fails with a `retryAt` (nothing sent), which the publisher honours by taking
 * the step again then; a `rate_limit_exceeded` answer closes the window for a minute the same way.
 *
 * Access tokens last 2 hours: an expired one is refreshed with the refresh token (which rotates:
 * the new one leaves the step as a `credentials` update).
 *
 * @since 0.1.0
 */
import type {
  AccountRecord,
  CreatorInfo,
  CredentialsUpdate,
  PermalinkInput,
  PermalinkLookup,
  PlatformFailure,
  PublishInput,
  PublishStep
} from "@postwire/core"
import { Spans } from "@postwire/core"
import { type ErrorCode, ErrorDetail, type ErrorDetails, formatInstant, type LocalizedText, TargetRules } from "@postwire/domain"
import { Clock, Effect, Option, Redacted, Result, Schema } from "effect"
import { HttpClientRequest } from "effect/http"
import * as Credentials from "./Credentials.ts"
import * as CallPacer from "../internal/CallPacer.ts"
import * as MediaRules from "../internal/MediaRules.ts"
import { isPhotoPost, rules } from "./Rules.ts"
import * as TokenSession from "../internal/TokenSession.ts"
import { amend, failure, field, malformed, numberField, retrying, stringField, type Wire, type WireResponse } from "../internal/Wire.ts"

/** TikTok settings: the API host and the app's client key and secret. */
export interface Config {
  /** Default `https://open.tiktokapis.com`. */
  readonly baseUrl: string
  readonly clientKey: string
  readonly clientSecret: Redacted.Redacted<string>
  /** Delay between status fetches (the status endpoint allows 30 calls a minute per token). */
  readonly pollIntervalMs: number
  /**
   * After a lost init answer, how long the creator's videos are looked through for the post
   * before the target fails `publish_unconfirmed` (not retried: TikTok may have taken it).
   * Default 48 hours, the time moderation is given.
   */
  readonly lostInitWindowMs?: number | undefined
  /**
   * How long after the init TikTok's status may stay unfinished (or unreadable) before the
   * creator's videos are looked through for the post and, not found, the target fails
   * `publish_unconfirmed`. Default 2 hours: TikTok ends a download it cannot finish within an
   * hour (`video_pull_failed`), and processing takes minutes.
   */
  readonly statusWindowMs?: number | undefined
  /**
   * The domains and URL prefixes verified in the TikTok app's settings for PULL_FROM_URL
   * (`POSTWIRE_TIKTOK_VERIFIED_URL_PREFIXES`, comma-separated). Given, a media address outside
   * them fails `media_url_unverified` before anything is sent, instead of TikTok's
   * `url_ownership_unverified`; absent, TikTok is left to say.
   */
  readonly verifiedUrlPrefixes?: ReadonlyArray<string> | undefined
}

/**
 * Whether `url` falls under one of the verified `prefixes`: a URL prefix (`https://…`) covers the
 * addresses that start with it; a bare domain (`media.example.com`) covers its addresses and its
 * subdomains' (TikTok's domain verification).
 */
export const underVerifiedPrefix = (url: string, prefixes: ReadonlyArray<string>): boolean =>
  prefixes.some((raw) => {
    const prefix = raw.trim()
    if (prefix === "") return false
    if (/^https?:\/\//i.test(prefix)) return url.startsWith(prefix)
    let host: string
    try {
      host = new URL(url).hostname
    } catch {
      return false
    }
    const domain = prefix.replace(/\/+$/, "").toLowerCase()
    return host === domain || host.endsWith(`.${domain}`)
  })

/** Defaults for everything but the app credentials. */
export const defaults = {
  baseUrl: "https://open.tiktokapis.com",
  pollIntervalMs: 10_000,
  lostInitWindowMs: 48 * 60 * 60_000,
  statusWindowMs: 2 * 60 * 60_000
} as const

/**
 * TikTok's documented call limits per user access token, paced per account: 6 `video/init` (and
 * `inbox/video/init`) calls a minute, 20 `creator_info`, 30 `status/fetch`. The window is a
 * second longer than a minute: a call is counted when it is sent, and TikTok counts it when it
 * arrives.
 */
export const callLimits = {
  init: { calls: 6, perMs: 61_000 },
  creatorInfo: { calls: 20, perMs: 61_000 },
  status: { calls: 30, perMs: 61_000 }
} as const satisfies Record<string, CallPacer.CallLimit>

/** Photo posts, direct and to the inbox (photo post reference). */
const photoInitPath = "/v2/post/publish/content/init/"

/** TikTok's timestamps and ours may differ this much: videos are looked for from this long before. */
const clockSkewMs = 5 * 60_000

/** The longest wait between two looks for a post whose init answer was lost. */
const maxLookWaitMs = 10 * 60_000

/** At most this many pages of the creator's videos are read per look (20 each). */
const maxListPages = 50

/** The resume state of a TikTok target: the publish id and what the permalink needs. */
export const State = Schema.Struct({
  publish_id: Schema.String,
  mode: Schema.Literals(["direct", "inbox"]),
  username: Schema.NullOr(Schema.String),
  max_duration_sec: Schema.optionalKey(Schema.Number),
  /** A photo post (`content/init`, `media_type` PHOTO): its public address is `/photo/{id}`. */
  photo: Schema.optionalKey(Schema.Boolean),
  /** The public post id, once moderation released it. */
  post_id: Schema.optionalKey(Schema.String),
  /** When the init was sent (epoch milliseconds): the status is waited for a bounded time. */
  sent_at: Schema.optionalKey(Schema.Number)
})
/** The resume state of a TikTok target. */
export type State = typeof State.Type

/**
 * The resume state saved right before an init call, whose answer alone holds the publish id:
 * when that answer is lost, the post is looked for among the creator's videos.
 */
export const SentState = Schema.Struct({
  /** When the init was sent (epoch milliseconds). */
  init_sent_at: Schema.Number,
  mode: Schema.Literals(["direct", "inbox"]),
  username: Schema.NullOr(Schema.String),
  max_duration_sec: Schema.optionalKey(Schema.Number),
  /** A photo post. */
  photo: Schema.optionalKey(Schema.Boolean),
  /** Looks through the creator's videos that did not find it yet. */
  asks: Schema.optionalKey(Schema.Number),
  /** The public post id, once found. */
  post_id: Schema.optionalKey(Schema.String)
})
/** The resume state of a TikTok target whose init was sent. */
export type SentState = typeof SentState.Type

/** The public address of a TikTok video (or, `photo`, of a photo post). */
export const permalink = (username: string, postId: string, photo = false): string =>
  `https://www.tiktok.com/@${username}/${photo ? "photo" : "video"}/${postId}`

const errorCodes: Readonly<Record<string, ErrorCode>> = {
  access_token_invalid: "token_expired",
  scope_not_authorized: "permission_missing",
  scope_permission_missed: "permission_missing",
  spam_risk_too_many_posts: "quota_exceeded",
  reached_active_user_cap: "quota_exceeded",
  spam_risk_user_banned_from_posting: "account_restricted",
  unaudited_client_can_only_post_to_private_accounts: "privacy_level_mismatch",
  privacy_level_option_mismatch: "privacy_level_mismatch",
  spam_risk_too_many_pending_share: "too_many_pending",
  // PULL_FROM_URL from an address outside the app's verified domains and URL prefixes: the
  // operator verifies them in the app's settings; the media is fine.
  // https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide#pull_from_url
  url_ownership_unverified: "media_url_unverified",
  invalid_param: "media_invalid",
  rate_limit_exceeded: "platform_unavailable",
  internal_error: "platform_unavailable"
}

/**
 * TikTok's documented `fail_reason` values (Get Post Status, "Fail reasons") and what each means
 * here, with the words the message needs. Any other `spam_risk…` restricts the account; any
 * other reason is a video TikTok could not process.
 */
const failReasons: Readonly<Record<string, { readonly code: ErrorCode; readonly detail?: LocalizedText }>> = {
  file_format_check_failed: { code: "media_invalid", detail: ErrorDetail.reason("unsupported_video_format") },
  duration_check_failed: { code: "media_too_long" },
  frame_rate_check_failed: { code: "media_invalid", detail: ErrorDetail.reason("frame_rate_not_accepted") },
  picture_size_check_failed: { code: "media_invalid", detail: ErrorDetail.reason("picture_size_not_accepted") },
  // "Some parts of the TikTok server may currently be unavailable. This is a retryable error."
  internal: { code: "platform_unavailable" },
  video_pull_failed: { code: "media_fetch_failed" },
  photo_pull_failed: { code: "media_fetch_failed" },
  publish_cancelled: { code: "media_invalid", detail: ErrorDetail.reason("publish_cancelled_on_platform") },
  // The creator removed the app's access: only reconnecting gives it back.
  auth_removed: { code: "permission_missing" },
  spam_risk_too_many_posts: { code: "quota_exceeded" },
  spam_risk_user_banned_from_posting: { code: "account_restricted" },
  spam_risk_text: { code: "content_rejected", detail: ErrorDetail.reason("caption_flagged_as_spam") },
  spam_risk: { code: "content_rejected", detail: ErrorDetail.reason("post_flagged_as_spam") }
}

const DAY_MS = 24 * 60 * 60 * 1000

/** The settings that hold the app's client key and secret (as `TikTokConnect.settingNames` names them). */
const appSettingNames = "POSTWIRE_TIKTOK_CLIENT_KEY, POSTWIRE_TIKTOK_CLIENT_SECRET"

/** Adds what the catalog's message for a code needs. */
const detailsFor = (code: ErrorCode, detail: LocalizedText, now: number): ErrorDetails | undefined => {
  switch (code) {
    case "media_invalid":
      return { platform: "shortvideo", detail }
    case "media_url_unverified":
      // `url` is added where the init's media address is known (`sendInit`).
      return { platform: "shortvideo" }
    case "quota_exceeded":
      // TikTok states the cap only as "about 15 posts a day"; the window is a rolling 24 h.
      return { limit: rules.dailyQuota, resets_at: new Date(now + DAY_MS).toISOString() }
    default:
      return undefined
  }
}

const classify = (status: number, code: string | undefined, now: number): PlatformFailure => {
  // Refused for the per-minute limit: nothing was done, and asking again within the step is
  // refused again; the publisher asks after the window (the adapter closes it, see `callLimits`).
  if (code === "rate_limit_exceeded" || (code === undefined && status === 429)) {
    return failure("platform_unavailable", code ?? `http_${status}`, { retryAt: now + callLimits.init.perMs })
  }
  const known = code === undefined ? undefined : errorCodes[code]
  const normalized: ErrorCode =
    known ??
    (code?.startsWith("spam_risk") === true
      ? "account_restricted"
      : status === 429 || status >= 500
        ? "platform_unavailable"
        : status === 401
          ? "token_expired"
          : "media_invalid")
  return failure(normalized, code ?? `http_${status}`, {
    details: detailsFor(normalized, ErrorDetail.reason("platform_rejected_request"), now)
  })
}

/** Reads TikTok's envelope `{"data": ..., "error": {"code": "ok"}}`: any other code fails (shared with analytics). */
export const interpret = (response: WireResponse): Effect.Effect<unknown, PlatformFailure> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const code = stringField(field(response.json, "error"), "code")
    if (code === "ok" && response.status >= 200 && response.status < 300) {
      return Effect.succeed(field(response.json, "data"))
    }
    return Effect.fail(classify(response.status, code === "ok" ? undefined : code, now))
  })

/** The fields read from the creator's video list. */
const videoListFields = "id,create_time,title,video_description,share_url"

/** A video id from the Display API: a string, or a number when it is small enough to be exact. */
const idField = (value: unknown, key: string): string | undefined => {
  const id = field(value, key)
  if (typeof id === "string" && id !== "") return id
  return typeof id === "number" && Number.isSafeInteger(id) ? String(id) : undefined
}

/** A video's share address without its tracking parameters. */
const shareLink = (shareUrl: string | undefined): string | null => (shareUrl === undefined ? null : shareUrl.split("?")[0]!)

/**
 * The address prefix (up to its last `/`) of an init's `source_info.video_url`: what the operator
 * verifies in the TikTok app's settings for PULL_FROM_URL.
 */
const urlPrefixOf = (body: unknown): string => {
  const source = field(body, "source_info")
  const images = field(source, "photo_images")
  const url = stringField(source, "video_url") ?? (Array.isArray(images) && typeof images[0] === "string" ? images[0] : "")
  return prefixOfUrl(url)
}

/** An address up to its last `/` (before any query). */
const prefixOfUrl = (url: string): string => {
  const path = url.split("?")[0]!
  return path.slice(0, path.lastIndexOf("/") + 1) || path
}

/** A TikTok post id is an int64: read it from the raw text, JSON numbers lose its last digits. */
const publicPostId = (text: string): string | undefined =>
  /"publicaly_available_post_id"\s*:\s*\[\s*"?(\d+)/.exec(text)?.[1]

/** The TikTok adapter, ready to publish, to read creator info, and to fill a permalink in later. */
export interface TikTok {
  readonly publish: (
    input: PublishInput
  ) => Effect.Effect<PublishStep & { readonly credentials?: CredentialsUpdate | undefined }, PlatformFailure>
  readonly creatorInfo: (
    account: AccountRecord
  ) => Effect.Effect<CreatorInfo & { readonly credentials?: CredentialsUpdate | undefined }, PlatformFailure>
  /** Fetches the status of a post published while in moderation, for its public post id. */
  readonly permalink: (
    input: PermalinkInput
  ) => Effect.Effect<PermalinkLookup & { readonly credentials?: CredentialsUpdate | undefined }, PlatformFailure>
}

/**
 * The name of the process's one refresh flight for a TikTok app (its API address and client key):
 * publishing, analytics and the connector's renewal all refresh through it, so one rotating
 * refresh token is never spent twice (`TokenSession.makeRefresher`).
 */
export const refreshFlight = (apiUrl: string, clientKey: string): string => `shortvideo ${apiUrl.replace(/\/+$/, "")} ${clientKey}`

/**
 * Opens the token session of an account for one step: a token known to be expired is refreshed
 * first, and the rotating refresh token is spent once for concurrent steps (publishing and
 * analytics build it from the same settings).
 */
export const sessions = (config: Config, wire: Wire) => {
  const base = config.baseUrl.replace(/\/+$/, "")
  const refresh = TokenSession.makeRefresher<Credentials.ShortVideoCredentials>(
    (credentials) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        if (credentials.refresh_expires_at !== undefined && credentials.refresh_expires_at <= now) {
          return yield* Effect.fail(failure("token_expired", "refresh_token_expired", { needsReconnect: true }))
        }
        const request = HttpClientRequest.post(`${base}/v2/oauth/token/`).pipe(
          HttpClientRequest.bodyUrlParams({
            client_key: config.clientKey,
            client_secret: Redacted.value(config.clientSecret),
            grant_type: "refresh_token",
            refresh_token: credentials.refresh_token
          })
        )
        const response = yield* wire.send(request).pipe(
          Effect.flatMap((r) => {
            const error = stringField(r.json, "error")
            if (r.status >= 500 || r.status === 429) return Effect.fail(failure("platform_unavailable", `http_${r.status}`))
            const accessToken = stringField(r.json, "access_token")
            if (error === "invalid_client" || error === "unauthorized_client") {
              // The app's own credentials were refused (TikTok's OAuth errors: `invalid_client` "Client
              // authentication failed", `unauthorized_client` "The client is not authorized to request
              // ... using this method", https://developers.tiktok.com/doc/oauth-error-handling): the
              // operator's client key or secret, not the account. No reconnect would help.
              return Effect.fail(
                failure("platform_app_rejected", error, {
                  details: { platform: "shortvideo", settings: appSettingNames },
                  needsReconnect: false
                })
              )
            }
            if (accessToken === undefined || (error !== undefined && error !== "")) {
              return Effect.fail(failure("token_expired", error ?? `http_${r.status}`, { needsReconnect: true }))
            }
            return Effect.succeed(r.json)
          }),
          retrying(wire.retry)
        )
        const expiresIn = numberField(response, "expires_in")
        const refreshExpiresIn = numberField(response, "refresh_expires_in")
        const openId = stringField(response, "open_id")
        // Keep what the answer leaves out (TikTok may return the same refresh token).
        const { expires_at: _expired, ...kept } = credentials
        return {
          ...kept,
          access_token: stringField(response, "access_token")!,
          refresh_token: stringField(response, "refresh_token") ?? credentials.refresh_token,
          ...(expiresIn === undefined ? {} : { expires_at: now + expiresIn * 1000 }),
          ...(refreshExpiresIn === undefined ? {} : { refresh_expires_at: now + refreshExpiresIn * 1000 }),
          ...(openId === undefined ? {} : { open_id: openId })
        }
      }),
    (credentials) => credentials.refresh_token,
    // One flight per app in the process: publishing and analytics each build their sessions.
    refreshFlight(base, config.clientKey)
  )

  const openSession = (account: AccountRecord) =>
    Effect.gen(function* () {
      const credentials = yield* Credentials.decode(account.credentials)
      const session = yield* TokenSession.make({
        accountId: account.id,
        credentials,
        refresh,
        encode: (c) => Credentials.encode(c)
      })
      const now = yield* Clock.currentTimeMillis
      // Refresh a token known to be expired (or about to) before the first call.
      if (credentials.expires_at !== undefined && credentials.expires_at <= now + 5 * 60_000) yield* session.refreshNow
      return session
    })
  return openSession
}

/** Creates the adapter. */
export const make = (config: Config, wire: Wire): TikTok => {
  const base = config.baseUrl.replace(/\/+$/, "")

  const call = (path: string, token: string, body?: unknown) => {
    const request = HttpClientRequest.post(`${base}${path}`).pipe(
      HttpClientRequest.bearerToken(token),
      body === undefined
        ? HttpClientRequest.setHeader("content-type", "application/json; charset=UTF-8")
        : HttpClientRequest.bodyJsonUnsafe(body)
    )
    return wire.send(request)
  }

  const openSession = sessions(config, wire)

  const authedCall = (
    session: TokenSession.TokenSession<Credentials.ShortVideoCredentials>,
    path: string,
    body: unknown,
    options: { readonly publishes?: boolean } = {}
  ) =>
    session.authed((c) =>
      call(path, c.access_token, body).pipe(Effect.flatMap(interpret), retrying(wire.retry, options))
    )

  type Session = TokenSession.TokenSession<Credentials.ShortVideoCredentials>

  const pacer = CallPacer.make()
  type Paced = keyof typeof callLimits

  /** A call the account's window has no room for: not made; the step is taken again at `retryAt`. */
  const pacedOut = (kind: Paced, retryAt: number) => failure("platform_unavailable", `rate_limit_paced:${kind}`, { retryAt })

  /** Counts a call of `kind` for the account, or fails with when the window has room again. */
  const takeCall = (account: AccountRecord, kind: Paced) =>
    Effect.flatMap(pacer.take(`${account.id}:${kind}`, callLimits[kind]), (retryAt) =>
      retryAt === undefined ? Effect.void : Effect.fail(pacedOut(kind, retryAt))
    )

  /** Fails, without counting a call, when the account's window of `kind` is full. */
  const roomFor = (account: AccountRecord, kind: Paced) =>
    Effect.flatMap(pacer.nextFree(`${account.id}:${kind}`, callLimits[kind]), (retryAt) =>
      retryAt === undefined ? Effect.void : Effect.fail(pacedOut(kind, retryAt))
    )

  /** TikTok refused a call of `kind` for its rate limit: the account's window closes for its length. */
  const closingWindow = (account: AccountRecord, kind: Paced) => <A, R>(self: Effect.Effect<A, PlatformFailure, R>) =>
    Effect.catchIf(
      self,
      (f: PlatformFailure) => f.platformCode === "rate_limit_exceeded",
      (f) => Effect.flatMap(pacer.spend(`${account.id}:${kind}`, callLimits[kind]), (retryAt) => Effect.fail(amend(f, { retryAt })))
    )

  const fetchCreatorInfo = (session: TokenSession.TokenSession<Credentials.ShortVideoCredentials>) =>
    authedCall(session, "/v2/post/publish/creator_info/query/", undefined).pipe(
      Effect.map(
        (data): CreatorInfo => ({
          nickname: stringField(data, "creator_nickname") ?? "",
          username: stringField(data, "creator_username") ?? "",
          privacyLevelOptions: (() => {
            const options = field(data, "privacy_level_options")
            return Array.isArray(options) ? options.filter((o): o is string => typeof o === "string") : []
          })(),
          commentDisabled: field(data, "comment_disabled") === true,
          duetDisabled: field(data, "duet_disabled") === true,
          stitchDisabled: field(data, "stitch_disabled") === true,
          maxVideoPostDurationSec: numberField(data, "max_video_post_duration_sec") ?? Number.POSITIVE_INFINITY
        })
      )
    )

  /**
   * Everything before the init: the media rules, then for a direct post a fresh creator_info and
   * the consent checks, each call paced. Nothing here can publish: every failure says so.
   */
  const prepareInit = (input: PublishInput, session: Session) =>
    Effect.gen(function* () {
      const ruleBreak = MediaRules.check(input, rules)
      if (ruleBreak !== undefined) return yield* Effect.fail(ruleBreak)
      const prefixes = config.verifiedUrlPrefixes ?? []
      const outside = prefixes.length === 0 ? undefined : input.media.find((m) => !underVerifiedPrefix(m.url, prefixes))
      if (outside !== undefined) {
        // TikTok would answer `url_ownership_unverified`: the operator's app settings, not the media.
        return yield* Effect.fail(
          failure("media_url_unverified", "url_outside_verified_prefix", {
            details: { platform: "shortvideo", url: prefixOfUrl(outside.url) },
            state: null
          })
        )
      }
      const photo = isPhotoPost(input.media.map((m) => m.record))
      const video = input.media[0]!
      const mode = input.target.options.shortvideo?.mode ?? "inbox"
      const kind = photo ? { photo: true } : {}
      // A photo post: every image by address, the first the cover (photo post reference).
      const source_info = photo
        ? { source: "PULL_FROM_URL", photo_cover_index: 0, photo_images: input.media.map((m) => m.url) }
        : { source: "PULL_FROM_URL", video_url: video.url }

      if (mode === "inbox") {
        yield* takeCall(input.account, "init")
        const sent: SentState = { init_sent_at: yield* Clock.currentTimeMillis, mode, username: null, ...kind }
        if (photo) {
          const body = { media_type: "PHOTO", post_mode: "MEDIA_UPLOAD", post_info: { description: input.post.caption }, source_info }
          return { sent, path: photoInitPath, body }
        }
        return { sent, path: "/v2/post/publish/inbox/video/init/", body: { source_info } }
      }

      const consent = input.target.consent?.consent
      if (consent === undefined) return yield* Effect.fail(failure("consent_required", "consent_missing", { state: null }))
      // creator_info is asked only when the init may follow: a burst's later targets wait first.
      yield* roomFor(input.account, "init")
      yield* takeCall(input.account, "creatorInfo")
      const info = yield* fetchCreatorInfo(session).pipe(closingWindow(input.account, "creatorInfo"))
      if (!info.privacyLevelOptions.includes(consent.privacy_level)) {
        return yield* Effect.fail(failure("privacy_level_mismatch", "privacy_level_option_mismatch", { state: null }))
      }
      const broken = TargetRules.consentRuleBreak(consent)
      if (broken !== undefined) return yield* Effect.fail(failure(broken.code, broken.rule, { state: null }))
      const duration = photo ? null : video.record.durationSeconds
      if (duration !== null && duration > info.maxVideoPostDurationSec) {
        return yield* Effect.fail(
          failure("media_too_long", "max_video_post_duration_sec", {
            details: { duration: Math.ceil(duration), limit: info.maxVideoPostDurationSec },
            state: null
          })
        )
      }
      const post_info = {
        title: input.post.caption,
        privacy_level: consent.privacy_level,
        disable_comment: consent.disable_comment === true || info.commentDisabled,
        disable_duet: consent.disable_duet === true || info.duetDisabled,
        disable_stitch: consent.disable_stitch === true || info.stitchDisabled,
        brand_content_toggle: consent.branded_content === true,
        brand_organic_toggle: consent.brand_organic === true,
        is_aigc: input.post.aiGenerated
      }
      yield* takeCall(input.account, "init")
      const sent: SentState = {
        init_sent_at: yield* Clock.currentTimeMillis,
        mode,
        username: info.username,
        ...(Number.isFinite(info.maxVideoPostDurationSec) ? { max_duration_sec: info.maxVideoPostDurationSec } : {}),
        ...kind
      }
      if (photo) {
        // The caption is the photo post's description; duet and stitch do not apply to photos.
        const photo_info = {
          description: input.post.caption,
          privacy_level: post_info.privacy_level,
          disable_comment: post_info.disable_comment,
          auto_add_music: true,
          brand_content_toggle: post_info.brand_content_toggle,
          brand_organic_toggle: post_info.brand_organic_toggle
        }
        return { sent, path: photoInitPath, body: { media_type: "PHOTO", post_mode: "DIRECT_POST", post_info: photo_info, source_info } }
      }
      return { sent, path: "/v2/post/publish/video/init/", body: { post_info, source_info } }
    }).pipe(
      // Nothing was sent that publishes: the target may fail (or wait its turn) even after an
      // earlier attempt's checkpoint.
      Effect.mapError((f) => amend(f, { state: null, notPublished: true }))
    )

  const start = (input: PublishInput, session: Session) =>
    Effect.flatMap(prepareInit(input, session), ({ body, path, sent }) => sendInit(input, session, sent, path, body))

  /** A failure that says nothing about whether the call was acted on: no answer came. */
  const answerLost = (f: PlatformFailure) => f.platformCode === "timeout" || f.platformCode === "network_error"

  /**
   * Sends an init after saving that it is sent. Its answer holds the publish id; a lost answer is
   * never re-sent: the creator's videos are looked through instead. A refusal with an answer
   * published nothing.
   */
  const sendInit = (
    input: PublishInput,
    session: Session,
    sent: SentState,
    path: string,
    body: unknown
  ): Effect.Effect<PublishStep, PlatformFailure> =>
    Effect.gen(function* () {
      if (input.checkpoint !== undefined) yield* input.checkpoint(sent)
      const answered = yield* authedCall(session, path, body, { publishes: true }).pipe(
        closingWindow(input.account, "init"),
        Effect.map(Option.some),
        Effect.catchIf(answerLost, () => Effect.succeed(Option.none<unknown>()))
      )
      if (Option.isNone(answered)) return yield* recoverInit(input, session, sent)
      const publishId = stringField(answered.value, "publish_id")
      if (publishId === undefined) return yield* Effect.fail(malformed("publish_id"))
      const { asks: _asks, init_sent_at: sentAt, ...kept } = sent
      const state: State = { ...kept, publish_id: publishId, sent_at: sentAt }
      return { _tag: "InProgress", state, pollAfterMs: config.pollIntervalMs } satisfies PublishStep
    }).pipe(
      Effect.mapError((f) => (f.code === "media_url_unverified" ? amend(f, { details: { ...f.details, url: urlPrefixOf(body) } }) : f)),
      Effect.mapError((f) => (f.state === undefined && f.notPublished !== true ? amend(f, { state: null, notPublished: true }) : f))
    )

  /**
   * Reads the creator's public videos newest first, back to 5 minutes before the init, for the
   * one with the caption: the earliest, should two match.
   */
  const findVideo = (session: Session, input: PublishInput, sent: SentState) =>
    Effect.gen(function* () {
      const from = sent.init_sent_at - clockSkewMs
      const caption = input.post.caption.trim()
      let cursor: number | undefined
      let best: { readonly id: string; readonly at: number; readonly shareUrl: string | undefined } | undefined
      for (let page = 0; page < maxListPages; page++) {
        const data = yield* authedCall(
          session,
          `/v2/video/list/?fields=${videoListFields}`,
          cursor === undefined ? { max_count: 20 } : { max_count: 20, cursor }
        )
        const videos = field(data, "videos")
        const items = Array.isArray(videos) ? videos : []
        let older = false
        for (const item of items) {
          const created = numberField(item, "create_time")
          const at = created === undefined ? undefined : created * 1000
          if (at !== undefined && at < from) {
            older = true
            continue
          }
          const id = idField(item, "id")
          const texts = [stringField(item, "title"), stringField(item, "video_description")].map((t) => t?.trim())
          if (id === undefined || !texts.includes(caption)) continue
          const when = at ?? Number.MAX_SAFE_INTEGER
          if (best === undefined || when < best.at) best = { id, at: when, shareUrl: stringField(item, "share_url") }
        }
        const next = numberField(data, "cursor")
        if (older || items.length === 0 || field(data, "has_more") !== true || next === undefined) break
        cursor = next
      }
      return Option.fromUndefinedOr(best)
    })

  /**
   * The answer to an init was lost: the post is looked for among the creator's videos. Not
   * listed yet: asked again later; not listed within the window: the target fails, retryable.
   */
  const recoverInit = (input: PublishInput, session: Session, sent: SentState) =>
    Effect.gen(function* () {
      const found = yield* findVideo(session, input, sent).pipe(Effect.result)
      if (Result.isSuccess(found) && Option.isSome(found.success)) {
        const video = found.success.value
        const link = sent.username === null ? shareLink(video.shareUrl) : permalink(sent.username, video.id, sent.photo === true)
        return {
          _tag: "Published",
          platformPostId: video.id,
          permalink: link,
          state: { ...sent, post_id: video.id }
        } satisfies PublishStep
      }
      const now = yield* Clock.currentTimeMillis
      const window = config.lostInitWindowMs ?? defaults.lostInitWindowMs
      if (now - sent.init_sent_at >= window) {
        // TikTok may have taken it (a draft or a non-public post is never listed): a person looks
        // at the account before publishing again, as after the status window.
        return yield* Effect.fail(
          failure("publish_unconfirmed", Result.isSuccess(found) ? "video_not_listed_after_lost_answer" : "video_list_unavailable_after_lost_answer", {
            details: { platform: "shortvideo", sent_at: formatInstant(sent.init_sent_at) },
            state: sent,
            gaveUp: true
          })
        )
      }
      const asks = (sent.asks ?? 0) + 1
      return {
        _tag: "InProgress",
        state: { ...sent, asks },
        pollAfterMs: Math.min(config.pollIntervalMs * 2 ** Math.min(asks, 16), maxLookWaitMs)
      } satisfies PublishStep
    })

  const fetchStatus = (state: State, session: TokenSession.TokenSession<Credentials.ShortVideoCredentials>) =>
    session.authed((c) =>
      call("/v2/post/publish/status/fetch/", c.access_token, { publish_id: state.publish_id }).pipe(
        Effect.flatMap((r) => Effect.as(interpret(r), r)),
        retrying(wire.retry)
      )
    )

  const decodeState = (state: unknown) =>
    Schema.decodeUnknownEffect(Schema.Union([State, SentState]))(state).pipe(
      Effect.mapError(() => failure("internal_error", "unreadable_state", { retryable: false }))
    )

  /** TikTok's `FAILED`: final, nothing was published; the code its `fail_reason` maps to. */
  const publishFailed = (input: PublishInput, state: State, reason: string, now: number): PlatformFailure => {
    const known = failReasons[reason]
    const code: ErrorCode = known?.code ?? (reason.startsWith("spam_risk") ? "account_restricted" : "media_invalid")
    const final = { state: null, notPublished: true } as const
    if (code === "media_too_long") {
      if (state.max_duration_sec === undefined) {
        return failure("media_invalid", reason, {
          ...final,
          details: { platform: "shortvideo", detail: ErrorDetail.reason("video_duration_not_accepted") }
        })
      }
      const duration = input.media[0]?.record.durationSeconds
      return failure(code, reason, { ...final, details: { duration: Math.ceil(duration ?? 0), limit: state.max_duration_sec } })
    }
    // A photo post's images: TikTok's video words would mislead.
    const photoDetail =
      state.photo !== true || code !== "media_invalid"
        ? undefined
        : reason === "file_format_check_failed" || reason === "picture_size_check_failed"
          ? ErrorDetail.reason("image_not_accepted")
          : ErrorDetail.reason("platform_could_not_process_media")
    const details: ErrorDetails | undefined =
      code === "media_invalid" || code === "content_rejected"
        ? { platform: "shortvideo", detail: photoDetail ?? known?.detail ?? ErrorDetail.reason("platform_could_not_process_video") }
        : code === "media_fetch_failed"
          ? { platform: "shortvideo" }
          : detailsFor(code, ErrorDetail.reason("platform_could_not_process_video"), now)
    // A retry starts a new publish: the failed one is gone on TikTok's side.
    return failure(code, reason, { ...final, details, needsReconnect: code === "permission_missing" ? true : undefined })
  }

  /**
   * The status stayed unfinished (or unreadable) past {@link Config.statusWindowMs}: the post is
   * looked for among the creator's videos; found, it is published, otherwise the target fails
   * `publish_unconfirmed` rather than being asked forever.
   */
  const statusOverdue = (input: PublishInput, session: Session, state: State, sentAt: number) =>
    Effect.gen(function* () {
      const sent: SentState = {
        init_sent_at: sentAt,
        mode: state.mode,
        username: state.username,
        ...(state.max_duration_sec === undefined ? {} : { max_duration_sec: state.max_duration_sec }),
        ...(state.photo === true ? { photo: true } : {})
      }
      const found = yield* findVideo(session, input, sent).pipe(Effect.orElseSucceed(() => Option.none()))
      if (Option.isSome(found)) {
        const video = found.value
        return {
          _tag: "Published",
          platformPostId: video.id,
          permalink: state.username === null ? shareLink(video.shareUrl) : permalink(state.username, video.id, state.photo === true),
          state: { ...state, post_id: video.id }
        } satisfies PublishStep
      }
      return yield* Effect.fail(
        failure("publish_unconfirmed", "status_unfinished_after_window", {
          details: { platform: "shortvideo", sent_at: formatInstant(sentAt) },
          state,
          gaveUp: true
        })
      )
    })

  const checkStatus = (input: PublishInput, state: State, session: Session): Effect.Effect<PublishStep, PlatformFailure> =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      // A state saved before the init time was kept: its bound counts from this first look.
      const sentAt = state.sent_at ?? now
      const tracked: State = state.sent_at === undefined ? { ...state, sent_at: sentAt } : state
      const overdue = now - sentAt >= (config.statusWindowMs ?? defaults.statusWindowMs)
      const inProgress = (pollAfterMs = config.pollIntervalMs): PublishStep => ({ _tag: "InProgress", state: tracked, pollAfterMs })

      const asked = yield* takeCall(input.account, "status").pipe(
        Effect.andThen(fetchStatus(state, session).pipe(closingWindow(input.account, "status"))),
        Effect.result
      )
      if (Result.isFailure(asked)) {
        const f = asked.failure
        // The account's window is full: asked again once it has room, not counted as a failure.
        if (f.retryAt !== undefined) return inProgress(Math.max(0, f.retryAt - now))
        if (overdue && f.needsReconnect !== true) return yield* statusOverdue(input, session, tracked, sentAt)
        return yield* Effect.fail(f)
      }
      const response = asked.success
      const data = field(response.json, "data")
      const status = stringField(data, "status") ?? ""

      if (status === "SEND_TO_USER_INBOX") {
        return { _tag: "Published", platformPostId: state.publish_id, permalink: null, state: tracked }
      }
      if (status === "PUBLISH_COMPLETE") {
        const postId = publicPostId(response.text)
        if (postId !== undefined) {
          return {
            _tag: "Published",
            platformPostId: postId,
            permalink: state.username === null ? null : permalink(state.username, postId, state.photo === true),
            state: { ...tracked, post_id: postId }
          }
        }
        // Published; the public id waits for moderation, and the permalink is filled in later.
        return {
          _tag: "Published",
          platformPostId: state.publish_id,
          permalink: null,
          permalinkPending: state.username !== null,
          state: tracked
        }
      }
      if (status === "FAILED") return yield* Effect.fail(publishFailed(input, state, stringField(data, "fail_reason") ?? "unknown", now))
      // PROCESSING_DOWNLOAD, PROCESSING_UPLOAD, and any status TikTok adds later: not terminal,
      // for a bounded time.
      if (overdue) return yield* statusOverdue(input, session, tracked, sentAt)
      return inProgress()
    })

  const publish: TikTok["publish"] = (input) =>
    Effect.gen(function* () {
      const session = yield* openSession(input.account)
      const step = Effect.gen(function* () {
        if (input.state === null || input.state === undefined) return yield* start(input, session)
        const state = yield* decodeState(input.state)
        // An init whose answer was lost: only looked for, never sent again.
        if (!("publish_id" in state)) return yield* recoverInit(input, session, state)
        return yield* checkStatus(input, state, session)
      })
      return yield* TokenSession.withCredentials(session, step)
    }).pipe(
      // A failure keeps the resume state unless it said otherwise.
      Effect.mapError((f) => (f.state === undefined ? amend(f, { state: input.state ?? null }) : f)),
      Spans.withSpan("platforms.shortvideo.publish")
    )

  const creatorInfo: TikTok["creatorInfo"] = (account) =>
    Effect.gen(function* () {
      const session = yield* openSession(account)
      return yield* TokenSession.withCredentials(session, fetchCreatorInfo(session))
    }).pipe(Spans.withSpan("platforms.shortvideo.creatorInfo"))

  const lookUpPermalink: TikTok["permalink"] = (input) =>
    Effect.gen(function* () {
      const decoded = yield* decodeState(input.state)
      // A post found among the creator's videos had its permalink from the start.
      if (!("publish_id" in decoded)) return { _tag: "Never" } satisfies PermalinkLookup
      const state = decoded
      const username = state.username
      if (username === null) return { _tag: "Never" } satisfies PermalinkLookup
      const session = yield* openSession(input.account)
      const lookup = Effect.gen(function* () {
        // The backfill shares the account's 30 status fetches a minute with publishing: no room, ask later.
        if ((yield* pacer.take(`${input.account.id}:status`, callLimits.status)) !== undefined) {
          return { _tag: "NotYet" } satisfies PermalinkLookup
        }
        const response = yield* fetchStatus(state, session).pipe(closingWindow(input.account, "status"))
        const status = stringField(field(response.json, "data"), "status")
        const postId = publicPostId(response.text)
        if (status === "PUBLISH_COMPLETE" && postId !== undefined) {
          return {
            _tag: "Found",
            permalink: permalink(username, postId, state.photo === true),
            platformPostId: postId,
            state: { ...state, post_id: postId }
          } satisfies PermalinkLookup
        }
        // Taken down in moderation: there will be no public post.
        if (status === "FAILED") return { _tag: "Never" } satisfies PermalinkLookup
        return { _tag: "NotYet" } satisfies PermalinkLookup
      })
      return yield* TokenSession.withCredentials(session, lookup)
    }).pipe(Spans.withSpan("platforms.shortvideo.permalink"))

  return { publish, creatorInfo, permalink: lookUpPermalink }
}
