/**
 * A fake of TikTok's Content Posting API (platforms.md, "TikTok Content Posting API"): the
 * `{data, error}` envelope, creator_info with its HTTP-200 "cannot post now" errors, direct and
 * inbox PULL_FROM_URL init, statuses that advance per fetch, int64 post ids held back by
 * moderation (for a number of fetches, or until released), per-token rate limits per minute, the
 * daily cap, at most 5 pending inbox shares, and the OAuth refresh grant with rotating refresh
 * tokens.
 *
 * The Display API's `POST /v2/video/list/` (scope `video.list`) lists the creator's public videos
 * newest first, `max_count` (at most 20) at a time, older pages through the `cursor` (the
 * `create_time` of the last video, in milliseconds), with the fields asked in `fields`. A direct
 * post to `PUBLIC_TO_EVERYONE` appears there once TikTok published it (after
 * {@link TikTokFake.listHiddenFor} listings); inbox drafts and non-public posts never do. Init
 * answers are lost deterministically with {@link TikTokFake.loseInitAnswers}: the publish is
 * made, the connection closes.
 *
 * Photo posts (`POST /v2/post/publish/content/init/`, `media_type` PHOTO, `post_mode` DIRECT_POST
 * or MEDIA_UPLOAD) are held to the photo post reference
 * (https://developers.tiktok.com/doc/content-posting-api-reference-photo-post): PULL_FROM_URL
 * only, 1 to 35 `photo_images`, a `photo_cover_index` among them, a `title` of at most 90 UTF-16
 * runes and a `description` of at most 4,000, else 400 `invalid_param`. Each image is pulled: one
 * that is not JPEG or WebP (media transfer guide, "Image restrictions") ends the publish FAILED
 * with `file_format_check_failed` (Get Post Status, "Fail reasons"). A video's `title` over 2,200
 * UTF-16 runes (direct post reference) is 400 `invalid_param` too.
 */
import { Effect, type Scope } from "effect"
import { type FakeReply, type FakeRequest, type FakeServer, start } from "../fakes/FakeServer.ts"

/** The creator as creator_info describes them. */
export interface FakeCreator {
  creator_username: string
  creator_nickname: string
  privacy_level_options: Array<string>
  comment_disabled: boolean
  duet_disabled: boolean
  stitch_disabled: boolean
  max_video_post_duration_sec: number
}

interface Publish {
  readonly id: string
  readonly mode: "direct" | "inbox"
  /** A photo post (content/init). */
  readonly photo: boolean
  /** A fail reason of its own (an image TikTok cannot take), before the fake's `failReason`. */
  readonly failReason: string | null
  readonly body: unknown
  polls: number
  postId: string
  /** When TikTok made it (epoch milliseconds). */
  readonly createdAt: number
  /** Listings of video.list that have not shown it yet. */
  hiddenFor: number
}

/** A public video on the creator's profile, as video.list describes it. */
export interface FakeVideo {
  readonly id: string
  /** Epoch seconds. */
  readonly create_time: number
  readonly title: string
  readonly video_description: string
  readonly share_url: string
}

