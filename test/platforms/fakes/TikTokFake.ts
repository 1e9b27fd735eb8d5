/**
 * A fake of TikTok's Content Posting API (platforms.md, "TikTok Content Posting API"): the
 * `{data, error}` envelope, creator_info with its HTTP-200 "cannot post now" errors, direct and
 * inbox PULL_FROM_URL init, statuses that advance per fetch, int64 post ids held back by
 * moderation (for a number of fetches, or until released), per-token rate limits per minute, the
 * daily cap, at most 5 pending inbox shares, and the OAuth refresh grant with rotating refresh
 * tokens.
 */
import { Effect, type Scope } from "effect"
import { type FakeReply, type FakeRequest, type FakeServer, start } from "./FakeServer.ts"

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
  readonly body: unknown
  polls: number
  postId: string
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
  /** Direct posts allowed per day ("about 15"). */
  dailyCap: number
  /** Requests per minute per token: init 6, creator_info 20, status 30. */
  readonly rateLimits: Record<"init" | "creator_info" | "status", number>
  /** Publishes the fake accepted (direct and inbox). */
  readonly publishes: Array<Publish>
  /** Every access token the fake has issued, newest last. */
  readonly issuedAccessTokens: Array<string>
}

const ok = (data: unknown): FakeReply => ({
  status: 200,
  json: { data, error: { code: "ok", message: "", log_id: "202611220102030405" } }
})

/** A TikTok error envelope. */
export const tiktokError = (status: number, code: string, message = code): FakeReply => ({
  status,
  json: { data: {}, error: { code, message, log_id: "202611220102030405" } }
})

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
    case "/v2/post/publish/status/fetch/":
      return "status"
    default:
      return "unknown"
  }
}

/** Starts the fake. */
export const make = (): Effect.Effect<TikTokFake, never, Scope.Scope> =>
  // Each run of the effect is a fresh platform: no state leaks between tests.
  Effect.suspend(() => {
  let fake: TikTokFake
  let issued = 0
  const windows = new Map<string, Array<number>>()

  const rateLimited = (kind: "init" | "creator_info" | "status", token: string) => {
    const key = `${kind}:${token}`
    const now = Date.now()
    const recent = (windows.get(key) ?? []).filter((t) => now - t < 60_000)
    recent.push(now)
    windows.set(key, recent)
    return recent.length > fake.rateLimits[kind]
  }

  const bearer = (request: FakeRequest) => request.headers.authorization?.replace(/^Bearer /, "") ?? ""

  const refresh = (request: FakeRequest): FakeReply => {
    const p = request.params
    if (p.client_key !== fake.clientKey || p.client_secret !== fake.clientSecret) {
      return { status: 401, json: { error: "invalid_client", error_description: "Client key or secret is incorrect.", log_id: "1" } }
    }
    if (p.grant_type !== "refresh_token" || p.refresh_token !== fake.refreshToken || fake.refreshRevoked) {
      return { status: 400, json: { error: "invalid_grant", error_description: "Refresh token is invalid or expired.", log_id: "1" } }
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
    } else if (fake.failReason !== null) {
      data = { ...base, status: "FAILED", fail_reason: fake.failReason }
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
      id: `v_pub_url~v2-1.${7_300_000_000 + n}`,
      mode,
      body: request.json,
      polls: 0,
      postId: `73012345678901234${String(n).padStart(2, "0")}`
    }
    fake.publishes.push(publish)
    return ok({ publish_id: publish.id })
  }

  const handle = (route: string, request: FakeRequest): FakeReply => {
    if (route === "token") return refresh(request)
    if (route === "unknown") return tiktokError(404, "not_found")
    const token = bearer(request)
    if (token !== fake.accessToken) return tiktokError(401, "access_token_invalid", "The access token is invalid or not found in the request.")
    const kind = route === "inbox_init" ? "init" : (route as "init" | "creator_info" | "status")
    if (rateLimited(kind, token)) return tiktokError(429, "rate_limit_exceeded")
    switch (route) {
      case "creator_info":
        return fake.creatorCannotPost === null ? ok(fake.creator) : tiktokError(200, fake.creatorCannotPost)
      case "init":
        return init(request, "direct")
      case "inbox_init":
        return init(request, "inbox")
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
        dailyCap: 15,
        rateLimits: { init: 6, creator_info: 20, status: 30 },
        publishes: [],
        issuedAccessTokens: []
      })
      return fake
    }
  )
  })
