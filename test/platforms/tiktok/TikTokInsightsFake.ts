/**
 * A fake of the TikTok Display API reads analytics makes, in TikTok's `{data, error}` envelope:
 *
 * - `POST /v2/video/query/?fields=…` with `{"filters": {"video_ids": [...]}}` (scope
 *   `video.list`, at most 20 ids, else 400 `invalid_param`): the creator's videos among the ids,
 *   with the fields asked (https://developers.tiktok.com/doc/tiktok-api-v2-video-query); a
 *   deleted video is simply not returned.
 * - `GET /v2/user/info/?fields=…` (scope `user.info.stats` for the counts,
 *   https://developers.tiktok.com/doc/tiktok-api-v2-get-user-info).
 * - `POST /v2/oauth/token/` with `grant_type=refresh_token`: a new access token and a rotated
 *   refresh token; the refresh token just spent is refused from then on (400 `invalid_grant`),
 *   as TikTok does (https://developers.tiktok.com/doc/oauth-user-access-token-management).
 * - `POST /v2/post/publish/creator_info/query/`: the creator, for publishing's first call.
 *
 * A scope the token lacks answers 401 `scope_not_authorized`; an unknown token 401
 * `access_token_invalid`; `rateLimited` answers 429 `rate_limit_exceeded`
 * (https://developers.tiktok.com/doc/tiktok-api-v2-error-handling).
 */
import { Effect, type Scope } from "effect"
import { type FakeReply, type FakeServer, start } from "../fakes/FakeServer.ts"

/** A video's counts. */
export interface InsightVideo {
  view_count: number
  like_count: number
  comment_count: number
  share_count: number
}

/** The fake and its knobs. */
export interface TikTokInsightsFake extends FakeServer {
  accessToken: string
  refreshToken: string
  /** The scopes of the token. */
  scopes: Set<string>
  readonly videos: Map<string, InsightVideo>
  user: { follower_count: number; following_count: number; likes_count: number; video_count: number }
  /** The next calls answer 429 `rate_limit_exceeded`. */
  rateLimited: number
}

const envelope = (status: number, data: unknown, code = "ok", message = ""): FakeReply => ({
  status,
  json: { data, error: { code, message, log_id: "20261205150000ABCDEF0123456789" } }
})

/** Starts the fake. */
export const make = (): Effect.Effect<TikTokInsightsFake, never, Scope.Scope> =>
  Effect.suspend(() => {
    let fake: TikTokInsightsFake
    let issued = 0
    return Effect.map(
      start({
        route: (request) =>
          ({
            "/v2/video/query/": "video_query",
            "/v2/user/info/": "user_info",
            "/v2/oauth/token/": "token",
            "/v2/post/publish/creator_info/query/": "creator_info"
          })[request.path] ?? "unknown",
        handle: (route, request) => {
          if (route === "token") {
            if (request.params.refresh_token !== fake.refreshToken) return { status: 400, json: { error: "invalid_grant", error_description: "Refresh token is invalid or expired." } }
            issued += 1
            fake.accessToken = `act.refreshed${issued}`
            fake.refreshToken = `rft.rotated${issued}`
            return { status: 200, json: { access_token: fake.accessToken, refresh_token: fake.refreshToken, expires_in: 7200, refresh_expires_in: 31_536_000, open_id: "open-1", scope: [...fake.scopes].join(","), token_type: "Bearer" } }
          }
          if (request.headers.authorization !== `Bearer ${fake.accessToken}`) {
            return envelope(401, {}, "access_token_invalid", "The access token is invalid or not found in the request.")
          }
          if (fake.rateLimited > 0) {
            fake.rateLimited -= 1
            return envelope(429, {}, "rate_limit_exceeded", "The API rate limit was exceeded. Please try again later.")
          }
          const fields = (request.params.fields ?? "").split(",")
          const pick = (all: Record<string, unknown>) => Object.fromEntries(Object.entries(all).filter(([k]) => fields.includes(k)))
          const scopeMissing = (scope: string) =>
            fake.scopes.has(scope) ? undefined : envelope(401, {}, "scope_not_authorized", "The user did not authorize the scope required for completing this request.")
          if (route === "video_query") {
            const refused = scopeMissing("video.list")
            if (refused !== undefined) return refused
            const ids = (request.json as { filters?: { video_ids?: Array<string> } } | undefined)?.filters?.video_ids ?? []
            if (ids.length === 0 || ids.length > 20) return envelope(400, {}, "invalid_param", "video_ids must hold 1 to 20 ids.")
            const videos = ids.filter((id) => fake.videos.has(id)).map((id) => pick({ id, ...fake.videos.get(id)! }))
            return envelope(200, { videos, cursor: 0, has_more: false })
          }
          // Publishing's first call (https://developers.tiktok.com/doc/content-posting-api-reference-query-creator-info),
          // so a test can run publishing and analytics on one account's tokens.
          if (route === "creator_info") {
            return envelope(200, {
              creator_avatar_url: "https://p16.tiktokcdn.com/maya.jpeg",
              creator_username: "maya.bakes",
              creator_nickname: "Maya Bakes",
              privacy_level_options: ["PUBLIC_TO_EVERYONE", "SELF_ONLY"],
              comment_disabled: false,
              duet_disabled: false,
              stitch_disabled: false,
              max_video_post_duration_sec: 300
            })
          }
          if (route === "user_info") {
            const refused = scopeMissing("user.info.stats")
            if (refused !== undefined) return refused
            return envelope(200, { user: pick({ open_id: "open-1", display_name: "Maya", ...fake.user }) })
          }
          return envelope(404, {}, "not_found", "Not found.")
        }
      }),
      (server) => {
        fake = Object.assign(server, {
          accessToken: "act.first",
          refreshToken: "rft.first",
          scopes: new Set(["user.info.basic", "video.publish", "video.list", "user.info.stats"]),
          videos: new Map<string, InsightVideo>(),
          user: { follower_count: 12_400, following_count: 88, likes_count: 310_000, video_count: 142 },
          rateLimited: 0
        })
        return fake
      }
    )
  })