/** The fake and the knobs a test turns. */
export interface TikTokFake extends FakeServer {
  readonly clientKey: string
  readonly clientSecret: string
  /** The valid access and refresh tokens right now. */
  accessToken: string
  refreshToken: string
  /** The refresh token no longer works (180 days passed, or the person revoked the app). */
  refreshRevoked: boolean
  creator: FakeCreator
  /** creator_info answers HTTP 200 with this error code: the creator cannot post now. */
  creatorCannotPost: string | null
  /** Status fetches a publish stays in PROCESSING_DOWNLOAD. */
  pollsBeforeComplete: number
  /** Status fetches after PUBLISH_COMPLETE before the public post id appears (moderation). */
  pollsBeforePostId: number
  /** Moderation holds every public post id back, whatever the polls, until a test sets it false. */
  postIdHeld: boolean
  /** The publish ends FAILED with this fail_reason. */
  failReason: string | null
  /**
   * The domains or URL prefixes verified in the app's settings for PULL_FROM_URL; an init whose
   * `video_url` starts with none of them answers 403 `url_ownership_unverified`
   * (https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide#pull_from_url).
   * `null` (the default): the operator verified the server's address, every address passes.
   */
  verifiedUrlPrefixes: Array<string> | null
  /**
   * The MIME type TikTok finds when it pulls a media address; default: from the address's
   * extension (`.png` is `image/png`, `.webp` `image/webp`, else `image/jpeg` for images).
   */
  contentTypeOf: (url: string) => string
  /** Direct posts allowed per day ("about 15"). */
  dailyCap: number
  /**
   * Requests per minute per token: init 6 (direct and inbox inits together), creator_info 20,
   * status 30; one more within any 60 s answers HTTP 429 `rate_limit_exceeded`, as TikTok does.
   */
  readonly rateLimits: Record<"init" | "creator_info" | "status", number>
  /** When each init (direct or inbox) reached the fake, on its clock, refused ones included. */
  readonly initTimes: Array<number>
  /** Publishes the fake accepted (direct and inbox). */
  readonly publishes: Array<Publish>
  /** Every access token the fake has issued, newest last. */
  readonly issuedAccessTokens: Array<string>
  /** The token was granted `video.list`; without it video.list answers 401 scope_not_authorized. */
  videoListScope: boolean
  /** Listings of video.list a new public video stays out of (processing, moderation). */
  listHiddenFor: number
  /** Videos posted on the creator's profile by other means (the app, other tools). */
  readonly otherVideos: Array<FakeVideo>
  /** Posts `count` videos by other means, each `caption(i)`, one second apart from `at` (epoch ms, default now). */
  postElsewhere(count: number, caption?: (i: number) => string, at?: number): void
  /** Makes the next `times` direct and the next `times` inbox init calls publish, then lose their answers. */
  loseInitAnswers(times?: number): void
  /** Every video video.list can show now, newest first. */
  readonly listedVideos: () => ReadonlyArray<FakeVideo>
}

/** A text's length in UTF-16 runes, as TikTok counts titles (a JavaScript string's length). */
const runes = (text: unknown): number => (typeof text === "string" ? text.length : 0)

const ok = (data: unknown): FakeReply => ({
  status: 200,
  json: { data, error: { code: "ok", message: "", log_id: "202611220102030405" } }
})

/** A TikTok error envelope. */
export const tiktokError = (status: number, code: string, message = code): FakeReply => ({
  status,
  json: { data: {}, error: { code, message, log_id: "202611220102030405" } }
})

/** The `log_id` TikTok puts in every answer, for support. */
const oauthLogId = "20261205074500C0FFEE0123456789"

const routeOf = (request: FakeRequest): string => {
  switch (request.path) {
    case "/v2/oauth/token/":
      return "token"
    case "/v2/post/publish/creator_info/query/":
      return "creator_info"
    case "/v2/post/publish/video/init/":
      return "init"
    case "/v2/post/publish/inbox/video/init/":
      return "inbox_init"
    case "/v2/post/publish/content/init/":
      return "content_init"
    case "/v2/post/publish/status/fetch/":
      return "status"
    case "/v2/video/list/":
      return "video_list"
    default:
      return "unknown"
  }
}

/**
 * Starts the fake. `now` is its clock (default the real one): a test that moves the server's
 * clock moves the fake's with it, so TikTok's minute windows pass when the server's do.
 */
export const make = (options: { readonly now?: () => number } = {}): Effect.Effect<TikTokFake, never, Scope.Scope> =>
  // Each run of the effect is a fresh platform: no state leaks between tests.
  Effect.suspend(() => {
  let fake: TikTokFake
  let issued = 0
  const windows = new Map<string, Array<number>>()
  const clock = options.now ?? Date.now

  const rateLimited = (kind: "init" | "creator_info" | "status", token: string) => {
    const key = `${kind}:${token}`
    const now = clock()
    if (kind === "init") fake.initTimes.push(now)
    const recent = (windows.get(key) ?? []).filter((t) => now - t < 60_000)
    recent.push(now)
    windows.set(key, recent)
    return recent.length > fake.rateLimits[kind]
  }

  const bearer = (request: FakeRequest) => request.headers.authorization?.replace(/^Bearer /, "") ?? ""

  const refresh = (request: FakeRequest): FakeReply => {
    const p = request.params
    if (p.client_key !== fake.clientKey || p.client_secret !== fake.clientSecret) {
      // TikTok's OAuth error struct `{error, error_description, log_id}` and its categories
      // (https://developers.tiktok.com/doc/oauth-error-handling); the HTTP status is not documented.
      return { status: 400, json: { error: "invalid_client", error_description: "Client key or secret is incorrect.", log_id: oauthLogId } }
    }
    if (p.grant_type !== "refresh_token" || p.refresh_token !== fake.refreshToken || fake.refreshRevoked) {
      return { status: 400, json: { error: "invalid_grant", error_description: "Refresh token is invalid or expired.", log_id: oauthLogId } }
    }
    issued += 1
    fake.accessToken = `act.issued-${issued}`
    fake.refreshToken = `rft.issued-${issued}`
    fake.issuedAccessTokens.push(fake.accessToken)
    return {
      status: 200,
      json: {
        access_token: fake.accessToken,
        expires_in: 86400,
        open_id: "open-id-1",
        refresh_expires_in: 31536000,
        refresh_token: fake.refreshToken,
        scope: "video.publish,video.upload",
        token_type: "Bearer"
      }
    }
  }

  const statusOf = (publish: Publish): FakeReply => {
    publish.polls += 1
    const base = { fail_reason: "", uploaded_bytes: 0, downloaded_bytes: 0 }
    let data: Record<string, unknown>
    let postIds = "[]"
    if (publish.polls <= fake.pollsBeforeComplete) {
      data = { ...base, status: "PROCESSING_DOWNLOAD" }
    } else if (publish.failReason !== null || fake.failReason !== null) {
      data = { ...base, status: "FAILED", fail_reason: publish.failReason ?? fake.failReason }
    } else if (publish.mode === "inbox") {
      data = { ...base, status: "SEND_TO_USER_INBOX" }
    } else {
      data = { ...base, status: "PUBLISH_COMPLETE" }
      if (!fake.postIdHeld && publish.polls > fake.pollsBeforeComplete + fake.pollsBeforePostId) {
        postIds = `[${publish.postId}]`
      }
    }
    // int64 ids written as bare JSON numbers, as TikTok does: JSON.parse would round them.
    const json = JSON.stringify({ data, error: { code: "ok", message: "", log_id: "1" } })
    return { status: 200, raw: json.replace('"status":', `"publicaly_available_post_id":${postIds},"status":`) }
  }

  const init = (request: FakeRequest, mode: "direct" | "inbox"): FakeReply => {
    const postInfo = (request.json as { post_info?: Record<string, unknown> } | undefined)?.post_info
    const sourceInfo = (request.json as { source_info?: Record<string, unknown> } | undefined)?.source_info
    if (sourceInfo?.source !== "PULL_FROM_URL" || typeof sourceInfo.video_url !== "string") {
      return tiktokError(400, "invalid_param", "source_info is invalid")
    }
    const videoUrl = sourceInfo.video_url
    if (fake.verifiedUrlPrefixes !== null && !fake.verifiedUrlPrefixes.some((prefix) => videoUrl.startsWith(prefix))) {
      // The Direct Post and Upload references list it with HTTP 403; the media transfer guide says the
      // PULL_FROM_URL address must be under a verified domain or URL prefix.
      return tiktokError(403, "url_ownership_unverified", "Please review our URL ownership verification rules.")
    }
    if (runes(postInfo?.title) > 2200) {
      // Direct post reference: "The maximum length for title is 2200 UTF-16 runes".
      return tiktokError(400, "invalid_param", "The title exceeds the maximum length of 2200 UTF-16 runes.")
    }
    return accept(request, mode, postInfo, null)
  }

  /** The checks every init shares (privacy, daily cap, pending shares), then the publish. */
  const accept = (request: FakeRequest, mode: "direct" | "inbox", postInfo: Record<string, unknown> | undefined, failReason: string | null, photo = false): FakeReply => {
    if (mode === "direct") {
      if (postInfo === undefined || !fake.creator.privacy_level_options.includes(String(postInfo.privacy_level))) {
        return tiktokError(403, "privacy_level_option_mismatch")
      }
      if (fake.publishes.filter((p) => p.mode === "direct").length >= fake.dailyCap) {
        return tiktokError(403, "spam_risk_too_many_posts")
      }
    } else if (fake.publishes.filter((p) => p.mode === "inbox").length >= 5) {
      return tiktokError(403, "spam_risk_too_many_pending_share")
    }
    const n = fake.publishes.length + 1
    const publish: Publish = {
      id: `${photo ? "p" : "v"}_pub_url~v2-1.${7_300_000_000 + n}`,
      mode,
      photo,
      failReason,
      body: request.json,
      polls: 0,
      postId: `73012345678901234${String(n).padStart(2, "0")}`,
      createdAt: clock(),
      hiddenFor: fake.listHiddenFor
    }
    fake.publishes.push(publish)
    return ok({ publish_id: publish.id })
  }

  /**
   * A photo post's init, held to the photo post reference: the body's shape and limits, each
   * image under a verified prefix, then the checks every init shares. An image TikTok cannot take
   * fails the publish later (it is pulled after the init answered).
   */
  const contentInit = (request: FakeRequest): FakeReply => {
    const body = (request.json ?? {}) as Record<string, unknown>
    const postInfo = body.post_info as Record<string, unknown> | undefined
    const sourceInfo = body.source_info as Record<string, unknown> | undefined
    if (body.media_type !== "PHOTO") return tiktokError(400, "invalid_param", "media_type is invalid. Currently only PHOTO is allowed.")
    if (body.post_mode !== "DIRECT_POST" && body.post_mode !== "MEDIA_UPLOAD") return tiktokError(400, "invalid_param", "post_mode is invalid.")
    if (postInfo === undefined || sourceInfo === undefined) return tiktokError(400, "invalid_param", "post_info and source_info are required.")
    // Photos are only pulled from a URL: FILE_UPLOAD is for videos.
    if (sourceInfo.source !== "PULL_FROM_URL") return tiktokError(400, "invalid_param", "source is invalid. Photos only support PULL_FROM_URL.")
    const images = sourceInfo.photo_images
    if (!Array.isArray(images) || images.length < 1 || images.length > 35 || !images.every((i) => typeof i === "string")) {
      return tiktokError(400, "invalid_param", "photo_images must hold 1 to 35 image URLs.")
    }
    const cover = sourceInfo.photo_cover_index
    if (typeof cover !== "number" || !Number.isInteger(cover) || cover < 0 || cover >= images.length) {
      return tiktokError(400, "invalid_param", "photo_cover_index is invalid.")
    }
    if (runes(postInfo.title) > 90) return tiktokError(400, "invalid_param", "The title exceeds the maximum length of 90 UTF-16 runes.")
    if (runes(postInfo.description) > 4000) {
      return tiktokError(400, "invalid_param", "The description exceeds the maximum length of 4000 UTF-16 runes.")
    }
    const urls = images as Array<string>
    if (fake.verifiedUrlPrefixes !== null && !urls.every((url) => fake.verifiedUrlPrefixes!.some((prefix) => url.startsWith(prefix)))) {
      return tiktokError(403, "url_ownership_unverified", "Please review our URL ownership verification rules.")
    }
    const unfit = urls.some((url) => !["image/jpeg", "image/webp"].includes(fake.contentTypeOf(url)))
    return accept(request, body.post_mode === "DIRECT_POST" ? "direct" : "inbox", postInfo, unfit ? "file_format_check_failed" : null, true)
  }

  const share = (id: string) =>
    `https://www.tiktok.com/@${fake.creator.creator_username}/video/${id}?utm_campaign=tt4d_open_api&utm_source=aw41`

  /** What video.list shows of a publish: only a published public direct post. */
  const videoOf = (publish: Publish): FakeVideo | undefined => {
    const postInfo = (publish.body as { post_info?: Record<string, unknown> } | undefined)?.post_info
    if (publish.mode !== "direct" || postInfo?.privacy_level !== "PUBLIC_TO_EVERYONE" || fake.failReason !== null) return undefined
    if (publish.hiddenFor > 0 || fake.postIdHeld) return undefined
    const caption = String((publish.photo ? postInfo.description : postInfo.title) ?? "")
    return {
      id: publish.postId,
      create_time: Math.floor(publish.createdAt / 1000),
      title: caption,
      video_description: caption,
      share_url: share(publish.postId)
    }
  }

  const listed = (): ReadonlyArray<FakeVideo> =>
    [...fake.publishes.flatMap((p) => {
      const video = videoOf(p)
      return video === undefined ? [] : [video]
    }), ...fake.otherVideos].sort((a, b) => b.create_time - a.create_time || (a.id < b.id ? 1 : -1))

  const videoList = (request: FakeRequest): FakeReply => {
    if (!fake.videoListScope) return tiktokError(401, "scope_not_authorized", "The user did not authorize the scope required for completing this request.")
    const fields = (request.query.get("fields") ?? "").split(",").filter((f) => f !== "")
    if (fields.length === 0) return tiktokError(400, "invalid_params", "fields is required")
    const body = (request.json ?? {}) as { max_count?: unknown; cursor?: unknown }
    const maxCount = body.max_count === undefined ? 10 : Number(body.max_count)
    if (!Number.isInteger(maxCount) || maxCount < 1 || maxCount > 20) return tiktokError(400, "invalid_params", "max_count must be 1 to 20")
    const cursor = body.cursor === undefined ? Number.POSITIVE_INFINITY : Number(body.cursor)
    const all = listed()
    for (const publish of fake.publishes) if (publish.hiddenFor > 0) publish.hiddenFor -= 1
    const older = all.filter((v) => v.create_time * 1000 < cursor)
    const page = older.slice(0, maxCount)
    const videos = page.map((v) => Object.fromEntries(fields.filter((f) => f in v).map((f) => [f, v[f as keyof FakeVideo]])))
    const last = page.at(-1)
    return ok({
      videos,
      cursor: last === undefined ? 0 : last.create_time * 1000,
      has_more: older.length > page.length
    })
  }

  const handle = (route: string, request: FakeRequest): FakeReply => {
    if (route === "token") return refresh(request)
    if (route === "unknown") return tiktokError(404, "not_found")
    const token = bearer(request)
    if (token !== fake.accessToken) return tiktokError(401, "access_token_invalid", "The access token is invalid or not found in the request.")
    if (route === "video_list") return videoList(request)
    const kind = route === "inbox_init" || route === "content_init" ? "init" : (route as "init" | "creator_info" | "status")
    if (rateLimited(kind, token)) return tiktokError(429, "rate_limit_exceeded")
    switch (route) {
      case "creator_info":
        return fake.creatorCannotPost === null ? ok(fake.creator) : tiktokError(200, fake.creatorCannotPost)
      case "init":
        return init(request, "direct")
      case "inbox_init":
        return init(request, "inbox")
      case "content_init":
        return contentInit(request)
      default: {
        const publish = fake.publishes.find((p) => p.id === request.params.publish_id)
        return publish === undefined ? tiktokError(400, "invalid_publish_id") : statusOf(publish)
      }
    }
  }

  return Effect.map(
    start({ route: routeOf, handle: (route, request) => handle(route, request) }),
    (server) => {
      fake = Object.assign(server, {
        clientKey: "client-key-1",
        clientSecret: "client-secret-1",
        accessToken: "act.initial",
        refreshToken: "rft.initial",
        refreshRevoked: false,
        creator: {
          creator_username: "maya.bakes",
          creator_nickname: "Maya Bakes",
          privacy_level_options: ["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "SELF_ONLY"],
          comment_disabled: false,
          duet_disabled: false,
          stitch_disabled: false,
          max_video_post_duration_sec: 300
        },
        creatorCannotPost: null,
        pollsBeforeComplete: 1,
        pollsBeforePostId: 0,
        postIdHeld: false,
        failReason: null,
        verifiedUrlPrefixes: null,
        contentTypeOf: (url: string) => {
          const path = url.split("?")[0]!.toLowerCase()
          if (path.endsWith(".mp4")) return "video/mp4"
          return path.endsWith(".png") ? "image/png" : path.endsWith(".webp") ? "image/webp" : "image/jpeg"
        },
        dailyCap: 15,
        rateLimits: { init: 6, creator_info: 20, status: 30 },
        initTimes: [],
        publishes: [],
        issuedAccessTokens: [],
        videoListScope: true,
        listHiddenFor: 0,
        otherVideos: [],
        postElsewhere(count: number, caption = (i: number) => `Another video ${i}`, at = clock()) {
          for (let i = 0; i < count; i++) {
            const id = `7299${String(fake.otherVideos.length + 1).padStart(15, "0")}`
            // One second apart from `at` on.
            const seconds = Math.floor(at / 1000) + i
            fake.otherVideos.push({
              id,
              create_time: seconds,
              title: caption(i),
              video_description: caption(i),
              share_url: share(id)
            })
          }
        },
        loseInitAnswers(times = 1) {
          server.faults.injectAfter("init", { lose: true }, times)
          server.faults.injectAfter("inbox_init", { lose: true }, times)
          server.faults.injectAfter("content_init", { lose: true }, times)
        },
        listedVideos: listed
      })
      return fake
    }
  )
  })
